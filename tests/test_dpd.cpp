// Dissipative particle dynamics (kernels/common/dpd.hpp, solver/particles/dpd/dpd_cpu.hpp) against
// analytic values: HOOMD-blue's pair test, the Groot-Warren forces term by term, the pair random
// number's symmetry and moments, momentum conservation with the thermostat on, the thermostat's
// temperature and the equation of state measured with other thermostats.
#include <omp.h>

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "particles/dpd/dpd_cpu.hpp"
#include "support.hpp"

using namespace nbody::particles;

namespace {

// Two particles a distance r apart along x in a box of side 10, at rest.
template <class T>
DpdState<T> pair_state(double r) {
  DpdState<T> s = dpd_random_state<T>(2, {10, 10, 10}, 0.0, 1, 1);
  for (int a = 0; a < 3; ++a) s.pos[a * 2] = T(1), s.pos[a * 2 + 1] = T(1);
  s.pos[1] = T(1 + r);
  s.vel.assign(6, T(0));
  return s;
}

template <class T>
std::array<double, 3> total_momentum(const DpdState<T>& s) {
  std::array<double, 3> p{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (std::size_t i = 0; i < s.n; ++i) p[a] += double(s.vel[a * s.n + i]);
  return p;
}

}  // namespace

TEMPLATE_TEST_CASE("a_dpd_pair_at_r_0_1_with_rc_2_and_a_30_has_force_28_5_and_energy_13_5375_per_particle", "[dpd]",
                   float, double) {
  using T = TestType;
  DpdParameters p;
  p.rc = 2, p.a = {30}, p.gamma = 0, p.kT = 0;
  DpdState<T> s = pair_state<T>(0.1);
  DpdCpu<T> dpd(p, s);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  CHECK(s.force[0] == Approx(-28.5).epsilon(tol));  // particle 0 pushed away from particle 1 (at larger x)
  CHECK(s.force[1] == Approx(28.5).epsilon(tol));
  for (int a = 1; a < 3; ++a) {
    CHECK(s.force[a * 2] == 0);
    CHECK(s.force[a * 2 + 1] == 0);
  }
  // HOOMD-blue's per-particle energy is half the pair's: a r_c w^2 / 2 = 27.075 for the pair.
  CHECK(dpd.diagnostics().potential / 2 == Approx(13.5375).epsilon(tol));
}

TEST_CASE("the_dpd_pair_force_has_groot_warrens_dissipative_and_random_terms", "[dpd]") {
  const double a = 25, gamma = 4.5, sigma_per_sqrt_dt = 30, rc = 1;
  const DpdPair<double> pair{a, gamma, sigma_per_sqrt_dt, rc};
  // d = r_i - r_j in a general direction, r < rc; v = v_i - v_j.
  const double d[3] = {0.3, -0.2, 0.4}, v[3] = {-1.0, 0.5, 0.25}, theta = 0.7;
  const double r = std::sqrt(0.09 + 0.04 + 0.16), w = 1 - r / rc;
  const double e_dot_v = (d[0] * v[0] + d[1] * v[1] + d[2] * v[2]) / r;
  const double expected = a * w - gamma * w * w * e_dot_v + sigma_per_sqrt_dt * w * theta;
  double f[3] = {0, 0, 0};
  pair.add_force(d[0], d[1], d[2], r * r, v[0], v[1], v[2], theta, f);
  for (int k = 0; k < 3; ++k) CHECK(f[k] == Approx(expected * d[k] / r).epsilon(1e-14));
  // The same pair seen from j: every term changes sign exactly.
  double g[3] = {0, 0, 0};
  pair.add_force(-d[0], -d[1], -d[2], r * r, -v[0], -v[1], -v[2], theta, g);
  for (int k = 0; k < 3; ++k) CHECK(g[k] == -f[k]);
  // Coincident particles exert no force (no direction).
  double h[3] = {0, 0, 0};
  pair.add_force(0, 0, 0, 0, v[0], v[1], v[2], theta, h);
  CHECK((h[0] == 0 && h[1] == 0 && h[2] == 0));
}

TEMPLATE_TEST_CASE("the_dpd_pair_random_number_is_symmetric_with_zero_mean_and_unit_variance", "[dpd]", float, double) {
  using T = TestType;
  CHECK(pair_random<T>(3, 17, 5, 42) == pair_random<T>(17, 3, 5, 42));
  CHECK(pair_random<T>(3, 17, 5, 42) != pair_random<T>(3, 17, 6, 42));
  CHECK(pair_random<T>(3, 17, 5, 42) != pair_random<T>(3, 17, 5, 43));
  CHECK(pair_random<T>(3, 17, 5, 42) != pair_random<T>(3, 18, 5, 42));
  CHECK(pair_random<T>(3, 17, std::uint64_t(1) << 32, 42) != pair_random<T>(3, 17, 0, 42));  // the step's high word counts
  double sum = 0, sum2 = 0, most = 0;
  const int draws = 200000;
  for (int k = 0; k < draws; ++k) {
    const double x = pair_random<T>(static_cast<std::uint32_t>(k % 1000), static_cast<std::uint32_t>(k / 1000 + 1000), 7, 1);
    sum += x, sum2 += x * x, most = std::max(most, std::abs(x));
  }
  CHECK(std::abs(sum / draws) < 0.01);  // 4.5 standard errors
  CHECK(sum2 / draws == Approx(1.0).epsilon(0.01));
  CHECK(most < std::sqrt(3.0));
  CHECK(most > 1.7);
}

TEMPLATE_TEST_CASE("dpd_conserves_total_momentum_to_round_off_over_1000_steps_with_the_thermostat_on", "[dpd]", float,
                   double) {
  using T = TestType;
  DpdParameters p;  // a = 25, gamma = 4.5, kT = 1, dt = 0.01
  p.species = 2, p.a = {25, 40, 40, 25};
  DpdState<T> s = dpd_random_state<T>(192, {4, 4, 4}, 1.0, 2, 7);  // rho = 3
  DpdCpu<T> dpd(p, s);
  const std::array<double, 3> start = total_momentum(s);
  for (int k = 0; k < 1000; ++k) dpd.step();
  const std::array<double, 3> end = total_momentum(s);
  // Unpaired random kicks would move it by about sigma sqrt(dt) sqrt(pairs x steps), some 10^2;
  // paired ones leave only the rounding of the force sums.
  const double change = std::hypot(end[0] - start[0], end[1] - start[1], end[2] - start[2]);
  INFO("total momentum changed by " << change);
  CHECK(change < (std::is_same_v<T, float> ? 1e-3 : 1e-11));
  CHECK(s.step == 1000);
}

TEST_CASE("dpd_at_a_25_rho_3_kt_1_has_the_thermostats_temperature_and_the_measured_pressure", "[dpd]") {
  DpdParameters p;  // a = 25, gamma = 4.5, kT = 1, dt = 0.01, lambda = 0.65
  DpdState<double> s = dpd_random_state<double>(648, {6, 6, 6}, 1.0, 1, 3);  // rho = 3
  DpdCpu<double> dpd(p, s);
  for (int k = 0; k < 300; ++k) dpd.step();  // equilibrate
  double kT = 0, pressure = 0;
  const int samples = 2000;
  for (int k = 0; k < samples; ++k) {
    dpd.step();
    const DpdDiagnostics d = dpd.diagnostics();
    kT += d.kT / samples, pressure += d.pressure / samples;
  }
  // Groot and Warren's fit p = rho kT + 0.101 a rho^2 (25.725 here) was made over rho = 2..8 and
  // is 9 % high at rho = 3; the pressure measured there with two other thermostats (Lowe's and
  // Shardlow's, Allen and Tildesley's DPD example: 23.637(2), 23.635(2)) is the reference.
  INFO("<kT> = " << kT << ", <p> = " << pressure);
  CHECK(kT == Approx(1.0).epsilon(0.02));
  CHECK(pressure == Approx(23.636).epsilon(0.01));
}

TEST_CASE("a_dpd_run_is_the_same_bit_for_bit_on_one_and_two_threads", "[dpd]") {
  const auto run = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    DpdParameters p;
    DpdState<float> s = dpd_random_state<float>(375, {5, 5, 5}, 1.0, 1, 11);
    DpdCpu<float> dpd(p, s);
    for (int k = 0; k < 50; ++k) dpd.step();
    omp_set_num_threads(before);
    return s;
  };
  const DpdState<float> one = run(1), two = run(2);
  CHECK(one.pos == two.pos);
  CHECK(one.vel == two.vel);
}

