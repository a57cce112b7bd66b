// Compensated summation: the Neumaier sum itself, compensated state updates (--compensated)
// against the circular orbit in float, and compensated force sums against sums formed in double.
#include <catch2/catch.hpp>

#include "common/compensated.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

TEST_CASE("compensated_sum_keeps_the_bits_plain_summation_loses", "[diagnostics]") {
  CompensatedSum<double> sum;
  double plain = 0;
  sum += 1.0;
  plain += 1.0;
  for (int i = 0; i < 1000000; ++i) {
    sum += 1e-16;
    plain += 1e-16;
  }
  sum += -1.0;
  plain += -1.0;
  CHECK(plain == 0.0);  // every 1e-16 was lost against 1.0
  CHECK(sum.value() == Approx(1e-10).epsilon(1e-9));
}

TEST_CASE("compensated_state_updates_keep_float_yoshida6_100_times_closer_to_the_circular_orbit", "[precision][compensated]") {
  // 40000 steps of P/2000 in float: the truncation error is ~1e-13, so what remains is the
  // round-off of the updates x + h v, a random walk of ~sqrt(steps) ulps (Brouwer), which the
  // carried rounding errors remove.
  const IcParams ic = kepler("0");
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  auto run = [&](bool compensated) {
    StepOptions<float> opt;
    opt.dt = P / 2000;
    opt.compensated = compensated;
    test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", "yoshida6", opt);
    sim.run(20 * P, 20 * P, [](const auto&) {});
    const State<double> ref = kepler_state_at<double>(ic, 20.0 * double(P));
    double worst = 0;
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(double(sim.state().pos(k)[1]) - ref.pos(k)[1]));
    return worst;
  };
  const double plain = run(false), compensated = run(true);
  INFO("position error: plain " << plain << ", compensated " << compensated);
  CHECK(compensated * 100 < plain);
  CHECK(compensated < 1e-5);
}

TEST_CASE("compensated_force_sums_are_closer_to_the_exact_sum_than_plain_ones_in_float", "[precision][compensated][forces]") {
  // 2000 bodies: a plain float sum of 2000 pair terms loses ~sqrt(2000) ulps; the Neumaier sum
  // is correctly rounded to within an ulp or two. Judged against the sums formed in double.
  IcParams ic;
  ic.name = "plummer";
  ic.n = 2000;
  const State<float> s = make_initial_state<float>(ic);
  auto forces = [&](const auto& state, bool compensated) {
    using R = typename std::decay_t<decltype(state.y)>::value_type;
    ForceLaw<R> law;
    law.compensated = compensated;
    std::vector<R> acc(3 * state.size());
    make_engine<R>("simple", law)->accelerations(state.y.data(), state.mass.data(), state.size(), acc.data());
    return acc;
  };
  // The reference: the float inputs, summed in double (only the summation differs).
  State<double> widened(s.size());
  for (std::size_t v = 0; v < s.y.size(); ++v) widened.y[v] = s.y[v];
  for (std::size_t i = 0; i < s.size(); ++i) widened.mass[i] = s.mass[i];
  const auto ref = forces(widened, false);
  auto error = [&](const std::vector<float>& a) {
    double sum = 0;
    for (std::size_t k = 0; k < a.size(); ++k) sum += std::abs(double(a[k]) - ref[k]) / (std::abs(ref[k]) + 1e-30);
    return sum / double(a.size());
  };
  const double plain = error(forces(s, false)), compensated = error(forces(s, true));
  INFO("mean relative error: plain " << plain << ", compensated " << compensated);
  CHECK(compensated * 3 < plain);
  // The other engine that offers compensation agrees exactly.
  ForceLaw<float> law;
  law.compensated = true;
  std::vector<float> acc(3 * s.size());
  make_engine<float>("openmp", law)->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());
  CHECK(acc == forces(s, true));
}
