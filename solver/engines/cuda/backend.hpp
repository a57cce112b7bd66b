#pragma once
// Host interface of the CUDA back end, in plain C++ so that the engine classes and the registry
// compile without nvcc. Implemented in backend.cuh and resident_backend.cuh, instantiated once per
// real type in float.cu, double.cu, dd.cu and qd.cu (the last two with --fmad=false: double- and
// quad-double arithmetic needs every product rounded on its own).
#include <cstddef>
#include <memory>
#include <string>

#include "cuda/cuda_device.hpp"
#include "engines/launch.hpp"

namespace nbody::cuda {

// How Backend<T>::potentials sums, for the engines' method texts: "direct sum on the GPU (CUDA,
// DEVICE)", ", compensated" added when it is.
inline std::string potential_method(bool compensated) {
  return "direct sum on the GPU (CUDA, " + device_name() + (compensated ? ", compensated)" : ")");
}

// The force kernels of cuda_kernels.hpp on the device in use (use_device), for one real type.
template <class T>
class Backend {
 public:
  Backend();
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // acc (3n, SoA) = G sum_j m_j (r_j - r_i) / s^3 for pos (3n, SoA) and mass (n), by the kernel at
  // position `kernel` of the list Kernels (cuda_kernels.hpp), for the bodies i in [first, first + count)
  // (all but kernels with block_forces: 0, n). The launch shape is resolved for n (0 = the
  // kernel's choice), so that every block is computed with the same shape, and checked against
  // the kernel's spec and the device (InputError naming the valid values when it cannot run);
  // every CUDA call is checked (RunError).
  void compute(std::size_t kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n, std::size_t first,
               std::size_t count, T G, T eps2, T rmin2, T* acc);
  // Kernels whose sum is one per pass, added in pass order (pass_forces: cuda-pairs), for MPI ranks
  // that split the passes: the passes of the shape resolved for n; the sums of passes
  // [pass_first, pass_end), kept on the device; and acc (3n, SoA, host) = those sums added onto
  // acc in pass order (onto nothing when first), times G when last: the ranks doing this in turn
  // form each body's sum as compute() does on one device, bit for bit.
  int pass_count(std::size_t kernel, const Launch& requested, std::size_t n, T rmin2);
  void compute_passes(std::size_t kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n,
                      int pass_first, int pass_end, T G, T eps2, T rmin2);
  void fold_passes(std::size_t n, bool first, bool last, T G, T* acc);
  // phi (m) = -G sum_j m_j k(|x_j - p|) at the m points `at` (3m, SoA), or with at = null at the
  // bodies themselves (m = n), each body's own term left out: the potential of the bodies
  // (kernels/cuda/potential.cuh), each point's sum in body order, compensated (Neumaier) when asked.
  void potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T G, T eps2, T rmin2,
                  bool compensated, T* phi);
  // Device time of the kernel(s) of the last compute() or potentials() at points, from CUDA events
  // (seconds); the potentials at the bodies, a diagnostic between evaluations, leave it.
  double last_kernel_seconds() const;
  // The shape the last compute() actually ran with (all fields resolved).
  Launch last_launch() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::cuda
