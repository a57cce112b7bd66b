// Host side of the OpenCL engines (opencl_engines.hpp, opencl_kdtree.hpp; device.hpp), with the C++ bindings
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
#include "engines/opencl/opencl_engines.hpp"

namespace nbody {

namespace opencl {

void fail(const cl::Error& e) {
  throw RunError(std::string("OpenCL error in ") + e.what() + ": code " + std::to_string(e.err()));
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

std::string Session::describe() const {
  return platform.getInfo<CL_PLATFORM_NAME>() + " / " + device.getInfo<CL_DEVICE_NAME>() + " (driver " +
         device.getInfo<CL_DRIVER_VERSION>() + ")";
}

KernelHost::State::State(std::string_view engine_name, std::string_view function_name, std::vector<const char*> kernel_sources,
                         std::vector<Knob> kernel_knobs, bool double_precision)
    : engine(engine_name), function(function_name), sources(std::move(kernel_sources)), knobs(std::move(kernel_knobs)),
      is_double(double_precision), session(double_precision) {}

cl::Kernel& KernelHost::State::get(bool clamp) {
  cl::Kernel& k = kernel[clamp];
  if (k()) return k;
  std::string options = is_double ? "-D REAL=double -D REAL4=double4 -D NBODY_DOUBLE" : "-D REAL=float -D REAL4=float4";
  if (clamp) options += " -D NBODY_CLAMP";
  cl::Program prog;
  try {
    prog = cl::Program(session.context, cl::Program::Sources(sources.begin(), sources.end()));
    prog.build({session.device}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(session.device);
    } catch (...) {
    }
    throw RunError("OpenCL: building " + engine + "'s kernel failed (" + e.what() + " " + std::to_string(e.err()) + "): " + log);
  }
  try {
    k = cl::Kernel(prog, function.c_str());
  } catch (const cl::Error& e) {
    fail(e);
  }
  return k;
}

std::size_t KernelHost::State::block(const cl::Kernel& k, int preferred) const {
  std::size_t kernel_max = 0, dev_max = 0;
  std::string dev_name;
  try {
    kernel_max = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(session.device);
    dev_max = session.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    dev_name = session.device.getInfo<CL_DEVICE_NAME>();
  } catch (const cl::Error& e) {
    fail(e);
  }
  // The work-group limit of this kernel on this device (registers and the like count for it).
  const int limit = static_cast<int>(std::min(kernel_max, dev_max));
  check_launch(engine, knobs, launch, launch, [limit](const Knob&) { return limit; }, dev_name);
  return launch.block > 0 ? static_cast<std::size_t>(launch.block) : static_cast<std::size_t>(std::min(preferred, limit));
}

void KernelHost::State::check_body_count(std::size_t n) const {
  if (n > (std::size_t(1) << 29)) throw InputError(engine + " takes at most 2^29 bodies");
}

cl::Kernel* KernelHost::State::begin(std::size_t n, bool clamp) {
  last_s = -1;
  if (n == 0) return nullptr;
  check_body_count(n);
  return &get(clamp);
}

void KernelHost::State::run(const cl::Kernel& k, std::size_t n, std::size_t block) {
  const std::size_t global = (n + block - 1) / block * block;
  cl::Event ev;
  session.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(block), nullptr, &ev);
  ev.wait();
  last_s = event_seconds(ev);
  last_block = block;
}

void KernelHost::State::fail_run(const cl::Error& e) const {
  if (e.err() == CL_INVALID_WORK_GROUP_SIZE || e.err() == CL_OUT_OF_RESOURCES)
    invalid_launch(engine, launch, std::string(e.what()) + " code " + std::to_string(e.err()));
  fail(e);
}

KernelHost::KernelHost(std::string_view engine, std::string_view function, std::vector<const char*> sources,
                       std::vector<Knob> knobs, bool is_double)
    : state_(std::make_unique<State>(engine, function, std::move(sources), std::move(knobs), is_double)) {}

KernelHost::~KernelHost() = default;

void KernelHost::set_launch(const Launch& l) {
  check_keys(state_->engine, state_->knobs, l);
  state_->launch = l;
}

double KernelHost::last_kernel_seconds() const {
  return state_->last_s;
}

std::string KernelHost::device_info() const {
  return state_->session.describe() + "; block=" + std::to_string(state_->last_block);
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
struct Backend<T>::Buffers {
  cl::Buffer bodies, acc;
  std::size_t cap = 0;
  std::vector<T> h_bodies;
};

template <class T>
Backend<T>::Backend(std::string_view engine, std::string_view function, const char* source, std::vector<Knob> knobs)
    : KernelHost(engine, function, {sources::interaction, source}, std::move(knobs), std::is_same_v<T, double>),
      buffers_(std::make_unique<Buffers>()) {}
template <class T>
Backend<T>::~Backend() = default;

template <class T>
void Backend<T>::compute(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, T* acc) {
  State& s = *state_;
  Buffers& b = *buffers_;
  cl::Kernel* const kernel = s.begin(n, law.rmin2 > T(0));
  if (!kernel) return;
  cl::Kernel& k = *kernel;
  const cl::Device& dev = s.session.device;
  const std::size_t block = s.block(k, 256);
  cl_ulong local_mem = 0, local_used = 0;
  try {
    local_used = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    local_mem = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  } catch (const cl::Error& e) {
    fail(e);
  }
  const std::size_t tile_bytes = block * 4 * sizeof(T);
  if (tile_bytes + local_used > local_mem)
    invalid_launch(s.engine, s.launch,
                   "block=" + std::to_string(block) + ": the tile needs " + std::to_string(tile_bytes) +
                       " bytes of local memory, the device '" + dev.getInfo<CL_DEVICE_NAME>() + "' has " +
                       std::to_string(local_mem));
  try {
    if (n > b.cap) {
      b.bodies = cl::Buffer(s.session.context, CL_MEM_READ_ONLY, 4 * n * sizeof(T));
      b.acc = cl::Buffer(s.session.context, CL_MEM_WRITE_ONLY, 3 * n * sizeof(T));
      b.cap = n;
    }
    b.h_bodies.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      b.h_bodies[4 * i] = pos[i];
      b.h_bodies[4 * i + 1] = pos[n + i];
      b.h_bodies[4 * i + 2] = pos[2 * n + i];
      b.h_bodies[4 * i + 3] = mass[i];
    }
    s.session.queue.enqueueWriteBuffer(b.bodies, CL_FALSE, 0, 4 * n * sizeof(T), b.h_bodies.data());
    k.setArg(0, b.bodies);
    k.setArg(1, static_cast<cl_int>(n));
    k.setArg(2, law.eps2);
    k.setArg(3, law.rmin2);
    k.setArg(4, law.G);
    k.setArg(5, b.acc);
    k.setArg(6, cl::Local(tile_bytes));
    s.run(k, n, block);
    s.session.queue.enqueueReadBuffer(b.acc, CL_TRUE, 0, 3 * n * sizeof(T), acc);
  } catch (const cl::Error& e) {
    s.fail_run(e);
  }
}

template class Backend<float>;
template class Backend<double>;

}  // namespace opencl

}  // namespace nbody
#endif  // NBODY_WITH_OPENCL
