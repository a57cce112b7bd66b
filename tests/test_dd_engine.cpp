// The double-double `openmp` engine (solver/engines/openmp_dd.hpp): parallel and
// vectorised, on every instruction set this CPU supports (AVX-512, AVX2 + FMA, generic without
// FMA), judged against the force law evaluated in 50 digits (mp50) on the same dd positions, in
// the force-comparison norm of docs/design.md, max_i |a_i - a_i,ref| / sum_j |a_ij|: at most 1e-28 (dd carries ~1e-32).
#include <catch2/catch.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/interaction.hpp"
#include "core/real.hpp"
#include "engines/engine.hpp"
#include "engines/openmp_dd.hpp"
#include "physics/initial_conditions.hpp"
#include "support.hpp"

// Inside namespace nbody, as the solver's own code: sqrt and abs are called unqualified.
namespace nbody {

namespace {

using test::plummer;

constexpr double kTolerance = 1e-28;

// Sizes: 1 (no pair), 2 and 3, below, at and around every vector width (2, 4, 8) and the padding
// (8), primes that leave remainders everywhere.
const std::vector<std::size_t> kSizes = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 97, 257};

mp50 to_mp50(const dd& x) { return mp50(x.hi) + mp50(x.lo); }  // exact

// The project's laws: plain Newton, Plummer softening, S0's clamp with a radius that some pairs
// of these spheres are inside (and G != 1), and both together.
std::vector<ForceLaw<dd>> laws() {
  ForceLaw<dd> softened;
  softened.eps2 = dd(1e-4);
  ForceLaw<dd> clamped;
  clamped.rmin2 = dd(1e-2);
  clamped.G = dd(2.5);
  ForceLaw<dd> both;
  both.eps2 = dd::sum(3e-4, 1e-21);  // a lo part, so that eps^2's lo is used
  both.rmin2 = dd(4e-3);
  both.G = dd(0.5);
  return {ForceLaw<dd>{}, softened, clamped, both};
}

// The reference: interaction.hpp's force law in mp50 on the exact values of the dd state and
// law, for the bodies i = 0, stride, 2 stride, ... and n - 1 (all of them by default; a stride
// keeps the 50-digit sums of a large n affordable: every i still sums over all n - 1 bodies j),
// and the per-body scale G sum_j |a_ij| of the norm.
struct Reference {
  std::vector<std::size_t> bodies;
  std::vector<mp50> acc;  // 3 per body of `bodies`
  std::vector<double> scale;
};

Reference reference(const State<dd>& s, const ForceLaw<dd>& law, std::size_t stride = 1) {
  const std::size_t n = s.size();
  std::vector<mp50> y(3 * n), m(n);
  for (std::size_t k = 0; k < 3 * n; ++k) y[k] = to_mp50(s.y[k]);
  for (std::size_t j = 0; j < n; ++j) m[j] = to_mp50(s.mass[j]);
  const mp50 eps2 = to_mp50(law.eps2), rmin2 = to_mp50(law.rmin2), G = to_mp50(law.G);
  Reference r;
  for (std::size_t i = 0; i < n; i += stride) r.bodies.push_back(i);
  if (r.bodies.back() != n - 1) r.bodies.push_back(n - 1);
  for (std::size_t i : r.bodies) {
    mp50 ax{0}, ay{0}, az{0};
    double scale = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      mp50 tx{0}, ty{0}, tz{0};
      accumulate_interaction<mp50>(y[i], y[n + i], y[2 * n + i], y[j], y[n + j], y[2 * n + j], m[j], eps2, rmin2, tx, ty,
                                   tz);
      ax += tx, ay += ty, az += tz;
      scale += std::hypot(double(tx), double(ty), double(tz));
    }
    r.acc.insert(r.acc.end(), {G * ax, G * ay, G * az});
    r.scale.push_back(double(G) * scale);
  }
  return r;
}

