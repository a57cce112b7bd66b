#pragma once
// Host interface of the CUDA force kernels (kernels/cuda/), in plain C++ so that the engine
// classes and the registry compile without nvcc. Implemented in cuda_backend.cuh, instantiated
// once per real type in cuda_float.cu, cuda_double.cu and cuda_dd.cu (the last with --fmad=false:
// double-double arithmetic needs every product rounded on its own).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"
#include "engines/resident.hpp"

namespace nbody::cuda {

enum class Kernel { naive, tiled, split, pairs };

// The real types cuda-pairs is compiled for (its registry entry and its kernels).
template <class T>
constexpr bool pairs_supported = std::is_same_v<T, float> || std::is_same_v<T, double>;

// A launch shape. 0 means "choose": the tuned value from the cache if there is one, else the
// built-in default for the GPU (block 256, the largest unroll and bodies per thread that pay).
struct Launch {
  int block = 0;   // threads per block (= bodies per shared-memory tile)
  int split = 0;   // pieces of the j-range, one per blockIdx.y (cuda-split); passes over the tile distances (cuda-pairs)
  int unroll = 0;  // unroll factor of the inner loop: 1, 2, 4, 8, 16, 32
  int ipt = 0;     // bodies per thread: 1, 2, 4 (float and cuda-pairs also 8; dd: 1, 2)
  int cluster = 0; // device-resident steps only: 1 = grid-wide sync, K = the grid is one cluster of <= K blocks
  bool operator==(const Launch&) const = default;
};

// "block=256,split=4,unroll=8,ipt=2,cluster=16" (any subset, any order; "" = all chosen). Throws InputError.
Launch parse_launch(std::string_view spec);
std::string to_string(const Launch& l);

// Number of usable CUDA devices, 0 when there is none or no driver (never throws).
int device_count() noexcept;
// Why there is no device (the runtime's message), for the skip and error messages.
std::string no_device_reason();
// Device 0: name, compute capability, SMs, clocks, memory, driver and runtime versions (JSON).
std::string device_json();
std::string device_name();
// Device name and CUDA driver version: the key of the tuning cache.
std::string device_key();

inline const char* engine_name(Kernel k) {
  switch (k) {
    case Kernel::naive: return "cuda-naive";
    case Kernel::tiled: return "cuda-tiled";
    case Kernel::split: return "cuda-split";
    case Kernel::pairs: return "cuda-pairs";
  }
  return "?";
}
template <class T>
constexpr const char* precision_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, dd>) return "dd";
  else return "qd";
}

template <class T>
class Backend {
 public:
  Backend();
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // acc (3n, SoA) = G sum_j m_j (r_j - r_i) / s^3 for pos (3n, SoA) and mass (n). The launch
  // shape is checked against the device (InputError with the valid range when it cannot run);
  // every CUDA call is checked (RunError).
  void compute(Kernel kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n, T G, T eps2,
               T rmin2, T* acc);
  // Device time of the kernel(s) of the last compute(), from CUDA events (seconds).
  double last_kernel_seconds() const;
  // The shape the last compute() actually ran with (all fields resolved).
  Launch last_launch() const;
  // Resolves a requested shape for (kernel, n) the way compute() would, without running it.
  Launch resolve(Kernel kernel, const Launch& requested, std::size_t n, bool clamp);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Device-resident stepping (engines/resident.hpp) on device 0, for float and double: one
// cooperative kernel (kernels/cuda/resident.cuh) takes the steps of a call. Its launch shape uses
// block= (threads per block, a power of 2 from 32 to 512) and split= (threads per body, a power
// of 2 up to block: each body's j-range split over them); 0 chooses: block 256, and threads per
// body (up to 32) for about 64 blocks, since every force evaluation waits at one grid-wide sync.
template <class T>
class ResidentBackend final : public ResidentStepper<T> {
 public:
  ResidentBackend();
  ~ResidentBackend() override;
  ResidentBackend(const ResidentBackend&) = delete;
  ResidentBackend& operator=(const ResidentBackend&) = delete;

  void set_law(T G, T eps2, T rmin2);
  void set_launch(const Launch& requested);
  void advance(const ResidentMethod<T>& method, ResidentSegment<T>& segment) override;
  // The shape of the last call ("" before the first): block, threads per body, blocks.
  std::string last_shape() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Backend<float>;
extern template class Backend<double>;
extern template class Backend<dd>;
extern template class Backend<qd>;
extern template class ResidentBackend<float>;
extern template class ResidentBackend<double>;

}  // namespace nbody::cuda
