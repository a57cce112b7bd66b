// Host side of the OpenCL engine (opencl_engine.hpp), with the C++ bindings (CLHPP). Every OpenCL
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
#include "engines/opencl_engine.hpp"
#include "opencl_sources.hpp"  // generated: nbody::opencl::tiled_source (kernels/opencl/nbody_tiled.cl)

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
  Chosen chosen;
  cl::Context context;
  cl::CommandQueue queue;
  cl::Program program[2];  // without / with the clamp
  cl::Kernel kernel[2];
  cl::Buffer d_bodies, d_acc;
  std::size_t cap = 0;
  std::vector<T> h_bodies;
  int block = 0;
  double last_s = -1;
  std::size_t last_block = 0;

  Impl() {
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
      prog = cl::Program(context, std::string(tiled_source));
      prog.build({chosen.device}, options.c_str());
    } catch (const cl::Error& e) {
      std::string log;
      try {
        log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(chosen.device);
      } catch (...) {
      }
      throw RunError(std::string("OpenCL: building nbody_tiled.cl failed (") + e.what() + " " + std::to_string(e.err()) +
                     "): " + log);
    }
    try {
      k = cl::Kernel(prog, "nbody_tiled");
    } catch (const cl::Error& e) {
      fail(e);
    }
    return k;
  }
};

template <class T>
Backend<T>::Backend() : impl_(std::make_unique<Impl>()) {}
template <class T>
Backend<T>::~Backend() = default;

template <class T>
void Backend<T>::set_block(int block) {
  if (block < 0) throw InputError("--launch: block must be positive");
  impl_->block = block;
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
  if (n > (std::size_t(1) << 29)) throw InputError("opencl-tiled takes at most 2^29 bodies");
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
  const std::size_t limit = std::min(kernel_max, dev_max);
  const std::size_t block = m.block > 0 ? static_cast<std::size_t>(m.block) : std::min<std::size_t>(256, limit);
  const std::string dev_name = dev.getInfo<CL_DEVICE_NAME>();
  if (block > limit)
    throw InputError("invalid launch shape for opencl-tiled (block=" + std::to_string(block) + "): the device '" + dev_name +
                     "' runs at most " + std::to_string(limit) + " work-items per group for this kernel (valid: 1.." +
                     std::to_string(limit) + ")");
  const std::size_t tile_bytes = block * 4 * sizeof(T);
  if (tile_bytes + local_used > local_mem)
    throw InputError("invalid launch shape for opencl-tiled (block=" + std::to_string(block) + "): the tile needs " +
                     std::to_string(tile_bytes) + " bytes of local memory, the device '" + dev_name + "' has " +
                     std::to_string(local_mem));
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
      throw InputError("invalid launch shape for opencl-tiled (block=" + std::to_string(block) + "): " + e.what() +
                       " code " + std::to_string(e.err()));
    fail(e);
  }
}

template class Backend<float>;
template class Backend<double>;

}  // namespace opencl

template <class T>
void OpenCLEngine<T>::set_launch(std::string_view spec) {
  int block = 0;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    std::size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    const std::string item(spec.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty()) continue;
    if (item.rfind("block=", 0) != 0)
      throw InputError("--launch: opencl-tiled takes only block=N, got '" + item + "'");
    char* e = nullptr;
    const long v = std::strtol(item.c_str() + 6, &e, 10);
    if (*e != '\0' || item.size() == 6 || v < 1 || v > (1 << 20))
      throw InputError("--launch: '" + item + "' is not block=N with N >= 1");
    block = static_cast<int>(v);
  }
  backend_.set_block(block);
}

template class OpenCLEngine<float>;
template class OpenCLEngine<double>;

}  // namespace nbody
#endif  // NBODY_WITH_OPENCL
