// Weakly compressible SPH stepped on the CPU (solver/particles/sph/sph_cpu.hpp) on small versions of the
// validation cases of E19 (solver/particles/sph/sph_cases.hpp): the time step obeys the force,
// CFL and viscous conditions and is no smaller than the tightest of them; a hydrostatic tank stays
// at rho0 g (H - y) within 2 % below its top two layers; Poiseuille flow between plates reaches
// the analytic centre-line speed within 3 %; a coarse dam break conserves mass exactly, loses no
// particle through a wall, keeps its walls at rho0 or denser, and its front advances between the
// measured one and the inviscid theory's; steps give the same bits on 1 and 2 threads; a bad state
// is refused, naming its problem; `nbody sph` stopped and resumed through its checkpoint ends bit
// for bit where one run ends.
#include <catch2/catch.hpp>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "particles/sph/sph_cases.hpp"
#include "support.hpp"

namespace {

using nbody::particles::SphCase;
using nbody::particles::SphCpu;
using nbody::particles::SphDiagnostics;

constexpr double g = 9.81;

}  // namespace

TEST_CASE("sph_time_step_obeys_the_force_cfl_and_viscous_conditions_and_the_tightest_sets_it", "[sph][time_step]") {
  SphCase<double> c = nbody::particles::sph_dam_break<double>(0.1);
  auto& s = c.state;
  const std::size_t n = s.n;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < n; ++i)
    if (!s.boundary[i]) s.vel[i] = 10 * u(rng), s.vel[n + i] = 10 * u(rng), s.rho[i] *= 1 + 0.01 * u(rng);
  for (double nu : {0.0, 10.0}) {  // 10 m^2/s: the viscous limit is the tightest
    c.params.nu = nu;
    const SphCpu<double> sim(c.params, s);
    const double dt = sim.time_step(), h = c.params.h, cfl = c.params.cfl, eta2 = 0.01 * h * h;
    const nbody::sph::Tait<double> eos{c.params.rho0, c.params.c0};
    // Each condition by brute force over every particle and pair.
    double force = INFINITY, c_max = 0, visc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      c_max = std::max(c_max, std::sqrt(eos.sound_speed_squared(s.rho[i])));
      if (!s.boundary[i]) force = std::min(force, std::sqrt(h / std::hypot(sim.rates().acc[i], sim.rates().acc[n + i])));
      for (std::size_t j = 0; j < n; ++j) {
        const double dx = s.pos[i] - s.pos[j], dy = s.pos[n + i] - s.pos[n + j], r2 = dx * dx + dy * dy;
        if (j == i || r2 >= 4 * h * h) continue;
        visc = std::max(visc, std::abs((s.vel[i] - s.vel[j]) * dx + (s.vel[n + i] - s.vel[n + j]) * dy) / (r2 + eta2));
      }
    }
    const double courant = h / (c_max + h * visc), viscous = nu > 0 ? 0.125 * h * h / nu : INFINITY;
    INFO("nu = " << nu << ": dt = " << dt << ", force " << cfl * force << ", CFL " << cfl * courant << ", viscous " << viscous);
    CHECK(visc > c_max / h / 10);  // the pairs' viscous term counts: the check is not empty
    const double slack = 1 + 1e-12;  // the brute force's rounding
    CHECK(dt <= cfl * force * slack);
    CHECK(dt <= cfl * courant * slack);
    CHECK(dt <= viscous * slack);
    CHECK(dt == Approx(std::min({cfl * force, cfl * courant, viscous})).epsilon(1e-12));
  }
  CHECK(0.125 * c.params.h * c.params.h / 10.0 < c.params.cfl * c.params.h / c.params.c0);  // nu = 10 set it
}

