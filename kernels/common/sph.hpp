#pragma once
// The smoothing kernels and the equation of state of weakly compressible SPH (seed S3's dam break,
// the E19 spec), host and device, float and double, in D = 2 or 3 dimensions.
//
// A kernel W(r, h) has compact support 2h (q = r / h in [0, 2)) and integrates to 1 over the plane
// (D = 2) or space (D = 3). Each gives W and F = (1/r) dW/dr, so that grad_i W(|r_i - r_j|) =
// F r_ij with r_ij = r_i - r_j, and no division by r is needed where r -> 0 (F stays finite there).
//   Wendland C2 (the default of DualSPHysics):
//     W = alpha_D (1 - q/2)^4 (2q + 1),       alpha_2 = 7 / (4 pi h^2),  alpha_3 = 21 / (16 pi h^3)
//     F = -5 alpha_D (1 - q/2)^3 / h^2
//   cubic spline (Monaghan and Lattanzio 1985):
//     W = alpha_D (1 - 3/2 q^2 + 3/4 q^3)  for q < 1,  alpha_D (2 - q)^3 / 4  for 1 <= q < 2,
//     alpha_2 = 10 / (7 pi h^2),  alpha_3 = 1 / (pi h^3)
//     F = alpha_D (9/4 q - 3) / h^2  for q < 1,  -3/4 alpha_D (2 - q)^2 / (q h^2)  for 1 <= q < 2
// Tait's equation of state: p = B ((rho / rho0)^gamma - 1), B = c0^2 rho0 / gamma, gamma = 7, so
// that dp/drho = c0^2 at rho0.
// SphPair: what particle b adds to particle a's rates (see there).
#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody::sph {

enum class KernelKind { wendland_c2, cubic_spline };

template <int D, class T>
struct WendlandC2 {
  static_assert(D == 2 || D == 3, "SPH kernels are for 2 or 3 dimensions");
  T h;        // smoothing length: the support is 2h
  T alpha;    // alpha_D
  T inv_h;    // 1 / h: the pair terms multiply, not divide (a division costs several multiplications)
  T f_scale;  // -5 alpha_D / h^2

  NBODY_HD explicit WendlandC2(T smoothing)
      : h(smoothing), alpha(normalisation(smoothing)), inv_h(T(1) / smoothing), f_scale(T(-5) * alpha / (h * h)) {}
  NBODY_HD static T normalisation(T h) {
    constexpr double pi = 3.14159265358979323846;
    return D == 2 ? T(7.0 / (4.0 * pi)) / (h * h) : T(21.0 / (16.0 * pi)) / (h * h * h);
  }
  NBODY_HD T support() const { return T(2) * h; }
  NBODY_HD T w(T r) const {
    const T q = r * inv_h;
    if (!(q < T(2))) return T(0);
    const T u = T(1) - q / T(2), u2 = u * u;
    return alpha * u2 * u2 * (T(2) * q + T(1));
  }
  NBODY_HD T f(T r) const {
    const T q = r * inv_h;
    if (!(q < T(2))) return T(0);
    const T u = T(1) - q / T(2);
    return f_scale * u * u * u;
  }
};

template <int D, class T>
struct CubicSpline {
  static_assert(D == 2 || D == 3, "SPH kernels are for 2 or 3 dimensions");
  T h;
  T alpha;
  T inv_h;           // 1 / h
  T alpha_over_h2;   // alpha_D / h^2

  NBODY_HD explicit CubicSpline(T smoothing)
      : h(smoothing), alpha(normalisation(smoothing)), inv_h(T(1) / smoothing), alpha_over_h2(alpha / (h * h)) {}
  NBODY_HD static T normalisation(T h) {
    constexpr double pi = 3.14159265358979323846;
    return D == 2 ? T(10.0 / (7.0 * pi)) / (h * h) : T(1.0 / pi) / (h * h * h);
  }
  NBODY_HD T support() const { return T(2) * h; }
  NBODY_HD T w(T r) const {
    const T q = r * inv_h;
    if (!(q < T(2))) return T(0);
    if (q < T(1)) return alpha * (T(1) - T(1.5) * q * q + T(0.75) * q * q * q);
    const T u = T(2) - q;
    return alpha * T(0.25) * u * u * u;
  }
  NBODY_HD T f(T r) const {
    const T q = r * inv_h;
    if (!(q < T(2))) return T(0);
    if (q < T(1)) return alpha_over_h2 * (T(2.25) * q - T(3));
    const T u = T(2) - q;
    return T(-0.75) * alpha_over_h2 * u * u / q;
  }
};

