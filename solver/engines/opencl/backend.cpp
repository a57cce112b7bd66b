// Host side of the OpenCL engines (engine.hpp, kdtree.hpp; device.hpp), with the C++ bindings
// (CLHPP). Every OpenCL call is checked: CLHPP's exceptions are turned into RunError (or
// InputError for launch shapes the device cannot run), naming the call and the error code.
#if NBODY_WITH_OPENCL
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engines/opencl/device.hpp"
#include "engines/opencl/engine.hpp"

namespace nbody {

namespace opencl {

void fail(const cl::Error& e) {
  throw RunError(std::string("OpenCL error in ") + e.what() + ": code " + std::to_string(e.err()));
}

void fail_launch(std::string_view engine, const Launch& requested, const cl::Error& e) {
  if (e.err() == CL_INVALID_WORK_GROUP_SIZE || e.err() == CL_OUT_OF_RESOURCES)
    invalid_launch(engine, requested, std::string(e.what()) + " code " + std::to_string(e.err()));
  fail(e);
}

void check_body_count(std::string_view engine, std::size_t n) {
  if (n > (std::size_t(1) << 29)) throw InputError(std::string(engine) + " takes at most 2^29 bodies");
}

namespace {

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

}  // namespace

Session::Session(bool needs_double) {
  const Chosen chosen = choose_device();
  platform = chosen.platform;
  device = chosen.device;
  try {
    if (needs_double && device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() == 0)
      throw InputError("OpenCL device '" + device.getInfo<CL_DEVICE_NAME>() + "' has no double precision: use --precision float");
    context = cl::Context(device);
    queue = cl::CommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE);
  } catch (const cl::Error& e) {
    fail(e);
  }
}

cl::Kernel Session::kernel(std::string_view engine, const std::vector<const char*>& sources, std::string_view function,
                           bool is_double, bool clamp) const {
  std::string options = is_double ? "-D REAL=double -D REAL4=double4 -D NBODY_DOUBLE" : "-D REAL=float -D REAL4=float4";
  if (clamp) options += " -D NBODY_CLAMP";
  cl::Program prog;
  try {
    prog = cl::Program(context, cl::Program::Sources(sources.begin(), sources.end()));
    prog.build({device}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (...) {
    }
    throw RunError("OpenCL: building " + std::string(engine) + "'s kernel failed (" + e.what() + " " +
                   std::to_string(e.err()) + "): " + log);
  }
  try {
    return cl::Kernel(prog, std::string(function).c_str());
  } catch (const cl::Error& e) {
    fail(e);
  }
}

std::size_t Session::block(std::string_view engine, const std::vector<Knob>& knobs, const Launch& l, const cl::Kernel& k,
                           int preferred) const {
  std::size_t kernel_max = 0, dev_max = 0;
  std::string dev_name;
  try {
    kernel_max = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    dev_max = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    dev_name = device.getInfo<CL_DEVICE_NAME>();
  } catch (const cl::Error& e) {
    fail(e);
  }
  // The work-group limit of this kernel on this device (registers and the like count for it).
  const int limit = static_cast<int>(std::min(kernel_max, dev_max));
  check_launch(engine, knobs, l, l, [limit](const Knob&) { return limit; }, dev_name);
  return l.block > 0 ? static_cast<std::size_t>(l.block) : static_cast<std::size_t>(std::min(preferred, limit));
}

std::string Session::describe() const {
  return platform.getInfo<CL_PLATFORM_NAME>() + " / " + device.getInfo<CL_DEVICE_NAME>() + " (driver " +
         device.getInfo<CL_DRIVER_VERSION>() + ")";
}

double event_seconds(const cl::Event& e) {
  const cl_ulong t0 = e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const cl_ulong t1 = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return static_cast<double>(t1 - t0) * 1e-9;
}

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
  Session session;
  cl::Kernel kernel[2];  // without / with the clamp
  cl::Buffer d_bodies, d_acc;
  std::size_t cap = 0;
  std::vector<T> h_bodies;
  double last_s = -1;
  std::size_t last_block = 0;

  Impl(std::string_view engine_name, std::string_view function_name, const char* kernel_source, std::vector<Knob> kernel_knobs)
      : engine(engine_name), function(function_name), source(kernel_source), knobs(std::move(kernel_knobs)),
        session(std::is_same_v<T, double>) {}

  cl::Kernel& get_kernel(bool clamp) {
    cl::Kernel& k = kernel[clamp];
    if (!k()) k = session.kernel(engine, {source}, function, std::is_same_v<T, double>, clamp);
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
  return impl_->session.describe() + "; block=" + std::to_string(impl_->last_block);
}

template <class T>
void Backend<T>::compute(const T* pos, const T* mass, std::size_t n, T G, T eps2, T rmin2, T* acc) {
  Impl& m = *impl_;
  m.last_s = -1;
  if (n == 0) return;
  check_body_count(m.engine, n);
  const bool clamp = rmin2 > T(0);
  cl::Kernel& k = m.get_kernel(clamp);
  const cl::Device& dev = m.session.device;
  const std::size_t block = m.session.block(m.engine, m.knobs, m.launch, k, 256);
  cl_ulong local_mem = 0, local_used = 0;
  try {
    local_used = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    local_mem = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  } catch (const cl::Error& e) {
    fail(e);
  }
  const std::size_t tile_bytes = block * 4 * sizeof(T);
  if (tile_bytes + local_used > local_mem)
    invalid_launch(m.engine, m.launch,
                   "block=" + std::to_string(block) + ": the tile needs " + std::to_string(tile_bytes) +
                       " bytes of local memory, the device '" + dev.getInfo<CL_DEVICE_NAME>() + "' has " +
                       std::to_string(local_mem));
  try {
    if (n > m.cap) {
      m.d_bodies = cl::Buffer(m.session.context, CL_MEM_READ_ONLY, 4 * n * sizeof(T));
      m.d_acc = cl::Buffer(m.session.context, CL_MEM_WRITE_ONLY, 3 * n * sizeof(T));
      m.cap = n;
    }
    m.h_bodies.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      m.h_bodies[4 * i] = pos[i];
      m.h_bodies[4 * i + 1] = pos[n + i];
      m.h_bodies[4 * i + 2] = pos[2 * n + i];
      m.h_bodies[4 * i + 3] = mass[i];
    }
    m.session.queue.enqueueWriteBuffer(m.d_bodies, CL_FALSE, 0, 4 * n * sizeof(T), m.h_bodies.data());
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
    m.session.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(block), nullptr, &ev);
    m.session.queue.enqueueReadBuffer(m.d_acc, CL_TRUE, 0, 3 * n * sizeof(T), acc);
    ev.wait();
    m.last_s = event_seconds(ev);
    m.last_block = block;
  } catch (const cl::Error& e) {
    fail_launch(m.engine, m.launch, e);
  }
}

template class Backend<float>;
template class Backend<double>;

}  // namespace opencl

}  // namespace nbody
#endif  // NBODY_WITH_OPENCL
