#pragma once
// Quad-double real type (about 212 significant bits, ~64 decimal digits): the unevaluated sum of
// four doubles. Host and CUDA device, allocation- and exception-free, like double_double.hpp,
// whose error-free transformations (eft::two_sum, two_prod with fma) it builds on.
//
// Algorithms: those of libqd's qd_real in its default configuration (Hida, Li & Bailey; Debian's
// libqd: "sloppy" addition, multiplication and division), step for step, so that the tests can
// demand bit-identical results against libqd. Error bounds (eps = 2^-209):
//   a + b: Cray-style, |err| <= ~eps (|a| + |b|) (not relative to |a + b| under cancellation:
//          enough for the solver, whose differences of nearby positions are known to eps |x|);
//   a * b, a / b: relative ~eps;  sqrt, rsqrt: relative ~eps (Newton from the double root).
// The solver needs qd for one purpose: references that agree to 30 and more digits (E22) at N
// where mp50 is too slow; its CUDA force kernels make a qd evaluation at N = 512 cost microseconds.
//
// Value: x[0] + x[1] + x[2] + x[3], each term within half an ulp of the one before (within an
// ulp after a cancellation in the sloppy addition, as libqd). sin, cos, floor and fmod follow
// dd's (Taylor series after reduction by pi/2); text I/O (host only) is RealTraits<qd> in
// solver/core/real.cpp, exact through Boost.Multiprecision.
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "double_double.hpp"
#include "host_device.hpp"

namespace nbody {

namespace eft {

// (a, b, c) -> (a, b, c) with a + b + c unchanged: a the rounded sum, b, c the two error terms.
NBODY_HD void three_sum(double& a, double& b, double& c) {
  double t2, t3;
  const double t1 = two_sum(a, b, t2);
  a = two_sum(c, t1, t3);
  b = two_sum(t2, t3, c);
}
// As three_sum, but the two error terms folded into b (c is left unspecified).
NBODY_HD void three_sum2(double& a, double& b, double& c) {
  double t2, t3;
  const double t1 = two_sum(a, b, t2);
  a = two_sum(c, t1, t3);
  b = t2 + t3;
}

// Five overlapping terms -> four non-overlapping ones (libqd's qd::renorm).
NBODY_HD void renorm(double& c0, double& c1, double& c2, double& c3, double& c4) {
  if (c0 - c0 != 0.0 && c0 == c0) return;  // +-inf: as libqd, leave it
  double s0, s1, s2 = 0.0, s3 = 0.0;
  s0 = quick_two_sum(c3, c4, c4);
  s0 = quick_two_sum(c2, s0, c3);
  s0 = quick_two_sum(c1, s0, c2);
  c0 = quick_two_sum(c0, s0, c1);
  s0 = c0;
  s1 = c1;
  if (s1 != 0.0) {
    s1 = quick_two_sum(s1, c2, s2);
    if (s2 != 0.0) {
      s2 = quick_two_sum(s2, c3, s3);
      if (s3 != 0.0) s3 += c4;
      else s2 = quick_two_sum(s2, c4, s3);
    } else {
      s1 = quick_two_sum(s1, c3, s2);
      if (s2 != 0.0) s2 = quick_two_sum(s2, c4, s3);
      else s1 = quick_two_sum(s1, c4, s2);
    }
  } else {
    s0 = quick_two_sum(s0, c2, s1);
    if (s1 != 0.0) {
      s1 = quick_two_sum(s1, c3, s2);
      if (s2 != 0.0) s2 = quick_two_sum(s2, c4, s3);
      else s1 = quick_two_sum(s1, c4, s2);
    } else {
      s0 = quick_two_sum(s0, c3, s1);
      if (s1 != 0.0) s1 = quick_two_sum(s1, c4, s2);
      else s0 = quick_two_sum(s0, c4, s1);
    }
  }
  c0 = s0, c1 = s1, c2 = s2, c3 = s3;
}

}  // namespace eft

struct qd {
  double x[4];

  qd() = default;  // uninitialised like double; qd{} is zero
  NBODY_HD constexpr qd(double d) : x{d, 0.0, 0.0, 0.0} {}  // NOLINT(implicit): qd op double, T(1)
  // Exact for every integer up to 64 bits (through dd's exact conversion).
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  NBODY_HD constexpr qd(I n) : x{dd(n).hi, dd(n).lo, 0.0, 0.0} {}  // NOLINT(implicit)
  // Takes the four terms as they are: the caller promises they are non-overlapping.
  NBODY_HD constexpr qd(double a, double b, double c, double d) : x{a, b, c, d} {}

  NBODY_HD explicit operator double() const { return x[0] + x[1]; }

