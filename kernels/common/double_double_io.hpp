#pragma once
// Decimal text for nbody::dd (host only). Both directions use exact long (big-integer)
// arithmetic, so they are exact up to the final rounding:
//   to_string(x, digits) : the exact value hi + lo rounded (half-even) to `digits` significant
//                          decimal digits, scientific notation ("-1.25e-03", "inf", "nan").
//   parse_dd(text)       : hi = the correctly rounded double of the decimal value D,
//                          lo = the correctly rounded double of D - hi (the canonical dd of D).
// Round trip: parse_dd(to_string(x, 34)) == x for every normalised x whose lo is not much
// smaller than ulp(hi)/2 (x carries ~107 bits; 34 digits resolve ~2^-110 relative, and the
// parse is correctly rounded). A dd such as 1 + 2^-200 carries more information than any
// 34-digit text; to_string(x, 0) gives the shortest text (>= 17 digits) that round-trips for
// every finite x, at most the exact decimal expansion.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "double_double.hpp"

namespace nbody {

namespace dd_detail {

// Unsigned big integer, 32-bit limbs, little-endian, no leading zero limbs.
struct Big {
  std::vector<std::uint32_t> d;

  Big() = default;
  explicit Big(std::uint64_t v) {
    while (v) {
      d.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }
  bool zero() const { return d.empty(); }
  void trim() {
    while (!d.empty() && d.back() == 0) d.pop_back();
  }
  int bitlen() const {
    if (d.empty()) return 0;
    int n = 32 * static_cast<int>(d.size() - 1);
    std::uint32_t t = d.back();
    while (t) {
      ++n;
      t >>= 1;
    }
    return n;
  }
  void mul_small(std::uint32_t m) {
    std::uint64_t carry = 0;
    for (auto& x : d) {
      const std::uint64_t t = static_cast<std::uint64_t>(x) * m + carry;
      x = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) d.push_back(static_cast<std::uint32_t>(carry));
    trim();
  }
  void add_small(std::uint32_t a) {
    std::uint64_t carry = a;
    for (std::size_t i = 0; carry && i < d.size(); ++i) {
      const std::uint64_t t = static_cast<std::uint64_t>(d[i]) + carry;
      d[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) d.push_back(static_cast<std::uint32_t>(carry));
  }
  std::uint32_t divmod_small(std::uint32_t m) {  // *this /= m, returns remainder
    std::uint64_t rem = 0;
    for (std::size_t i = d.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | d[i];
      d[i] = static_cast<std::uint32_t>(cur / m);
      rem = cur % m;
    }
    trim();
    return static_cast<std::uint32_t>(rem);
  }
  Big shl(int bits) const {
    if (d.empty()) return Big();
    Big r;
    const int limbs = bits / 32, sh = bits % 32;
    r.d.assign(d.size() + static_cast<std::size_t>(limbs) + 1, 0);
    for (std::size_t i = 0; i < d.size(); ++i) {
      const std::uint64_t v = static_cast<std::uint64_t>(d[i]) << sh;
      r.d[i + static_cast<std::size_t>(limbs)] |= static_cast<std::uint32_t>(v);
      r.d[i + static_cast<std::size_t>(limbs) + 1] |= static_cast<std::uint32_t>(v >> 32);
    }
    r.trim();
    return r;
  }
  bool bit(int i) const {
    const std::size_t l = static_cast<std::size_t>(i / 32);
    return l < d.size() && ((d[l] >> (i % 32)) & 1u);
  }
};

inline int cmp(const Big& a, const Big& b) {
  if (a.d.size() != b.d.size()) return a.d.size() < b.d.size() ? -1 : 1;
  for (std::size_t i = a.d.size(); i-- > 0;)
    if (a.d[i] != b.d[i]) return a.d[i] < b.d[i] ? -1 : 1;
  return 0;
}
inline void sub_in_place(Big& a, const Big& b) {  // a -= b, requires a >= b
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < a.d.size(); ++i) {
    std::int64_t t = static_cast<std::int64_t>(a.d[i]) - borrow - (i < b.d.size() ? static_cast<std::int64_t>(b.d[i]) : 0);
    borrow = t < 0;
    if (t < 0) t += (std::int64_t(1) << 32);
    a.d[i] = static_cast<std::uint32_t>(t);
  }
  a.trim();
}
inline Big add(const Big& a, const Big& b) {
  Big r;
  const std::size_t n = a.d.size() > b.d.size() ? a.d.size() : b.d.size();
  r.d.resize(n + 1);
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t t = static_cast<std::uint64_t>(i < a.d.size() ? a.d[i] : 0) + (i < b.d.size() ? b.d[i] : 0) + carry;
    r.d[i] = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  r.d[n] = static_cast<std::uint32_t>(carry);
  r.trim();
  return r;
}
inline Big mul(const Big& a, const Big& b) {
  if (a.zero() || b.zero()) return Big();
  Big r;
  r.d.assign(a.d.size() + b.d.size(), 0);
  for (std::size_t i = 0; i < a.d.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.d.size(); ++j) {
      const std::uint64_t t = static_cast<std::uint64_t>(a.d[i]) * b.d[j] + r.d[i + j] + carry;
      r.d[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    r.d[i + b.d.size()] = static_cast<std::uint32_t>(carry);
  }
  r.trim();
  return r;
}
inline Big pow_small(std::uint32_t base, int e) {
  Big r(1);
  Big b(base);
  while (e > 0) {
    if (e & 1) r = mul(r, b);
    e >>= 1;
    if (e) b = mul(b, b);
  }
  return r;
}

// A finite double as (negative, mantissa, exponent): |x| = m * 2^e, m < 2^53.
struct Split {
  bool neg;
  std::uint64_t m;
  int e;
};
inline Split split(double x) {
  int ex = 0;
  const double f = std::frexp(x < 0 ? -x : x, &ex);  // f in [0.5, 1)
  // 53 bits of f; for subnormals the low bits are zero, which is fine (still exact).
  const std::uint64_t m = static_cast<std::uint64_t>(std::ldexp(f, 53));
  return {x < 0, m, ex - 53};
}

// Correctly rounded (half-even) double of a / b (a, b > 0), and optionally the exact signed
// residual a/b - result as a rational (res_num / res_den, sign in res_neg).
inline double round_ratio(const Big& a, const Big& b, bool want_residual, Big* res_num, Big* res_den, bool* res_neg) {
  const int p = 54 - (a.bitlen() - b.bitlen());  // a/b * 2^p in [2^53, 2^55)
  Big num = p > 0 ? a.shl(p) : a;
  Big den = p < 0 ? b.shl(-p) : b;
  // q = floor(num / den) < 2^55 by bitwise long division.
  std::uint64_t q = 0;
  for (int bit = 55; bit >= 0; --bit) {
    Big t = den.shl(bit);
    if (cmp(num, t) >= 0) {
      sub_in_place(num, t);
      q |= std::uint64_t(1) << bit;
    }
  }
  const bool rem_nonzero = !num.zero();
  int L = 63;
  while (!((q >> L) & 1)) --L;
  // value = q * 2^-p (+ remainder); keep 53 bits, fewer in the subnormal range.
  const int E = L - p;  // binary exponent of the value: [2^E, 2^(E+1))
  int shift = L - 52;
  if (E < -1022) shift += -1022 - E;
  double result;
  if (shift >= 64) {
    result = 0.0;  // below a quarter of the smallest subnormal... value < 2^-1075: rounds to 0
  } else {
    std::uint64_t kept = shift > 0 ? q >> shift : q;
    if (shift > 0) {
      const std::uint64_t dropped = q & ((std::uint64_t(1) << shift) - 1);
      const std::uint64_t half = std::uint64_t(1) << (shift - 1);
      const bool above = dropped > half || (dropped == half && rem_nonzero);
      const bool tie = dropped == half && !rem_nonzero;
      if (above || (tie && (kept & 1))) ++kept;
    }
    result = std::ldexp(static_cast<double>(kept), (shift > 0 ? shift : 0) - p);
  }
  if (want_residual) {
    // residual = a/b - result, with result = r_m * 2^r_e exactly.
    const Split s = split(result);
    // a/b - r_m 2^r_e = (a 2^-r_e - r_m b) 2^r_e / b ; bring to integers.
    Big A = a, B = b;
    Big R = Big(s.m);
    if (s.e >= 0) {
      R = mul(R, B).shl(s.e);
    } else {
      A = A.shl(-s.e);
      B = B.shl(-s.e);
      R = mul(R, b);
    }
    // residual = (A - R) / B
    if (cmp(A, R) >= 0) {
      sub_in_place(A, R);
      *res_neg = false;
      *res_num = A;
    } else {
      sub_in_place(R, A);
      *res_neg = true;
      *res_num = R;
    }
    *res_den = B;
  }
  return result;
}

// Canonical dd of the positive rational a / b.
inline dd dd_of_ratio(const Big& a, const Big& b) {
  if (a.zero()) return dd(0.0, 0.0);
  Big rn, rd;
  bool rneg = false;
  const double hi = round_ratio(a, b, true, &rn, &rd, &rneg);
  if (!(hi <= DBL_MAX)) return dd(hi, 0.0);
  double lo = 0.0;
  if (!rn.zero()) lo = round_ratio(rn, rd, false, nullptr, nullptr, nullptr);
  return dd(hi, rneg ? -lo : lo);
}

// Exact decimal digits of the finite, nonzero |x|: value = digits * 10^exp10.
inline void exact_decimal(const dd& x, std::string& digits, int& exp10, bool& neg) {
  const Split h = split(x.hi), l = split(x.lo);
  // common binary exponent
  const bool lo_zero = x.lo == 0.0;
  const int e = lo_zero ? h.e : (h.e < l.e ? h.e : l.e);
  Big H = Big(h.m).shl(h.e - e);
  Big Lb = lo_zero ? Big() : Big(l.m).shl(l.e - e);
  Big M;
  neg = h.neg;
  if (lo_zero || l.neg == h.neg) {
    M = add(H, Lb);
  } else if (cmp(H, Lb) >= 0) {
    M = H;
    sub_in_place(M, Lb);
  } else {  // not normalised: |lo| > |hi|
    M = Lb;
    sub_in_place(M, H);
    neg = !neg;
  }
  if (e >= 0) {
    M = M.shl(e);
    exp10 = 0;
  } else {
    M = mul(M, pow_small(5, -e));
    exp10 = e;
  }
  // M to decimal, 9 digits at a time
  std::vector<std::uint32_t> chunks;
  while (!M.zero()) chunks.push_back(M.divmod_small(1000000000u));
  digits.clear();
  for (std::size_t i = chunks.size(); i-- > 0;) {
    std::string c = std::to_string(chunks[i]);
    if (i + 1 != chunks.size()) c.insert(0, 9 - c.size(), '0');
    digits += c;
  }
  if (digits.empty()) digits = "0";
  // drop trailing zeros into the exponent
  std::size_t n = digits.size();
  while (n > 1 && digits[n - 1] == '0') {
    --n;
    ++exp10;
  }
  digits.resize(n);
}

// Rounds the decimal digit string (value digits * 10^exp10) half-even to `nd` digits.
inline void round_digits(std::string& digits, int& exp10, std::size_t nd) {
  if (digits.size() <= nd) return;
  const std::size_t drop = digits.size() - nd;
  const char first = digits[nd];
  bool rest_nonzero = false;
  for (std::size_t i = nd + 1; i < digits.size(); ++i)
    if (digits[i] != '0') rest_nonzero = true;
  digits.resize(nd);
  exp10 += static_cast<int>(drop);
  const bool up = first > '5' || (first == '5' && (rest_nonzero || ((digits.back() - '0') & 1)));
  if (up) {
    std::size_t i = nd;
    while (i > 0) {
      --i;
      if (digits[i] == '9') {
        digits[i] = '0';
      } else {
        ++digits[i];
        break;
      }
      if (i == 0) {
        digits.insert(digits.begin(), '1');
        digits.pop_back();
        ++exp10;
      }
    }
  }
  std::size_t n = digits.size();
  while (n > 1 && digits[n - 1] == '0') {
    --n;
    ++exp10;
  }
  digits.resize(n);
}

inline std::string format_sci(bool neg, const std::string& digits, int exp10) {
  // value = 0.digits... : scientific exponent = exp10 + ndigits - 1
  const int sci = exp10 + static_cast<int>(digits.size()) - 1;
  std::string s;
  if (neg) s += '-';
  s += digits[0];
  if (digits.size() > 1) {
    s += '.';
    s.append(digits, 1, std::string::npos);
  }
  s += 'e';
  s += sci < 0 ? '-' : '+';
  const int a = sci < 0 ? -sci : sci;
  if (a < 10) s += '0';
  s += std::to_string(a);
  return s;
}

}  // namespace dd_detail

std::optional<dd> parse_dd(std::string_view text);

// See the header comment. digits >= 1: that many significant digits (trailing zeros removed);
// digits == 0: the shortest text of at least 17 digits that parse_dd reads back as x.
inline std::string to_string(const dd& x, int digits = 34) {
  if (x.hi != x.hi) return "nan";
  if (x.hi > DBL_MAX) return "inf";
  if (x.hi < -DBL_MAX) return "-inf";
  if (x.hi == 0.0 && x.lo == 0.0) return std::signbit(x.hi) ? "-0" : "0";
  std::string exact;
  int e10 = 0;
  bool neg = false;
  dd_detail::exact_decimal(x, exact, e10, neg);
  if (digits > 0) {
    std::string d = exact;
    dd_detail::round_digits(d, e10, static_cast<std::size_t>(digits));
    return dd_detail::format_sci(neg, d, e10);
  }
  for (std::size_t nd = 17;; nd = nd < 30 ? nd + 4 : nd + nd / 4) {
    if (nd >= exact.size()) return dd_detail::format_sci(neg, exact, e10);
    std::string d = exact;
    int e = e10;
    dd_detail::round_digits(d, e, nd);
    std::string s = dd_detail::format_sci(neg, d, e);
    const auto back = parse_dd(s);
    if (back && back->hi == x.hi && back->lo == x.lo) {
      // shrink: the round trip may already hold with fewer digits than nd
      std::size_t lo_nd = nd > 4 ? nd - 4 : 1;
      for (std::size_t k = lo_nd; k < nd; ++k) {
        std::string d2 = exact;
        int e2 = e10;
        dd_detail::round_digits(d2, e2, k);
        std::string s2 = dd_detail::format_sci(neg, d2, e2);
        const auto b2 = parse_dd(s2);
        if (b2 && b2->hi == x.hi && b2->lo == x.lo) return s2;
      }
      return s;
    }
  }
}

// Parses [+-]digits[.digits][(e|E)[+-]digits], "inf", "infinity", "nan" (any case, optional
// sign). Returns nullopt for anything else, including trailing characters.
inline std::optional<dd> parse_dd(std::string_view text) {
  std::size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    neg = text[i] == '-';
    ++i;
  }
  auto lower_eq = [&](std::string_view word) {
    if (text.size() - i != word.size()) return false;
    for (std::size_t k = 0; k < word.size(); ++k) {
      char c = text[i + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != word[k]) return false;
    }
    return true;
  };
  if (lower_eq("inf") || lower_eq("infinity")) {
    const double inf = HUGE_VAL;
    return dd(neg ? -inf : inf, 0.0);
  }
  if (lower_eq("nan")) return dd(std::nan(""), 0.0);

