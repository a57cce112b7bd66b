// The GPU engines against `simple` in the same precision, on random inputs, in the norm of
// DESIGN.md (max_i |a_i - a_i,ref| / sum_j |a_ij|): at most 1e-5 (float), 1e-13 (double),
// 1e-28 (dd), 1e-58 (qd). N includes primes, N below the block size and N = 1; shapes include partial tiles,
// several bodies per thread, odd splits. Without a CUDA device the CUDA cases say so and skip;
// the OpenCL cases run wherever an OpenCL device exists (PoCL's CPU device in CI).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"
#include "common/interaction.hpp"
#include "core/error.hpp"
#include "engines/engine.hpp"
#include "support.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda_backend.hpp"
#endif
#if NBODY_WITH_OPENCL
#include "engines/opencl_engine.hpp"
#endif

using namespace nbody;

namespace {

template <class T>
T random_real(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (std::is_same_v<T, dd>) {
    const double h = u(rng);
    return dd::sum(h, std::ldexp(u(rng) / (hi - lo), -54) * std::fabs(h));  // random low part too
  } else if constexpr (std::is_same_v<T, qd>) {
    const double h = u(rng);
    return qd(h) + std::ldexp(u(rng) / (hi - lo), -54) * std::fabs(h) + std::ldexp(u(rng) / (hi - lo), -110) * std::fabs(h);
  } else {
    return static_cast<T>(u(rng));
  }
}

template <class T>
struct Bodies {
  std::size_t n;
  std::vector<T> pos, mass;
};

// Uniform in a cube, masses in [0.5, 1.5] / n, so that close pairs occur at every N.
template <class T>
Bodies<T> random_bodies(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bodies<T> b{n, std::vector<T>(3 * n), std::vector<T>(n)};
  for (auto& x : b.pos) x = random_real<T>(rng, -1.0, 1.0);
  for (auto& m : b.mass) m = random_real<T>(rng, 0.5, 1.5) / T(static_cast<double>(n));
  return b;
}

template <class T>
double to_d(const T& x) {
  if constexpr (std::is_same_v<T, dd> || std::is_same_v<T, qd>) return to_double(x);
  else return static_cast<double>(x);
}

// DESIGN.md's engine comparison, the difference formed in T (dd differences keep their digits).
template <class T>
double force_norm(const Bodies<T>& b, const std::vector<T>& a, const std::vector<T>& ref, const ForceLaw<T>& law) {
  const std::size_t n = b.n;
  const std::vector<double> scale = test::pair_scale(b.pos.data(), b.mass.data(), n, law);
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = to_d(T(a[k * n + i] - ref[k * n + i]));
      d2 += d * d;
    }
    worst = std::max(worst, std::sqrt(d2) / scale[i]);
  }
  return worst;
}

template <class T>
double tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, double>) return 1e-13;
  else if constexpr (std::is_same_v<T, dd>) return 1e-28;
  else return 1e-58;
}

template <class T>
std::vector<ForceLaw<T>> laws() {
  ForceLaw<T> plain;
  ForceLaw<T> softened;
  softened.eps2 = T(1e-4);
  softened.G = T(0.5);
  ForceLaw<T> clamped;
  clamped.rmin2 = T(1e-2);  // some pairs inside the clamp
  clamped.G = T(2.5);
  return {plain, softened, clamped};
}

template <class T>
std::vector<T> run(const std::string& engine, const std::string& launch, const Bodies<T>& b, const ForceLaw<T>& law) {
  auto e = make_engine<T>(engine, law);
  e->set_launch(launch);
  std::vector<T> a(3 * b.n, T(12345.0));  // poisoned: every element must be written
  e->accelerations(b.pos.data(), b.mass.data(), b.n, a.data());
  return a;
}

// Compares every (engine, launch) with `simple` for each N and force law.
template <class T>
void check_engines(const std::vector<std::pair<std::string, std::string>>& cases, const std::vector<std::size_t>& sizes) {
  for (std::size_t n : sizes) {
    const Bodies<T> b = random_bodies<T>(n, 1000 + n);
    for (const auto& law : laws<T>()) {
      const std::vector<T> ref = run<T>("simple", "", b, law);
      for (const auto& [engine, launch] : cases) {
        const std::vector<T> a = run<T>(engine, launch, b, law);
        INFO(engine << " --launch '" << launch << "', n = " << n << ", eps2 = " << to_d(law.eps2)
                    << ", rmin2 = " << to_d(law.rmin2) << ", G = " << to_d(law.G));
        bool finite = true;
        for (const T& x : a) finite = finite && std::isfinite(to_d(x));
        CHECK(finite);
        if (n == 1) {
          for (const T& x : a) CHECK(to_d(x) == 0.0);
        } else {
          const double err = force_norm(b, a, ref, law);
          INFO("norm = " << err << ", tolerance " << tolerance<T>());
          CHECK(err <= tolerance<T>());
        }
      }
    }
  }
}