// Tait's equation of state of a weakly compressible liquid (Monaghan 1994; Batchelor's gamma = 7).
template <class T>
struct Tait {
  T rho0;  // reference density
  T c0;    // speed of sound at rho0 (10-20 times the largest flow speed keeps |rho/rho0 - 1| near 1 %)
  static constexpr int gamma = 7;

  NBODY_HD T b() const { return c0 * c0 * rho0 / T(gamma); }
  NBODY_HD T pressure(T rho) const {
    const T x = rho / rho0, x2 = x * x, x3 = x2 * x;
    return b() * (x3 * x3 * x - T(1));
  }
  // The speed of sound at rho: sqrt(dp/drho) = c0 (rho/rho0)^3, squared.
  NBODY_HD T sound_speed_squared(T rho) const {
    const T x = rho / rho0, x3 = x * x * x;
    return c0 * c0 * x3 * x3;
  }
  // The law inverted about rho0: rho0 ((1 + u)^(1/7) - 1), the density above rho0 where the
  // pressure is u B. For |u| <= 1/64 (every case here: u is rho0 g dy / B over a kernel's support)
  // by the binomial series to u^9 (float: u^4), whose remainder lies below the type's rounding: + and * alone, so
  // that host and device give the same bits, at a fraction of pow's cost; pow beyond.
  NBODY_HD T density_above_reference(T u) const {
    if (!(u <= T(1.0 / 64) && u >= T(-1.0 / 64))) return rho0 * (pow(T(1) + u, T(1) / T(gamma)) - T(1));
    T s = T(-65.0 / 2401.0);  // the binomial coefficients C(1/7, k), k = 9 (double; float: 4) down to 1
    if constexpr (sizeof(T) > sizeof(float)) {
      s = T(2990130.0 / 282475249.0);
      s = T(-489294.0 / 40353607.0) + u * s;
      s = T(81549.0 / 5764801.0) + u * s;
      s = T(-1989.0 / 117649.0) + u * s;
      s = T(351.0 / 16807.0) + u * s;
      s = T(-65.0 / 2401.0) + u * s;
    }
    s = T(13.0 / 343.0) + u * s;
    s = T(-3.0 / 49.0) + u * s;
    s = T(1.0 / 7.0) + u * s;
    return rho0 * (u * s);
  }
};

// The weakly compressible SPH equations as DualSPHysics writes them (Monaghan 1994, 2005): what
// particle b adds to particle a's rates, with r_ab = r_a - r_b, v_ab = v_a - v_b and
// grad_a W_ab = F(r) r_ab:
//   continuity       drho_a/dt += m_b v_ab . grad_a W_ab
//   density diffusion, between fluid particles only (DualSPHysics's "Fourtakas (full)": a wall's
//                    density is set by the continuity equation alone; its other variants drop the
//                    term altogether for a fluid particle with a wall particle in its support)
//                    drho_a/dt += delta h c0 psi_ab . grad_a W_ab m_b / rho_b,
//                    psi_ab = 2 (rho_ba - rho_ba^H) (r_b - r_a) / (r^2 + eta^2), rho_ba = rho_b - rho_a:
//                    it moves density from denser neighbours and damps the pressure noise of the
//                    weakly compressible scheme.
//                    Molteni and Colagrossi (2009): rho_ba^H = 0. In a liquid at rest under gravity
//                    their term diffuses the hydrostatic density gradient itself wherever the kernel
//                    is truncated (the free surface), and the pressure drifts from rho g h (Antuono et
//                    al. 2012; Fourtakas et al. 2019).
//                    Fourtakas et al. (2019): rho_ba^H = rho0 ((1 + rho0 g (y_a - y_b) / B)^(1/gamma) - 1),
//                    the hydrostatic part of rho_b - rho_a (Tait's law inverted: density_above_reference), so that a column at
//                    rest in hydrostatic balance feels no diffusion. y is the vertical and g = -g_y
//                    (gravity along -y); `hydrostatic` = rho0 g / B. A body force along another axis
//                    (one that drives a flow along a periodic axis) is balanced by no pressure, and
//                    has no hydrostatic part.
//   momentum         dv_a/dt += -m_b ((p_a + p_b) / (rho_a rho_b) + Pi_ab) grad_a W_ab
//   artificial viscosity (Monaghan 1992): Pi_ab = -alpha cbar mu / rhobar when v_ab . r_ab < 0,
//                    else 0, mu = h v_ab . r_ab / (r^2 + eta^2), cbar and rhobar the pair's means
//   laminar viscosity (Morris et al. 1997, in the form of Lo and Shao 2002 that DualSPHysics uses)
//                    dv_a/dt += m_b 4 nu r_ab . grad_a W_ab / ((rho_a + rho_b) (r^2 + eta^2)) v_ab,
//                    nu the kinematic viscosity: nu times the SPH Laplacian of v (Brookshaw 1985);
//                    against a wall particle b, v_ab is scaled by the caller's no_slip factor (1, or
//                    Morris et al.'s beta, which puts the no-slip condition on the wall's face)
// with eta^2 = 0.01 h^2 (each pair's 1 / (r^2 + eta^2) and each particle's 1 / rho taken once and
// multiplied: a division costs several multiplications). The momentum terms are the same arithmetic from either side but for their
// sign, so pair forces conserve momentum (exactly for equal masses, else to round-off).
// Flops per pair beside each line (a divide, square root or power counted as one).
enum class DensityDiffusion { molteni, fourtakas };

