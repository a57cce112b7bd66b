#pragma once
// What the OpenCL engines' host code (backend.cpp, kdtree.cpp) shares: the C++ bindings (CLHPP)
// with exceptions, the chosen device with its context and profiling queue, kernel builds, launch
// shapes checked against the device, and the error reports. For .cpp files only: the registry's
// headers (opencl_engines.hpp, opencl_kdtree.hpp) stay free of OpenCL headers.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#if __has_include(<CL/opencl.hpp>)
#include <CL/opencl.hpp>
#else
#include <CL/cl2.hpp>
#endif

#include <string>
#include <string_view>
#include <vector>

#include "engines/launch.hpp"
#include "engines/opencl/opencl_engines.hpp"

namespace nbody::opencl {

// A failed OpenCL call (CLHPP's exception names it) as RunError, with its error code.
[[noreturn]] void fail(const cl::Error& e);

// The device of opencl_engines.hpp's rule (NBODY_OPENCL_DEVICE, else the first GPU, else the first
// device), its context and an in-order queue with profiling. InputError when there is none, or
// when double precision is asked of a device without it.
struct Session {
  cl::Platform platform;
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;

  explicit Session(bool needs_double);
  std::string describe() const;  // platform, device and driver
};

// opencl_engines.hpp's KernelHost: its engine, kernel, launch shape and device.
struct KernelHost::State {
  std::string engine, function;
  std::vector<const char*> sources;
  std::vector<Knob> knobs;
  bool is_double;
  Launch launch{};
  Session session;
  cl::Kernel kernel[2];  // without / with the clamp
  double last_s = -1;
  std::size_t last_block = 0;

  State(std::string_view engine_name, std::string_view function_name, std::vector<const char*> kernel_sources,
        std::vector<Knob> kernel_knobs, bool double_precision);
  // The kernel, built on first use with -D REAL=float|double, REAL4 (NBODY_DOUBLE for double) and
  // NBODY_CLAMP when the minimum-distance clamp is on; RunError with the build log.
  cl::Kernel& get(bool clamp);
  // The work-group size to run k with: launch.block checked against the knobs and the largest
  // group this kernel can run with on this device, or (block=0) min(preferred, that limit).
  std::size_t block(const cl::Kernel& k, int preferred) const;
  // The kernels index the 3n accelerations with 32-bit integers: InputError beyond 2^29 bodies.
  void check_body_count(std::size_t n) const;
  // The start of an evaluation of n bodies: the last time cleared, then null for none, else n
  // checked and the kernel, with the clamp or not.
  cl::Kernel* begin(std::size_t n, bool clamp);
  // Runs k over n work-items in groups of `block` (the last one padded) and waits for it; records
  // its device time and block.
  void run(const cl::Kernel& k, std::size_t n, std::size_t block);
  // A failed call of a run: InputError for launch shapes the device cannot run, else as fail().
  [[noreturn]] void fail_run(const cl::Error& e) const;
};

// The device time of a profiled command, in seconds.
double event_seconds(const cl::Event& e);

// What the tree engines (kdtree.cpp, octree.cpp) share: the bodies in tree order as REAL4 (x, y,
// z, mass), and writes of host vectors into buffers (not waited for).
template <class T>
void pack_bodies(const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z, const std::vector<T>& m,
                 std::vector<T>& out) {
  out.resize(4 * x.size());
  for (std::size_t j = 0; j < x.size(); ++j) out[4 * j] = x[j], out[4 * j + 1] = y[j], out[4 * j + 2] = z[j], out[4 * j + 3] = m[j];
}
template <class V>
void upload(cl::CommandQueue& q, const cl::Buffer& d, const V& v) {
  q.enqueueWriteBuffer(d, CL_FALSE, 0, v.size() * sizeof(v[0]), v.data());
}

}  // namespace nbody::opencl
