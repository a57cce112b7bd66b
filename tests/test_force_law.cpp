// The force law itself (common/interaction.hpp through the reference engine): Newton's law between
// two bodies, S0's clamp inside r_min, the pair potential as the antiderivative of the force (with
// softening and clamp), the one-sided terms of the pair interaction, and momentum conservation of
// the force loop.
#include <catch2/catch.hpp>
#include <cmath>

#include "engines/engine.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

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