// The force-comparison norm over the reference's bodies, the differences taken in 50 digits.
double difference(const std::vector<dd>& a, const Reference& ref) {
  const std::size_t n = a.size() / 3;
  double worst = 0;
  for (std::size_t b = 0; b < ref.bodies.size(); ++b) {
    mp50 d2{0};
    for (int k = 0; k < 3; ++k) {
      const mp50 d = to_mp50(a[k * n + ref.bodies[b]]) - ref.acc[3 * b + k];
      d2 += d * d;
    }
    worst = std::max(worst, double(sqrt(d2)) / ref.scale[b]);
  }
  return worst;
}

std::vector<dd> kernel_acc(ddsimd::Isa isa, const State<dd>& s, const ForceLaw<dd>& law) {
  std::vector<dd> a(3 * s.size(), dd(-1.0));
  ddsimd::accelerations(isa, law, s.y.data(), s.mass.data(), s.size(), a.data());
  return a;
}

std::vector<dd> engine_acc(const std::string& engine, const State<dd>& s, const ForceLaw<dd>& law) {
  std::vector<dd> a(3 * s.size(), dd(-1.0));
  make_engine<dd>(engine, law)->accelerations(s.y.data(), s.mass.data(), s.size(), a.data());
  return a;
}

bool identical(const std::vector<dd>& a, const std::vector<dd>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].hi != b[k].hi || a[k].lo != b[k].lo) return false;
  return true;
}

}  // namespace

TEST_CASE("openmp_dd_runs_on_the_widest_instruction_set_of_this_cpu", "[engines][dd]") {
  const auto isas = ddsimd::supported_isas();
  REQUIRE(!isas.empty());
  CHECK(isas.back() == ddsimd::Isa::generic);  // always there
  CHECK(ddsimd::best_isa() == isas.front());
#if defined(__x86_64__) && defined(__GNUC__)
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CHECK(ddsimd::isa_supported(ddsimd::Isa::avx512) == avx512);
  CHECK(ddsimd::isa_supported(ddsimd::Isa::avx2) == avx2);
  if (avx512) CHECK(ddsimd::best_isa() == ddsimd::Isa::avx512);
  CHECK(ddsimd::vector_width(ddsimd::Isa::avx512) == 8);
  CHECK(ddsimd::vector_width(ddsimd::Isa::avx2) == 4);
#endif
  CHECK(ddsimd::vector_width(ddsimd::Isa::generic) == 2);
  for (ddsimd::Isa isa : {ddsimd::Isa::avx512, ddsimd::Isa::avx2})
    if (!ddsimd::isa_supported(isa)) {
      const State<dd> s = plummer<dd>(5, 1);
      CHECK_THROWS(kernel_acc(isa, s, ForceLaw<dd>{}));
    }
}

TEST_CASE("openmp_dd_matches_50_digits_to_1e-28_on_every_instruction_set_for_any_n", "[engines][dd]") {
  for (std::size_t n : kSizes) {
    const State<dd> s = plummer<dd>(n, 100 + n);
    for (const auto& law : laws()) {
      const Reference ref = reference(s, law, n > 100 ? 8 : 1);
      for (ddsimd::Isa isa : ddsimd::supported_isas()) {
        INFO("n = " << n << ", eps2 = " << law.eps2.hi << ", rmin2 = " << law.rmin2.hi << ", isa = "
                    << ddsimd::isa_name(isa));
        const auto a = kernel_acc(isa, s, law);
        if (n == 1) {
          for (const dd& v : a) CHECK((v.hi == 0.0 && v.lo == 0.0));  // no pair: exactly zero
        } else {
          CHECK(difference(a, ref) <= kTolerance);
        }
      }
    }
  }
}

