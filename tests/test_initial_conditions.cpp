// Initial conditions: the two-galaxy set-up of seed S0, Plummer, Kepler.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/error.hpp"
#include "physics/diagnostics.hpp"
#include "physics/initial_conditions.hpp"

using namespace nbody;

namespace {
IcParams params(const char* name, std::size_t n, std::uint64_t seed = 1) {
  IcParams p;
  p.name = name;
  p.n = n;
  p.seed = seed;
  return p;
}
}  // namespace

TEST_CASE("two_galaxies_follow_seed_S0s_recipe", "[ic]") {
  const std::size_t n = 513;  // odd: the first galaxy gets the extra body
  const State<double> s = make_initial_state<double>(params("two-galaxies", n, 3));
  REQUIRE(s.size() == n);
  const std::size_t first = 257;
  const double R = 50, v_bulk = std::sqrt(1000.0 / (2 * R)) / 3;
  // Central bodies: 99.9% of each galaxy's mass 1000, at -R and +R on x, moving -v/3 and +v/3 on y.
  CHECK(s.mass[0] == Approx(999.0));
  CHECK(s.mass[first] == Approx(999.0));
  CHECK(s.pos(0)[0] == -R);
  CHECK(s.pos(0)[first] == R);
  CHECK(s.vel(1)[0] == Approx(-v_bulk));
  CHECK(s.vel(1)[first] == Approx(v_bulk));
  double total = 0;
  for (double m : s.mass) total += m;
  CHECK(total == Approx(2000.0));
  // Stars: inside the squashed sphere, on circular orbits about +z around their centre.
  for (std::size_t i = 1; i < n; ++i) {
    if (i == first) continue;
    const std::size_t c = i < first ? 0 : first;
    const std::size_t stars = (i < first ? first : n - first) - 1;
    const double x = s.pos(0)[i] - s.pos(0)[c], y = s.pos(1)[i], z = s.pos(2)[i];
    const double vx = s.vel(0)[i], vy = s.vel(1)[i] - s.vel(1)[c];
    CHECK(s.mass[i] == Approx(1.0 / double(stars)));
    CHECK(x * x + y * y + (z / 0.3) * (z / 0.3) <= R * R * (1 + 1e-12));
    const double r = std::sqrt(x * x + y * y + z * z);
    const double v_expected = std::sqrt((999.0 + 1.0 * std::pow(r / R, 3)) / r);
    CHECK(std::hypot(vx, vy) == Approx(v_expected).epsilon(1e-12));
    CHECK(x * vy - y * vx > 0);  // counter-clockwise about +z
    CHECK(s.vel(2)[i] == 0.0);
  }
  // The two galaxies draw different stars: no star of the second mirrors one of the first.
  CHECK(s.pos(0)[1] + R != Approx(s.pos(0)[first + 1] - R));
}

TEST_CASE("initial_conditions_depend_on_the_seed_only", "[ic]") {
  const auto a = make_initial_state<double>(params("two-galaxies", 64, 5));
  const auto b = make_initial_state<double>(params("two-galaxies", 64, 5));
  const auto c = make_initial_state<double>(params("two-galaxies", 64, 6));
  CHECK(a.y == b.y);
  CHECK(a.y != c.y);
}

TEST_CASE("plummer_sphere_is_in_henon_units", "[ic]") {
  const State<double> s = make_initial_state<double>(params("plummer", 4000, 11));
  const Snapshot<double> d = measure(s, ForceLaw<double>{});
  CHECK(d.energy == Approx(-0.25).epsilon(0.05));  // E = -1/4 up to sampling noise
  CHECK(d.kinetic / -d.potential == Approx(0.5).epsilon(0.06));  // virial equilibrium
  for (int k = 0; k < 3; ++k) {
    CHECK(std::abs(d.centre_of_mass[k]) < 1e-12);
    CHECK(std::abs(d.momentum[k]) < 1e-12);
  }
}

TEST_CASE("kepler_starts_at_pericentre_in_the_centre_of_mass_frame", "[ic]") {
  IcParams p;
  p.name = "kepler";
  p.a = "2";
  p.e = "0.6";
  p.mass_ratio = "3";  // m2 = 3 m1
  const State<double> s = make_initial_state<double>(p);
  CHECK(s.mass[0] == Approx(0.25));
  CHECK(s.mass[1] == Approx(0.75));
  const Snapshot<double> d = measure(s, ForceLaw<double>{});
  CHECK(d.min_pair_distance == Approx(2 * (1 - 0.6)));
  CHECK(std::abs(d.centre_of_mass[0]) < 1e-16);
  CHECK(std::abs(d.momentum[1]) < 1e-16);
  CHECK(d.energy == Approx(-0.25 * 0.75 / (2 * 2)));  // -G m1 m2 / (2a)
  CHECK(two_body_period(s, 1.0) == Approx(2 * M_PI * std::sqrt(8.0)));
}

TEST_CASE("bad_initial_condition_parameters_are_input_errors", "[ic]") {
  IcParams p;
  p.e = "1";
  CHECK_THROWS_AS(make_initial_state<double>(p), InputError);
  p.e = "0.5";
  p.a = "-1";
  CHECK_THROWS_AS(make_initial_state<double>(p), InputError);
  CHECK_THROWS_AS(make_initial_state<double>(params("two-galaxies", 1)), InputError);
  IcParams no_n;
  no_n.name = "plummer";
  CHECK_THROWS_AS(make_initial_state<double>(no_n), InputError);
}