  NBODY_HD qd& operator+=(const qd& b);
  NBODY_HD qd& operator-=(const qd& b);
  NBODY_HD qd& operator*=(const qd& b);
  NBODY_HD qd& operator/=(const qd& b);
};

NBODY_HD double to_double(const qd& a) { return a.x[0] + a.x[1]; }

// ---- addition (libqd's sloppy_add and qd + double) ----

NBODY_HD qd operator+(const qd& a, const qd& b) {
  double t0, t1, t2, t3;
  double s0 = eft::two_sum(a.x[0], b.x[0], t0);
  double s1 = eft::two_sum(a.x[1], b.x[1], t1);
  double s2 = eft::two_sum(a.x[2], b.x[2], t2);
  double s3 = eft::two_sum(a.x[3], b.x[3], t3);
  s1 = eft::two_sum(s1, t0, t0);
  eft::three_sum(s2, t0, t1);
  eft::three_sum2(s3, t0, t2);
  t0 = t0 + t1 + t3;
  eft::renorm(s0, s1, s2, s3, t0);
  return qd(s0, s1, s2, s3);
}

NBODY_HD qd operator+(const qd& a, double b) {
  double e;
  double c0 = eft::two_sum(a.x[0], b, e);
  double c1 = eft::two_sum(a.x[1], e, e);
  double c2 = eft::two_sum(a.x[2], e, e);
  double c3 = eft::two_sum(a.x[3], e, e);
  eft::renorm(c0, c1, c2, c3, e);
  return qd(c0, c1, c2, c3);
}
NBODY_HD qd operator+(double a, const qd& b) { return b + a; }

NBODY_HD qd operator-(const qd& a) { return qd(-a.x[0], -a.x[1], -a.x[2], -a.x[3]); }
NBODY_HD qd operator+(const qd& a) { return a; }
NBODY_HD qd operator-(const qd& a, const qd& b) { return a + (-b); }
NBODY_HD qd operator-(const qd& a, double b) { return a + (-b); }
NBODY_HD qd operator-(double a, const qd& b) { return (-b) + a; }

// ---- multiplication (libqd's sloppy_mul: terms of order eps^3 in double, those of eps^4 dropped) ----

NBODY_HD qd operator*(const qd& a, const qd& b) {
  double q0, q1, q2, q3, q4, q5, t0, t1;
  double p0 = eft::two_prod(a.x[0], b.x[0], q0);
  double p1 = eft::two_prod(a.x[0], b.x[1], q1);
  double p2 = eft::two_prod(a.x[1], b.x[0], q2);
  double p3 = eft::two_prod(a.x[0], b.x[2], q3);
  double p4 = eft::two_prod(a.x[1], b.x[1], q4);
  double p5 = eft::two_prod(a.x[2], b.x[0], q5);
  eft::three_sum(p1, p2, q0);
  // (s0, s1, s2) = (p2, q1, q2) + (p3, p4, p5)
  eft::three_sum(p2, q1, q2);
  eft::three_sum(p3, p4, p5);
  double s0 = eft::two_sum(p2, p3, t0);
  double s1 = eft::two_sum(q1, p4, t1);
  double s2 = q2 + p5;
  s1 = eft::two_sum(s1, t0, t0);
  s2 += (t0 + t1);
  s1 += a.x[0] * b.x[3] + a.x[1] * b.x[2] + a.x[2] * b.x[1] + a.x[3] * b.x[0] + q0 + q3 + q4 + q5;
  eft::renorm(p0, p1, s0, s1, s2);
  return qd(p0, p1, s0, s1);
}

NBODY_HD qd operator*(const qd& a, double b) {
  double q0, q1, q2;
  const double p0 = eft::two_prod(a.x[0], b, q0);
  double p1 = eft::two_prod(a.x[1], b, q1);
  double p2 = eft::two_prod(a.x[2], b, q2);
  double p3 = a.x[3] * b;
  double s0 = p0;
  double s2;
  double s1 = eft::two_sum(q0, p1, s2);
  eft::three_sum(s2, q1, p2);
  eft::three_sum2(q1, q2, p3);
  double s3 = q1;
  double s4 = q2 + p2;
  eft::renorm(s0, s1, s2, s3, s4);
  return qd(s0, s1, s2, s3);
}
NBODY_HD qd operator*(double a, const qd& b) { return b * a; }

// ---- division (libqd's sloppy_div: four quotient digits, each from the remainder) ----

NBODY_HD qd operator/(const qd& a, const qd& b) {
  double q0 = a.x[0] / b.x[0];
  qd r = a - b * q0;
  double q1 = r.x[0] / b.x[0];
  r -= b * q1;
  double q2 = r.x[0] / b.x[0];
  r -= b * q2;
  double q3 = r.x[0] / b.x[0];
  double q4 = 0.0;
  eft::renorm(q0, q1, q2, q3, q4);
  return qd(q0, q1, q2, q3);
}
NBODY_HD qd operator/(const qd& a, double b) { return a / qd(b); }
NBODY_HD qd operator/(double a, const qd& b) { return qd(a) / b; }

NBODY_HD qd& qd::operator+=(const qd& b) { return *this = *this + b; }
NBODY_HD qd& qd::operator-=(const qd& b) { return *this = *this - b; }
NBODY_HD qd& qd::operator*=(const qd& b) { return *this = *this * b; }
NBODY_HD qd& qd::operator/=(const qd& b) { return *this = *this / b; }

// ---- comparisons (lexicographic on the terms: exact for non-overlapping values) ----

NBODY_HD bool operator<(const qd& a, const qd& b) {
  for (int i = 0; i < 4; ++i)
    if (a.x[i] != b.x[i]) return a.x[i] < b.x[i];
  return false;
}
NBODY_HD bool operator==(const qd& a, const qd& b) {
  return a.x[0] == b.x[0] && a.x[1] == b.x[1] && a.x[2] == b.x[2] && a.x[3] == b.x[3];
}
NBODY_HD bool operator!=(const qd& a, const qd& b) { return !(a == b); }
NBODY_HD bool operator>(const qd& a, const qd& b) { return b < a; }
NBODY_HD bool operator<=(const qd& a, const qd& b) { return !(b < a); }
NBODY_HD bool operator>=(const qd& a, const qd& b) { return !(a < b); }

// ---- functions found by ADL ----

NBODY_HD qd abs(const qd& a) { return a.x[0] < 0.0 ? -a : a; }
NBODY_HD qd fabs(const qd& a) { return abs(a); }
NBODY_HD bool isfinite(const qd& a) { return a.x[0] - a.x[0] == 0.0 && a.x[3] - a.x[3] == 0.0; }
NBODY_HD bool isnan(const qd& a) { return a.x[0] != a.x[0] || a.x[3] != a.x[3]; }

// 1 / sqrt(a): three Newton steps r += r (1/2 - (a/2) r^2) from the double root (53 -> 106 ->
// 212 bits, the last one to qd rounding), as libqd's sqrt. a must be positive and finite.
NBODY_HD qd rsqrt(const qd& a) {
  qd r(1.0 / eft::sqrt_(a.x[0]));
  const qd h(0.5 * a.x[0], 0.5 * a.x[1], 0.5 * a.x[2], 0.5 * a.x[3]);  // exact halving
  for (int k = 0; k < 3; ++k) r += (0.5 - h * (r * r)) * r;
  return r;
}

// sqrt(a) = a / sqrt(a); 0 for 0, NaN for a < 0, inf and NaN propagate as NaN.
NBODY_HD qd sqrt(const qd& a) {
  if (a.x[0] == 0.0) return qd(0.0);
  if (a.x[0] < 0.0) return qd(eft::sqrt_(-1.0), 0.0, 0.0, 0.0);  // NaN
  return rsqrt(a) * a;
}

NBODY_HD qd ldexp(const qd& a, int e) {
#if defined(__CUDA_ARCH__)
  return qd(::ldexp(a.x[0], e), ::ldexp(a.x[1], e), ::ldexp(a.x[2], e), ::ldexp(a.x[3], e));
#else
  return qd(std::ldexp(a.x[0], e), std::ldexp(a.x[1], e), std::ldexp(a.x[2], e), std::ldexp(a.x[3], e));
#endif
}

// ---- functions for the generic code of the solver (as those of dd) ----

// Largest integer not above a (exact): the floor of the first term that is not an integer.
NBODY_HD qd floor(const qd& a) {
  double f[4] = {::floor(a.x[0]), 0.0, 0.0, 0.0};
  for (int i = 1; i < 4 && f[i - 1] == a.x[i - 1]; ++i) f[i] = ::floor(a.x[i]);
  double e = 0.0;
  eft::renorm(f[0], f[1], f[2], f[3], e);
  return qd(f[0], f[1], f[2], f[3]);
}
NBODY_HD qd trunc(const qd& a) { return a.x[0] < 0.0 ? -floor(-a) : floor(a); }

// x - trunc(x / y) * y, as std::fmod, with the quotient formed in qd.
NBODY_HD qd fmod(const qd& x, const qd& y) { return x - trunc(x / y) * y; }

// pi/2 to 265 bits: the four doubles nearest to it one after the other.
NBODY_HD constexpr qd qd_pi_2() {
  return qd(0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110, 0x1.4cf98e804177dp-164);
}

NBODY_HD double leading(const qd& a) { return a.x[0]; }
NBODY_HD qd sin(const qd& x) { return detail::sin_series(x, qd_pi_2(), 1e-66); }
NBODY_HD qd cos(const qd& x) { return detail::cos_series(x, qd_pi_2(), 1e-66); }

// x^y in double only, as dd's: the solver raises error ratios to fractional powers to choose step
// sizes (step_controller.hpp), where 16 digits are more than enough. Not a quad-double pow.
NBODY_HD qd pow(const qd& x, const qd& y) { return qd(::pow(x.x[0], y.x[0])); }

}  // namespace nbody
