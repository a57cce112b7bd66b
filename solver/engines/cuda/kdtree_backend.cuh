#pragma once
// Implementation of cuda::TreeBackend<T> (cuda_kdtree.hpp): the launch shape through the CUDA back
// end's checks (backend.cuh's resolve, with a Launcher per tree spec), the device buffers (grown,
// never shrunk), the tree's build on the device (kernels/cuda/kdtree_build.cuh) or on the host,
// the walk (kernels/cuda/kdtree.cuh), and event timing. Included by kdtree_backend.cu, which instantiates it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cub/cub.cuh>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/device_buffer.cuh"
#include "cuda/kdtree.cuh"
#include "cuda/kdtree_build.cuh"
#include "cuda/stream.cuh"
#include "engines/cuda/backend.cuh"
#include "engines/cuda/cuda_kdtree.hpp"

namespace nbody::cuda {

// The walk kernel of a tree spec, and its launch shape's pieces for backend.cuh's resolve.
template <class Spec>
struct TreeLauncher {
  template <class T, bool Clamp>
  static auto kernel() {
    using Load = std::conditional_t<Spec::read_only, LdgLoad, kdtree::PlainLoad>;
    return &kdtree_walk_kernel<T, DeviceMath<Clamp>, Load, Spec::input_order, Spec::stackless>;
  }
  template <class T>
  static auto function(bool clamp) {
    return clamp ? kernel<T, true>() : kernel<T, false>();
  }
  template <class T>
  static void choose(Launch& l, std::size_t, const cudaDeviceProp&) {
    // The threads of a block walk neighbouring bodies and share their SM's L1 cache: the largest
    // block is the fastest (E15).
    if (l.block == 0) l.block = 1024;
  }
  template <class T>
  static Variant variant(const Launch&, bool clamp) {
    return {reinterpret_cast<const void*>(function<T>(clamp)), 0};
  }
  template <class T>
  static void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int) {
    check_grid<Spec>(l, blocks_for(n, l.block), p.maxGridSize[0], p);
  }
};
template <>
struct Launcher<TreeCycle> : TreeLauncher<TreeCycle> {};
template <>
struct Launcher<TreeNested> : TreeLauncher<TreeNested> {};
template <>
struct Launcher<TreeNestedLdg> : TreeLauncher<TreeNestedLdg> {};
template <>
struct Launcher<TreeStackless> : TreeLauncher<TreeStackless> {};

namespace tree_detail {

constexpr unsigned build_block = 256;  // threads per block of the build's kernels

// A tree's resolved walk kernel and its launch.
template <class T>
struct WalkOps {
  Launch (*resolve)(const Launch&, std::size_t, bool);
  const void* (*function)(bool clamp);
};
template <class T, class Spec>
constexpr WalkOps<T> walk_ops() {
  return {&detail::resolve<Spec, T>,
          [](bool clamp) { return reinterpret_cast<const void*>(Launcher<Spec>::template function<T>(clamp)); }};
}
template <class T, class... S>
constexpr auto all_walk_ops(KernelList<S...>*) {
  return std::array<WalkOps<T>, sizeof...(S)>{walk_ops<T, S>()...};
}

}  // namespace tree_detail

template <class T>
struct TreeBackend<T>::Impl {
  using Bits = kdtree_build::OrderedBits<T>;
  static constexpr auto walks = tree_detail::all_walk_ops<T>(static_cast<TreeKernels*>(nullptr));
  template <class U>
  using Buffer = DeviceBuffer<U>;

  enum Mark { start, built, walked };  // of an evaluation
  Stream<3> stream;
  // Input, output.
  Buffer<T> pos, mass, acc;
  Buffer<unsigned long long> terms, terms_sum;
  // The tree (kdtree::HeapView's arrays, body and position).
  Buffer<T> node, node_mass, bx, by, bz, bm;
  Buffer<unsigned> leaf_first, leaf_last, body, position;
  // The build's: the shape (node_first, node_end, leaf_at), keys (unsorted, sorted), sorted index
  // arrays (two sets of three), split sides and flags, radii, CUB's temporary storage.
  Buffer<unsigned> node_first, node_end, leaf_at, index, sorted, flags, before;
  Buffer<T> keys;
  Buffer<unsigned char> left, axis;
  Buffer<Bits> r2;
  Buffer<unsigned char> temp;
  std::size_t temp_bytes = 0, temp_n = 0;  // for temp_n bodies
  unsigned shape_n = 0, shape_m = 0;  // the shape uploaded (0: none)

  kdtree::HeapTree<T> host_tree;  // host_build=1
  Launch last{};
  struct Resolved {
    std::size_t kernel;
    Launch request;
    std::size_t n;
    bool clamp;
    Launch shape;
  };
  std::optional<Resolved> resolved;
  float build_ms = -1, walk_ms = -1;
  double host_build_seconds = 0, terms_per_body = -1;