#if NBODY_WITH_CUDA
bool have_cuda() {
  if (cuda::device_count() > 0) return true;
  WARN("SKIPPED: no CUDA device (" << cuda::no_device_reason() << "): the CUDA engines are built but not run here");
  return false;
}

const std::vector<std::pair<std::string, std::string>> cuda_cases = {
    {"cuda-naive", ""},
    {"cuda-naive", "block=32"},
    {"cuda-naive", "block=1"},
    {"cuda-tiled", ""},
    {"cuda-tiled", "block=64,unroll=1,ipt=1"},
    {"cuda-tiled", "block=32,unroll=4,ipt=2"},
    {"cuda-tiled", "block=128,unroll=2,ipt=1"},
    {"cuda-split", ""},
    {"cuda-split", "block=32,split=3,unroll=4,ipt=1"},
    {"cuda-split", "block=64,split=7,unroll=1,ipt=2"},
    {"cuda-split", "block=256,split=2,unroll=2,ipt=1"},
};
const std::vector<std::pair<std::string, std::string>> cuda_cases_fast_variants = {
    {"cuda-tiled", "block=128,unroll=32,ipt=4"},
    {"cuda-split", "block=64,split=5,unroll=16,ipt=4"},
    {"cuda-tiled", "block=1024,unroll=8,ipt=1"},
};
#endif

}  // namespace

