// The WCSPH rates on the CPU (solver/particles/sph/sph_cpu.hpp, the pair terms of kernels/common/sph.hpp):
// pair forces conserve momentum; a fluid at rest at rho0 feels gravity alone; on a lattice the
// continuity equation gives -rho div v and the pressure term -grad p / rho; density diffusion
// spreads a bump and nothing else; boundary particles get a density rate but no acceleration;
// Fourtakas's diffusion leaves a hydrostatic column alone, Molteni's does not; laminar viscosity
// gives nu times the Laplacian of v.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "particles/sph/sph_cpu.hpp"

namespace {

using nbody::particles::CellList;
using nbody::particles::SphParameters;
using nbody::particles::SphRates;
using nbody::particles::SphState;

// A square (dimension 2, z = 0) or cubic lattice of side `per_side` particles at spacing dx, at
// rest at rho0, in a box `margin` spacings wider on each side (periodic: margin 0 fills it).
SphState<double> lattice(unsigned dimension, int per_side, double dx, double rho0, int margin) {
  SphState<double> s;
  const int nz = dimension == 3 ? per_side : 1;
  s.n = std::size_t(per_side) * per_side * nz;
  const double side = (per_side + 2 * margin) * dx;
  s.box.L[0] = s.box.L[1] = side;
  s.box.L[2] = dimension == 3 ? side : side;  // 2-D: the plane z = 0 of a box at least the support deep
  s.pos.resize(3 * s.n), s.vel.assign(3 * s.n, 0.0), s.rho.assign(s.n, rho0), s.boundary.assign(s.n, 0);
  s.mass.assign(s.n, rho0 * (dimension == 3 ? dx * dx * dx : dx * dx));
  std::size_t i = 0;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < per_side; ++y)
      for (int x = 0; x < per_side; ++x, ++i) {
        s.pos[i] = (x + margin + 0.5) * dx;
        s.pos[s.n + i] = (y + margin + 0.5) * dx;
        s.pos[2 * s.n + i] = dimension == 3 ? (z + margin + 0.5) * dx : 0.0;
      }
  return s;
}

SphRates<double> rates(const SphParameters& p, const SphState<double>& s) {
  SphRates<double> r;
  nbody::particles::sph_rates(p, s, r);
  return r;
}

// The particle nearest the lattice's middle (the interior, far from any edge).
std::size_t centre(const SphState<double>& s) {
  double mid[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (std::size_t i = 0; i < s.n; ++i) mid[a] += s.pos[a * s.n + i] / double(s.n);
  std::size_t best = 0;
  double closest = 1e300;
  for (std::size_t i = 0; i < s.n; ++i) {
    double e = 0;
    for (int a = 0; a < 3; ++a) e += std::pow(s.pos[a * s.n + i] - mid[a], 2);
    if (e < closest) closest = e, best = i;
  }
  return best;
}

SphParameters water(unsigned dimension, double h) {
  SphParameters p;
  p.dimension = dimension, p.h = h, p.gravity = {0, -9.81, 0};
  return p;
}

}  // namespace

TEST_CASE("sph_pair_forces_conserve_momentum", "[sph]") {
  for (unsigned dimension : {2u, 3u}) {
    const double dx = 0.01, h = 1.3 * dx;
    SphState<double> s = lattice(dimension, dimension == 3 ? 10 : 24, dx, 1000, 0);  // periodic: no edges
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < s.n; ++i) {
      for (int a = 0; a < int(dimension); ++a) {
        s.pos[a * s.n + i] = s.box.wrap(s.pos[a * s.n + i] + 0.2 * dx * u(rng), a);
        s.vel[a * s.n + i] = 0.5 * u(rng);
      }
      s.rho[i] = 1000 * (1 + 0.02 * u(rng));
      s.mass[i] *= 1 + 0.1 * u(rng);  // unequal masses: conserved to round-off
    }
    SphParameters p = water(dimension, h);
    const SphRates<double> r = rates(p, s);
    double total[3] = {0, 0, 0}, scale = 0, weight = 0;
    for (std::size_t i = 0; i < s.n; ++i) {
      weight += s.mass[i];
      for (int a = 0; a < 3; ++a) {
        total[a] += s.mass[i] * r.acc[a * s.n + i];
        scale += std::abs(s.mass[i] * r.acc[a * s.n + i]);
      }
    }
    INFO(dimension << "-D");
    CHECK(scale > 10 * weight * 9.81);  // the pair forces are large against gravity: the check is not empty
    CHECK(std::abs(total[0]) < 1e-12 * scale);
    CHECK(std::abs(total[1] - weight * -9.81) < 1e-12 * scale);
    CHECK(std::abs(total[2]) < 1e-12 * scale);
  }
}

