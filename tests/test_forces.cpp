// The force law and the engines.
#include <catch2/catch.hpp>
#include <cmath>

#include "engines/engine.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

std::vector<double> accelerations(const std::string& engine, const State<double>& s, const ForceLaw<double>& law) {
  std::vector<double> a(3 * s.size());
  make_engine<double>(engine, law)->accelerations(s.y.data(), s.mass.data(), s.size(), a.data());
  return a;
}

}  // namespace

TEST_CASE("force_loop_conserves_momentum_to_roundoff", "[forces]") {
  const State<double> s = plummer<double>(300, 7);
  for (const char* engine : {"simple", "openmp"}) {
    const auto a = accelerations(engine, s, ForceLaw<double>{});
    for (int k = 0; k < 3; ++k) {
      double total = 0, scale = 0;
      for (std::size_t i = 0; i < s.size(); ++i) total += s.mass[i] * a[k * s.size() + i], scale += std::abs(s.mass[i] * a[k * s.size() + i]);
      INFO(engine << " component " << k);
      CHECK(std::abs(total) < 1e-13 * scale);
    }
  }
}

TEST_CASE("simple_and_openmp_agree_to_1e-14_for_any_n", "[forces]") {
  ForceLaw<double> softened;
  softened.eps2 = 1e-4;
  ForceLaw<double> clamped;
  clamped.rmin2 = 1e-2;  // large enough that some pairs are inside the clamp
  clamped.G = 2.5;
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(17), std::size_t(257), std::size_t(1031)}) {
    const State<double> s = plummer<double>(n, n);
    for (const auto& law : {ForceLaw<double>{}, softened, clamped}) {
      const auto ref = accelerations("simple", s, law);
      const auto a = accelerations("openmp", s, law);
      INFO("n = " << n << ", eps2 = " << law.eps2 << ", rmin2 = " << law.rmin2);
      if (n > 1) CHECK(force_difference(s, a, ref, law) < 1e-14);
      for (double x : a) CHECK(std::isfinite(x));
    }
  }
}

TEST_CASE("two_bodies_attract_by_newtons_law", "[forces]") {
  State<double> s(2);
  s.mass = {2.0, 3.0};
  s.pos(0)[1] = 2.0;  // body 1 at x = 2
  ForceLaw<double> law;
  law.G = 1.5;
  const auto a = accelerations("simple", s, law);
  CHECK(a[0] == Approx(1.5 * 3.0 / 4.0));   // body 0 pulled towards +x by m1
  CHECK(a[1] == Approx(-1.5 * 2.0 / 4.0));  // body 1 towards -x by m0
  CHECK(a[2] == 0.0);
  CHECK(a[4] == 0.0);
}

TEST_CASE("clamp_makes_the_force_linear_inside_r_min", "[forces]") {
  State<double> s(2);
  s.mass = {1.0, 1.0};
  s.pos(0)[1] = 0.5e-4;  // half of r_min
  ForceLaw<double> law;
  law.rmin2 = 1e-8;  // seed S0's NBODY_MIN_R
  const auto a = accelerations("simple", s, law);
  CHECK(a[0] == Approx(0.5e-4 / 1e-12));  // m d / r_min^3
}

TEST_CASE("pair_potential_is_the_antiderivative_of_the_force", "[forces]") {
  // -d/dr of the potential kernel equals the magnitude of the force kernel, inside and outside the
  // clamp and with softening: dE then measures the integrator, not an inconsistent potential.
  for (auto [eps2, rmin2] : {std::pair{0.0, 0.0}, std::pair{0.01, 0.0}, std::pair{0.0, 0.04}, std::pair{0.01, 0.04}}) {
    for (double r : {0.05, 0.1, 0.17, 0.3, 1.0}) {
      const double h = 1e-6;
      const double k_plus = pair_potential_kernel(r + h, 0.0, 0.0, eps2, rmin2);
      const double k_minus = pair_potential_kernel(r - h, 0.0, 0.0, eps2, rmin2);
      double ax = 0, ay = 0, az = 0;
      accumulate_interaction(0.0, 0.0, 0.0, r, 0.0, 0.0, 1.0, eps2, rmin2, ax, ay, az);
      INFO("eps2 " << eps2 << " rmin2 " << rmin2 << " r " << r);
      CHECK((k_plus - k_minus) / (2 * h) == Approx(-ax).epsilon(1e-7));
    }
  }
}

TEST_CASE("pair_interaction_gives_each_body_its_one_sided_term", "[forces]") {
  // cuda-pairs' accumulate_pair_interaction against accumulate_interaction from each side, with
  // softening and inside and outside the clamp: the same terms to a few ulp, opposite momenta.
  const double xi = 0.3, yi = -0.2, zi = 0.1, mi = 0.7, xj = -0.4, yj = 0.5, zj = 0.25, mj = 1.9;
  for (const auto& [eps2, rmin2] : {std::pair{0.0, 0.0}, std::pair{1e-2, 0.0}, std::pair{0.0, 4.0}}) {
    double ax = 0, ay = 0, az = 0, bx = 0, by = 0, bz = 0;
    accumulate_pair_interaction(xi, yi, zi, mi, xj, yj, zj, mj, eps2, rmin2, ax, ay, az, bx, by, bz);
    double ex = 0, ey = 0, ez = 0, fx = 0, fy = 0, fz = 0;
    accumulate_interaction(xi, yi, zi, xj, yj, zj, mj, eps2, rmin2, ex, ey, ez);
    accumulate_interaction(xj, yj, zj, xi, yi, zi, mi, eps2, rmin2, fx, fy, fz);
    INFO("eps2 = " << eps2 << ", rmin2 = " << rmin2);
    for (const auto& [got, want] : {std::pair{ax, ex}, {ay, ey}, {az, ez}, {bx, fx}, {by, fy}, {bz, fz}})
      CHECK(std::abs(got - want) <= 1e-15 * std::abs(want));
    CHECK(std::abs(mi * ax + mj * bx) <= 1e-15 * std::abs(mi * ax));
  }
}

TEST_CASE("float_engines_agree_with_the_double_reference_to_float_accuracy", "[forces]") {
  const State<float> sf = plummer<float>(200, 1);
  State<double> sd(sf.size());
  for (std::size_t k = 0; k < sf.y.size(); ++k) sd.y[k] = sf.y[k];
  for (std::size_t i = 0; i < sf.size(); ++i) sd.mass[i] = sf.mass[i];
  const auto ref = accelerations("simple", sd, ForceLaw<double>{});
  for (const char* engine : {"simple", "openmp"}) {
    std::vector<float> a(3 * sf.size());
    make_engine<float>(engine, ForceLaw<float>{})->accelerations(sf.y.data(), sf.mass.data(), sf.size(), a.data());
    INFO(engine);
    CHECK(force_difference(sf, a, ref, ForceLaw<float>{}) < 1e-5);
  }
}

TEST_CASE("unknown_engine_names_the_valid_choices", "[forces]") {
  try {
    make_engine<double>("cuda", ForceLaw<double>{});
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("simple") && Catch::Contains("openmp"));
  }
}

TEST_CASE("engine_of_another_precision_says_where_it_runs", "[forces]") {
  CHECK_THROWS_WITH(make_engine<dd>("openmp-simd", ForceLaw<dd>{}),
                    Catch::Contains("does not run in dd (only in float, double)") && Catch::Contains("simple"));
  CHECK_THROWS_AS(make_engine<quad>("openmp-simd", ForceLaw<quad>{}), InputError);
}
