// The SPH driver on the GPU (sph_cuda.hpp), for float and double. Built with --fmad=false (cmake/gpu.cmake)
// so that its arithmetic is the host's, operation for operation.
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "cuda/check.cuh"
#include "cuda/cuda_device.hpp"
#include "cuda/device_buffer.cuh"
#include "cuda/grid_size.hpp"
#include "cuda/sph.cuh"
#include "cuda/stream.cuh"
#include "particles/sph/sph_cuda.hpp"

namespace nbody::particles {

namespace {
using cuda::blocks_for;
double from_bits(unsigned long long bits) {
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
}  // namespace

template <class T>
struct SphCuda<T>::Impl {
  template <class U>
  using Buffer = cuda::DeviceBuffer<U>;

  SphParameters p;
  SphState<T>& s;
  CellBuilder builder;
  DeviceCellList<T> cells;
  enum Mark { started, finished };  // around a step
  cuda::Stream<2> stream;
  Buffer<T> pos, vel, rho, mass, acc, drho, pos0, vel0, rho0, to_face;
  Buffer<T> list_pos;  // the positions the lists were made for, in their cell order
  Buffer<sph_kernels::Quad<T>> sorted_position, sorted_velocity, sorted_rest;
  Buffer<unsigned char> boundary;
  Buffer<T> made_at;                  // the positions the neighbour lists were made for
  Buffer<unsigned> count, most;        // the lists' lengths (sph_kernels::ListView) and the longest
  Buffer<uint4> list;
  Buffer<unsigned long long> moved;
  bool lists = false;                  // made yet?
  std::uint64_t lists_made = 0;
  Buffer<sph_kernels::Maxima> maxima;
  sph_kernels::Maxima host_maxima{};
  float step_ms = 0;
  double cells_seconds = 0;

  Impl(const SphParameters& params, SphState<T>& state, CellBuilder b) : p(params), s(state), builder(b) {
    check_sph(p, s);
    const std::size_t n = s.n;
    for (Buffer<T>* v : {&pos, &vel, &acc, &pos0, &vel0, &made_at, &list_pos}) v->reserve(3 * n);
    for (Buffer<T>* v : {&rho, &mass, &drho, &rho0}) v->reserve(n);
    for (auto* v : {&sorted_position, &sorted_velocity, &sorted_rest}) v->reserve(n);
    boundary.reserve(n), count.reserve(n), most.reserve(1), moved.reserve(1), maxima.reserve(1);
    stream.to_device(pos.p, s.pos.data(), 3 * n), stream.to_device(vel.p, s.vel.data(), 3 * n);
    stream.to_device(rho.p, s.rho.data(), n), stream.to_device(mass.p, s.mass.data(), n);
    stream.to_device(boundary.p, s.boundary.data(), n);
    if (!s.to_face.empty() && p.nu > 0) {
      to_face.reserve(3 * n);
      stream.to_device(to_face.p, s.to_face.data(), 3 * n);
    }
    if (!s.lists_at.empty()) {  // a continued run: its lists as they were
      stream.to_device(made_at.p, s.lists_at.data(), 3 * n);
      make_lists();
    }
    stream.synchronize();
  }

  sph_kernels::Sorted<T> sorted() {
    return {sorted_position.p, sorted_velocity.p, sorted_rest.p};
  }

  // Whether some particle has moved more than skin h since the lists were made (SphNeighbours::stale).
  bool stale() {
    if (!lists) return true;
    const auto n = static_cast<unsigned>(s.n);
    NBODY_CUDA_CHECK(cudaMemsetAsync(moved.p, 0, sizeof(unsigned long long), stream));
    if (n) {
      sph_kernels::moved_kernel<<<blocks_for(n, sph_kernels::block), sph_kernels::block, 0, stream>>>(s.box, n, pos.p,
                                                                                                      made_at.p, moved.p);
      NBODY_CUDA_CHECK_LAUNCH("sph moved_kernel");
    }
    unsigned long long bits = 0;
    stream.to_host(&bits, moved.p, 1);
    stream.synchronize();
    const T limit = T(p.skin * p.h);
    return from_bits(bits) > double(limit * limit);
  }

