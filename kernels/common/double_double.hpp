#pragma once
// Double-double real type (about 106 significant bits, ~32 decimal digits), built on error-free
// transformations with an explicit fma. Host and (later) CUDA device: every arithmetic function is
// NBODY_HD, allocation-free and exception-free. Algorithms after Hida, Li & Bailey, "Library for
// double-double and quad-double arithmetic" (the QD library), with the "accurate" (IEEE) addition
// and division rather than QD's sloppy defaults, and a fma-based multiplication.
//
// Requirements: compile with -ffp-contract=off (the project does) and never with -ffast-math:
// the error-free transformations below rely on every + and * being rounded exactly once.
//
// Value: hi + lo with |lo| <= ulp(hi)/2 (normalised) for every result returned by the operations.
// sqrt and abs are free functions in namespace nbody, found by argument-dependent lookup, so that
// the templated kernels (interaction.hpp calls `sqrt(x)` unqualified) pick them up for dd.
// Text I/O is host-only: RealTraits<dd>::format and parse (solver/core/real.hpp).
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "host_device.hpp"

namespace nbody {

namespace eft {

#if defined(__CUDA_ARCH__)
NBODY_HD double fma_(double a, double b, double c) { return ::fma(a, b, c); }
NBODY_HD double sqrt_(double a) { return ::sqrt(a); }
#else
NBODY_HD double fma_(double a, double b, double c) { return std::fma(a, b, c); }
NBODY_HD double sqrt_(double a) { return std::sqrt(a); }
#endif

// s + e == a + b exactly, s = fl(a + b) (Knuth; no precondition on |a|, |b|).
NBODY_HD double two_sum(double a, double b, double& e) {
  const double s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}

// s + e == a + b exactly, s = fl(a + b), provided |a| >= |b| or a == 0 (Dekker).
NBODY_HD double quick_two_sum(double a, double b, double& e) {
  const double s = a + b;
  e = b - (s - a);
  return s;
}

// p + e == a * b exactly, p = fl(a * b) (barring underflow of e).
NBODY_HD double two_prod(double a, double b, double& e) {
  const double p = a * b;
  e = fma_(a, b, -p);
  return p;
}

}  // namespace eft

struct dd {
  double hi;
  double lo;

  dd() = default;  // uninitialised like double (cheap arrays, CUDA shared memory); dd{} is zero
  NBODY_HD constexpr dd(double h) : hi(h), lo(0.0) {}  // NOLINT(implicit): dd op double, T(1), literals
  // Exact for every integer up to 64 bits: the two 32-bit halves are each exact in double.
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  NBODY_HD constexpr dd(I n) : hi(0.0), lo(0.0) {  // NOLINT(implicit): T(n) for an int or a size_t
    const I upper = n / (I(1) << 16) / (I(1) << 16);  // two shifts: I may be 32 bits wide
    const double high = static_cast<double>(upper) * 4294967296.0;
    const double low = static_cast<double>(n - upper * (I(1) << 16) * (I(1) << 16));
    hi = high + low;  // two_sum(high, low), written out for constexpr
    const double b = hi - high;
    lo = (high - (hi - b)) + (low - b);
  }
  // Takes the pair as it is: the caller promises |l| <= ulp(h)/2 (use dd::sum to normalise).
  NBODY_HD constexpr dd(double h, double l) : hi(h), lo(l) {}

  // Normalised a + b for any doubles a, b (exact).
  NBODY_HD static dd sum(double a, double b) {
    double e;
    const double s = eft::two_sum(a, b, e);
    return dd(s, e);
  }
  // Exact product a * b of two doubles.
  NBODY_HD static dd prod(double a, double b) {
    double e;
    const double p = eft::two_prod(a, b, e);
    return dd(p, e);
  }

  NBODY_HD explicit operator double() const { return hi + lo; }
  NBODY_HD double to_double() const { return hi + lo; }

