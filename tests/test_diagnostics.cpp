// Diagnostics (energy, momenta, centre of mass, drift) against values worked out by hand.
#include <catch2/catch.hpp>

#include "physics/diagnostics.hpp"

using namespace nbody;

namespace {
// Masses 1, 2, 3 at the corners of a 3-4-5 right triangle, unit speeds along z, y, x.
State<double> three_bodies() {
  State<double> s(3);
  s.mass = {1, 2, 3};
  s.pos(0)[1] = 3;
  s.pos(1)[2] = 4;
  s.vel(2)[0] = 1;
  s.vel(1)[1] = 1;
  s.vel(0)[2] = 1;
  return s;
}
}  // namespace

TEST_CASE("diagnostics_are_exact_on_a_hand_checked_three_body_configuration", "[diagnostics]") {
  ForceLaw<double> law;
  law.G = 2;
  const Snapshot<double> d = measure(three_bodies(), law);
  CHECK(d.kinetic == Approx(3.0).epsilon(1e-15));                       // (1 + 2 + 3) / 2
  CHECK(d.potential == Approx(-2.0 * 157.0 / 60.0).epsilon(1e-15));     // -G (1*2/3 + 1*3/4 + 2*3/5)
  CHECK(d.energy == Approx(3.0 - 157.0 / 30.0).epsilon(1e-15));
  CHECK(d.momentum == Vec3<double>{3, 2, 1});
  CHECK(d.angular_momentum == Vec3<double>{0, 0, -6});  // 2 (3x x y) + 3 (4y x x) = 6z - 12z
  CHECK(d.centre_of_mass[0] == Approx(1.0));
  CHECK(d.centre_of_mass[1] == Approx(2.0));
  CHECK(d.centre_of_mass[2] == 0.0);
  CHECK(d.momentum_scale == 6.0);
  CHECK(d.angular_momentum_scale == 18.0);
  CHECK(d.min_pair_distance == 3.0);
}

TEST_CASE("drift_is_relative_to_the_initial_values_and_scales", "[diagnostics]") {
  ForceLaw<double> law;
  State<double> s = three_bodies();
  DriftTracker<double> drift(measure(s, law));  // E0 = 3 - 157/60 = 23/60
  s.vel(2)[0] = 2;                              // body 0: |v| 1 -> 2 along z
  const auto d = drift.update(measure(s, law));
  CHECK(d.dE_rel == Approx((1.5) / (23.0 / 60.0)));  // kinetic energy grew by 1.5
  CHECK(d.dE_rel_max == Approx(std::abs(d.dE_rel)));
  CHECK(d.P_rel == Approx(1.0 / 6.0));  // |dP| = 1 over sum m|v| = 6
  CHECK(d.L_rel == 0.0);                // body 0 sits at the origin
  const auto back = drift.update(measure(three_bodies(), law));
  CHECK(back.dE_rel == 0.0);
  CHECK(back.dE_rel_max == Approx(d.dE_rel_max));  // the running max remembers
}

TEST_CASE("drift_of_a_system_at_rest_does_not_divide_by_zero", "[diagnostics]") {
  State<double> s(2);
  s.mass = {1, 1};
  s.pos(0)[1] = 1;
  DriftTracker<double> drift(measure(s, ForceLaw<double>{}));
  s.vel(0)[0] = 0.5;
  const auto d = drift.update(measure(s, ForceLaw<double>{}));
  CHECK(d.P_rel == Approx(0.5));  // absolute change when sum m|v| = 0
  CHECK(std::isfinite(d.L_rel));
}
