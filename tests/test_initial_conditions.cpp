// Initial conditions (the two-galaxy set-up of seed S0, Plummer, Kepler) and the analytic Kepler
// orbit that the integrator tests are judged by, in double and in 50 digits.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/error.hpp"
#include "physics/diagnostics.hpp"
#include "physics/initial_conditions.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

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

TEST_CASE("galaxy_puts_the_central_fraction_of_the_mass_at_rest_at_the_origin", "[ic]") {
  for (const char* fraction : {"0.99", "0.1"}) {
    IcParams p = params("galaxy", 400, 7);
    p.box = "20";
    p.G = "2";
    p.central_fraction = fraction;
    const State<double> s = make_initial_state<double>(p);
    REQUIRE(s.size() == 400);
    const double f = std::stod(fraction), R = 10, stars = 399;
    CHECK(s.mass[0] == 1000 * f);
    for (int d = 0; d < 3; ++d) {
      CHECK(s.pos(d)[0] == 0.0);
      CHECK(s.vel(d)[0] == 0.0);
    }
    for (std::size_t i = 1; i < s.size(); ++i) {
      const double x = s.pos(0)[i], y = s.pos(1)[i], z = s.pos(2)[i], vx = s.vel(0)[i], vy = s.vel(1)[i];
      CHECK(s.mass[i] == Approx(1000 * (1 - f) / stars).epsilon(1e-14));
      CHECK(x * x + y * y + (z / 0.3) * (z / 0.3) <= R * R * (1 + 1e-12));
      const double r = std::sqrt(x * x + y * y + z * z);
      // Circular about +z under G times the central mass and the (r/R)^3 share of the stars'.
      CHECK(std::hypot(vx, vy) == Approx(std::sqrt(2 * 1000 * (f + (1 - f) * std::pow(r / R, 3)) / r)).epsilon(1e-12));
      CHECK(x * vy - y * vx > 0);
      CHECK(s.vel(2)[i] == 0.0);
    }
  }
}

TEST_CASE("initial_conditions_depend_on_the_seed_only", "[ic]") {
  const auto a = make_initial_state<double>(params("two-galaxies", 64, 5));
  const auto b = make_initial_state<double>(params("two-galaxies", 64, 5));
  const auto c = make_initial_state<double>(params("two-galaxies", 64, 6));
  CHECK(a.y == b.y);
  CHECK(a.y != c.y);
}

// A rank's block of bodies is that part of the whole state, bit for bit, however the bodies are cut.
TEST_CASE("initial_blocks_are_the_whole_states_bodies", "[ic]") {
  IcParams kepler;
  for (const IcParams& p : {params("plummer", 1001, 7), params("two-galaxies", 513, 3), params("galaxy", 300, 2), kepler}) {
    INFO(p.name);
    const State<float> whole = make_initial_state<float>(p);
    REQUIRE(initial_body_count<float>(p) == whole.size());
    for (std::size_t parts : {1, 2, 3, 7}) {
      std::vector<float> mass, y[6];
      for (std::size_t k = 0; k < parts; ++k) {
        const std::size_t first = whole.size() * k / parts, end = whole.size() * (k + 1) / parts;
        const State<float> b = make_initial_block<float>(p, first, end - first);
        mass.insert(mass.end(), b.mass.begin(), b.mass.end());
        for (int c = 0; c < 6; ++c) y[c].insert(y[c].end(), b.y.begin() + c * b.size(), b.y.begin() + (c + 1) * b.size());
      }
      CHECK(mass == whole.mass);
      for (int c = 0; c < 6; ++c) CHECK(y[c] == std::vector<float>(whole.y.begin() + c * whole.size(), whole.y.begin() + (c + 1) * whole.size()));
    }
  }
  CHECK_THROWS_AS(make_initial_block<float>(params("plummer", 10), 8, 3), InputError);
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
  for (const char* fraction : {"0", "1", "-0.5", "nan", "half"}) {
    IcParams g = params("galaxy", 10);
    g.central_fraction = fraction;
    CHECK_THROWS_AS(make_initial_state<double>(g), InputError);
  }
  IcParams no_n;
  no_n.name = "plummer";
  CHECK_THROWS_AS(make_initial_state<double>(no_n), InputError);
}

// ---- The analytic Kepler orbit ----