  NBODY_HD dd& operator+=(const dd& b);
  NBODY_HD dd& operator-=(const dd& b);
  NBODY_HD dd& operator*=(const dd& b);
  NBODY_HD dd& operator/=(const dd& b);
  NBODY_HD dd& operator+=(double b);
  NBODY_HD dd& operator-=(double b);
  NBODY_HD dd& operator*=(double b);
  NBODY_HD dd& operator/=(double b);
};

NBODY_HD double to_double(const dd& a) { return a.hi + a.lo; }

// ---- addition and subtraction (QD's ieee_add: accurate also under cancellation) ----

NBODY_HD dd operator+(const dd& a, const dd& b) {
  double s2, t2;
  double s1 = eft::two_sum(a.hi, b.hi, s2);
  const double t1 = eft::two_sum(a.lo, b.lo, t2);
  s2 += t1;
  s1 = eft::quick_two_sum(s1, s2, s2);
  s2 += t2;
  s1 = eft::quick_two_sum(s1, s2, s2);
  return dd(s1, s2);
}

NBODY_HD dd operator+(const dd& a, double b) {
  double s2;
  double s1 = eft::two_sum(a.hi, b, s2);
  s2 += a.lo;
  s1 = eft::quick_two_sum(s1, s2, s2);
  return dd(s1, s2);
}
NBODY_HD dd operator+(double a, const dd& b) { return b + a; }

NBODY_HD dd operator-(const dd& a) { return dd(-a.hi, -a.lo); }
NBODY_HD dd operator+(const dd& a) { return a; }

NBODY_HD dd operator-(const dd& a, const dd& b) { return a + (-b); }
NBODY_HD dd operator-(const dd& a, double b) { return a + (-b); }
NBODY_HD dd operator-(double a, const dd& b) { return (-b) + a; }

// ---- multiplication ----

NBODY_HD dd operator*(const dd& a, const dd& b) {
  double p2;
  double p1 = eft::two_prod(a.hi, b.hi, p2);
  p2 = eft::fma_(a.hi, b.lo, p2);
  p2 = eft::fma_(a.lo, b.hi, p2);
  p1 = eft::quick_two_sum(p1, p2, p2);
  return dd(p1, p2);
}

NBODY_HD dd operator*(const dd& a, double b) {
  double p2;
  double p1 = eft::two_prod(a.hi, b, p2);
  p2 = eft::fma_(a.lo, b, p2);
  p1 = eft::quick_two_sum(p1, p2, p2);
  return dd(p1, p2);
}
NBODY_HD dd operator*(double a, const dd& b) { return b * a; }

// ---- division (QD's accurate_div: three quotient digits) ----

NBODY_HD dd operator/(const dd& a, const dd& b) {
  double q1 = a.hi / b.hi;
  dd r = a - b * q1;
  double q2 = r.hi / b.hi;
  r -= b * q2;
  const double q3 = r.hi / b.hi;
  q1 = eft::quick_two_sum(q1, q2, q2);
  return dd(q1, q2) + q3;
}

NBODY_HD dd operator/(const dd& a, double b) {
  double q1 = a.hi / b;
  dd r = a - dd::prod(q1, b);
  double q2 = r.hi / b;
  r -= dd::prod(q2, b);
  const double q3 = r.hi / b;
  q1 = eft::quick_two_sum(q1, q2, q2);
  return dd(q1, q2) + q3;
}
NBODY_HD dd operator/(double a, const dd& b) { return dd(a) / b; }

NBODY_HD dd& dd::operator+=(const dd& b) { return *this = *this + b; }
NBODY_HD dd& dd::operator-=(const dd& b) { return *this = *this - b; }
NBODY_HD dd& dd::operator*=(const dd& b) { return *this = *this * b; }
NBODY_HD dd& dd::operator/=(const dd& b) { return *this = *this / b; }
NBODY_HD dd& dd::operator+=(double b) { return *this = *this + b; }
NBODY_HD dd& dd::operator-=(double b) { return *this = *this - b; }
NBODY_HD dd& dd::operator*=(double b) { return *this = *this * b; }
NBODY_HD dd& dd::operator/=(double b) { return *this = *this / b; }

// ---- comparisons (exact, on normalised values) ----

NBODY_HD bool operator==(const dd& a, const dd& b) { return a.hi == b.hi && a.lo == b.lo; }
NBODY_HD bool operator!=(const dd& a, const dd& b) { return !(a == b); }
NBODY_HD bool operator<(const dd& a, const dd& b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
NBODY_HD bool operator>(const dd& a, const dd& b) { return b < a; }
NBODY_HD bool operator<=(const dd& a, const dd& b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }
NBODY_HD bool operator>=(const dd& a, const dd& b) { return b <= a; }

NBODY_HD bool operator==(const dd& a, double b) { return a.hi == b && a.lo == 0.0; }
NBODY_HD bool operator!=(const dd& a, double b) { return !(a == b); }
NBODY_HD bool operator<(const dd& a, double b) { return a.hi < b || (a.hi == b && a.lo < 0.0); }
NBODY_HD bool operator>(const dd& a, double b) { return a.hi > b || (a.hi == b && a.lo > 0.0); }
NBODY_HD bool operator<=(const dd& a, double b) { return !(a > b); }
NBODY_HD bool operator>=(const dd& a, double b) { return !(a < b); }
NBODY_HD bool operator==(double a, const dd& b) { return b == a; }
NBODY_HD bool operator!=(double a, const dd& b) { return b != a; }
NBODY_HD bool operator<(double a, const dd& b) { return b > a; }
NBODY_HD bool operator>(double a, const dd& b) { return b < a; }
NBODY_HD bool operator<=(double a, const dd& b) { return b >= a; }
NBODY_HD bool operator>=(double a, const dd& b) { return b <= a; }

// ---- functions found by ADL ----

NBODY_HD dd abs(const dd& a) { return a.hi < 0.0 ? -a : a; }
NBODY_HD dd fabs(const dd& a) { return abs(a); }

NBODY_HD bool isfinite(const dd& a) { return a.hi - a.hi == 0.0; }  // false for inf and nan
NBODY_HD bool isnan(const dd& a) { return a.hi != a.hi; }
NBODY_HD bool isinf(const dd& a) { return a.hi > DBL_MAX || a.hi < -DBL_MAX; }

NBODY_HD dd ldexp(const dd& a, int e) {
#if defined(__CUDA_ARCH__)
  return dd(::ldexp(a.hi, e), ::ldexp(a.lo, e));
#else
  return dd(std::ldexp(a.hi, e), std::ldexp(a.lo, e));
#endif
}

// Square root: one Newton (Karp-Markstein style) correction of the double square root s:
// sqrt(a) = s + (a - s^2) / (2 s), with a - s^2 formed exactly from two_prod. Error ~2^-106.
NBODY_HD dd sqrt(const dd& a) {
  // Branch-free (a select, no jump) so that loops over it can vectorise.
  const double s = eft::sqrt_(a.hi);  // NaN for a < 0, 0 for 0, inf for inf
  double e;
  const double p = eft::two_prod(s, s, e);
  const double r = ((a.hi - p) - e) + a.lo;  // a.hi - p is exact (Sterbenz)
  double c = r / (2.0 * s);
  c = (s > 0.0 && s <= DBL_MAX) ? c : 0.0;  // 0, inf, NaN: the double root as it is
  double lo;
  const double hi = eft::quick_two_sum(s, c, lo);
  return dd(hi, lo);
}

NBODY_HD dd sqr(const dd& a) { return a * a; }

// ---- functions for the generic code of the solver (host and device) ----

// Largest integer not above a (exact).
NBODY_HD dd floor(const dd& a) {
  const double h = ::floor(a.hi);
  if (h != a.hi) return dd(h, 0.0);
  double e;
  const double s = eft::quick_two_sum(h, ::floor(a.lo), e);
  return dd(s, e);
}
NBODY_HD dd trunc(const dd& a) { return a.hi < 0.0 ? -floor(-a) : floor(a); }

// x - trunc(x / y) * y, as std::fmod, with the quotient formed in dd.
NBODY_HD dd fmod(const dd& x, const dd& y) { return x - trunc(x / y) * y; }

// pi/2 to 107 bits (libqd's dd_real::_pi2).
NBODY_HD constexpr dd dd_pi_2() { return dd(1.570796326794896558e+00, 6.123233995736766036e-17); }

NBODY_HD double leading(const dd& a) { return a.hi; }

namespace detail {
// sin and cos of the multi-double types R (dd, qd), which supply leading(x), their first term.
// sin r (odd terms) or cos r (even terms) by Taylor series, for |r| <= pi/4, until a term falls
// below `tiny` of the sum (dd: 1e-34, within 14 terms; qd: 1e-66, within 28).
template <class R>
NBODY_HD R taylor_sin_cos(const R& r, bool odd, double tiny) {
  const R r2 = r * r;
  R term = odd ? r : R(1.0);
  R sum = term;
  for (int n = odd ? 3 : 2; n < 70; n += 2) {
    term = -(term * r2) / static_cast<double>((n - 1) * n);
    sum += term;
    if (::fabs(leading(term)) <= tiny * ::fabs(leading(sum))) break;
  }
  return sum;
}
// x = k pi/2 + r with |r| <= pi/4; returns r and the quadrant k mod 4. The reduction loses
// about log2(k) bits of r's absolute accuracy through pi/2's rounding: fine for the orbital
// phases the solver needs (|x| up to ~1e4).
template <class R>
NBODY_HD R reduce_quadrant(const R& x, const R& pi_2, int& quadrant) {
  const double k = ::nearbyint(leading(x / pi_2));
  quadrant = static_cast<int>(::fmod(k, 4.0));
  quadrant = quadrant < 0 ? quadrant + 4 : quadrant;
  return x - pi_2 * k;
}
template <class R>
NBODY_HD R sin_series(const R& x, const R& pi_2, double tiny) {
  int q;
  const R r = reduce_quadrant(x, pi_2, q);
  const R v = taylor_sin_cos(r, q % 2 == 0, tiny);
  return q < 2 ? v : -v;
}
template <class R>
NBODY_HD R cos_series(const R& x, const R& pi_2, double tiny) {
  int q;
  const R r = reduce_quadrant(x, pi_2, q);
  const R v = taylor_sin_cos(r, q % 2 == 1, tiny);
  return (q == 0 || q == 3) ? v : -v;
}
}  // namespace detail

NBODY_HD dd sin(const dd& x) { return detail::sin_series(x, dd_pi_2(), 1e-34); }
NBODY_HD dd cos(const dd& x) { return detail::cos_series(x, dd_pi_2(), 1e-34); }

// x^y in double only: the solver raises error ratios to fractional powers to choose step sizes
// (step_controller.hpp), where 16 digits are more than enough. Not a double-double pow.
NBODY_HD dd pow(const dd& x, const dd& y) { return dd(::pow(x.hi, y.hi)); }

}  // namespace nbody
