// Every engine of the registry, in every precision it is registered for, against `simple` in the
// same precision (docs/design.md, "The force-comparison norm"): random N including primes and N
// below a GPU block, three force laws, compensated sums where the engine claims them, and on the
// GPU every value of every launch knob its kernel's spec declares. Nothing here names an engine:
// one added to the registry (a CPU engine's line, a CUDA or OpenCL kernel's spec) is tested here
// without further edits. An engine whose device is missing (CUDA in CI) is skipped with a message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/real.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

// Primes and N below every block size, a few N drawn at random, and (for the built-in types) N
// across several tiles and blocks of the fast engines. Software types stop early: `simple` in
// mp50 costs microseconds per interaction.
template <class T>
std::vector<std::size_t> engine_sizes() {
  std::vector<std::size_t> sizes = {1, 2, 3, 5, 17, 31, 97};
  std::mt19937_64 rng(2026);
  for (int k = 0; k < 2; ++k) sizes.push_back(std::uniform_int_distribution<std::size_t>(4, 160)(rng));
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, dd>) {
    sizes.push_back(257);
    sizes.push_back(1031);
  }
  return sizes;
}

}  // namespace

TEMPLATE_TEST_CASE("every_registered_engine_matches_simple_in_every_precision_it_claims", "[engines][gpu]", float, double,
                   dd, qd, quad, mp50) {
  using T = TestType;
  const std::vector<std::size_t> sizes = engine_sizes<T>();
  std::vector<Bodies<T>> inputs;
  for (std::size_t n : sizes) inputs.push_back(random_bodies<T>(n, 1000 + n));
  std::vector<const EngineEntry<T>*> engines;
  for (const auto& e : engine_table<T>())
    if (e.name != "simple" && runnable(e)) engines.push_back(&e);
  for (ForceLaw<T> law : engine_laws<T>()) {
    for (bool compensated : {false, true}) {
      law.compensated = compensated;
      std::vector<std::vector<T>> refs;
      for (const auto& b : inputs) refs.push_back(engine_accelerations<T>("simple", "", b, law));
      for (const EngineEntry<T>* entry : engines) {
        const EngineEntry<T>& e = *entry;
        if (compensated && !e.can.compensated_forces) continue;
        auto engine = make_engine<T>(e.name, law);  // once per law: a GPU engine builds its kernels once
        for (std::size_t k = 0; k < inputs.size(); ++k)
          check_against_simple(std::string(e.name), inputs[k], law, engine_accelerations(*engine, inputs[k]), refs[k]);
      }
    }
  }
}

TEMPLATE_TEST_CASE("an_engine_without_compensated_sums_refuses_them_naming_those_that_have_them", "[engines]", float,
                   double, dd, qd, quad, mp50) {
  using T = TestType;
  ForceLaw<T> law;
  law.compensated = true;
  for (const auto& e : engine_table<T>()) {
    INFO(e.name << " in " << RealTraits<T>::name);
    if (e.can.compensated_forces) continue;
    CHECK_THROWS_AS(make_engine<T>(e.name, law), InputError);
    CHECK_THROWS_WITH(make_engine<T>(e.name, law), Catch::Contains("has no compensated force sums") &&
                                                       Catch::Contains("engines with them: openmp, simple"));
  }
}