  dd_detail::Big m;
  long long exp10 = 0;
  bool any_digit = false;
  bool nonzero = false;
  long long sig_digits = 0;
  bool sticky = false;  // a nonzero digit beyond the kept ones
  auto take_digit = [&](char c, bool after_point) {
    any_digit = true;
    if (c != '0') nonzero = true;
    if (nonzero) {
      if (sig_digits < 1200) {  // ~800 digits decide any rounding; the rest only as a sticky bit
        m.mul_small(10);
        m.add_small(static_cast<std::uint32_t>(c - '0'));
        ++sig_digits;
        if (after_point) --exp10;
      } else {
        if (!after_point) ++exp10;
        if (c != '0') sticky = true;
      }
    } else if (after_point) {
      --exp10;  // leading zeros after the point
    }
  };
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') take_digit(text[i++], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') take_digit(text[i++], true);
  }
  if (!any_digit) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      eneg = text[i] == '-';
      ++i;
    }
    if (i >= text.size()) return std::nullopt;
    long long ev = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (ev < 100000000) ev = ev * 10 + (text[i] - '0');
      ++i;
    }
    exp10 += eneg ? -ev : ev;
  }
  if (i != text.size()) return std::nullopt;
  if (sticky) {
    m.mul_small(10);
    m.add_small(1);
    ++sig_digits;
    --exp10;
  }
  if (m.zero()) return dd(neg ? -0.0 : 0.0, 0.0);
  // value = m * 10^exp10; m has sig_digits digits
  const long long mag = exp10 + sig_digits;  // value in [10^(mag-1), 10^mag)
  if (mag > 310) {
    const double inf = HUGE_VAL;
    return dd(neg ? -inf : inf, 0.0);
  }
  if (mag < -330) return dd(neg ? -0.0 : 0.0, 0.0);
  dd r;
  if (exp10 >= 0) {
    r = dd_detail::dd_of_ratio(dd_detail::mul(m, dd_detail::pow_small(10, static_cast<int>(exp10))), dd_detail::Big(1));
  } else {
    r = dd_detail::dd_of_ratio(m, dd_detail::pow_small(10, static_cast<int>(-exp10)));
  }
  return neg ? -r : r;
}

}  // namespace nbody