// Verlet's argument (solver/particles/sph/sph_cpu.hpp, SphNeighbours): lists of the candidates within
// (1 + skin) 2h hold every pair within the support 2h while no particle has moved more than
// skin h, and are stale beyond; checked by brute force over all pairs, every particle moved by
// almost skin h in a random direction.
TEST_CASE("sph_neighbour_lists_hold_every_pair_within_the_support_until_a_particle_moves_skin_h", "[sph][neighbours]") {
  using nbody::particles::SphNeighbours;
  SphCase<double> c = nbody::particles::sph_dam_break<double>(0.1);
  auto& s = c.state;
  const std::size_t n = s.n;
  s.lists_at = s.pos;
  SphNeighbours<double> near;
  nbody::particles::CellList<double> cells;
  near.make(c.params, s, cells);
  CHECK_FALSE(SphNeighbours<double>::stale(c.params, s));
  std::mt19937_64 rng(3);
  std::normal_distribution<double> gauss;
  const double step = 0.999 * c.params.skin * c.params.h;
  for (std::size_t i = 0; i < n; ++i) {
    double u[3], norm = 0;
    for (double& x : u) x = gauss(rng), norm += x * x;
    for (int k = 0; k < 3; ++k) s.pos[k * n + i] += (k == 2 ? 0.0 : step * u[k] / std::sqrt(norm - u[2] * u[2]));
  }
  REQUIRE_FALSE(SphNeighbours<double>::stale(c.params, s));
  const double support2 = c.params.support() * c.params.support();
  std::size_t pairs = 0, missing = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      double r2 = 0;
      for (int k = 0; k < 3; ++k) r2 += std::pow(s.pos[k * n + i] - s.pos[k * n + j], 2);
      if (!(r2 < support2)) continue;
      ++pairs;
      const auto* first = near.list.data() + near.start[i], *last = near.list.data() + near.start[i + 1];
      missing += std::find(first, last, unsigned(j)) == last;
    }
  CHECK(pairs > 10 * n);
  CHECK(missing == 0);
  s.pos[7] = s.lists_at[7] + 1.001 * c.params.skin * c.params.h, s.pos[n + 7] = s.lists_at[n + 7];  // one beyond skin h
  CHECK(SphNeighbours<double>::stale(c.params, s));
}

// Each particle sums its pairs in the cell list's order and the time step's maxima are exact, so
// the threads change no bit of a run.
TEST_CASE("sph_steps_give_the_same_bits_on_one_and_two_threads", "[sph][reproducible]") {
  const auto run = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    SphCase<double> c = nbody::particles::sph_dam_break<double>(0.1);
    SphCpu<double> sim(c.params, c.state);
    for (int k = 0; k < 50; ++k) sim.step(sim.time_step());
    omp_set_num_threads(before);
    return c.state;
  };
  const auto one = run(1), two = run(2);
  CHECK(one.time == two.time);
  CHECK(one.time > 0);
  CHECK(one.pos == two.pos);
  CHECK(one.vel == two.vel);
  CHECK(one.rho == two.rho);
}

// Settling: the column starts with hydrostatic densities (DualSPHysics's initial condition) and
// the artificial viscosity (alpha = 0.02) damps what remains; half a second is a dozen acoustic
// periods 4 H / c0. Molteni and Colagrossi's diffusion in its place drifts out of the 2 % (see
// kernels/common/sph.hpp).
TEST_CASE("sph_hydrostatic_tank_keeps_rho0_g_depth_within_2_percent_below_its_top_two_layers", "[sph][hydrostatic]") {
  const double width = 0.2, depth = 0.2, dx = 0.01;
  SphCase<double> c = nbody::particles::sph_hydrostatic_tank<double>(width, depth, dx);
  auto& s = c.state;
  SphCpu<double> sim(c.params, s);
  sim.advance_to(0.5);
  const auto [worst, checked] = nbody::particles::sph_hydrostatic_error(c, depth, 2 * dx);
  const SphDiagnostics d = sim.diagnostics(c.walls, dx);
  INFO("largest relative pressure error " << worst << " over " << checked << " particles, t = " << s.time
                                          << " s, " << s.steps << " steps");
  CHECK(checked == std::size_t(std::lround(width / dx) * (std::lround(depth / dx) - 2)));
  CHECK(worst < 0.02);
  CHECK(d.escaped == 0);
}

