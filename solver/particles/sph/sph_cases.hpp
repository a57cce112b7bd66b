#pragma once
// The validation cases of weakly compressible SPH (E19), each as the state it starts from, its
// parameters and its walls, in 2-D (the plane z = 0): a hydrostatic tank, body-force-driven
// Poiseuille flow between plates, and the dam break of DualSPHysics's 2-D validation case; and
// that dam break extruded into 3-D, for the time per step.
//
// Particles sit on a square lattice of spacing dx, fluid particles at the centres of the cells of
// the region they fill, so that a wall's inner face lies half a spacing from the nearest fluid
// particle and from the nearest boundary particle. Walls are `layers` rows of dynamic boundary
// particles, enough that a fluid particle touching a wall has its full support (2h) filled. The
// periodic box is larger than the container by a support on every side that is not periodic, so
// that nothing interacts across it. A particle's mass is its initial density times dx^2, so
// that its volume m / rho is the lattice's cell (DualSPHysics gives every particle rho0 dx^2, and
// a column at rest with hydrostatic densities then feels its pressure gradient too weak by
// rho0 / rho). h = 1.5 dx: on a square lattice the Wendland C2 kernel's gradient then reproduces a
// linear pressure within a few tenths of a per cent, where h = sqrt(2) dx (DualSPHysics's 2-D
// coefh = 1) falls about 1 % short, and a column at rest settles to a pressure gradient steeper
// than rho g by as much.
#include <algorithm>
#include <cmath>
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "particles/sph/sph_cpu.hpp"