  // Every buffer for n bodies in m leaves.
  void reserve(std::size_t n, std::size_t m) {
    bool moved = false;
    for (Buffer<T>* b : {&pos, &acc}) moved |= b->reserve(3 * n);
    for (Buffer<T>* b : {&mass, &bx, &by, &bz, &bm}) moved |= b->reserve(n);
    moved |= keys.reserve(2 * n);
    moved |= node.reserve(8 * m) | node_mass.reserve(2 * m);
    moved |= terms.reserve(n) | terms_sum.reserve(1);
    for (Buffer<unsigned>* b : {&leaf_first, &leaf_last}) moved |= b->reserve(m);
    for (Buffer<unsigned>* b : {&node_first, &node_end}) moved |= b->reserve(2 * m);
    for (Buffer<unsigned>* b : {&body, &position, &index, &leaf_at}) moved |= b->reserve(n);
    moved |= sorted.reserve(6 * n);
    for (Buffer<unsigned>* b : {&flags, &before}) moved |= b->reserve(3 * n);
    moved |= left.reserve(n) | axis.reserve(m) | r2.reserve(2 * m);
    if (moved) shape_n = shape_m = 0;
    if (n == temp_n) return;
    // CUB's temporary storage: the largest of the sorts, the scans and the sum of the terms.
    std::size_t sort = 0, scan = 0, sum = 0;
    const int count = static_cast<int>(n);
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, keys.p, keys.p, index.p, sorted.p, count));
    NBODY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan, flags.p, before.p, 3 * count));
    NBODY_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum, terms.p, terms_sum.p, count));
    temp_bytes = std::max({sort, scan, sum});
    temp.reserve(temp_bytes);
    temp_n = n;
  }

  // The heap's shape for n bodies in m leaves and the leaves' ranges, uploaded once per (n, m).
  void upload_shape(unsigned n, unsigned m) {
    if (shape_n == n && shape_m == m) return;
    const kdtree::HeapShape shape(n, m);
    std::vector<unsigned> at(n);
    for (unsigned i = m; i < 2 * m; ++i) std::fill(at.begin() + shape.first[i], at.begin() + shape.end[i], i);
    stream.to_device(node_first.p, shape.first.data(), 2 * std::size_t(m));
    stream.to_device(node_end.p, shape.end.data(), 2 * std::size_t(m));
    stream.to_device(leaf_at.p, at.data(), n);
    stream.to_device(leaf_first.p, shape.first.data() + m, m);
    stream.to_device(leaf_last.p, shape.end.data() + m, m);
    stream.synchronize();  // the host vectors go out of scope
    shape_n = n, shape_m = m;
  }

  kdtree::HeapView<T> view(unsigned m) const {
    return {node.p, node_mass.p, leaf_first.p, leaf_last.p, bx.p, by.p, bz.p, bm.p, m};
  }

  // Positions and masses to the device.
  void upload_bodies(const T* pos_h, const T* mass_h, std::size_t n) {
    stream.to_device(pos.p, pos_h, 3 * n);
    stream.to_device(mass.p, mass_h, n);
  }

  // The tree of the bodies on the device (kdtree_build.cuh), on `stream`.
  void build_on_device(unsigned n, unsigned m, const TreeOptions& o) {
    using namespace kdtree_build;
    upload_shape(n, m);
    const Shape shape{node_first.p, node_end.p, leaf_at.p, n, m};
    // Each axis's sorted array and its spare, swapped when a level partitions the array into it.
    unsigned* cur[3];
    unsigned* spare[3];
    for (unsigned k = 0; k < 3; ++k) cur[k] = sorted.p + k * std::size_t(n), spare[k] = sorted.p + (3 + k) * std::size_t(n);
    const unsigned b = tree_detail::build_block;
    const auto grid = [b](std::size_t count) { return blocks_for(count, b); };
    for (unsigned k = 0; k < 3; ++k) {
      sort_keys_kernel<<<grid(n), b, 0, stream>>>(pos.p + std::size_t(k) * n, n, keys.p, index.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree sort keys");
      std::size_t bytes = temp_bytes;
      NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.p, bytes, keys.p, keys.p + n, index.p, cur[k], static_cast<int>(n),
                                                       0, int(sizeof(T) * 8), stream));
    }
    std::vector<std::pair<unsigned, unsigned>> levels;  // internal nodes by depth: [first, end)
    for (unsigned first = 1; first < m; first *= 2) levels.emplace_back(first, std::min(2 * first, m));
    for (unsigned d = 0; d < levels.size(); ++d) {
      const auto [first, end] = levels[d];
      const Sorted sorted_now{{cur[0], cur[1], cur[2]}};
      split_axis_kernel<<<grid(end - first), b, 0, stream>>>(shape, first, end, o.longest_axis, pos.p, sorted_now, axis.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree split axes");
      split_side_kernel<<<grid(n), b, 0, stream>>>(shape, d, sorted_now, axis.p, left.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree split sides");
      Moving mv{};
      bool moves[3];
      for (unsigned k = 0; k < 3; ++k) {
        moves[k] = o.longest_axis || k != d % 3;  // by depth, the level's axis (split_axis_kernel's) stays
        if (moves[k]) mv.from[mv.count] = cur[k], mv.to[mv.count] = spare[k], ++mv.count;
      }
      const std::size_t q = mv.count * std::size_t(n);
      split_flags_kernel<<<grid(q), b, 0, stream>>>(shape, d, mv, left.p, flags.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree split flags");
      std::size_t bytes = temp_bytes;
      NBODY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.p, bytes, flags.p, before.p, static_cast<int>(q), stream));
      split_scatter_kernel<<<grid(q), b, 0, stream>>>(shape, d, mv, flags.p, before.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree split partition");
      for (unsigned k = 0; k < 3; ++k)
        if (moves[k]) std::swap(cur[k], spare[k]);
    }
    tree_order_kernel<<<grid(n), b, 0, stream>>>(cur[0], pos.p, mass.p, n, bx.p, by.p, bz.p, bm.p, body.p, position.p);
    NBODY_CUDA_CHECK_LAUNCH("kd-tree bodies in tree order");

    const bool open_all = o.lambda_crit == std::numeric_limits<double>::infinity();
    const NodeArrays<T> t{view(m), node.p, node_mass.p, T(o.lambda_crit), open_all};
    NBODY_CUDA_CHECK(cudaMemsetAsync(node.p, 0, 4 * sizeof(T), stream));  // node 0 is unused
    NBODY_CUDA_CHECK(cudaMemsetAsync(node_mass.p, 0, sizeof(T), stream));
    leaf_moments_kernel<<<grid(m), b, 0, stream>>>(t);
    NBODY_CUDA_CHECK_LAUNCH("kd-tree leaf moments");
    for (auto l = levels.rbegin(); l != levels.rend(); ++l) {
      internal_moments_kernel<<<grid(l->second - l->first), b, 0, stream>>>(t, l->first, l->second);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree node moments");
    }
    if (m > 1) {
      constexpr unsigned chunk = 32;
      NBODY_CUDA_CHECK(cudaMemsetAsync(r2.p, 0, 2 * std::size_t(m) * sizeof(Bits), stream));
      radius_kernel<<<grid(blocks_for(n, chunk)), b, 0, stream>>>(shape, t, chunk, r2.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree node radii");
      internal_crit2_kernel<<<grid(m - 1), b, 0, stream>>>(t, r2.p);
      NBODY_CUDA_CHECK_LAUNCH("kd-tree node crit2");
    }
  }

  // The host's tree to the device.
  void upload_tree(const kdtree::HeapTree<T>& h) {
    const std::size_t n = h.n, m = h.m;
    stream.to_device(node.p, h.node.data(), 8 * m);
    stream.to_device(node_mass.p, h.mass.data(), 2 * m);
    stream.to_device(leaf_first.p, h.leaf_first.data(), m);
    stream.to_device(leaf_last.p, h.leaf_last.data(), m);
    stream.to_device(bx.p, h.bx.data(), n);
    stream.to_device(by.p, h.by.data(), n);
    stream.to_device(bz.p, h.bz.data(), n);
    stream.to_device(bm.p, h.bm.data(), n);
    stream.to_device(body.p, h.body.data(), n);
    stream.to_device(position.p, h.position.data(), n);
  }
};

namespace tree_detail {

// n and m, after the checks of the input that the host build makes too.
template <class T>
std::pair<unsigned, unsigned> tree_size(const T* pos, std::size_t n, const TreeOptions& o) {
  check_body_count(n);
  for (std::size_t i = 0; i < 3 * n; ++i)
    if (!std::isfinite(pos[i])) throw RunError("a body's position is not finite: no tree can be built");
  const std::size_t k = std::max(1u, o.leaf_size);
  return {static_cast<unsigned>(n), static_cast<unsigned>((n + k - 1) / k)};
}

}  // namespace tree_detail

template <class T>
TreeBackend<T>::TreeBackend() : impl_(std::make_unique<Impl>()) {}
template <class T>
TreeBackend<T>::~TreeBackend() = default;

template <class T>
void TreeBackend<T>::compute(std::size_t kernel, const Launch& req, const T* pos, const T* mass, std::size_t count,
                             const ForceLaw<T>& law, T* acc) {
  Impl& s = *impl_;
  const tree_detail::WalkOps<T>& w = Impl::walks.at(kernel);
  const bool clamp = law.rmin2 > T(0);
  const auto& r = s.resolved;
  if (!r || r->kernel != kernel || !(r->request == req) || r->n != count || r->clamp != clamp)
    s.resolved = typename Impl::Resolved{kernel, req, count, clamp, w.resolve(req, count, clamp)};
  const Launch l = s.resolved->shape;
  s.last = l;
  s.build_ms = s.walk_ms = -1;
  s.terms_per_body = -1;
  if (count == 0) return;
  const bool on_host = l.host_build == 1;
  const auto [n, m] = tree_detail::tree_size(pos, count, law.tree);

  using clock = std::chrono::steady_clock;
  s.host_build_seconds = 0;
  if (on_host) {
    const auto t0 = clock::now();
    kdtree::build_heap_tree(pos, mass, count, law.tree, s.host_tree);
    s.host_build_seconds = std::chrono::duration<double>(clock::now() - t0).count();
  }
  s.reserve(n, m);
  s.upload_bodies(pos, mass, n);
  s.stream.mark(Impl::start);
  if (on_host)
    s.upload_tree(s.host_tree);
  else
    s.build_on_device(n, m, law.tree);
  s.stream.mark(Impl::built);

  const void* f = w.function(clamp);
  NBODY_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        l.l1 == 1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault)));
  kdtree::HeapView<T> view = s.view(m);
  const unsigned* body = s.body.p;
  const unsigned* position = s.position.p;
  const T* tpos = s.pos.p;
  T eps2 = law.eps2, rmin2 = law.rmin2, G = law.G;
  T* d_acc = s.acc.p;
  unsigned long long* terms = s.terms.p;
  unsigned nn = n;
  void* args[] = {&view, &body, &position, &tpos, &nn, &eps2, &rmin2, &G, &d_acc, &terms};
  NBODY_CUDA_CHECK(cudaLaunchKernel(f, dim3(blocks_for(n, l.block)), dim3(l.block), args, 0, s.stream));
  s.stream.mark(Impl::walked);
  std::size_t bytes = s.temp_bytes;
  NBODY_CUDA_CHECK(cub::DeviceReduce::Sum(s.temp.p, bytes, s.terms.p, s.terms_sum.p, static_cast<int>(n), s.stream));
  s.stream.to_host(acc, s.acc.p, 3 * std::size_t(n));
  unsigned long long total = 0;
  s.stream.to_host(&total, s.terms_sum.p, 1);
  s.stream.synchronize();
  s.build_ms = s.stream.milliseconds(Impl::start, Impl::built);
  s.walk_ms = s.stream.milliseconds(Impl::built, Impl::walked);
  s.terms_per_body = double(total) / double(n);
}

