#pragma once
// DPD on CUDA device 0: the CPU driver's step (particles/dpd/dpd_cpu.hpp) on the GPU, kernel for kernel
// (kernels/cuda/dpd.cuh), the cell list rebuilt every step by one of the CUDA builders
// (particles/cells/cell_list_cuda.hpp). A step gives the CPU's bits (tested). Plain C++, so that it
// compiles without nvcc; implemented in dpd_cuda.cu.
#include <memory>

#include "particles/cells/cell_list_cuda.hpp"
#include "particles/dpd/dpd_cpu.hpp"

namespace nbody::particles {

template <class T>
class DpdCuda {
 public:
  // The state is uploaded; forces_given: its forces are those of its last step (a resumed run),
  // else computed now. No CUDA device: InputError.
  DpdCuda(const DpdParameters& p, DpdState<T>& s, bool forces_given = false,
          CellBuilder builder = CellBuilder::counting_sort);
  ~DpdCuda();
  DpdCuda(const DpdCuda&) = delete;
  DpdCuda& operator=(const DpdCuda&) = delete;

  void step();  // on the device; the host's state is stale until sync()
  void sync();  // the device's positions, velocities, forces and step into the host's state
  DpdDiagnostics diagnostics();  // of the device's state (synced first; computed on the host)

  double last_step_seconds() const;  // the last step's device time (CUDA events), cell list included
  double last_cells_seconds() const; // of which the cell list's build
  std::string device_info() const;   // the GPU and the builder

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::particles
