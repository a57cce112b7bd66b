// GPU launch shapes beyond one knob at a time (tests/test_engines.cpp runs every engine of the
// registry, and every value of every knob of its spec, against `simple`): shapes that combine
// knobs (partial tiles, several bodies per thread, odd splits), cuda-pairs at tile boundaries and
// in several passes, bit-for-bit reproducibility of the fixed-order sums, and invalid shapes as
// errors that say why. Norm and bounds: docs/design.md, "The force-comparison norm". Without a
// CUDA device the CUDA cases say so and skip; the OpenCL cases run wherever an OpenCL device
// exists (PoCL's CPU device in CI).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"
#include "core/error.hpp"
#include "engines/engine.hpp"
#include "support.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda/backend.hpp"
#endif
#if NBODY_WITH_OPENCL
#include "engines/opencl/opencl_engines.hpp"
#endif

using namespace nbody;
using namespace nbody::test;

namespace {

#if NBODY_WITH_CUDA

// Shapes that combine knobs: partial tiles, several bodies per thread, odd splits.
const std::vector<std::pair<std::string, std::string>> combined_shapes = {
    {"cuda-tiled", "block=32,unroll=4,ipt=2"},
    {"cuda-tiled", "block=128,unroll=2,ipt=1"},
    {"cuda-split", "block=32,split=3,unroll=4,ipt=1"},
    {"cuda-split", "block=64,split=7,unroll=1,ipt=2"},
    {"cuda-split", "block=256,split=2,unroll=2,ipt=1"},
};
#endif

}  // namespace

TEST_CASE("cuda_shapes_that_combine_knobs_match_simple", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda_device("the CUDA engines")) return;
  const std::vector<std::size_t> sizes = {2, 3, 17, 31, 97, 257, 1031, 4099};
  check_engines<float>(combined_shapes, sizes);
  check_engines<double>(combined_shapes, sizes);
  check_engines<float>({{"cuda-tiled", "block=128,unroll=32,ipt=4"},
                        {"cuda-split", "block=64,split=5,unroll=16,ipt=4"},
                        {"cuda-tiled", "block=1024,unroll=8,ipt=1"},
                        {"cuda-tiled", "block=64,unroll=8,ipt=8"},
                        {"cuda-split", "block=32,split=6,unroll=4,ipt=8"}},
                       {5, 257, 4099});
  check_engines<dd>({{"cuda-tiled", "block=32,unroll=4,ipt=2"}, {"cuda-split", "block=32,split=3,unroll=2,ipt=1"}},
                    {2, 17, 97, 257, 521});
  check_engines<qd>({{"cuda-split", "block=32,split=3"}, {"cuda-split", "block=64,split=16"}}, {2, 17, 97, 257, 521});
#else
  WARN("SKIPPED: this build has no CUDA engines (no CUDA compiler found)");
#endif
}

TEST_CASE("cuda_pairs_matches_simple_in_float_and_double", "[gpu][cuda]") {
#if NBODY_WITH_CUDA
  if (!have_cuda_device("the CUDA engines")) return;
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
  if (!have_cuda_device("the CUDA engines")) return;
  const Bodies<float> b = random_bodies<float>(3001, 5);
  const ForceLaw<float> law;
  const std::vector<float> a1 = engine_accelerations<float>("cuda-split", "block=64,split=9,unroll=4,ipt=2", b, law);
  for (int r = 0; r < 5; ++r) {
    const std::vector<float> a2 = engine_accelerations<float>("cuda-split", "block=64,split=9,unroll=4,ipt=2", b, law);
    CHECK(a1 == a2);
  }
  const std::vector<float> p1 = engine_accelerations<float>("cuda-pairs", "block=64,ipt=2,split=4", b, law);
  for (int r = 0; r < 5; ++r) CHECK(p1 == engine_accelerations<float>("cuda-pairs", "block=64,ipt=2,split=4", b, law));
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
    CHECK_THROWS_WITH(engine_accelerations<float>(engine, launch, b, ForceLaw<float>{}), Catch::Contains(words));
    CHECK_THROWS_AS(engine_accelerations<float>(engine, launch, b, ForceLaw<float>{}), InputError);
  };
  expect_invalid("cuda-naive", "block=1025", "1024 threads per block");
  expect_invalid("cuda-tiled", "block=1025", "1024 threads per block");
  expect_invalid("cuda-naive", "block=0", "at least 1");
  expect_invalid("cuda-tiled", "unroll=3", "valid: 1, 2, 4, 8, 16, 32");
  expect_invalid("cuda-tiled", "ipt=3", "valid: 1, 2, 4");
  expect_invalid("cuda-tiled", "block=128,split=2", "cuda-tiled takes only block=, unroll=, ipt=");
  expect_invalid("cuda-split", "block=32,split=70000", "exceeds the device's limit of 65535");
  expect_invalid("cuda-naive", "block=64,unroll=4", "cuda-naive takes only block");
  expect_invalid("cuda-tiled", "blocks=64", "unknown key");
  expect_invalid("cuda-pairs", "block=48", "valid: 32, 64, ..., 256");
  expect_invalid("cuda-pairs", "block=512", "valid: 32, 64, ..., 256");
  expect_invalid("cuda-pairs", "block=1025", "valid: 32, 64, ..., 256");
  expect_invalid("cuda-pairs", "ipt=3", "valid: 1, 2, 4, 8");
  expect_invalid("cuda-pairs", "unroll=4", "cuda-pairs takes only block=, split=, ipt=");
  CHECK_THROWS_WITH(make_engine<dd>("cuda-tiled", ForceLaw<dd>{})->set_launch("cluster=2"),
                    Catch::Contains("cuda-tiled takes only block=, unroll=, ipt="));  // dd has no device-resident steps
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

TEST_CASE("opencl_work_groups_that_do_not_divide_n_match_simple", "[gpu][opencl]") {
#if NBODY_WITH_OPENCL
  if (!have_opencl()) return;
  const std::vector<std::pair<std::string, std::string>> cases = {{"opencl-tiled", "block=7"}, {"opencl-tiled", "block=32"}};
  check_engines<float>(cases, {2, 3, 31, 97, 257});
  check_engines<double>(cases, {2, 3, 31, 97, 257});
#else
  WARN("SKIPPED: this build has no OpenCL engine (OpenCL headers or library not found)");
#endif
}

TEST_CASE("opencl_invalid_work_group_is_an_error", "[gpu][opencl]") {
#if NBODY_WITH_OPENCL
  if (!have_opencl()) return;
  const Bodies<float> b = random_bodies<float>(100, 3);
  CHECK_THROWS_AS(engine_accelerations<float>("opencl-tiled", "block=1048576", b, ForceLaw<float>{}), InputError);
  CHECK_THROWS_WITH(engine_accelerations<float>("opencl-tiled", "block=1048576", b, ForceLaw<float>{}), Catch::Contains("invalid launch shape"));
  CHECK_THROWS_AS(engine_accelerations<float>("opencl-tiled", "split=2", b, ForceLaw<float>{}), InputError);
#else
  WARN("SKIPPED: this build has no OpenCL engine (OpenCL headers or library not found)");
#endif
}