template <class T>
kdtree::HeapTree<T> TreeBackend<T>::build(const T* pos, const T* mass, std::size_t count, const TreeOptions& o) {
  Impl& s = *impl_;
  kdtree::HeapTree<T> t;
  if (count == 0) return t;
  const auto [n, m] = tree_detail::tree_size(pos, count, o);
  s.reserve(n, m);
  s.upload_bodies(pos, mass, n);
  s.build_on_device(n, m, o);
  t.n = n, t.m = m;
  s.stream.to_host(t.node, s.node.p, 8 * std::size_t(m));
  s.stream.to_host(t.mass, s.node_mass.p, 2 * std::size_t(m));
  s.stream.to_host(t.leaf_first, s.leaf_first.p, m);
  s.stream.to_host(t.leaf_last, s.leaf_last.p, m);
  s.stream.to_host(t.bx, s.bx.p, n);
  s.stream.to_host(t.by, s.by.p, n);
  s.stream.to_host(t.bz, s.bz.p, n);
  s.stream.to_host(t.bm, s.bm.p, n);
  s.stream.to_host(t.body, s.body.p, n);
  s.stream.to_host(t.position, s.position.p, n);
  s.stream.synchronize();
  return t;
}

template <class T>
TreeProfile TreeBackend<T>::last_profile() const {
  const Impl& s = *impl_;
  if (s.walk_ms < 0) return {};
  return TreeProfile::timed(s.host_build_seconds + s.build_ms * 1e-3, s.walk_ms * 1e-3, s.terms_per_body);
}
template <class T>
double TreeBackend<T>::last_device_seconds() const {
  const Impl& s = *impl_;
  return s.walk_ms < 0 ? -1.0 : (s.build_ms + s.walk_ms) * 1e-3;
}
template <class T>
Launch TreeBackend<T>::last_launch() const {
  return impl_->last;
}

}  // namespace nbody::cuda
