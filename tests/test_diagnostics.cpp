// Diagnostics (energy, momenta, centre of mass, drift) against values worked out by hand, and their
// sums carried over blocks of the bodies against the sums over all of them.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

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

// The sums of a sample carried from one block of the bodies to the next (as the ranks of a run
// with distributed bodies carry them in turn) are the sums over all bodies, bit for bit: the
// motion, the potential energy's terms and the exact potential at measured bodies.
TEST_CASE("diagnostic_sums_carried_over_blocks_equal_the_sums_over_all_bodies", "[diagnostics]") {
  const std::size_t n = 301;
  State<float> all(n);
  std::vector<float> phi(n);
  for (std::size_t i = 0; i < n; ++i) {  // irregular values, so that the order of the sums shows
    const float u = float(i) + 0.5f;
    all.mass[i] = 1e-3f * (1.0f + 0.37f * std::sin(u));
    for (int c = 0; c < 6; ++c) all.y[c * n + i] = std::sin(u * float(c + 2)) * (c < 3 ? 3.0f : 0.7f) + 1e-4f * u;
    phi[i] = -1.0f - 0.01f * std::cos(u);
  }
  ForceLaw<float> law;
  law.eps2 = 1e-4f;
  const auto block_of = [&](std::size_t first, std::size_t count) {
    State<float> b(count);
    for (std::size_t i = 0; i < count; ++i) {
      b.mass[i] = all.mass[first + i];
      for (int c = 0; c < 6; ++c) b.y[c * count + i] = all.y[c * n + first + i];
    }
    return std::pair{b, std::vector<float>(phi.begin() + first, phi.begin() + first + count)};
  };
  const std::vector<std::size_t> cuts{0, 64, 65, 200, 301};  // blocks of 64, 1, 135 and 101 bodies
  MotionSums<float> motion;
  CompensatedSum<float> potential;
  std::vector<PotentialPoint<double>> points;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const auto [b, p] = block_of(cuts[k], cuts[k + 1] - cuts[k]);
    motion.add(b);
    add_potential_terms(potential, b, p);
    const auto mine = potential_points(b, cuts[k], n, p, 17);
    points.insert(points.end(), mine.begin(), mine.end());
  }
  std::vector<CompensatedSum<double>> exact(points.size());
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    add_exact_potentials(exact, points, block_of(cuts[k], cuts[k + 1] - cuts[k]).first, cuts[k], law);

  Snapshot<float> whole = measure_motion(all), carried = motion.snapshot();
  add_potential_of(whole, all, phi);
  set_potential(carried, potential);
  CHECK(carried.kinetic == whole.kinetic);
  CHECK(carried.potential == whole.potential);
  CHECK(carried.momentum == whole.momentum);
  CHECK(carried.angular_momentum == whole.angular_momentum);
  CHECK(carried.centre_of_mass == whole.centre_of_mass);
  CHECK(carried.momentum_scale == whole.momentum_scale);
  CHECK(carried.angular_momentum_scale == whole.angular_momentum_scale);
  const PotentialError e = potential_error(all, law, phi, 17), b = potential_error_of(points, exact, double(law.G));
  CHECK(b.bodies == 17);
  CHECK(e.bodies == b.bodies);
  CHECK(e.max_rel == b.max_rel);
  CHECK(e.rms_rel == b.rms_rel);
  CHECK(e.energy_rel == b.energy_rel);
  CHECK(e.max_rel > 0);  // phi is not the exact potential: the comparison measures something
}