TEMPLATE_TEST_CASE("every_launch_knob_value_of_every_gpu_engine_matches_simple", "[engines][gpu]", float, double, dd, qd) {
  // One knob at a time, the others left to the kernel: every compiled variant of a list knob;
  // for a range, its first values, the values `nbody tune` tries and its top when it is fixed.
  using T = TestType;
  std::vector<const EngineEntry<T>*> engines;
  for (const auto& e : engine_table<T>())
    if (!e.can.launch.empty() && runnable(e)) engines.push_back(&e);
  if (engines.empty()) return;
  const std::vector<Bodies<T>> inputs = {random_bodies<T>(17, 3), random_bodies<T>(257, 4), random_bodies<T>(1031, 5)};
  const auto laws = engine_laws<T>();
  std::vector<std::vector<std::vector<T>>> refs;  // [law][input]
  for (const auto& law : laws) {
    refs.emplace_back();
    for (const auto& b : inputs) refs.back().push_back(engine_accelerations<T>("simple", "", b, law));
  }
  for (const EngineEntry<T>* entry : engines) {
    const EngineEntry<T>& e = *entry;
    for (const Knob& k : e.can.launch) {
      std::set<int> values(k.values.begin(), k.values.end());
      if (k.values.empty()) {
        for (int v : {k.lo, k.lo + k.step}) values.insert(v);
        if (k.hi != Knob::unbounded) values.insert(k.hi);
        for (int v : k.tune) values.insert(v);
      }
      for (int v : values) {
        if (v <= 0 || !k.accepts(v, 1024)) continue;
        const std::string launch = std::string(k.key) + "=" + std::to_string(v);
        for (std::size_t l = 0; l < laws.size(); ++l) {
          auto engine = make_engine<T>(e.name, laws[l]);
          engine->set_launch(launch);
          for (std::size_t i = 0; i < inputs.size(); ++i) {
            std::vector<T> a;
            try {
              a = engine_accelerations(*engine, inputs[i]);
            } catch (const InputError& x) {  // a shape the spec allows and this device cannot run: said, never a result
              const std::string why = x.what();
              INFO(why);
              CHECK((why.find("registers per thread") != std::string::npos || why.find("shared memory") != std::string::npos ||
                     why.find("fits on a multiprocessor") != std::string::npos ||
                     (k.values.empty() && k.hi == 0 && why.find("exceeds the device's limit") != std::string::npos)));
              WARN(e.name << " --launch " << launch << " in " << RealTraits<T>::name << ": " << why);
              break;
            }
            check_against_simple(std::string(e.name) + " --launch " + launch, inputs[i], laws[l], a, refs[l][i]);
          }
        }
      }
    }
  }
}

TEST_CASE("every_engine_is_registered_in_the_precisions_its_entries_say", "[engines]") {
  // all_engines() is what `nbody list engines`, --engine's choices and the "only in ..." errors
  // read: it must agree with the per-precision tables entry by entry.
  std::set<std::pair<std::string, std::string>> from_tables, from_all;
  auto add = [&]<class U>() {
    for (const auto& e : engine_table<U>()) from_tables.insert({std::string(e.name), std::string(RealTraits<U>::name)});
  };
#define NBODY_ADD(U) add.template operator()<U>();
  NBODY_FOR_EACH_PRECISION(NBODY_ADD)
#undef NBODY_ADD
  for (const auto& e : all_engines())
    for (auto p : e.precisions) from_all.insert({std::string(e.name), std::string(p)});
  CHECK(from_tables == from_all);
  CHECK(all_engines().front().name == engine_table<double>().front().name);
}

// mpi:<engine> (engines/mpi.hpp) puts blocks of bodies computed on different ranks together: a
// block computed alone (accelerations_of) must write its bodies, and only them, with the bits one
// evaluation gives them, wherever the boundaries fall (on whole SIMD blocks or not).
TEMPLATE_TEST_CASE("every_engine_with_block_forces_computes_any_block_as_one_evaluation_does_bit_for_bit",
                   "[engines][gpu][mpi]", float, double, dd, qd, quad, mp50) {
  using T = TestType;
  std::vector<std::size_t> sizes = {1, 2, 17, 97};
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) sizes.insert(sizes.end(), {1031, 4099});
  const T untouched(12345.0);
  for (const auto& e : engine_table<T>()) {
    if (!e.can.block_forces || !runnable(e)) continue;
    for (ForceLaw<T> law : engine_laws<T>()) {
      for (bool compensated : {false, true}) {
        if (compensated && !e.can.compensated_forces) continue;
        law.compensated = compensated;
        auto engine = make_engine<T>(e.name, law);
        for (std::size_t n : sizes) {
          const Bodies<T> b = random_bodies<T>(n, 77 + n);
          const std::vector<T> whole = engine_accelerations(*engine, b);
          const std::vector<std::vector<std::size_t>> splits = {
              {0, n}, {0, n / 2, n}, {0, std::min<std::size_t>(n, 64), n}, {0, n / 3, n - n / 5, n}, {0, std::min<std::size_t>(n, 37), n}};
          for (const auto& bounds : splits) {
            std::vector<T> a(3 * n, untouched);
            for (std::size_t r = 0; r + 1 < bounds.size(); ++r) {
              const std::size_t first = bounds[r], count = bounds[r + 1] - first;
              engine->accelerations_of(b.pos.data(), b.mass.data(), n, first, count, a.data());
              std::size_t written_beyond = 0;  // the blocks after this one are still to come
              for (std::size_t k = 0; k < 3; ++k)
                for (std::size_t i = first + count; i < n; ++i) written_beyond += !(a[k * n + i] == untouched);
              INFO(e.name << " in " << RealTraits<T>::name << ", n " << n << ": block [" << first << ", " << first + count
                          << ") wrote bodies after it");
              REQUIRE(written_beyond == 0);
            }
            std::size_t differing = 0;
            for (std::size_t k = 0; k < 3 * n; ++k) differing += !(a[k] == whole[k]);
            INFO(e.name << " in " << RealTraits<T>::name << ", n " << n << ", law G " << to_d(law.G) << ", compensated "
                        << compensated << ", " << bounds.size() - 1 << " blocks");
            CHECK(differing == 0);
          }
        }
      }
    }
  }
}

