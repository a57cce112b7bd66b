// Host side of the OpenCL engines (engine.hpp), with the C++ bindings (CLHPP). Every OpenCL
// call is checked: CLHPP's exceptions are turned into RunError (or InputError for launch shapes
// the device cannot run), naming the call and the error code.
#if NBODY_WITH_OPENCL
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#if __has_include(<CL/opencl.hpp>)
#include <CL/opencl.hpp>
#else
#include <CL/cl2.hpp>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engines/opencl/engine.hpp"

namespace nbody {

namespace opencl {

namespace {

[[noreturn]] void fail(const cl::Error& e) {
  throw RunError(std::string("OpenCL error in ") + e.what() + ": code " + std::to_string(e.err()));
}

struct Chosen {
  cl::Platform platform;
  cl::Device device;
};

Chosen choose_device() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    throw InputError(std::string("no OpenCL platform is available (") + e.what() + " " + std::to_string(e.err()) +
                     "): choose a CPU or CUDA engine (`nbody list engines`)");
  }
  const char* want = std::getenv("NBODY_OPENCL_DEVICE");
  std::vector<Chosen> all;
  for (auto& p : platforms) {
    std::vector<cl::Device> devs;
    try {
      p.getDevices(CL_DEVICE_TYPE_ALL, &devs);
    } catch (const cl::Error&) {
      continue;  // a platform without devices
    }
    for (auto& d : devs) all.push_back({p, d});
  }
  if (all.empty()) throw InputError("no OpenCL device is available: choose a CPU or CUDA engine (`nbody list engines`)");
  if (want && *want) {
    for (auto& c : all)
      if (c.platform.getInfo<CL_PLATFORM_NAME>().find(want) != std::string::npos ||
          c.device.getInfo<CL_DEVICE_NAME>().find(want) != std::string::npos)
        return c;
    throw InputError(std::string("NBODY_OPENCL_DEVICE='") + want + "' matches no OpenCL platform or device");
  }
  for (auto& c : all)
    if (c.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return c;
  return all.front();
}

template <class T>
constexpr bool is_double = std::is_same_v<T, double>;

}  // namespace

int device_count() noexcept {
  try {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    int count = 0;
    for (auto& p : platforms) {
      std::vector<cl::Device> devs;
      try {
        p.getDevices(CL_DEVICE_TYPE_ALL, &devs);
      } catch (const cl::Error&) {
        continue;
      }
      count += static_cast<int>(devs.size());
    }
    return count;
  } catch (...) {
    return 0;
  }
}

template <class T>
struct Backend<T>::Impl {
  std::string engine, function;
  const char* source;
  std::vector<Knob> knobs;
  Launch launch{};
  Chosen chosen;
  cl::Context context;
  cl::CommandQueue queue;
  cl::Program program[2];  // without / with the clamp
  cl::Kernel kernel[2];
  cl::Buffer d_bodies, d_acc;
  std::size_t cap = 0;
  std::vector<T> h_bodies;
  double last_s = -1;
  std::size_t last_block = 0;

  Impl(std::string_view engine_name, std::string_view function_name, const char* kernel_source, std::vector<Knob> kernel_knobs)
      : engine(engine_name), function(function_name), source(kernel_source), knobs(std::move(kernel_knobs)) {
    chosen = choose_device();
    try {
      if constexpr (is_double<T>) {
        if (chosen.device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() == 0)
          throw InputError("OpenCL device '" + chosen.device.getInfo<CL_DEVICE_NAME>() +
                           "' has no double precision: use --precision float");
      }
      context = cl::Context(chosen.device);
      queue = cl::CommandQueue(context, chosen.device, CL_QUEUE_PROFILING_ENABLE);
    } catch (const cl::Error& e) {
      fail(e);
    }
  }