// Morris et al.'s (1997) case: plates 1 mm apart, nu = 1e-6 m^2/s, a body force of 2e-4 m/s^2,
// centre-line speed F L^2 / (8 nu) = 2.5e-5 m/s. From rest the slowest mode decays as
// exp(-pi^2 nu t / L^2): at t = 0.7 s the flow is within 0.1 % of steady. 60 particles across the
// gap: the error falls as the spacing does (the no-slip wall's error), and about 60 are needed for
// 3 %.
TEST_CASE("sph_poiseuille_centre_line_speed_within_3_percent_of_the_steady_parabola", "[sph][poiseuille]") {
  const double gap = 1e-3, nu = 1e-6, force = 2e-4, dx = gap / 60;
  SphCase<double> c = nbody::particles::sph_poiseuille<double>(gap, 8 * dx, dx, nu, force);
  auto& s = c.state;
  SphCpu<double> sim(c.params, s);
  sim.advance_to(0.7);
  const auto [ratio, count] = nbody::particles::sph_poiseuille_centre_line(c, gap, nu, force);
  const SphDiagnostics d = sim.diagnostics(c.walls, dx);
  INFO("centre line " << ratio << " of the analytic " << force * gap * gap / (8 * nu) << " m/s, " << s.steps << " steps");
  CHECK(count == 16);  // the two rows beside the centre line, 8 particles each
  CHECK(std::abs(ratio - 1) < 0.03);
  CHECK(d.density_deviation < 0.01);  // Morris et al.'s sound speed keeps it weakly compressible
  CHECK(d.escaped == 0);
}

// DualSPHysics's 2-D validation geometry at a coarse spacing, to Koshizuka and Oka's first
// tabulated time. The front starts at the column's foot (1 m less half a spacing).
TEMPLATE_TEST_CASE("sph_dam_break_conserves_mass_loses_no_particle_and_its_front_advances", "[sph][dam_break]", float,
                   double) {
  const double dx = 0.05;
  SphCase<TestType> c = nbody::particles::sph_dam_break<TestType>(dx);
  auto& s = c.state;
  const std::size_t n = s.n;
  SphCpu<TestType> sim(c.params, s);
  const SphDiagnostics start = sim.diagnostics(c.walls, 2 * dx);
  sim.advance_to(0.266);
  const SphDiagnostics end = sim.diagnostics(c.walls, 2 * dx);
  TestType wall_min = s.rho[0];
  for (std::size_t i = 0; i < n; ++i)
    if (s.boundary[i]) wall_min = std::min(wall_min, s.rho[i]);
  INFO("front " << start.front - c.walls.x_min << " -> " << end.front - c.walls.x_min << " m after " << s.steps
                << " steps; max |rho/rho0 - 1| " << end.density_deviation);
  CHECK(start.front - c.walls.x_min == Approx(1 - dx / 2).epsilon(1e-6));
  CHECK(end.mass == start.mass);
  CHECK(end.escaped == 0);
  CHECK(wall_min >= TestType(c.params.rho0));  // DualSPHysics's floor on the walls' density
  // Beyond Koshizuka and Oka's 1.464 m less the 10 %, behind Ritter's (1892) inviscid
  // shallow-water front L + 2 sqrt(g H) t, which no front on a dry floor passes.
  const double front = end.front - c.walls.x_min;
  CHECK(front > 0.9 * 1.464);
  CHECK(front < 1 + 2 * std::sqrt(g * 2) * s.time);
  CHECK(end.kinetic > 0);
  CHECK(end.density_deviation < 0.03);        // c0 = 10 sqrt(2 g H): weakly compressible
}

// The 3-D case (E19's time per step) at a coarse spacing: the column holds the lattice's mass,
// lies against the end wall with its foot at 1 m, and after 0.05 s has kept its mass and its
// particles inside the walls on every side while its front moved on.
TEST_CASE("sph_dam_break_in_3d_keeps_its_mass_and_particles_in_the_tank_while_the_front_moves", "[sph][dam_break]") {
  const double dx = 0.1;
  SphCase<double> c = nbody::particles::sph_dam_break_3d<double>(dx);
  SphCpu<double> sim(c.params, c.state);
  const SphDiagnostics start = sim.diagnostics(c.walls, 2 * dx);
  CHECK(start.mass == Approx(1000.0 * 2 * 1 * 1).epsilon(0.01));  // rho0 times the column's volume, hydrostatic densities
  CHECK(start.front - c.walls.x_min == Approx(1 - dx / 2).epsilon(1e-9));
  CHECK(start.escaped == 0);
  sim.advance_to(0.05);
  const SphDiagnostics end = sim.diagnostics(c.walls, 2 * dx);
  INFO("front " << start.front - c.walls.x_min << " -> " << end.front - c.walls.x_min << " m after " << c.state.steps << " steps");
  CHECK(end.mass == start.mass);
  CHECK(end.escaped == 0);
  CHECK(end.front > start.front);
  CHECK(end.density_deviation < 0.03);
}