  // The cell list of the reach for the positions made_at (the builder's own stream: ours is idle
  // first), the particles in its order, and their neighbour lists.
  void make_lists() {
    const auto n = static_cast<unsigned>(s.n);
    const T reach = T(p.reach());
    stream.synchronize();
    cells.build_on_device(builder, made_at.p, n, s.box, reach);
    cells_seconds += cells.last_build_seconds();
    // The candidates from the positions made_at, in cell order.
    cells.gather(made_at.p, list_pos.p, 3);
    const sph_kernels::ListView<T> view{s.box, CellGrid<T>::make(s.box, reach), reach * reach, n, cells.device_start(),
                                        list_pos.p};
    // Into the list as wide as the last lists needed (or none, the first time): once more, wider,
    // when some particle has more candidates than it holds.
    for (std::size_t words = lists ? list.capacity / std::max(n, 1u) : 0; n;) {
      NBODY_CUDA_CHECK(cudaMemsetAsync(most.p, 0, sizeof(unsigned), stream));
      sph_kernels::list_kernel<<<blocks_for(n, sph_kernels::block), sph_kernels::block, 0, stream>>>(view, words, list.p,
                                                                                                    count.p, most.p);
      NBODY_CUDA_CHECK_LAUNCH("sph list_kernel");
      unsigned rows = 0;
      stream.to_host(&rows, most.p, 1);
      stream.synchronize();
      if ((rows + 3) / 4 <= words) break;
      words = (rows + 3) / 4;
      list.reserve(words * n);
      words = list.capacity / n;
    }
    lists = true;
    ++lists_made;
  }

  // The particles' data in the lists' cell order, with their pressures, sound speeds and 1 / rho.
  void sort(unsigned n) {
    if (!n) return;
    const sph::Tait<T> eos{T(p.rho0), T(p.c0)};
    sph_kernels::sort_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, cells.device_order(), pos.p, vel.p, rho.p, mass.p,
                                                                     boundary.p, eos, sorted());
    NBODY_CUDA_CHECK_LAUNCH("sph sort_kernel");
  }

  // The rates at the current positions with `kernel` (see rates()).
  template <class Kernel>
  void rates_with(const Kernel& kernel) {
    const auto n = static_cast<unsigned>(s.n);
    const T support = T(p.support());
    const sph::Tait<T> eos{T(p.rho0), T(p.c0)};
    const T hydrostatic = T(-p.rho0 * p.gravity[1] / double(eos.b()));  // as sph_rates_with
    sph_kernels::RatesView<T, Kernel> view{
        s.box,
        support * support,
        T(2) * T(p.reach()),
        n,
        cells.device_order(),
        count.p,
        list.p,
        sorted(),
        to_face.p,
        {kernel, eos, T(p.alpha), T(p.delta), T(p.nu), p.diffusion, hydrostatic},
        {T(p.gravity[0]), T(p.gravity[1]), T(p.gravity[2])},
        {p.rho0, p.c0}};
    sph_kernels::rates_kernel<<<blocks_for(n, sph_kernels::block), sph_kernels::block, 0, stream>>>(view, acc.p, drho.p,
                                                                                                   maxima.p);
    NBODY_CUDA_CHECK_LAUNCH("sph rates_kernel");
  }

