// SPH on the GPU (solver/particles/sph/sph_cuda.hpp) against the CPU driver (test_sph*.cpp check that
// one against exact answers): the same state gives the same bits, rates, time steps and states
// step for step, in float and double, in 2-D and 3-D, with both kernels and both density
// diffusions, with Morris's no-slip walls (Poiseuille), and with every cell-list builder. Skipped
// without a CUDA device.
#include <catch2/catch.hpp>

#include <string>

#include "particles/sph/sph_cases.hpp"
#if NBODY_WITH_CUDA
#include "particles/sph/sph_cuda.hpp"
#endif

#include "support.hpp"

using namespace nbody;
using namespace nbody::particles;
using nbody::test::have_cuda_device;

#if NBODY_WITH_CUDA
namespace {

// `steps` steps of the case on the CPU and on the GPU with `builder`, compared bit for bit, with a
// thin skin (or none: lists made at every evaluation) so that the neighbour lists are made anew
// on the way.
template <class T>
void same_bits(SphCase<T> c, int steps, CellBuilder builder, double skin = 0.02) {
  c.params.skin = skin;
  SphState<T> cpu_state = c.state, gpu_state = c.state;
  SphCpu<T> cpu(c.params, cpu_state);
  SphCuda<T> gpu(c.params, gpu_state, builder);
  const SphRates<T> first = gpu.rates();
  REQUIRE(first.acc == cpu.rates().acc);
  REQUIRE(first.drho == cpu.rates().drho);
  CHECK(first.visc_max == cpu.rates().visc_max);
  for (int k = 1; k <= steps; ++k) {
    const double dt = cpu.time_step();
    REQUIRE(gpu.time_step() == dt);
    cpu.step(T(dt)), gpu.step(T(dt));
    if (k % 10 == 1 || k == steps) {
      gpu.sync();
      INFO("step " << k);
      REQUIRE(gpu_state.pos == cpu_state.pos);
      REQUIRE(gpu_state.vel == cpu_state.vel);
      REQUIRE(gpu_state.rho == cpu_state.rho);
      CHECK(gpu_state.time == cpu_state.time);
    }
  }
  CHECK(gpu.lists_made() == cpu.lists_made());
  CHECK(cpu.lists_made() > 1);  // the lists were made anew on the way: both at the same evaluations
  const SphDiagnostics a = cpu.diagnostics(c.walls, 2 * c.dx), b = gpu.diagnostics(c.walls, 2 * c.dx);
  CHECK(a.kinetic == b.kinetic);
  CHECK(a.front == b.front);
}

}  // namespace

TEMPLATE_TEST_CASE("sph_on_the_gpu_gives_the_cpus_bits_step_for_step_in_the_dam_break_with_every_cell_list_builder",
                   "[gpu][sph]", float, double) {
  if (!have_cuda_device("SPH CPU against GPU")) return;
  for (const auto& b : cell_builders) {
    INFO("cell-list builder " << b.name);
    same_bits(sph_dam_break<TestType>(0.1), 60, b.builder);
  }
}

TEMPLATE_TEST_CASE("sph_on_the_gpu_gives_the_cpus_bits_in_3d_with_the_cubic_spline_and_molteni_diffusion", "[gpu][sph]",
                   float, double) {
  if (!have_cuda_device("SPH 3-D CPU against GPU")) return;
  same_bits(sph_dam_break_3d<TestType>(0.1, 0.5), 30, CellBuilder::two_level);
  SphCase<TestType> c = sph_dam_break<TestType>(0.1);
  c.params.kernel = sph::KernelKind::cubic_spline, c.params.diffusion = sph::DensityDiffusion::molteni;
  same_bits(c, 40, CellBuilder::counting_sort);
}

TEST_CASE("sph_on_the_gpu_gives_the_cpus_bits_in_poiseuille_flow_with_morris_no_slip_walls", "[gpu][sph]") {
  if (!have_cuda_device("SPH Poiseuille CPU against GPU")) return;
  same_bits(sph_poiseuille<double>(1e-3, 2e-4, 5e-5, 1e-6, 2e-4), 50, CellBuilder::radix_sort, 0.0);  // a slow flow
}
#endif