  cl::Kernel& get_kernel(bool clamp) {
    cl::Kernel& k = kernel[clamp];
    if (k()) return k;
    std::string options = is_double<T> ? "-D REAL=double -D REAL4=double4 -D NBODY_DOUBLE" : "-D REAL=float -D REAL4=float4";
    if (clamp) options += " -D NBODY_CLAMP";
    cl::Program& prog = program[clamp];
    try {
      prog = cl::Program(context, std::string(source));
      prog.build({chosen.device}, options.c_str());
    } catch (const cl::Error& e) {
      std::string log;
      try {
        log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(chosen.device);
      } catch (...) {
      }
      throw RunError("OpenCL: building " + engine + "'s kernel failed (" + e.what() + " " + std::to_string(e.err()) +
                     "): " + log);
    }
    try {
      k = cl::Kernel(prog, function.c_str());
    } catch (const cl::Error& e) {
      fail(e);
    }
    return k;
  }
};

template <class T>
Backend<T>::Backend(std::string_view engine, std::string_view function, const char* source, std::vector<Knob> knobs)
    : impl_(std::make_unique<Impl>(engine, function, source, std::move(knobs))) {}
template <class T>
Backend<T>::~Backend() = default;

template <class T>
void Backend<T>::set_launch(const Launch& l) {
  check_keys(impl_->engine, impl_->knobs, l);
  impl_->launch = l;
}

template <class T>
double Backend<T>::last_kernel_seconds() const {
  return impl_->last_s;
}

template <class T>
std::string Backend<T>::device_info() const {
  const auto& c = impl_->chosen;
  return c.platform.template getInfo<CL_PLATFORM_NAME>() + " / " + c.device.template getInfo<CL_DEVICE_NAME>() + " (driver " +
         c.device.template getInfo<CL_DRIVER_VERSION>() + "); block=" + std::to_string(impl_->last_block);
}

template <class T>
void Backend<T>::compute(const T* pos, const T* mass, std::size_t n, T G, T eps2, T rmin2, T* acc) {
  Impl& m = *impl_;
  m.last_s = -1;
  if (n == 0) return;
  if (n > (std::size_t(1) << 29)) throw InputError(m.engine + " takes at most 2^29 bodies");
  const bool clamp = rmin2 > T(0);
  cl::Kernel& k = m.get_kernel(clamp);
  const cl::Device& dev = m.chosen.device;
  std::size_t kernel_max = 0, dev_max = 0;
  cl_ulong local_mem = 0, local_used = 0;
  try {
    kernel_max = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(dev);
    local_used = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    dev_max = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    local_mem = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  } catch (const cl::Error& e) {
    fail(e);
  }
  // The work-group limit of this kernel on this device (registers and the like count for it).
  const int limit = static_cast<int>(std::min(kernel_max, dev_max));
  const std::string dev_name = dev.getInfo<CL_DEVICE_NAME>();
  check_launch(m.engine, m.knobs, m.launch, m.launch, [limit](const Knob&) { return limit; }, dev_name);
  const std::size_t block = m.launch.block > 0 ? static_cast<std::size_t>(m.launch.block) : std::min(256, limit);
  const std::size_t tile_bytes = block * 4 * sizeof(T);
  if (tile_bytes + local_used > local_mem)
    invalid_launch(m.engine, m.launch,
                   "block=" + std::to_string(block) + ": the tile needs " + std::to_string(tile_bytes) +
                       " bytes of local memory, the device '" + dev_name + "' has " + std::to_string(local_mem));
  try {
    if (n > m.cap) {
      m.d_bodies = cl::Buffer(m.context, CL_MEM_READ_ONLY, 4 * n * sizeof(T));
      m.d_acc = cl::Buffer(m.context, CL_MEM_WRITE_ONLY, 3 * n * sizeof(T));
      m.cap = n;
    }
    m.h_bodies.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      m.h_bodies[4 * i] = pos[i];
      m.h_bodies[4 * i + 1] = pos[n + i];
      m.h_bodies[4 * i + 2] = pos[2 * n + i];
      m.h_bodies[4 * i + 3] = mass[i];
    }
    m.queue.enqueueWriteBuffer(m.d_bodies, CL_FALSE, 0, 4 * n * sizeof(T), m.h_bodies.data());
    const cl_int ni = static_cast<cl_int>(n);
    k.setArg(0, m.d_bodies);
    k.setArg(1, ni);
    k.setArg(2, eps2);
    k.setArg(3, rmin2);
    k.setArg(4, G);
    k.setArg(5, m.d_acc);
    k.setArg(6, cl::Local(tile_bytes));
    const std::size_t global = (n + block - 1) / block * block;
    cl::Event ev;
    m.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(block), nullptr, &ev);
    m.queue.enqueueReadBuffer(m.d_acc, CL_TRUE, 0, 3 * n * sizeof(T), acc);
    ev.wait();
    const cl_ulong t0 = ev.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong t1 = ev.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    m.last_s = static_cast<double>(t1 - t0) * 1e-9;
    m.last_block = block;
  } catch (const cl::Error& e) {
    if (e.err() == CL_INVALID_WORK_GROUP_SIZE || e.err() == CL_OUT_OF_RESOURCES)
      invalid_launch(m.engine, m.launch, std::string(e.what()) + " code " + std::to_string(e.err()));
    fail(e);
  }
}

template class Backend<float>;
template class Backend<double>;

}  // namespace opencl

}  // namespace nbody
#endif  // NBODY_WITH_OPENCL