TEST_CASE("kepler_analytic_solution_is_periodic_and_conserves_energy", "[kepler]") {
  const IcParams ic = kepler("0.9");
  const State<double> s0 = kepler_state_at<double>(ic, 0.0);
  const double P = orbital_period(ic, s0, 1.0);
  CHECK(P == Approx(2 * M_PI).epsilon(1e-14));  // a = 1, G = M = 1
  CHECK(position_error(kepler_state_at<double>(ic, 3 * P), s0) < 1e-13);
  const double E0 = measure(s0, ForceLaw<double>{}).energy;
  CHECK(E0 == Approx(-0.125).epsilon(1e-14));  // -G m1 m2 / (2a), m1 = m2 = 1/2; cancellation at pericentre
  for (double t : {0.1, 0.37 * P, 0.5 * P, 0.93 * P}) {
    const State<double> s = kepler_state_at<double>(ic, t);
    CHECK(measure(s, ForceLaw<double>{}).energy == Approx(E0).epsilon(1e-14));
  }
  // At apocentre (t = P/2) the separation is a(1 + e).
  const State<double> apo = kepler_state_at<double>(ic, 0.5 * P);
  CHECK(measure(apo, ForceLaw<double>{}).min_pair_distance == Approx(1.9).epsilon(1e-13));
}

// Inside namespace nbody, as the solver's own code: math functions are called unqualified.
namespace nbody {

namespace {

// Specific energy and angular momentum (z) of the relative orbit; mu = G M = 1.
void relative_invariants(const State<mp50>& s, mp50& energy, mp50& lz) {
  const mp50 rx = s.pos(0)[1] - s.pos(0)[0], ry = s.pos(1)[1] - s.pos(1)[0];
  const mp50 vx = s.vel(0)[1] - s.vel(0)[0], vy = s.vel(1)[1] - s.vel(1)[0];
  energy = (vx * vx + vy * vy) / 2 - 1 / sqrt(rx * rx + ry * ry);
  lz = rx * vy - ry * vx;
}

}  // namespace

TEST_CASE("kepler_reference_in_mp50_conserves_its_invariants_and_obeys_newtons_law", "[precision][kepler][reference]") {
  // The reference must not be trusted because it is the analytic formula: check that it is an
  // orbit. Energy and angular momentum constant to 1e-45, x(P) = x(0), and the central
  // differences of position and velocity are the velocity and the inverse-square acceleration.
  const IcParams ic = kepler("0.5");
  const State<mp50> s0 = make_initial_state<mp50>(ic);
  const mp50 P = orbital_period(ic, s0, mp50(1));
  mp50 E0, L0;
  relative_invariants(s0, E0, L0);
  CHECK(abs(E0 + mp50(0.5)) < mp50("1e-48"));  // a = 1: E = -mu / 2a
  for (const char* frac : {"0.1", "0.37", "0.5", "0.93", "1", "7.25"}) {
    const mp50 t = mp50(frac) * P;
    const State<mp50> s = kepler_state_at<mp50>(ic, t);
    mp50 E, L;
    relative_invariants(s, E, L);
    INFO("t = " << frac << " P");
    CHECK(abs(E - E0) < mp50("1e-45"));
    CHECK(abs(L - L0) < mp50("1e-45"));
    // Newton: d^2 r / dt^2 = -r / |r|^3 for the relative orbit (mu = 1); h^2 = 1e-24 error.
    const mp50 h("1e-12");
    const State<mp50> before = kepler_state_at<mp50>(ic, t - h), after = kepler_state_at<mp50>(ic, t + h);
    const mp50 rx = s.pos(0)[1] - s.pos(0)[0], ry = s.pos(1)[1] - s.pos(1)[0];
    const mp50 r3 = pow(rx * rx + ry * ry, mp50(1.5));
    for (int k = 0; k < 2; ++k) {
      const mp50 r_rel = s.pos(k)[1] - s.pos(k)[0];
      const mp50 v_rel = s.vel(k)[1] - s.vel(k)[0];
      const mp50 dr = ((after.pos(k)[1] - after.pos(k)[0]) - (before.pos(k)[1] - before.pos(k)[0])) / (2 * h);
      const mp50 dv = ((after.vel(k)[1] - after.vel(k)[0]) - (before.vel(k)[1] - before.vel(k)[0])) / (2 * h);
      CHECK(abs(dr - v_rel) < mp50("1e-20"));
      CHECK(abs(dv + r_rel / r3) < mp50("1e-20"));
    }
  }
  const State<mp50> after_one_period = kepler_state_at<mp50>(ic, P);
  for (int k = 0; k < 3; ++k) {
    CHECK(abs(after_one_period.pos(k)[1] - s0.pos(k)[1]) < mp50("1e-45"));
    CHECK(abs(after_one_period.vel(k)[1] - s0.vel(k)[1]) < mp50("1e-45"));
  }
}

}  // namespace nbody
