#pragma once
// The OpenCL force engines: one per kernel of kernels.hpp (all pairs) and of opencl_kdtree.hpp
// (Barnes-Hut), in the real types its spec runs in. Host code in backend.cpp and kdtree.cpp
// (CLHPP). It takes the first GPU of any OpenCL platform, else the first device (PoCL's CPU device
// in CI); NBODY_OPENCL_DEVICE=SUBSTRING picks the first device whose platform or device name
// contains it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "engines/opencl/kernels.hpp"

namespace nbody::opencl {

// Number of OpenCL devices over all platforms (0 when there is no ICD or platform; never throws).
int device_count() noexcept;

// What every OpenCL back end shares: its engine's name and knobs, the launch shape asked for, the
// device, and one __kernel of the program made of `sources` in order (built on first use, with and
// without the clamp). State is defined in device.hpp (OpenCL headers stay out of this one).
class KernelHost {
 public:
  KernelHost(std::string_view engine, std::string_view function, std::vector<const char*> sources, std::vector<Knob> knobs,
             bool is_double);
  ~KernelHost();
  KernelHost(const KernelHost&) = delete;
  KernelHost& operator=(const KernelHost&) = delete;
  void set_launch(const Launch& l);    // checked against the knobs and the device when the kernel runs
  double last_kernel_seconds() const;  // from the OpenCL profiling events
  std::string device_info() const;     // platform, device, driver, work-group size

 protected:
  struct State;
  std::unique_ptr<State> state_;
};

// The all-pairs kernels of kernels.hpp (the arguments of nbody_tiled.cl), for T.
template <class T>
class Backend : public KernelHost {
 public:
  Backend(std::string_view engine, std::string_view function, const char* source, std::vector<Knob> knobs);
  ~Backend();
  void compute(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, T* acc);
  TreeProfile tree_profile() const { return {}; }

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

extern template class Backend<float>;
extern template class Backend<double>;

}  // namespace nbody::opencl

namespace nbody {

// An engine of a kernel spec (kernels.hpp, opencl_kdtree.hpp), through the spec's back end
// (opencl::Backend, opencl::TreeBackend).
template <class T, class Kernel>
class OpenCLEngine final : public ForceEngine<T> {
 public:
  explicit OpenCLEngine(const ForceLaw<T>& law)
      : ForceEngine<T>(law), backend_(Kernel::name, Kernel::function, Kernel::source, Kernel::template knobs<T>()) {}
  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    backend_.compute(pos, mass, n, this->law_, acc);
  }
  void set_launch(std::string_view spec) override { backend_.set_launch(parse_launch(spec)); }
  double last_device_seconds() const override { return backend_.last_kernel_seconds(); }
  std::string device_info() const override { return backend_.device_info(); }
  TreeProfile last_tree_profile() const override { return backend_.tree_profile(); }

 private:
  typename Kernel::template Backend<T> backend_;
};

}  // namespace nbody
