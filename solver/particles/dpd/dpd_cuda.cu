// The DPD driver on the GPU (dpd_cuda.hpp), for float and double. Built with --fmad=false (cmake/gpu.cmake)
// so that its arithmetic is the host's, operation for operation.
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.cuh"
#include "cuda/cuda_device.hpp"
#include "cuda/device_buffer.cuh"
#include "cuda/dpd.cuh"
#include "cuda/grid_size.hpp"
#include "cuda/stream.cuh"
#include "particles/dpd/dpd_cuda.hpp"

namespace nbody::particles {

namespace {
constexpr unsigned block = 256;  // threads per block of every kernel of the step
using cuda::blocks_for;
}  // namespace

template <class T>
struct DpdCuda<T>::Impl {
  template <class U>
  using Buffer = cuda::DeviceBuffer<U>;

  DpdParameters p;
  DpdState<T>& s;
  CellBuilder builder;
  DeviceCellList<T> cells;
  enum Mark { started, finished };  // around a step
  cuda::Stream<2> stream;
  Buffer<T> pos, vel, force, predicted, sorted_pos, sorted_vel, body_force;
  Buffer<unsigned> species, sorted_species;
  Buffer<DpdPair<T>> pairs;
  std::vector<DpdPair<T>> host_pairs;
  float step_ms = 0;
  double cells_seconds = 0;

  Impl(const DpdParameters& params, DpdState<T>& state, CellBuilder b) : p(params), s(state), builder(b) {
    check_dpd(p, s);
    const std::size_t n = s.n;
    for (Buffer<T>* b : {&pos, &vel, &force, &predicted, &sorted_pos, &sorted_vel}) b->reserve(3 * n);
    species.reserve(n), sorted_species.reserve(n);
    host_pairs = dpd_pairs<T>(p);
    pairs.reserve(host_pairs.size());
    stream.to_device(pairs.p, host_pairs.data(), host_pairs.size());
    if (!p.body_force.empty()) {
      std::vector<T> g;
      for (const auto& f : p.body_force) g.insert(g.end(), {T(f[0]), T(f[1]), T(f[2])});
      body_force.reserve(g.size());
      stream.to_device(body_force.p, g.data(), g.size());
    }
    stream.to_device(pos.p, s.pos.data(), 3 * n), stream.to_device(vel.p, s.vel.data(), 3 * n);
    stream.to_device(force.p, s.force.data(), 3 * n), stream.to_device(species.p, s.species.data(), n);
    stream.synchronize();
  }

  // The cell list of the current positions (the builder's own stream: ours is idle first), the
  // particles' data in its order, and the force on every particle with the velocities v.
  void forces(const T* v) {
    const auto n = static_cast<unsigned>(s.n);
    stream.synchronize();
    cells.build_on_device(builder, pos.p, n, s.box, T(p.rc));
    cells_seconds = cells.last_build_seconds();
    cells.gather(pos.p, sorted_pos.p, 3, false);
    cells.gather(v, sorted_vel.p, 3, false);
    cells.gather(species.p, sorted_species.p, 1);
    if (n == 0) return;
    const T rc = T(p.rc);
    const dpd_kernels::ForceView<T> view{s.box,         CellGrid<T>::make(s.box, rc), rc * rc, n,      cells.device_start(),
                                         cells.device_order(), sorted_pos.p,  sorted_vel.p, sorted_species.p, pairs.p,
                                         p.species,     p.body_force.empty() ? nullptr : body_force.p, s.step, p.seed};
    dpd_kernels::force_kernel<<<blocks_for(n, block), block, 0, stream>>>(view, force.p);
    NBODY_CUDA_CHECK_LAUNCH("dpd force_kernel");
  }

  void step() {
    const auto n = static_cast<unsigned>(s.n);
    const T dt = T(p.dt), lambda_dt = T(p.lambda) * dt;
    stream.mark(started);
    if (n) {
      dpd_kernels::drift_kernel<<<blocks_for(3 * std::size_t(n), block), block, 0, stream>>>(s.box, n, dt, lambda_dt, pos.p,
                                                                                             vel.p, force.p, predicted.p);
      NBODY_CUDA_CHECK_LAUNCH("dpd drift_kernel");
    }
    ++s.step;
    forces(predicted.p);
    if (n) {
      dpd_kernels::kick_kernel<<<blocks_for(3 * std::size_t(n), block), block, 0, stream>>>(3 * std::size_t(n), dt / T(2),
                                                                                            vel.p, force.p);
      NBODY_CUDA_CHECK_LAUNCH("dpd kick_kernel");
    }
    stream.mark(finished);
    stream.wait(finished);
    step_ms = stream.milliseconds(started, finished);
  }

  void sync() {
    const std::size_t n = s.n;
    stream.to_host(s.pos.data(), pos.p, 3 * n), stream.to_host(s.vel.data(), vel.p, 3 * n);
    stream.to_host(s.force.data(), force.p, 3 * n);
    stream.synchronize();
  }
};

template <class T>
DpdCuda<T>::DpdCuda(const DpdParameters& p, DpdState<T>& s, bool forces_given, CellBuilder builder)
    : impl_(std::make_unique<Impl>(p, s, builder)) {
  if (!forces_given) {
    impl_->forces(impl_->vel.p);
    impl_->stream.synchronize();
  }
}
template <class T>
DpdCuda<T>::~DpdCuda() = default;
template <class T>
void DpdCuda<T>::step() {
  impl_->step();
}
template <class T>
void DpdCuda<T>::sync() {
  impl_->sync();
}
template <class T>
DpdDiagnostics DpdCuda<T>::diagnostics() {
  impl_->sync();
  CellList<T> list;
  list.build(impl_->s.pos.data(), impl_->s.n, impl_->s.box, T(impl_->p.rc));
  return dpd_diagnostics(impl_->s, list, impl_->host_pairs, impl_->p);
}
template <class T>
double DpdCuda<T>::last_step_seconds() const {
  return 1e-3 * impl_->step_ms;
}
template <class T>
double DpdCuda<T>::last_cells_seconds() const {
  return impl_->cells_seconds;
}
template <class T>
std::string DpdCuda<T>::device_info() const {
  return std::string(cuda::device_properties().name) + "; cell list " + std::string(name_of(impl_->builder));
}

template class DpdCuda<float>;
template class DpdCuda<double>;

}  // namespace nbody::particles
