#pragma once
// Weakly compressible SPH on CUDA device 0: the CPU driver's step (particles/sph/sph_cpu.hpp, SphCpu) on
// the GPU, kernel for kernel (kernels/cuda/sph.cuh), the neighbour lists made at the same rate
// evaluations from a cell list by one of the CUDA builders (particles/cells/cell_list_cuda.hpp). A
// step gives the CPU's bits, and so does the time step (tested). Plain C++, so that it compiles
// without nvcc; implemented in sph_cuda.cu.
#include <cstdint>
#include <memory>
#include <string>

#include "particles/cells/cell_list_cuda.hpp"
#include "particles/sph/sph_cpu.hpp"

namespace nbody::particles {

template <class T>
class SphCuda {
 public:
  // The state is uploaded and its rates computed. No CUDA device: InputError.
  SphCuda(const SphParameters& p, SphState<T>& s, CellBuilder builder = CellBuilder::two_level);
  ~SphCuda();
  SphCuda(const SphCuda&) = delete;
  SphCuda& operator=(const SphCuda&) = delete;

  double time_step() const;  // of the current state (sph_time_step), from the device's maxima
  void step(T dt);           // on the device; the host's positions, velocities and densities are stale until sync()
  void sync();               // the device's state into the host's
  SphDiagnostics diagnostics(const SphWalls& walls, double front_band);  // synced first
  SphRates<T> rates();       // the device's rates of the current state (for tests)

  std::uint64_t lists_made() const;   // neighbour lists made so far (SphNeighbours: the same evaluations as the CPU's)
  double last_step_seconds() const;   // the last step's device time (CUDA events), neighbour lists included
  double last_cells_seconds() const;  // of which the cell lists' builds (those of the lists made in it)
  std::string device_info() const;    // the GPU and the builder

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::particles