  // The neighbour lists made anew if stale (else the particles sorted in their order), then acc,
  // drho and the time step's maxima.
  void rates() {
    const auto n = static_cast<unsigned>(s.n);
    if (stale()) {
      if (n) NBODY_CUDA_CHECK(cudaMemcpyAsync(made_at.p, pos.p, 3 * std::size_t(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
      make_lists();
    }
    sort(n);
    NBODY_CUDA_CHECK(cudaMemsetAsync(maxima.p, 0, sizeof(sph_kernels::Maxima), stream));
    if (n) {
      const T h = T(p.h);
      if (p.kernel == sph::KernelKind::cubic_spline) {
        if (p.dimension == 2) rates_with(sph::CubicSpline<2, T>(h));
        else rates_with(sph::CubicSpline<3, T>(h));
      } else {
        if (p.dimension == 2) rates_with(sph::WendlandC2<2, T>(h));
        else rates_with(sph::WendlandC2<3, T>(h));
      }
    }
    stream.to_host(&host_maxima, maxima.p, 1);
  }

  void step(T dt) {
    const auto n = static_cast<unsigned>(s.n);
    const T rho_ref = T(p.rho0);
    cells_seconds = 0;
    stream.mark(started);
    if (n) {
      sph_kernels::predictor_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(s.box, n, dt, rho_ref, boundary.p, pos.p, vel.p,
                                                                            rho.p, acc.p, drho.p, pos0.p, vel0.p, rho0.p);
      NBODY_CUDA_CHECK_LAUNCH("sph predictor_kernel");
    }
    rates();
    if (n) {
      sph_kernels::corrector_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(s.box, n, dt, rho_ref, boundary.p, pos.p, vel.p,
                                                                            rho.p, acc.p, drho.p, pos0.p, vel0.p, rho0.p);
      NBODY_CUDA_CHECK_LAUNCH("sph corrector_kernel");
    }
    rates();
    stream.mark(finished);
    stream.wait(finished);
    step_ms = stream.milliseconds(started, finished);
    s.time += double(dt);
    ++s.steps;
  }

  void sync() {
    const std::size_t n = s.n;
    stream.to_host(s.pos.data(), pos.p, 3 * n), stream.to_host(s.vel.data(), vel.p, 3 * n);
    stream.to_host(s.rho.data(), rho.p, n), stream.to_host(s.lists_at, made_at.p, 3 * n);
    stream.synchronize();
  }
};

template <class T>
SphCuda<T>::SphCuda(const SphParameters& p, SphState<T>& s, CellBuilder builder)
    : impl_(std::make_unique<Impl>(p, s, builder)) {
  impl_->rates();
  impl_->stream.synchronize();
}
template <class T>
SphCuda<T>::~SphCuda() = default;
template <class T>
double SphCuda<T>::time_step() const {
  const auto& m = impl_->host_maxima;
  return sph_time_step(impl_->p, from_bits(m.a2), from_bits(m.c2), from_bits(m.visc));
}
template <class T>
void SphCuda<T>::step(T dt) {
  impl_->step(dt);
}
template <class T>
void SphCuda<T>::sync() {
  impl_->sync();
}
template <class T>
SphDiagnostics SphCuda<T>::diagnostics(const SphWalls& walls, double front_band) {
  impl_->sync();
  return sph_diagnostics(impl_->p, impl_->s, walls, front_band);
}
template <class T>
SphRates<T> SphCuda<T>::rates() {
  const std::size_t n = impl_->s.n;
  SphRates<T> r;
  impl_->stream.to_host(r.acc, impl_->acc.p, 3 * n), impl_->stream.to_host(r.drho, impl_->drho.p, n);
  impl_->stream.synchronize();
  r.visc_max = T(from_bits(impl_->host_maxima.visc));
  return r;
}
template <class T>
std::uint64_t SphCuda<T>::lists_made() const {
  return impl_->lists_made;
}
template <class T>
double SphCuda<T>::last_step_seconds() const {
  return 1e-3 * impl_->step_ms;
}
template <class T>
double SphCuda<T>::last_cells_seconds() const {
  return impl_->cells_seconds;
}
template <class T>
std::string SphCuda<T>::device_info() const {
  return std::string(cuda::device_properties().name) + "; cell list " + std::string(name_of(impl_->builder));
}

template class SphCuda<float>;
template class SphCuda<double>;

}  // namespace nbody::particles
