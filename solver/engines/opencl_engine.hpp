#pragma once
// The OpenCL force engine opencl-tiled (float and double): local-memory tiles, CLHPP host code in
// opencl_tiled.cpp, kernel source kernels/opencl/nbody_tiled.cl (embedded at build time). It takes
// the first GPU of any OpenCL platform, else the first device (PoCL's CPU device in CI);
// NBODY_OPENCL_DEVICE=SUBSTRING picks the first device whose platform or device name contains it.
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "engines/engine.hpp"

namespace nbody {

template <class T>
constexpr bool opencl_supports = std::is_same_v<T, float> || std::is_same_v<T, double>;

namespace opencl {

// Number of OpenCL devices over all platforms (0 when there is no ICD or platform; never throws).
int device_count() noexcept;

template <class T>
class Backend {
 public:
  Backend();
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  void set_block(int block);  // 0 = default (256, or the device's limit if smaller)
  void compute(const T* pos, const T* mass, std::size_t n, T G, T eps2, T rmin2, T* acc);
  double last_kernel_seconds() const;  // from the OpenCL profiling events
  std::string device_info() const;     // platform, device, driver, work-group size

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Backend<float>;
extern template class Backend<double>;

}  // namespace opencl

template <class T>
class OpenCLEngine final : public ForceEngine<T> {
 public:
  explicit OpenCLEngine(const ForceLaw<T>& law) : ForceEngine<T>(law) {}
  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    backend_.compute(pos, mass, n, this->law_.G, this->law_.eps2, this->law_.rmin2, acc);
  }
  void set_launch(std::string_view spec) override;
  double last_device_seconds() const override { return backend_.last_kernel_seconds(); }
  std::string device_info() const override { return backend_.device_info(); }

 private:
  opencl::Backend<T> backend_;
};

template <class T>
struct OpenCLTiledEngine {
  struct info {
    static constexpr std::string_view name = "opencl-tiled";
    static constexpr std::string_view description =
        "OpenCL, local-memory tiles (float, double; PoCL on CPUs, NVIDIA's driver on GPUs); --launch block=B";
  };
  using type = OpenCLEngine<T>;
};

extern template class OpenCLEngine<float>;
extern template class OpenCLEngine<double>;

}  // namespace nbody