namespace nbody::particles {

template <class T>
struct SphCase {
  SphParameters params;
  SphState<T> state;
  SphWalls walls;
  double dx = 0;  // particle spacing
};

namespace sph_case_detail {

// Particles are collected, then laid out as the state's SoA.
struct Particle {
  double x, y, rho;
  bool boundary;
  double z = 0;  // 3-D cases only
};

inline SphParameters water(double dx, double c0) {
  SphParameters p;
  p.dimension = 2, p.h = 1.5 * dx, p.c0 = c0;
  return p;
}

// The rows of boundary particles that fill a support beyond a wall.
inline int layers(const SphParameters& p, double dx) { return int(std::ceil(p.support() / dx - 1e-9)); }

// Tait's density at depth d below a free surface at rest: rho0 (1 + rho0 g d / B)^(1/gamma),
// rho0 above it (DualSPHysics's hydrostatic initial density).
inline double hydrostatic_density(const SphParameters& p, double depth) {
  const sph::Tait<double> eos{p.rho0, p.c0};
  const double g = -p.gravity[1];
  return depth > 0 ? p.rho0 * std::pow(1 + p.rho0 * g * depth / eos.b(), 1.0 / eos.gamma) : p.rho0;
}

// The particles laid out in a box of the given sides, shifted by (x0, y0, z0) so that every
// coordinate is inside it; in 2-D (Lz = 0) z = 0 and the box a support deep. A particle's mass is
// its density times its cell of the lattice, dx^2 or dx^3.
template <class T>
SphState<T> layout(const std::vector<Particle>& parts, const SphParameters& p, double dx, double Lx, double Ly,
                   double x0, double y0, double Lz = 0, double z0 = 0) {
  SphState<T> s;
  s.n = parts.size();
  s.box.L[0] = T(Lx), s.box.L[1] = T(Ly), s.box.L[2] = T(p.dimension == 3 ? Lz : p.support());
  const double volume = p.dimension == 3 ? dx * dx * dx : dx * dx;
  s.pos.assign(3 * s.n, T(0)), s.vel.assign(3 * s.n, T(0)), s.rho.resize(s.n), s.mass.resize(s.n);
  s.boundary.resize(s.n);
  for (std::size_t i = 0; i < s.n; ++i) {
    s.pos[i] = s.box.wrap(T(parts[i].x + x0), 0);
    s.pos[s.n + i] = s.box.wrap(T(parts[i].y + y0), 1);
    if (p.dimension == 3) s.pos[2 * s.n + i] = s.box.wrap(T(parts[i].z + z0), 2);
    s.rho[i] = T(parts[i].rho), s.mass[i] = T(parts[i].rho * volume), s.boundary[i] = parts[i].boundary;
  }
  return s;
}

// An open tank [0, width] x [0, height) of `layers` rows of boundary particles (floor and side
// walls, the corners filled), each of density rho(x, y); the particles appended to parts.
template <class Density>
void tank(std::vector<Particle>& parts, double width, double height, double dx, int layers, Density rho) {
  const int nx = int(std::lround(width / dx)), ny = int(std::lround(height / dx));
  for (int j = -layers; j < ny; ++j)
    for (int i = -layers; i < nx + layers; ++i)
      if (j < 0 || i < 0 || i >= nx) {
        const double x = (i + 0.5) * dx, y = (j + 0.5) * dx;
        parts.push_back({x, y, rho(x, y), true});
      }
}

// The container's walls in the state's coordinates (shifted by x0, y0).
inline SphWalls shifted(SphWalls w, double x0, double y0) {
  w.x_min += x0, w.x_max += x0, w.y_min += y0, w.y_max += y0;
  return w;
}

// A column of water of height H at rest or released: c0 = 10 sqrt(2 g H), ten times the speed a
// particle falling H reaches (for the dam break, that of the front's theoretical limit, Ritter
// 1892); artificial viscosity 0.02 and Fourtakas's density diffusion with delta = 0.1, as
// DualSPHysics's dam-break validation case.
inline SphParameters column_water(double dx, double height) {
  SphParameters p = water(dx, 10 * std::sqrt(2 * 9.81 * height));
  p.alpha = 0.02;
  p.diffusion = sph::DensityDiffusion::fourtakas;
  return p;
}

// A 2-D column of water `width` wide and `height` high against the left wall of an open tank
// `tank_width` wide with walls `tank_height` high, at rest. The column's densities are hydrostatic,
// as are the walls' beside and below it (every wall's when the column fills the tank), as
// DualSPHysics starts a column; the other walls' are rho0.
template <class T>
SphCase<T> column_in_tank(double dx, double width, double height, double tank_width, double tank_height) {
  SphCase<T> c;
  c.dx = dx;
  c.params = column_water(dx, height);
  const int wall_layers = layers(c.params, dx);
  const bool fills = width >= tank_width;
  const auto rho = [&](double x, double y) {
    return x < width || fills ? hydrostatic_density(c.params, height - y) : c.params.rho0;
  };
  std::vector<Particle> parts;
  for (int j = 0; j < int(std::lround(height / dx)); ++j)
    for (int i = 0; i < int(std::lround(width / dx)); ++i) {
      const double x = (i + 0.5) * dx, y = (j + 0.5) * dx;
      parts.push_back({x, y, rho(x, y), false});
    }
  tank(parts, tank_width, tank_height, dx, wall_layers, rho);
  const double margin = wall_layers * dx + c.params.support();
  c.state = layout<T>(parts, c.params, dx, tank_width + 2 * margin, tank_height + 2 * margin, margin, margin);
  c.walls = shifted({0, tank_width, 0, INFINITY}, margin, margin);
  return c;
}

}  // namespace sph_case_detail

// A column of water `depth` deep filling a tank `width` wide (walls 1.5 depth high) at rest, its
// densities and the walls' hydrostatic (sph_case_detail::column_in_tank).
template <class T>
SphCase<T> sph_hydrostatic_tank(double width, double depth, double dx) {
  return sph_case_detail::column_in_tank<T>(dx, width, depth, width, 1.5 * depth);
}

// Poiseuille flow between plates at y = 0 and y = gap, driven by a body force `force` (per unit
// mass) along x, periodic along x over `length` (a multiple of dx); the fluid starts at rest. Its
// steady profile is v_x(y) = force y (gap - y) / (2 nu) (Morris et al. 1997), the laminar viscosity
// nu the only one (alpha = 0), with Morris et al.'s no-slip on the plates' faces (SphState::to_face).
// c0 as Morris et al. choose it, for density changes near 1 %: c0^2 = 100 max(V^2, nu V / gap,
// force gap), V the centre-line speed.
template <class T>
SphCase<T> sph_poiseuille(double gap, double length, double dx, double nu, double force) {
  namespace d = sph_case_detail;
  const double v_max = force * gap * gap / (8 * nu);
  SphCase<T> c;
  c.dx = dx;
  c.params = d::water(dx, 10 * std::sqrt(std::max({v_max * v_max, nu * v_max / gap, force * gap})));
  c.params.alpha = 0, c.params.nu = nu;
  c.params.gravity = {force, 0, 0};
  const int layers = d::layers(c.params, dx), nx = int(std::lround(length / dx)), ny = int(std::lround(gap / dx));
  std::vector<d::Particle> parts;
  for (int j = -layers; j < ny + layers; ++j)
    for (int i = 0; i < nx; ++i) parts.push_back({(i + 0.5) * dx, (j + 0.5) * dx, c.params.rho0, j < 0 || j >= ny});
  const double margin = layers * dx + c.params.support();
  c.state = d::layout<T>(parts, c.params, dx, nx * dx, gap + 2 * margin, 0, margin);
  c.walls = d::shifted({-INFINITY, INFINITY, 0, gap}, 0, margin);
  const std::size_t n = c.state.n;
  c.state.to_face.assign(3 * n, T(0));
  for (std::size_t i = 0; i < n; ++i)
    if (parts[i].boundary) c.state.to_face[n + i] = T(parts[i].y < 0 ? -parts[i].y : gap - parts[i].y);
  return c;
}

// The 2-D dam break of DualSPHysics's validation case (CaseDambreakVal2D): a water column 1 m wide
// and 2 m high against the left wall of a tank 4 m wide with walls 3 m high, released at t = 0;
// the column's densities (and the walls' beside and below it) hydrostatic
// (sph_case_detail::column_in_tank).
template <class T>
SphCase<T> sph_dam_break(double dx) {
  return sph_case_detail::column_in_tank<T>(dx, 1, 2, 4, 3);
}

// A column 1 m long, 2 m high and `width` wide against the end wall of a tank 4 m long and 2.5 m
// high (3-D: the 2-D case extruded across the tank, with walls on every side), its densities
// hydrostatic, released at t = 0; the 3-D case of E19's time per step.
template <class T>
SphCase<T> sph_dam_break_3d(double dx, double width = 1) {
  namespace d = sph_case_detail;
  const double length = 1, height = 2, tank_length = 4, tank_height = 2.5;
  SphCase<T> c;
  c.dx = dx;
  c.params = d::column_water(dx, height);
  c.params.dimension = 3;
  const int layers = d::layers(c.params, dx);
  const int nx = int(std::lround(tank_length / dx)), ny = int(std::lround(tank_height / dx));
  const int nz = int(std::lround(width / dx)), fx = int(std::lround(length / dx)), fy = int(std::lround(height / dx));
  std::vector<d::Particle> parts;
  const auto rho = [&](double x, double y) { return x < length ? d::hydrostatic_density(c.params, height - y) : c.params.rho0; };
  for (int k = -layers; k < nz + layers; ++k)
    for (int j = -layers; j < ny; ++j)
      for (int i = -layers; i < nx + layers; ++i) {
        const double x = (i + 0.5) * dx, y = (j + 0.5) * dx, z = (k + 0.5) * dx;
        const bool wall = i < 0 || i >= nx || j < 0 || k < 0 || k >= nz;
        if (wall || (i < fx && j < fy)) parts.push_back({x, y, rho(x, y), wall, z});
      }
  const double margin = layers * dx + c.params.support();
  c.state = d::layout<T>(parts, c.params, dx, tank_length + 2 * margin, tank_height + 2 * margin, margin, margin,
                         width + 2 * margin, margin);
  c.walls = d::shifted({0, tank_length, 0, INFINITY}, margin, margin);
  c.walls.z_min = margin, c.walls.z_max = margin + width;
  return c;
}

// The hydrostatic tank's measure (E19, spec): the largest |p - rho0 g d| / (rho0 g d) over the fluid
// particles more than `skip` below the column's surface at rest (d: their depth below it; `depth`
// as sph_hydrostatic_tank built it), and how many particles that is.
template <class T>
std::pair<double, std::size_t> sph_hydrostatic_error(const SphCase<T>& c, double depth, double skip) {
  const SphState<T>& s = c.state;
  const sph::Tait<double> eos{c.params.rho0, c.params.c0};
  const double surface = c.walls.y_min + depth, g = -c.params.gravity[1];
  double worst = 0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < s.n; ++i) {
    const double below = surface - double(s.pos[s.n + i]);
    if (s.boundary[i] || below < skip) continue;
    const double expected = c.params.rho0 * g * below;
    worst = std::max(worst, std::abs(eos.pressure(double(s.rho[i])) - expected) / expected);
    ++counted;
  }
  return {worst, counted};
}