// Morris et al.'s (1997) no-slip factor beta for a fluid particle a against a wall particle b
// whose vector to its wall's face is w (solver/particles/sph/sph_cpu.hpp, SphState::to_face): with d_b
// = |w| and d_a the fluid particle's distance from the face along w, the wall particle is seen
// with the velocity -(d_b / d_a) v_a, so v_ab = beta v_a, beta = min(1.5, 1 + d_b / d_a).
template <class T>
NBODY_HD T morris_no_slip(const T w[3], const T rab[3]) {
  const T d_b = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const T d_a = (rab[0] * w[0] + rab[1] * w[1] + rab[2] * w[2]) / d_b - d_b;
  const T beta_max = T(1.5), beta = T(1) + d_b / d_a;
  return d_a > T(0) && beta < beta_max ? beta : beta_max;
}

template <class Kernel, class T>
struct SphPair {
  Kernel kernel;
  Tait<T> eos;
  T alpha;  // artificial viscosity (0: none)
  T delta;  // density diffusion (0: none)
  T nu = T(0);  // laminar (kinematic) viscosity (0: none)
  DensityDiffusion diffusion = DensityDiffusion::molteni;
  T hydrostatic = T(0);  // rho0 g / B of Fourtakas's term

  struct Particle {
    T r[3], v[3], rho, p, c, m;  // position, velocity, density, pressure, sound speed, mass
    T inv_rho;                   // 1 / rho, once per particle
    bool boundary = false;       // a dynamic boundary particle
  };

  // eta^2, which keeps the terms divided by r^2 finite as r -> 0.
  NBODY_HD T eta2() const { return T(0.01) * kernel.h * kernel.h; }

  // Adds b's terms to a's drho and acc; r2 = |r_a - r_b|^2 below the support, inv = 1 / (r2 + eta^2).
  // Returns |v_ab . r_ab| / (r^2 + eta^2), the pair's term of the time step's CFL condition.
  NBODY_HD T add(const Particle& a, const Particle& b, const T rab[3], T r2, T inv, T& drho, T acc[3],
                 T no_slip = T(1)) const {
    const T h = kernel.h;
    const T f = kernel.f(sqrt(r2));                                              // 1 + kernel
    const T vab[3] = {a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]};        // 3
    const T vr = vab[0] * rab[0] + vab[1] * rab[1] + vab[2] * rab[2];            // 5
    drho += b.m * f * vr;                                                        // 3
    if (delta != T(0) && !a.boundary && !b.boundary) {                           // 10 (+ 19)
      T rho_ba = b.rho - a.rho;
      if (diffusion == DensityDiffusion::fourtakas) rho_ba -= eos.density_above_reference(hydrostatic * rab[1]);
      drho += delta * h * eos.c0 * T(2) * rho_ba * (-f) * r2 * inv * b.m * b.inv_rho;
    }
    T pi = T(0);
    if (vr < T(0)) {                                                             // 8
      const T mu = h * vr * inv;
      pi = -alpha * (a.c + b.c) * mu / (a.rho + b.rho);
    }
    const T scale = -b.m * ((a.p + b.p) * a.inv_rho * b.inv_rho + pi) * f;       // 7
    for (int k = 0; k < 3; ++k) acc[k] += scale * rab[k];                        // 6
    if (nu != T(0)) {                                                            // 8 + 6
      const T laminar = no_slip * b.m * T(4) * nu * f * r2 * inv / (a.rho + b.rho);
      for (int k = 0; k < 3; ++k) acc[k] += laminar * vab[k];
    }
    return abs(vr) * inv;                                                        // 2
  }
};

}  // namespace nbody::sph