TEST_CASE("openmp_dd_matches_50_digits_at_n_2053", "[engines][dd]") {
  // Many terms per lane (the error of the lane sums grows with n / W) and many OpenMP chunks;
  // every 128th body (and the last) against 50 digits, each summed over all 2052 others.
  const State<dd> s = plummer<dd>(2053, 7);
  for (const auto& law : {ForceLaw<dd>{}, laws()[3]}) {
    const Reference ref = reference(s, law, 128);
    for (ddsimd::Isa isa : ddsimd::supported_isas()) {
      INFO("eps2 = " << law.eps2.hi << ", isa = " << ddsimd::isa_name(isa));
      CHECK(difference(kernel_acc(isa, s, law), ref) <= kTolerance);
    }
  }
}

TEST_CASE("openmp_dd_is_accurate_where_the_differences_cancel", "[engines][dd]") {
  // A small cluster far from the origin (|r| / |r_j - r_i| up to ~1e7) with full dd positions:
  // r_j - r_i cancels most of the digits of both, which QD's sloppy addition would get wrong
  // by ~2^-106 |r| (1e-25 of the difference here); the accurate addition keeps ~1e-32.
  State<dd> s = plummer<dd>(37, 5);
  const std::size_t n = s.size();
  for (int k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < n; ++i) s.pos(k)[i] = dd(1e3 * (k + 1)) + s.pos(k)[i] * dd(1e-3) + dd(0.1) / dd(3.0);
  s.pos(0)[1] = s.pos(0)[0] + dd::sum(1e-4, 1e-21);  // and one close pair
  s.pos(1)[1] = s.pos(1)[0];
  s.pos(2)[1] = s.pos(2)[0] - dd(3e-5);
  for (const auto& law : {ForceLaw<dd>{}, laws()[1]}) {
    const Reference ref = reference(s, law);
    for (ddsimd::Isa isa : ddsimd::supported_isas()) {
      INFO("eps2 = " << law.eps2.hi << ", isa = " << ddsimd::isa_name(isa));
      CHECK(difference(kernel_acc(isa, s, law), ref) <= kTolerance);
    }
  }
}

TEST_CASE("openmp_engine_in_dd_is_the_vectorised_kernel", "[engines][dd]") {
  const State<dd> s = plummer<dd>(97, 3);
  for (const auto& law : laws()) {
    // `nbody --engine openmp --precision dd` runs the kernel on the best instruction set, bit for bit.
    CHECK(identical(engine_acc("openmp", s, law), kernel_acc(ddsimd::best_isa(), s, law)));
    // --compensated forces keeps the engine's scalar compensated loop (the reference summation).
    ForceLaw<dd> compensated = law;
    compensated.compensated = true;
    CHECK(difference(engine_acc("openmp", s, compensated), reference(s, law)) <= kTolerance);
  }
}

TEST_CASE("openmp_dd_does_not_depend_on_the_thread_count", "[engines][dd]") {
  // Each body i is summed by one thread in a fixed order: 1 or 2 threads, the same bits.
  const State<dd> s = plummer<dd>(300, 9);
  const int threads = omp_get_max_threads();
  for (ddsimd::Isa isa : ddsimd::supported_isas()) {
    omp_set_num_threads(1);
    const auto one = kernel_acc(isa, s, laws()[1]);
    omp_set_num_threads(2);
    const auto two = kernel_acc(isa, s, laws()[1]);
    omp_set_num_threads(threads);
    CHECK(identical(one, two));
  }
}

TEST_CASE("openmp_dd_coincident_bodies_without_softening_are_not_finite_as_in_simple", "[engines][dd]") {
  // Two distinct bodies at one point: the force law divides by zero; the run must see a
  // non-finite state (exit 3) as with `simple`, not a silent zero.
  State<dd> s = plummer<dd>(3, 1);
  for (int k = 0; k < 3; ++k) s.pos(k)[1] = s.pos(k)[0];
  const auto simple = engine_acc("simple", s, ForceLaw<dd>{});
  for (ddsimd::Isa isa : ddsimd::supported_isas()) {
    const auto a = kernel_acc(isa, s, ForceLaw<dd>{});
    CHECK(!isfinite(simple[0]));
    CHECK(!isfinite(a[0]));
    CHECK(!isfinite(a[1]));
  }
}

}  // namespace nbody