// Poiseuille flow's measure: the mean speed along x of the fluid particles within dx of the centre
// line, over the analytic steady centre-line speed force gap^2 / (8 nu) (sph_poiseuille's
// arguments), and how many particles that is.
template <class T>
std::pair<double, std::size_t> sph_poiseuille_centre_line(const SphCase<T>& c, double gap, double nu, double force) {
  const SphState<T>& s = c.state;
  const double centre = c.walls.y_min + gap / 2;
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < s.n; ++i)
    if (!s.boundary[i] && std::abs(double(s.pos[s.n + i]) - centre) < c.dx) sum += double(s.vel[i]), ++counted;
  return {counted ? sum / double(counted) / (force * gap * gap / (8 * nu)) : 0.0, counted};
}

// Morris et al.'s Poiseuille case as `nbody sph` runs it: the gap (m), the kinematic viscosity
// (m^2/s) and the body force (m/s^2).
inline constexpr double poiseuille_gap = 1e-3, poiseuille_nu = 1e-6, poiseuille_force = 2e-4;

// A case `nbody sph --case` runs, from its spacing dx and the hydrostatic column's depth.
template <class T>
struct SphCaseSpec {
  std::string_view name;
  std::string_view description;  // for --help, wrapped
  double dx;                     // the default spacing
  double (*extent)(double depth);  // the size that bounds the spacing: at most extent / 4, at least extent / finest
  double finest;
  SphCase<T> (*make)(double dx, double depth);
  std::string_view measure;  // the summary's name of the case's own measure; empty: none
  double (*measured)(const SphCase<T>& c, double dx, double depth);
};