TEST_CASE("dpd_parameters_that_make_no_sense_are_refused_with_a_clear_message", "[dpd]") {
  DpdState<double> s = dpd_random_state<double>(10, {3, 3, 3}, 1.0, 1, 1);
  const auto refused = [&](DpdParameters p, const char* what) {
    CHECK_THROWS_WITH(DpdCpu<double>(p, s), Catch::Contains(what));
  };
  DpdParameters p;
  p.rc = 0, refused(p, "cut-off");
  p = {}, p.dt = -1, refused(p, "time step");
  p = {}, p.gamma = -1, refused(p, "gamma");
  p = {}, p.species = 2, refused(p, "species x species");
  p = {}, p.species = 2, p.a = {25, 30, 31, 25}, refused(p, "symmetric");
  p = {}, p.body_force = {{0, 0, -1}, {0, 0, -1}}, refused(p, "one vector per species");
  DpdState<double> two = dpd_random_state<double>(10, {3, 3, 3}, 1.0, 2, 1);
  CHECK_THROWS_WITH(DpdCpu<double>(DpdParameters{}, two), Catch::Contains("species"));
}

TEST_CASE("nbody_dpd_in_two_parts_through_its_checkpoint_ends_bit_for_bit_where_one_run_ends", "[dpd][cli]") {
  const std::filesystem::path dir = nbody::test::scratch("dpd_parts");
  const std::string model = "dpd --box 4,5,6 --species 2 --a 25,40,40,25 --body-force 0,0,-0.1,0,0,0.1 --layout layers "
                            "--precision float --seed 5";
  REQUIRE(nbody::test::run_nbody(dir, model + " --steps 60 --final-state one.csv --diagnostics one_diag.csv").exit_code == 0);
  REQUIRE(nbody::test::run_nbody(dir, model + " --steps 60 --stop-at 25 --checkpoint c.bin --final-state part1.csv").exit_code == 0);
  CHECK(nbody::test::read(dir / "part1.csv").find("\n0.25") != std::string::npos);  // stopped at step 25
  // The model's flags come from the checkpoint; one given with another value is refused.
  CHECK(nbody::test::run_nbody(dir, "dpd --resume c.bin --steps 60 --gamma 3 --final-state bad.csv").exit_code == 2);
  CHECK(!std::filesystem::exists(dir / "bad.csv"));
  REQUIRE(nbody::test::run_nbody(dir, "dpd --resume c.bin --steps 60 --final-state two.csv --diagnostics two_diag.csv")
              .exit_code == 0);
  CHECK(nbody::test::read(dir / "one.csv") == nbody::test::read(dir / "two.csv"));
  // The second part's samples are the whole run's from where it starts.
  const std::string one = nbody::test::read(dir / "one_diag.csv"), two = nbody::test::read(dir / "two_diag.csv");
  CHECK(one.substr(one.size() - 200) == two.substr(two.size() - 200));
  CHECK(std::filesystem::exists(dir / "two.meta.json"));
}
