#pragma once
// The OpenCL force engines: one per kernel of kernels.hpp, in the real types its spec runs in.
// Host code in backend.cpp (CLHPP). It takes the first GPU of any OpenCL platform, else the first
// device (PoCL's CPU device in CI); NBODY_OPENCL_DEVICE=SUBSTRING picks the first device whose
// platform or device name contains it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "engines/opencl/kernels.hpp"

namespace nbody::opencl {

// Number of OpenCL devices over all platforms (0 when there is no ICD or platform; never throws).
int device_count() noexcept;

// One kernel (its spec's name, __kernel function and source) on the chosen device, for T.
template <class T>
class Backend {
 public:
  Backend(std::string_view engine, std::string_view function, const char* source, std::vector<Knob> knobs);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  void set_launch(const Launch& l);  // checked against the knobs and the device when the kernel runs
  void compute(const T* pos, const T* mass, std::size_t n, T G, T eps2, T rmin2, T* acc);
  double last_kernel_seconds() const;  // from the OpenCL profiling events
  std::string device_info() const;     // platform, device, driver, work-group size

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Backend<float>;
extern template class Backend<double>;

}  // namespace nbody::opencl

namespace nbody {

template <class T, class Kernel>
class OpenCLEngine final : public ForceEngine<T> {
 public:
  explicit OpenCLEngine(const ForceLaw<T>& law)
      : ForceEngine<T>(law), backend_(Kernel::name, Kernel::function, Kernel::source, Kernel::template knobs<T>()) {}
  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    backend_.compute(pos, mass, n, this->law_.G, this->law_.eps2, this->law_.rmin2, acc);
  }
  void set_launch(std::string_view spec) override { backend_.set_launch(parse_launch(spec)); }
  double last_device_seconds() const override { return backend_.last_kernel_seconds(); }
  std::string device_info() const override { return backend_.device_info(); }

 private:
  opencl::Backend<T> backend_;
};

}  // namespace nbody