TEST_CASE("sph_fluid_at_rest_at_rho0_feels_gravity_alone", "[sph]") {
  for (unsigned dimension : {2u, 3u}) {
    const double dx = 0.01;
    const SphState<double> s = lattice(dimension, dimension == 3 ? 8 : 20, dx, 1000, 0);
    const SphRates<double> r = rates(water(dimension, 1.3 * dx), s);
    for (std::size_t i = 0; i < s.n; ++i) {
      CHECK(r.drho[i] == 0);
      CHECK(r.acc[i] == 0);
      CHECK(r.acc[s.n + i] == -9.81);
      CHECK(r.acc[2 * s.n + i] == 0);
    }
  }
}

TEST_CASE("sph_continuity_gives_minus_rho_div_v_and_the_pressure_term_minus_grad_p_over_rho", "[sph]") {
  for (unsigned dimension : {2u, 3u}) {
    const double dx = 0.01, h = 1.3 * dx, eps = 0.5;
    SphState<double> s = lattice(dimension, dimension == 3 ? 15 : 31, dx, 1000, 4);
    // v = eps r: div v = dimension eps. Within 4 %: the kernel gradient's sums over a lattice at
    // h = 1.3 dx fall short of the continuum's by about 2.5 % (SPH's discretisation error).
    for (std::size_t i = 0; i < s.n; ++i)
      for (int a = 0; a < int(dimension); ++a) s.vel[a * s.n + i] = eps * s.pos[a * s.n + i];
    SphParameters p = water(dimension, h);
    p.gravity = {0, 0, 0};
    const std::size_t c = centre(s);
    INFO(dimension << "-D, particle " << c);
    CHECK(rates(p, s).drho[c] == Approx(-1000.0 * dimension * eps).epsilon(0.04));
    // rho = rho0 (1 + kappa y) at rest, each particle's volume dx^D: -grad p / rho along y.
    std::fill(s.vel.begin(), s.vel.end(), 0.0);
    const double kappa = 0.5, volume = dimension == 3 ? dx * dx * dx : dx * dx;
    const double y0 = s.pos[s.n + c];
    for (std::size_t i = 0; i < s.n; ++i) {
      s.rho[i] = 1000 * (1 + kappa * (s.pos[s.n + i] - y0));
      s.mass[i] = s.rho[i] * volume;
    }
    p.delta = 0;
    const SphRates<double> r = rates(p, s);
    const double grad_p = 30.0 * 30.0 * 1000 * kappa;  // c0^2 drho/dy at rho0
    CHECK(r.acc[s.n + c] == Approx(-grad_p / 1000).epsilon(0.04));
    CHECK(std::abs(r.acc[c]) < 1e-6 * grad_p / 1000);
  }
}

TEST_CASE("sph_density_diffusion_spreads_a_bump_and_boundary_particles_do_not_move", "[sph]") {
  const double dx = 0.01;
  SphState<double> s = lattice(2, 21, dx, 1000, 0);
  const std::size_t c = centre(s);
  s.rho[c] = 1010;
  SphParameters p = water(2, 1.3 * dx);
  SphRates<double> r = rates(p, s);
  CHECK(r.drho[c] < 0);  // the bump loses density to its neighbours
  double gained = 0;
  for (std::size_t i = 0; i < s.n; ++i)
    if (i != c) {
      CHECK(r.drho[i] >= 0);
      gained += r.drho[i];
    }
  CHECK(gained > 0);
  p.delta = 0;
  CHECK(rates(p, s).drho[c] == 0);  // at rest, without diffusion nothing changes the density
  // A boundary particle: a density rate from fluid coming at it, and no acceleration.
  s.boundary[c] = 1;
  for (std::size_t i = 0; i < s.n; ++i) s.vel[s.n + i] = s.pos[s.n + i] > s.pos[s.n + c] ? -1.0 : 0.0;
  r = rates(p, s);
  CHECK(r.drho[c] > 0);
  CHECK(r.acc[c] == 0);
  CHECK(r.acc[s.n + c] == 0);
}

