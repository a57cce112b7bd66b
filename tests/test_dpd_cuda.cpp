// DPD on the GPU (solver/particles/dpd/dpd_cuda.hpp) against the CPU driver (test_dpd.cpp checks that
// one against analytic values): the same seed gives the same bits step for step, in float and
// double, with two species, a body force and every cell-list builder, and a resumed GPU run
// continues bit for bit. Skipped without a CUDA device.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "particles/dpd/dpd_cpu.hpp"
#if NBODY_WITH_CUDA
#include "particles/dpd/dpd_cuda.hpp"
#endif

#include "support.hpp"

using namespace nbody;
using namespace nbody::particles;
using nbody::test::have_cuda_device;

#if NBODY_WITH_CUDA
namespace {

// Two species in layers, unlike pairs repelling more, gravity on one of them; rho = 3.
DpdParameters two_species() {
  DpdParameters p;
  p.species = 2, p.a = {25, 40, 40, 25};
  p.body_force = {{0, 0, -0.2}, {0, 0, 0.1}};
  p.seed = 12345;
  return p;
}

}  // namespace

TEMPLATE_TEST_CASE("dpd_on_the_gpu_gives_the_cpus_bits_step_for_step_with_every_cell_list_builder", "[gpu][dpd]", float,
                   double) {
  using T = TestType;
  if (!have_cuda_device("DPD CPU against GPU")) return;
  const DpdParameters p = two_species();
  for (const auto& b : cell_builders) {
    INFO("cell-list builder " << b.name);
    DpdState<T> cpu_state = dpd_random_state<T>(1100, {5, 6, 7.5}, 1.0, 2, 9, DpdLayout::layers), gpu_state = cpu_state;
    DpdCpu<T> cpu(p, cpu_state);
    DpdCuda<T> gpu(p, gpu_state, false, b.builder);
    gpu.sync();
    CHECK(gpu_state.force == cpu_state.force);
    for (int k = 1; k <= 40; ++k) {
      cpu.step(), gpu.step();
      if (k % 10 == 1 || k == 40) {
        gpu.sync();
        INFO("step " << k);
        REQUIRE(gpu_state.pos == cpu_state.pos);
        REQUIRE(gpu_state.vel == cpu_state.vel);
        REQUIRE(gpu_state.force == cpu_state.force);
        CHECK(gpu_state.step == cpu_state.step);
      }
    }
    const DpdDiagnostics c = cpu.diagnostics(), g = gpu.diagnostics();
    CHECK(c.kT == g.kT);
    CHECK(c.pressure == g.pressure);
  }
}

TEST_CASE("dpd_on_the_gpu_resumed_from_its_state_and_forces_continues_bit_for_bit", "[gpu][dpd]") {
  if (!have_cuda_device("DPD GPU resume")) return;
  const DpdParameters p = two_species();
  DpdState<float> whole = dpd_random_state<float>(800, {6, 6, 6}, 1.0, 2, 4);
  DpdState<float> part = whole;
  DpdCuda<float> one(p, whole);
  for (int k = 0; k < 30; ++k) one.step();
  one.sync();
  {
    DpdCuda<float> first(p, part);
    for (int k = 0; k < 12; ++k) first.step();
    first.sync();
  }
  DpdCuda<float> second(p, part, true);  // the forces of step 12 as the first part left them
  for (int k = 12; k < 30; ++k) second.step();
  second.sync();
  CHECK(part.pos == whole.pos);
  CHECK(part.vel == whole.vel);
}
#endif
