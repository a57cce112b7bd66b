#pragma once
// What the OpenCL engines' host code (backend.cpp, kdtree.cpp) shares: the C++ bindings (CLHPP)
// with exceptions, the chosen device with its context and profiling queue, kernel builds, launch
// shapes checked against the device, and the error reports. For .cpp files only: the registry's
// headers (engine.hpp, kdtree.hpp) stay free of OpenCL headers.
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

namespace nbody::opencl {

// A failed OpenCL call (CLHPP's exception names it) as RunError, with its error code.
[[noreturn]] void fail(const cl::Error& e);
// A failed launch: InputError for shapes the device cannot run, else as fail().
[[noreturn]] void fail_launch(std::string_view engine, const Launch& requested, const cl::Error& e);

// The kernels index the 3n accelerations with int: InputError beyond 2^29 bodies.
void check_body_count(std::string_view engine, std::size_t n);

// The device of engine.hpp's rule (NBODY_OPENCL_DEVICE, else the first GPU, else the first
// device), its context and an in-order queue with profiling. InputError when there is none, or
// when double precision is asked of a device without it.
struct Session {
  cl::Platform platform;
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;

  explicit Session(bool needs_double);
  // `function` of the program made of `sources` in order, built with -D REAL=float|double, REAL4
  // (NBODY_DOUBLE for double) and NBODY_CLAMP when the minimum-distance clamp is on.
  cl::Kernel kernel(std::string_view engine, const std::vector<const char*>& sources, std::string_view function,
                    bool is_double, bool clamp) const;
  // The work-group size to run k with: l.block checked against the knobs and the largest group
  // this kernel can run with on this device, or (block=0) min(preferred, that limit).
  std::size_t block(std::string_view engine, const std::vector<Knob>& knobs, const Launch& l, const cl::Kernel& k,
                    int preferred) const;
  // Platform, device and driver.
  std::string describe() const;
};

// The device time of a profiled command, in seconds.
double event_seconds(const cl::Event& e);

}  // namespace nbody::opencl