TEST_CASE("cuda_engines_match_simple_in_float", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  const std::vector<std::size_t> sizes = {1, 2, 3, 17, 31, 97, 257, 1031, 4099};
  check_engines<float>(cuda_cases, sizes);
  check_engines<float>(cuda_cases_fast_variants, {5, 257, 4099});
  check_engines<float>({{"cuda-tiled", "block=64,unroll=8,ipt=8"}, {"cuda-split", "block=32,split=6,unroll=4,ipt=8"}}, {3, 257, 4099});
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_engines_match_simple_in_double", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  const std::vector<std::size_t> sizes = {1, 2, 3, 17, 31, 97, 257, 1031, 4099};
  check_engines<double>(cuda_cases, sizes);
  check_engines<double>(cuda_cases_fast_variants, {5, 257, 4099});
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_engines_match_simple_in_double_double", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cuda-naive", ""},
      {"cuda-tiled", ""},
      {"cuda-tiled", "block=32,unroll=4,ipt=2"},
      {"cuda-split", ""},
      {"cuda-split", "block=32,split=3,unroll=2,ipt=1"},
  };
  check_engines<dd>(cases, {1, 2, 17, 97, 257, 521});
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_engines_match_simple_in_quad_double", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cuda-naive", ""},
      {"cuda-tiled", ""},
      {"cuda-tiled", "block=32"},
      {"cuda-split", ""},
      {"cuda-split", "block=32,split=3"},
      {"cuda-split", "block=64,split=16"},
  };
  check_engines<qd>(cases, {1, 2, 17, 97, 257, 521});
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_pairs_matches_simple_in_float_and_double", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  // Tiles of block x ipt bodies: odd and even tile counts, a last tile cut short, N below one
  // tile, warps per block not a power of 2 (block=96), several passes (split), more passes asked
  // for than there are distances.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cuda-pairs", ""},
      {"cuda-pairs", "block=32,ipt=1"},
      {"cuda-pairs", "block=32,ipt=2,split=3"},
      {"cuda-pairs", "block=96,ipt=4"},
      {"cuda-pairs", "block=64,ipt=8,split=100"},
      {"cuda-pairs", "block=256,ipt=8"},
      {"cuda-pairs", "block=128,ipt=1,split=2"},
  };
  const std::vector<std::size_t> sizes = {1, 2, 3, 17, 31, 32, 97, 257, 1031, 4096, 4099};
  check_engines<float>(cases, sizes);
  check_engines<double>(cases, sizes);
  // Many tiles (513 rows of 32) in several passes, and the default shape, at a prime N.
  const std::vector<std::pair<std::string, std::string>> many = {{"cuda-pairs", "block=32,ipt=1,split=5"}, {"cuda-pairs", ""}};
  check_engines<float>(many, {16411});
  check_engines<double>(many, {16411});
  CHECK_THROWS_WITH(make_engine<dd>("cuda-pairs", ForceLaw<dd>{}), Catch::Contains("only in float, double"));
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_split_is_bitwise_reproducible", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda()) return;
  const Bodies<float> b = random_bodies<float>(3001, 5);
  const ForceLaw<float> law;
  const std::vector<float> a1 = run<float>("cuda-split", "block=64,split=9,unroll=4,ipt=2", b, law);
  for (int r = 0; r < 5; ++r) {
    const std::vector<float> a2 = run<float>("cuda-split", "block=64,split=9,unroll=4,ipt=2", b, law);
    CHECK(a1 == a2);
  }
  const std::vector<float> p1 = run<float>("cuda-pairs", "block=64,ipt=2,split=4", b, law);
  for (int r = 0; r < 5; ++r) CHECK(p1 == run<float>("cuda-pairs", "block=64,ipt=2,split=4", b, law));
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_invalid_launch_shapes_are_errors_that_say_why", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (cuda::device_count() == 0) {
    // Without a device the engine itself refuses, with a message that says so.
    CHECK_THROWS_WITH(make_engine<float>("cuda-tiled", ForceLaw<float>{}), Catch::Contains("no CUDA device"));
    WARN("SKIPPED: no CUDA device (" << cuda::no_device_reason() << "): launch-shape checks need one");
    return;
  }
  const Bodies<float> b = random_bodies<float>(1000, 3);
  auto expect_invalid = [&](const std::string& engine, const std::string& launch, const std::string& words) {
    INFO(engine << " --launch " << launch);
    CHECK_THROWS_WITH(run<float>(engine, launch, b, ForceLaw<float>{}), Catch::Contains(words));
    CHECK_THROWS_AS(run<float>(engine, launch, b, ForceLaw<float>{}), InputError);
  };
  expect_invalid("cuda-naive", "block=1025", "1024 threads per block");
  expect_invalid("cuda-tiled", "block=1025", "1024 threads per block");
  expect_invalid("cuda-naive", "block=0", "at least 1");
  expect_invalid("cuda-tiled", "unroll=3", "valid: 1, 2, 4, 8, 16, 32");
  expect_invalid("cuda-tiled", "ipt=3", "valid: 1, 2, 4");
  expect_invalid("cuda-tiled", "block=128,split=2", "cuda-split");
  expect_invalid("cuda-split", "block=32,split=70000", "grid limit");
  expect_invalid("cuda-naive", "block=64,unroll=4", "cuda-naive takes only block");
  expect_invalid("cuda-tiled", "blocks=64", "unknown key");
  expect_invalid("cuda-pairs", "block=48", "multiple of 32 up to 256");
  expect_invalid("cuda-pairs", "block=512", "multiple of 32 up to 256");
  expect_invalid("cuda-pairs", "block=1025", "multiple of 32 up to 256");
  expect_invalid("cuda-pairs", "ipt=3", "valid: 1, 2, 4, 8");
  expect_invalid("cuda-pairs", "unroll=4", "no unroll= choice");
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

#if NBODY_WITH_OPENCL
namespace {
bool have_opencl() {
  if (opencl::device_count() > 0) return true;
  WARN("SKIPPED: no OpenCL device (install pocl-opencl-icd for the CPU one)");
  return false;
}
}  // namespace
#endif

TEST_CASE("opencl_engine_matches_simple_in_float_and_double", "[gpu][opencl]") {
#if NBODY_WITH_OPENCL
  if (!have_opencl()) return;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"opencl-tiled", ""}, {"opencl-tiled", "block=32"}, {"opencl-tiled", "block=7"}};
  check_engines<float>(cases, {1, 2, 3, 31, 97, 257, 1031});
  check_engines<double>(cases, {1, 2, 3, 31, 97, 257, 1031});
#else
  WARN("SKIPPED: this build has no OpenCL engine (OpenCL headers or library not found)");
#endif
}

TEST_CASE("opencl_invalid_work_group_is_an_error", "[gpu][opencl]") {
#if NBODY_WITH_OPENCL
  if (!have_opencl()) return;
  const Bodies<float> b = random_bodies<float>(100, 3);
  CHECK_THROWS_AS(run<float>("opencl-tiled", "block=1048576", b, ForceLaw<float>{}), InputError);
  CHECK_THROWS_WITH(run<float>("opencl-tiled", "block=1048576", b, ForceLaw<float>{}), Catch::Contains("invalid launch shape"));
  CHECK_THROWS_AS(run<float>("opencl-tiled", "split=2", b, ForceLaw<float>{}), InputError);
#else
  WARN("SKIPPED: this build has no OpenCL engine (OpenCL headers or library not found)");
#endif
}