// Every case: names, --help, the default spacings, their bounds and the measures come from here.
template <class T>
inline constexpr std::array sph_cases = {
    SphCaseSpec<T>{"dam-break",
                   "DualSPHysics's 2-D validation: a water column 1 m wide and 2 m high\n"
                   "    against the left wall of a tank 4 m wide, released at t = 0 (front against Koshizuka and Oka 1996)",
                   0.02, [](double) { return 1.0; }, 2000, [](double dx, double) { return sph_dam_break<T>(dx); }, "", nullptr},
    SphCaseSpec<T>{"dam-break-3d",
                   "the dam break extruded into 3-D: a column 1 m long, 2 m high and 1 m wide against the\n"
                   "    end wall of a tank 4 m long, 1 m wide and 2.5 m high, walls on every side (about 2^20 particles at the\n"
                   "    default --dx; E19's time per step)",
                   0.015, [](double) { return 1.0; }, 200,  // finest: about 2e7 particles
                   [](double dx, double) { return sph_dam_break_3d<T>(dx); }, "", nullptr},
    SphCaseSpec<T>{"hydrostatic", "a column of water --depth deep in a tank as wide, settling at rest under gravity", 0.01,
                   [](double depth) { return depth; }, 2000,
                   [](double dx, double depth) { return sph_hydrostatic_tank<T>(depth, depth, dx); }, "pressure_error",
                   [](const SphCase<T>& c, double dx, double depth) {  // below the top two layers
                     return sph_hydrostatic_error(c, depth, 2 * dx).first;
                   }},
    SphCaseSpec<T>{"poiseuille",
                   "Morris et al. (1997): flow between plates 1 mm apart driven by a\n"
                   "    body force of 2e-4 m/s^2 along x, nu = 1e-6 m^2/s, periodic along x over 8 spacings; steady centre-line\n"
                   "    speed 2.5e-5 m/s",
                   poiseuille_gap / 60, [](double) { return poiseuille_gap; }, 2000,
                   [](double dx, double) {
                     return sph_poiseuille<T>(poiseuille_gap, 8 * dx, dx, poiseuille_nu, poiseuille_force);
                   },
                   "centre_line_ratio",
                   [](const SphCase<T>& c, double, double) {
                     return sph_poiseuille_centre_line(c, poiseuille_gap, poiseuille_nu, poiseuille_force).first;
                   }},
};

}  // namespace nbody::particles