TEST_CASE("sph_bad_state_is_refused_naming_its_problem", "[sph][bad_input]") {
  const SphCase<double> good = nbody::particles::sph_dam_break<double>(0.2);
  const auto refused = [&](auto spoil, const std::string& words) {
    SphCase<double> c = good;
    spoil(c);
    CHECK_THROWS_WITH((SphCpu<double>(c.params, c.state)), Catch::Contains(words));
  };
  refused([](SphCase<double>& c) { c.state.rho.pop_back(); }, "arrays");
  refused([](SphCase<double>& c) { c.state.to_face.assign(5, 0.0); }, "arrays");
  refused([](SphCase<double>& c) { c.state.box.L[2] = c.params.support() / 2; }, "support");
  refused([](SphCase<double>& c) { c.state.rho[3] = 0; }, "particle 3");
  refused([](SphCase<double>& c) { c.state.mass[4] = NAN; }, "particle 4");
  refused([](SphCase<double>& c) { c.params.cfl = 0; }, "CFL");
  refused([](SphCase<double>& c) { c.params.nu = -1; }, "nu");
  SphCase<double> c = good;
  CHECK_NOTHROW(SphCpu<double>(c.params, c.state));
}

TEST_CASE("nbody_sph_in_two_parts_through_its_checkpoint_ends_bit_for_bit_where_one_run_ends", "[sph][cli]") {
  const std::filesystem::path dir = nbody::test::scratch("sph_parts");
  const std::string model = "sph --case dam-break --dx 0.1 --precision float --t-end 0.2";
  REQUIRE(nbody::test::run_nbody(dir, model + " --final-state one.csv --diagnostics one_diag.csv --diag-every 0.01")
              .exit_code == 0);
  REQUIRE(nbody::test::run_nbody(dir, model + " --stop-at 100 --checkpoint c.bin --summary part1.json").exit_code == 0);
  CHECK(nbody::test::read(dir / "part1.json").find("\"step\": 100,") != std::string::npos);  // stopped at step 100
  // The model's flags come from the checkpoint; one given with another value is refused.
  CHECK(nbody::test::run_nbody(dir, "sph --resume c.bin --t-end 0.2 --alpha 0.5 --final-state bad.csv").exit_code == 2);
  CHECK(!std::filesystem::exists(dir / "bad.csv"));
  REQUIRE(nbody::test::run_nbody(dir, "sph --resume c.bin --t-end 0.2 --final-state two.csv --diagnostics two_diag.csv "
                                      "--diag-every 0.01")
              .exit_code == 0);
  const std::string one = nbody::test::read(dir / "one.csv");
  CHECK(one.size() > 1000);
  CHECK(one == nbody::test::read(dir / "two.csv"));
  // The second part's samples fall at the whole run's times from where it starts.
  const std::string d1 = nbody::test::read(dir / "one_diag.csv"), d2 = nbody::test::read(dir / "two_diag.csv");
  CHECK(d1.substr(d1.size() - 300) == d2.substr(d2.size() - 300));
  CHECK(std::filesystem::exists(dir / "two.meta.json"));
  // Another model's checkpoint is refused, naming the subcommand that continues it.
  REQUIRE(nbody::test::run_nbody(dir, "dpd --box 3 --steps 2 --checkpoint dpd.bin").exit_code == 0);
  const auto other = nbody::test::run_nbody(dir, "sph --resume dpd.bin --t-end 0.2");
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("not a checkpoint of `nbody sph` (`nbody dpd --resume` continues it)") != std::string::npos);
}