TEST_CASE("sph_fourtakas_diffusion_leaves_a_hydrostatic_column_alone_where_molteni_moves_it", "[sph][diffusion]") {
  // A column at rest with Tait's hydrostatic densities, its top a free surface: Molteni and
  // Colagrossi's term diffuses the density gradient where the kernel is truncated; Fourtakas et
  // al.'s subtracts the hydrostatic part first.
  const double dx = 0.01, rho0 = 1000, g = 9.81;
  SphState<double> s = lattice(2, 24, dx, rho0, 4);
  SphParameters p = water(2, 1.5 * dx);
  const nbody::sph::Tait<double> eos{rho0, p.c0};
  double top = 0;
  for (std::size_t i = 0; i < s.n; ++i) top = std::max(top, s.pos[s.n + i] + dx / 2);
  for (std::size_t i = 0; i < s.n; ++i) {
    s.rho[i] = rho0 * std::pow(1 + rho0 * g * (top - s.pos[s.n + i]) / eos.b(), 1.0 / eos.gamma);
    s.mass[i] = s.rho[i] * dx * dx;
  }
  // Each term's own share of drho: the rates with it less those without.
  const auto diffusion = [&](nbody::sph::DensityDiffusion kind) {
    SphParameters q = p;
    q.diffusion = kind;
    const SphRates<double> with = rates(q, s);
    q.delta = 0;
    const SphRates<double> without = rates(q, s);
    std::vector<double> d(s.n);
    for (std::size_t i = 0; i < s.n; ++i) d[i] = with.drho[i] - without.drho[i];
    return d;
  };
  const std::vector<double> molteni = diffusion(nbody::sph::DensityDiffusion::molteni);
  const std::vector<double> fourtakas = diffusion(nbody::sph::DensityDiffusion::fourtakas);
  double largest_molteni = 0, largest_fourtakas = 0;
  for (std::size_t i = 0; i < s.n; ++i) {
    if (s.pos[i] < 8 * dx || s.pos[i] > 24 * dx) continue;  // away from the column's sides (free too)
    if (s.pos[s.n + i] < 12 * dx) continue;                  // and from its bottom: the top half
    largest_molteni = std::max(largest_molteni, std::abs(molteni[i]));
    largest_fourtakas = std::max(largest_fourtakas, std::abs(fourtakas[i]));
  }
  INFO("largest diffusion rate near the surface: Molteni " << largest_molteni << ", Fourtakas " << largest_fourtakas
                                                           << " kg/m^3/s");
  CHECK(largest_molteni > 0.01 * rho0);  // a per cent of rho0 a second: a pressure error of c0^2 times that
  CHECK(largest_fourtakas < 0.01 * largest_molteni);
}

TEST_CASE("sph_laminar_viscosity_gives_nu_times_the_laplacian_of_v", "[sph][viscosity]") {
  for (unsigned dimension : {2u, 3u}) {
    const double dx = 0.01, nu = 1e-3, eps = 50;
    SphState<double> s = lattice(dimension, dimension == 3 ? 15 : 31, dx, 1000, 4);
    const std::size_t c = centre(s);
    // v_x = eps (y - y_c)^2 at rho0: no pressure, and nu laplacian v_x = 2 nu eps. Within 4 %: the
    // eta^2 = 0.01 h^2 under r^2 shortens the nearest pairs' share by about 2 %.
    for (std::size_t i = 0; i < s.n; ++i) s.vel[i] = eps * std::pow(s.pos[s.n + i] - s.pos[s.n + c], 2);
    SphParameters p = water(dimension, 1.5 * dx);
    p.gravity = {0, 0, 0}, p.alpha = 0, p.delta = 0, p.nu = nu;
    const SphRates<double> r = rates(p, s);
    INFO(dimension << "-D, particle " << c);
    CHECK(r.acc[c] == Approx(2 * nu * eps).epsilon(0.04));
    CHECK(std::abs(r.acc[s.n + c]) < 1e-9 * nu * eps);
    p.nu = 0;
    CHECK(rates(p, s).acc[c] == 0);  // without it, nothing acts on a shear flow at rho0
  }
}