// mpi:<engine> splits an engine with pass_forces (cuda-pairs) by its passes: each rank computes the
// sums of its passes, and the ranks add them on in turn. Done here in one process, rank after rank,
// for several splits of the passes (an empty share among them), it must give one evaluation's bits;
// so must mpi:<engine> on one rank.
TEMPLATE_TEST_CASE("every_engine_with_pass_forces_added_in_turn_over_any_split_of_its_passes_equals_one_evaluation_bit_for_bit",
                   "[engines][gpu][mpi]", float, double) {
  using T = TestType;
  const ForceLaw<T> law;
  for (const auto& e : engine_table<T>()) {
    if (!e.can.pass_forces || !runnable(e)) continue;
    for (std::string launch : {"", "split=3", "split=8"}) {
      auto engine = make_engine<T>(e.name, law);
      engine->set_launch(launch);
      auto over_ranks = make_engine<T>("mpi:" + std::string(e.name), law);
      over_ranks->set_launch(launch);
      for (std::size_t n : {1, 17, 1031, 4099, 20000}) {
        const Bodies<T> b = random_bodies<T>(n, 91 + n);
        const std::vector<T> whole = engine_accelerations(*engine, b);
        const std::size_t passes = engine->pass_count(n);
        INFO(e.name << " in " << RealTraits<T>::name << ", launch '" << launch << "', n " << n << ", " << passes << " passes");
        CHECK(engine_accelerations(*over_ranks, b) == whole);
        const std::vector<std::vector<std::size_t>> splits = {
            {0, passes}, {0, passes / 2, passes}, {0, 0, passes}, {0, passes / 3, passes - passes / 3, passes}};
        for (const auto& bounds : splits) {
          std::vector<T> a(3 * n, T(12345.0));  // what rank 0 starts from is never read
          for (std::size_t r = 0; r + 1 < bounds.size(); ++r) {
            engine->pass_sums(b.pos.data(), b.mass.data(), n, bounds[r], bounds[r + 1]);
            engine->fold_pass_sums(n, bounds[r] == 0, bounds[r + 1] == passes, a.data());
          }
          std::size_t differing = 0;
          for (std::size_t k = 0; k < 3 * n; ++k) differing += !(a[k] == whole[k]);
          INFO(bounds.size() - 1 << " shares of the passes");
          CHECK(differing == 0);
        }
      }
    }
  }
}

TEST_CASE("mpi_engines_run_as_one_rank_without_mpiexec_and_equal_their_local_engine", "[engines][mpi]") {
  const Bodies<double> b = random_bodies<double>(333, 5);
  const ForceLaw<double> law;
  for (std::string local : {"openmp-simd", "openmp", "simple"}) {
    const auto expected = engine_accelerations<double>(local, "", b, law);
    for (std::string prefix : {"mpi:", "mpi-ring:"}) {
      auto engine = make_engine<double>(prefix + local, law);
      CHECK(engine_accelerations(*engine, b) == expected);
      CHECK(engine->last_rank_profile().ranks == 1);
      CHECK(engine->last_rank_profile().exchange == (prefix == "mpi:" ? "allgatherv" : "ring"));
    }
  }
}

TEST_CASE("mpi_engine_refuses_an_engine_that_computes_all_bodies_at_once_naming_those_it_can_split", "[engines][mpi]") {
  const ForceLaw<double> law;
  try {
    make_engine<double>("mpi:octree", law);
    FAIL("mpi:octree was made");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("'octree' computes all bodies at once") != std::string::npos);
    CHECK(what.find("openmp-simd") != std::string::npos);
  }
  CHECK_THROWS_AS(make_engine<double>("mpi:no-such-engine", law), InputError);
  CHECK(local_engine_name("mpi-ring:openmp") == "openmp");
  CHECK(local_engine_name("openmp") == "openmp");
}
