#pragma once
// Implementation of cuda::OctreeBackend<T> (cuda_octree.hpp): the launch shape through the CUDA back
// end's checks (backend.cuh's resolve), the device buffers (grown, never shrunk), S4's pipeline
// (kernels/cuda/octree.cuh) with CUB's reductions, sort and scans, and event timing of its parts.
// Included by octree_backend.cu, which instantiates it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cub/cub.cuh>
#include <limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/device_buffer.cuh"
#include "cuda/octree.cuh"
#include "cuda/stream.cuh"
#include "engines/cuda/backend.cuh"
#include "engines/cuda/cuda_octree.hpp"

namespace nbody::cuda {

template <class Spec>
struct OctreeLauncher {
  static constexpr bool grouped = std::is_same_v<Spec, OctreeGroups>;
  // The walk summing Sum: the acceleration (AccelerationSum, the device's arithmetic) or the potential.
  template <class T, class Sum>
  static auto kernel() {
    if constexpr (grouped)
      return &octree_kernels::group_walk_kernel<T, Sum>;
    else
      return &octree_kernels::walk_kernel<T, Sum>;
  }
  template <class T>
  static auto function(bool clamp) {
    return clamp ? kernel<T, AccelerationSum<T, DeviceMath<true>>>() : kernel<T, AccelerationSum<T, DeviceMath<false>>>();
  }
  template <class T>
  static void choose(Launch& l, std::size_t, const cudaDeviceProp&) {
    if (l.block == 0) l.block = 256;
  }
  template <class T>
  static std::size_t shared_bytes(const Launch& l) {
    return grouped ? octree_kernels::shared_bytes<T>(l.block) : 0;
  }
  template <class T>
  static Variant variant(const Launch& l, bool clamp) {
    return {reinterpret_cast<const void*>(function<T>(clamp)), shared_bytes<T>(l)};
  }
  // The same walk summing the potential (for the shape resolved for the force).
  template <class T>
  static Variant potential_variant(const Launch& l) {
    return {reinterpret_cast<const void*>(kernel<T, PotentialSum<T>>()), shared_bytes<T>(l)};
  }
  template <class T>
  static void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int) {
    check_grid<Spec>(l, blocks_for(n, l.block), p.maxGridSize[0], p);
  }
};
template <>
struct Launcher<OctreeS4> : OctreeLauncher<OctreeS4> {};
template <>
struct Launcher<OctreeGroups> : OctreeLauncher<OctreeGroups> {};

namespace octree_detail {
// A walk kernel of the list and its launch shape's resolution (backend.cuh's checks).
template <class T>
struct WalkOps {
  Launch (*resolve)(const Launch&, std::size_t, bool);
  Variant (*variant)(const Launch&, bool clamp);  // the function and its dynamic shared memory
  Variant (*potential)(const Launch&);            // its potential's
  bool grouped;
  std::string_view name;
};
template <class T, class... S>
constexpr auto all_walks(KernelList<S...>*) {
  return std::array<WalkOps<T>, sizeof...(S)>{WalkOps<T>{&detail::resolve<S, T>, &Launcher<S>::template variant<T>,
                                                         &Launcher<S>::template potential_variant<T>,
                                                         Launcher<S>::grouped, S::name}...};
}
}  // namespace octree_detail

namespace octree_detail {
constexpr unsigned block = 256;  // threads per block of the build's and the steps' kernels
}  // namespace octree_detail

template <class T>
struct OctreeBackend<T>::Impl {
  template <class U>
  using Buffer = DeviceBuffer<U>;

  enum Mark { start, built, summarised, walked };  // of an evaluation
  Stream<4> stream;
  Buffer<T> pos, mass, acc, vel;  // vel: device-resident steps only
  Buffer<T> phi;                  // body_potentials()
  Buffer<octree_kernels::Box<T>> box;
  Buffer<octree::Cube<T>> cube;
  Buffer<octree_kernels::BuildResult> built_tree;
  Buffer<unsigned long long> keys, terms, cell_terms, terms_sum;  // keys: unsorted then sorted; terms_sum: 2
  Buffer<unsigned> index, body, starts, block_count, shape, stacks, counters, group_count, group_end, groups;
  Buffer<T> bx, by, bz, bm;
  Buffer<T> node, node_mass, quad;
  Buffer<unsigned> child, nchild, first, end, level;
  Buffer<unsigned char> temp;
  std::size_t nodes = 0, node_capacity = 0;
  unsigned build_grid = 0, moments_grid = 0;  // the cooperative launches: every block resident
  std::vector<std::pair<unsigned, unsigned>> levels;  // [first, end) per level

  Launch last{};
  static constexpr auto walks = octree_detail::all_walks<T>(static_cast<OctreeKernels*>(nullptr));
  struct Resolved {
    std::size_t kernel;
    Launch request;
    std::size_t n;
    bool clamp;
    Launch shape;
    unsigned grid;  // the grouped walk's persistent grid: every block resident at once
  };
  std::optional<Resolved> resolved;
  float build_ms = -1, moments_ms = -1, walk_ms = -1;
  bool stepped = false;  // device-resident steps taken
  double terms_per_body = -1, cell_terms_per_body = -1, root_mass = 0;
  TreeShape tree_shape;

  Impl() {
    const cudaDeviceProp& p = device_properties();  // InputError without a device
    if (!p.cooperativeLaunch)
      throw InputError(std::string("the CUDA octree engines build their trees in cooperative launches, which ") + p.name +
                       " does not support: use the octree engine (CPU)");
    int per_sm = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, octree_kernels::build_kernel<T>,
                                                                   octree_kernels::build_block, 0));
    build_grid = static_cast<unsigned>(per_sm * p.multiProcessorCount);
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, octree_kernels::moments_kernel<T>,
                                                                   octree_kernels::build_block, 0));
    moments_grid = static_cast<unsigned>(per_sm * p.multiProcessorCount);
  }

  octree::Arrays<T> arrays(bool quadrupole) {
    return {node.p, node_mass.p, quadrupole ? quad.p : nullptr, child.p, nchild.p, first.p, end.p, level.p,
            keys.p + capacity_n(), bx.p, by.p, bz.p, bm.p};
  }
  std::size_t capacity_n() const { return index.capacity; }  // sorted keys live after the unsorted ones

  unsigned prepare(std::size_t kernel, const Launch& requested, std::size_t n, const ForceLaw<T>& law);
  void begin_evaluation();
  void evaluate(unsigned n, unsigned leaf_size, const ForceLaw<T>& law);
  void walk(const Variant& v, unsigned n, const ForceLaw<T>& law, T* out);
  void copy_overflow(unsigned& flag);
  static void check_stacks(unsigned flag);

  // The per-body buffers and CUB's temporary storage for n bodies.
  void reserve_bodies(std::size_t n) {
    if (n <= index.capacity) return;
    for (Buffer<T>* b : {&pos, &acc}) b->reserve(3 * n, 0, stream);
    for (Buffer<T>* b : {&mass, &bx, &by, &bz, &bm}) b->reserve(n, 0, stream);
    body.reserve(n, 0, stream);
    terms.reserve(n, 0, stream), cell_terms.reserve(n, 0, stream);
    index.reserve(n, 0, stream);
    keys.reserve(2 * index.capacity, 0, stream);
    starts.reserve(9 * index.capacity, 0, stream);  // a level holds at most n nodes
    box.reserve(1, 0, stream), cube.reserve(1, 0, stream), built_tree.reserve(1, 0, stream);
    block_count.reserve(build_grid, 0, stream), terms_sum.reserve(2, 0, stream), shape.reserve(3, 0, stream);
    const int c = static_cast<int>(index.capacity);
    std::size_t sort = 0, sum = 0, bounds = 0;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, keys.p, keys.p, index.p, body.p, c, 0, 63));
    NBODY_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum, terms.p, terms_sum.p, c));
    NBODY_CUDA_CHECK(reduce_box(nullptr, bounds, c));
    temp.reserve(std::max({sort, sum, bounds}), 0, stream);
  }

  // The bodies' bounding box into box[0] (CUB's reduction; bytes: its temporary storage).
  cudaError_t reduce_box(void* storage, std::size_t& bytes, int n) {
    const auto boxes = thrust::make_transform_iterator(thrust::counting_iterator<unsigned>(0),
                                                       octree_kernels::BoxOf<T>{pos.p, static_cast<unsigned>(n)});
    const T big = std::numeric_limits<T>::infinity();
    const octree_kernels::Box<T> empty{{big, big, big}, {-big, -big, -big}};
    return cub::DeviceReduce::Reduce(storage, bytes, boxes, box.p, n, octree_kernels::MergeBoxes{}, empty, stream);
  }

  // Room for `count` nodes, the first `keep` kept.
  void reserve_nodes(std::size_t count, std::size_t keep) {
    for (Buffer<unsigned>* b : {&child, &nchild, &first, &end, &level}) b->reserve(count, keep, stream);
  }

  void build(unsigned n, unsigned k) {
    namespace K = octree_kernels;
    constexpr unsigned b = octree_detail::block;
    const auto grid = [](std::size_t count) { return blocks_for(count, b); };
    std::size_t bytes = temp.capacity;
    NBODY_CUDA_CHECK(reduce_box(temp.p, bytes, int(n)));
    K::cube_kernel<<<1, 32, 0, stream>>>(box.p, cube.p);
    NBODY_CUDA_CHECK_LAUNCH("octree bounding cube");
    unsigned long long* sorted = keys.p + capacity_n();
    K::keys_kernel<<<grid(n), b, 0, stream>>>(pos.p, n, cube.p, keys.p, index.p);
    NBODY_CUDA_CHECK_LAUNCH("octree keys");
    bytes = temp.capacity;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.p, bytes, keys.p, sorted, index.p, body.p, int(n), 0, 63, stream));
    K::gather_kernel<<<grid(n), b, 0, stream>>>(body.p, pos.p, mass.p, n, bx.p, by.p, bz.p, bm.p);
    NBODY_CUDA_CHECK_LAUNCH("octree bodies in key order");

    // The nodes: room for the usual tree, grown and built again when a deep one needs more.
    node_capacity = std::max<std::size_t>(node_capacity, 2 * std::size_t(n) / std::max(k, 1u) + 64);
    K::BuildResult result{};
    for (;;) {
      reserve_nodes(node_capacity, 0);
      auto a = arrays(false);
      unsigned cap = static_cast<unsigned>(std::min<std::size_t>(node_capacity, ~0u));
      unsigned *d_at = starts.p, *d_block_count = block_count.p;
      K::BuildResult* d_result = built_tree.p;
      void* args[] = {&a, &n, &k, &cap, &d_at, &d_block_count, &d_result};
      NBODY_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&K::build_kernel<T>), dim3(build_grid),
                                                   dim3(K::build_block), args, 0, stream));
      NBODY_CUDA_CHECK_LAUNCH("octree build");
      stream.to_host(&result, built_tree.p, 1);
      stream.synchronize();
      if (result.needed == 0) break;
      node_capacity = std::max<std::size_t>(result.needed, 2 * node_capacity);
    }
    levels.clear();
    for (unsigned l = 0; l < result.levels; ++l) levels.emplace_back(result.bound[l], result.bound[l + 1]);
    nodes = result.bound[result.levels];
  }

  void summarise(const TreeOptions& o) {
    const std::size_t m = nodes;
    node.reserve(4 * m, 0, stream), node_mass.reserve(m, 0, stream);
    if (o.quadrupole) quad.reserve(6 * m, 0, stream);
    auto a = arrays(o.quadrupole);
    const octree_kernels::BuildResult* d_result = built_tree.p;
    const octree::Cube<T>* d_cube = cube.p;
    T theta = T(o.theta);
    void* args[] = {&a, &d_result, &d_cube, &theta};
    NBODY_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&octree_kernels::moments_kernel<T>),
                                                 dim3(moments_grid), dim3(octree_kernels::build_block), args, 0, stream));
    NBODY_CUDA_CHECK_LAUNCH("octree moments");
  }

  // out[i] = in[0] + ... + in[i] (CUB, on the stream) for i < count; returns out[count - 1].
  unsigned inclusive_sum(const unsigned* in, unsigned* out, unsigned count) {
    std::size_t bytes = 0;
    NBODY_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, int(count), stream));
    if (bytes > temp.capacity) temp.reserve(bytes, 0, stream);
    bytes = temp.capacity;
    NBODY_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.p, bytes, in, out, int(count), stream));
    unsigned total = 0;
    stream.to_host(&total, out + count - 1, 1);
    stream.synchronize();
    return total;
  }

  // The grouped walk's groups (kernels/cuda/octree.cuh, group_count_kernel), on the stream; their number.
  unsigned make_groups() {
    const unsigned m = static_cast<unsigned>(nodes);
    group_count.reserve(m, 0, stream), group_end.reserve(m, 0, stream), counters.reserve(2, 0, stream);
    const auto a = arrays(false);
    constexpr unsigned b = octree_detail::block;
    octree_kernels::group_count_kernel<<<blocks_for(m, b), b, 0, stream>>>(a, m, group_count.p);
    NBODY_CUDA_CHECK_LAUNCH("octree groups");
    const unsigned total = inclusive_sum(group_count.p, group_end.p, m);
    groups.reserve(2 * std::size_t(total), 0, stream);
    octree_kernels::group_write_kernel<<<blocks_for(m, b), b, 0, stream>>>(a, m, group_count.p, group_end.p, groups.p);
    NBODY_CUDA_CHECK_LAUNCH("octree group ranges");
    return total;
  }

  // The bodies (host, input order) to pos and mass, their positions checked first.
  void upload_bodies(const T* pos_h, const T* mass_h, std::size_t n) {
    for (std::size_t i = 0; i < 3 * n; ++i)
      if (!std::isfinite(pos_h[i])) throw RunError("a body's position is not finite: no tree can be built");
    stream.to_device(pos.p, pos_h, 3 * n);
    stream.to_device(mass.p, mass_h, n);
  }

  // The resolved kernel's walk summing the potential, set up for its shared memory, or InputError
  // when a block of the shape does not fit (the force's checks were resolve's).
  Variant potential_walk() {
    const octree_detail::WalkOps<T>& w = walks.at(resolved->kernel);
    const Launch& l = resolved->shape;
    const Variant v = w.potential(l);
    if (v.shared_bytes > 48 * 1024)
      NBODY_CUDA_CHECK(cudaFuncSetAttribute(v.function, cudaFuncAttributeMaxDynamicSharedMemorySize, int(v.shared_bytes)));
    int per_sm = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.function, l.block, v.shared_bytes));
    if (per_sm == 0)
      invalid_launch(w.name, l, std::string("no block of this shape of the potential's walk fits on a multiprocessor (device: ") +
                                    device_properties().name + ")");
    return v;
  }

  octree::View<T> view(bool quadrupole) const {
    return {node.p, node_mass.p, quadrupole ? quad.p : nullptr, child.p, nchild.p, first.p, end.p, bx.p, by.p, bz.p, bm.p};
  }
};

template <class T>
OctreeBackend<T>::OctreeBackend() : impl_(std::make_unique<Impl>()) {}
template <class T>
OctreeBackend<T>::~OctreeBackend() = default;

// The launch shape of `kernel` for n bodies (resolved again only when something changed) and the
// leaf size; the device buffers for n bodies. Nothing that the profile reports changes.
template <class T>
unsigned OctreeBackend<T>::Impl::prepare(std::size_t kernel, const Launch& req, std::size_t count, const ForceLaw<T>& law) {
  const octree_detail::WalkOps<T>& w = walks.at(kernel);
  const bool clamp = law.rmin2 > T(0);
  if (!resolved || resolved->kernel != kernel || !(resolved->request == req) || resolved->n != count || resolved->clamp != clamp) {
    const Launch shape = w.resolve(req, count, clamp);
    const Variant v = w.variant(shape, clamp);
    int per_sm = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.function, shape.block, v.shared_bytes));
    resolved = Resolved{kernel, req, count, clamp, shape, static_cast<unsigned>(per_sm * device_properties().multiProcessorCount)};
  }
  check_body_count(count);
  if (count > 0) reserve_bodies(count);
  return law.tree.leaf_size ? law.tree.leaf_size : w.grouped ? OctreeGroups::leaf_size : OctreeS4::leaf_size;
}

// An evaluation (after prepare) forgets the last one's profile and runs with the shape resolved.
template <class T>
void OctreeBackend<T>::Impl::begin_evaluation() {
  last = resolved->shape;
  build_ms = moments_ms = walk_ms = -1;
  terms_per_body = cell_terms_per_body = -1;
}

// The resolved kernel's walk of the tree built, with the function v (its force or its
// potential), into out (device, input order), each body's terms into terms and cell_terms.
template <class T>
void OctreeBackend<T>::Impl::walk(const Variant& v, unsigned n, const ForceLaw<T>& law, T* out) {
  const Launch l = resolved->shape;
  octree::View<T> tree = view(law.tree.quadrupole);
  const unsigned* order = body.p;
  T eps2 = law.eps2, rmin2 = law.rmin2, G = law.G;
  unsigned long long *d_terms = terms.p, *d_cells = cell_terms.p;
  if (walks.at(resolved->kernel).grouped) {
    unsigned group_total = make_groups();
    const unsigned grid = resolved->grid;
    stacks.reserve(std::size_t(grid) * (l.block / 32) * octree_kernels::stack_size, 0, stream);
    NBODY_CUDA_CHECK(cudaMemsetAsync(counters.p, 0, 2 * sizeof(unsigned), stream));
    unsigned* d_stacks = stacks.p;
    const unsigned* d_groups = groups.p;
    unsigned* d_counters = counters.p;
    void* args[] = {&tree, &order, &n, &eps2, &rmin2, &G, &out, &d_terms, &d_cells, &d_stacks, &d_groups, &group_total, &d_counters};
    NBODY_CUDA_CHECK(cudaLaunchKernel(v.function, dim3(grid), dim3(l.block), args, v.shared_bytes, stream));
  } else {
    void* args[] = {&tree, &order, &n, &eps2, &rmin2, &G, &out, &d_terms, &d_cells};
    NBODY_CUDA_CHECK(cudaLaunchKernel(v.function, dim3(blocks_for(n, l.block)), dim3(l.block), args, 0, stream));
  }
}

// The grouped walk's flag of a stack overflow, to `flag` on the stream (0 for the other walk);
// check_stacks(flag) once the stream has finished.
template <class T>
void OctreeBackend<T>::Impl::copy_overflow(unsigned& flag) {
  flag = 0;
  if (walks.at(resolved->kernel).grouped)
    stream.to_host(&flag, counters.p + 1, 1);
}
template <class T>
void OctreeBackend<T>::Impl::check_stacks(unsigned flag) {
  if (flag) throw RunError("the grouped octree walk outgrew its stack (a tree deeper than 21 levels?)");
}

// One evaluation of the bodies in pos and mass (device, input order) into acc (device, input
// order): build, moments, walk, and the profile of the three.
template <class T>
void OctreeBackend<T>::Impl::evaluate(unsigned n, unsigned k, const ForceLaw<T>& law) {
  const octree_detail::WalkOps<T>& w = walks.at(resolved->kernel);
  stream.mark(start);
  build(n, k);
  stream.mark(built);
  summarise(law.tree);
  stream.mark(summarised);

  walk(w.variant(resolved->shape, resolved->clamp), n, law, acc.p);
  stream.mark(walked);

  std::size_t bytes = temp.capacity;
  NBODY_CUDA_CHECK(cub::DeviceReduce::Sum(temp.p, bytes, terms.p, terms_sum.p, int(n), stream));
  NBODY_CUDA_CHECK(cub::DeviceReduce::Sum(temp.p, bytes, cell_terms.p, terms_sum.p + 1, int(n), stream));
  NBODY_CUDA_CHECK(cudaMemsetAsync(shape.p, 0, 3 * sizeof(unsigned), stream));
  constexpr unsigned b = octree_detail::block;
  octree_kernels::shape_kernel<<<std::min(blocks_for(nodes, b), build_grid), b, 0, stream>>>(
      arrays(false), static_cast<unsigned>(nodes), shape.p);
  NBODY_CUDA_CHECK_LAUNCH("octree shape");
  unsigned long long total[2] = {0, 0};  // all terms, nodes taken whole
  unsigned tree_counts[3] = {0, 0, 0};
  T root{0};
  stream.to_host(total, terms_sum.p, 2);
  stream.to_host(tree_counts, shape.p, 3);
  stream.to_host(&root, node_mass.p, 1);
  unsigned overflowed = 0;
  copy_overflow(overflowed);
  stream.synchronize();
  check_stacks(overflowed);
  build_ms = stream.milliseconds(start, built);
  moments_ms = stream.milliseconds(built, summarised);
  walk_ms = stream.milliseconds(summarised, walked);
  terms_per_body = double(total[0]) / double(n);
  cell_terms_per_body = double(total[1]) / double(n);
  root_mass = double(root);
  tree_shape = {static_cast<unsigned>(nodes), tree_counts[0], static_cast<unsigned>(levels.size() - 1), tree_counts[1],
                tree_counts[2]};
}

template <class T>
void OctreeBackend<T>::compute(std::size_t kernel, const Launch& req, const T* pos, const T* mass, std::size_t count,
                               const ForceLaw<T>& law, T* acc) {
  Impl& s = *impl_;
  const unsigned k = s.prepare(kernel, req, count, law);
  s.begin_evaluation();
  if (count == 0) return;
  s.upload_bodies(pos, mass, count);
  s.evaluate(static_cast<unsigned>(count), k, law);
  s.stream.to_host(acc, s.acc.p, 3 * count);
  s.stream.synchronize();
}

// The tree built as compute() builds it, walked by the kernel's walk summing the potential; no
// event, profile or launch shape of the evaluations changes (prepare).
template <class T>
void OctreeBackend<T>::body_potentials(std::size_t kernel, const Launch& req, const T* pos, const T* mass, std::size_t count,
                                       const ForceLaw<T>& law, T* phi) {
  Impl& s = *impl_;
  const unsigned k = s.prepare(kernel, req, count, law);
  if (count == 0) return;
  const Variant v = s.potential_walk();
  s.upload_bodies(pos, mass, count);
  const unsigned n = static_cast<unsigned>(count);
  s.build(n, k);
  s.summarise(law.tree);
  s.phi.reserve(count, 0, s.stream);
  s.walk(v, n, law, s.phi.p);
  s.stream.to_host(phi, s.phi.p, count);
  unsigned overflowed = 0;
  s.copy_overflow(overflowed);
  s.stream.synchronize();
  s.check_stacks(overflowed);
}

// Device-resident leapfrog steps: the state and the acceleration stay on the device, the tree is
// built again for every evaluation (S4's step: the five kernels of the force, then the update).
template <class T>
class OctreeBackend<T>::Stepper final : public ResidentStepper<T> {
 public:
  Stepper(OctreeBackend& backend, std::size_t kernel, const Launch& launch, const ForceLaw<T>& law)
      : backend_(backend), kernel_(kernel), launch_(launch), law_(law) {}
  bool takes(const ResidentMethod<T>& method) const override { return method.splitting && !method.adaptive; }

  void advance(const ResidentMethod<T>& method, ResidentSegment<T>& seg) override {
    Impl& s = *backend_.impl_;
    const std::size_t n = seg.n;
    if (n == 0) throw InputError("device-resident steps need at least one body");
    const unsigned k = s.prepare(kernel_, launch_, n, law_);
    s.begin_evaluation();
    const std::size_t m = 3 * n;
    s.stepped = true;
    s.vel.reserve(m, 0, s.stream);
    s.stream.to_device(s.pos.p, seg.y, m);
    s.stream.to_device(s.vel.p, seg.y + m, m);
    s.stream.to_device(s.mass.p, seg.mass, n);
    seg.steps = seg.rejected = seg.evaluations = 0;
    auto evaluate = [&] {
      s.evaluate(static_cast<unsigned>(n), k, law_);
      ++seg.evaluations;
    };
    if (seg.history_current)
      s.stream.to_device(s.acc.p, seg.history[0], m);
    else
      evaluate();
    constexpr unsigned b = octree_detail::block;
    auto axpy = [&](T* y, T a, const T* x, const char* what) {  // y += a x
      octree_kernels::axpy_kernel<<<blocks_for(m, b), b, 0, s.stream>>>(y, a, x, static_cast<unsigned>(m));
      NBODY_CUDA_CHECK_LAUNCH(what);
    };
    const T h = seg.dt;
    for (;;) {
      for (const T& w : method.b) {  // as integrators/leapfrog.hpp
        const T hw = w * h, half = hw / T(2);
        axpy(s.vel.p, half, s.acc.p, "leapfrog kick");
        axpy(s.pos.p, hw, s.vel.p, "leapfrog drift");
        evaluate();
        axpy(s.vel.p, half, s.acc.p, "leapfrog kick");
      }
      ++seg.steps;
      seg.t = seg.t0 + T(seg.step_index + seg.steps) * h;
      if (seg.steps >= seg.max_steps || seg.t >= seg.stop_when) break;
    }
    seg.h_last = h;
    seg.history_current = true;
    s.stream.to_host(seg.y, s.pos.p, m);
    s.stream.to_host(seg.y + m, s.vel.p, m);
    s.stream.to_host(seg.history[0], s.acc.p, m);
    s.stream.synchronize();
  }

 private:
  OctreeBackend& backend_;
  std::size_t kernel_;
  const Launch& launch_;  // the engine's own, as it stands at each call
  const ForceLaw<T>& law_;
};

template <class T>
ResidentStepper<T>* OctreeBackend<T>::stepper(std::size_t kernel, const Launch& launch, const ForceLaw<T>& law) {
  stepper_ = std::make_unique<Stepper>(*this, kernel, launch, law);
  return stepper_.get();
}

template <class T>
bool OctreeBackend<T>::steps_on_device() const {
  return impl_->stepped;
}
template <class T>
TreeProfile OctreeBackend<T>::last_profile() const {
  const Impl& s = *impl_;
  if (s.walk_ms < 0) return {};
  TreeProfile p = TreeProfile::timed((s.build_ms + s.moments_ms) * 1e-3, s.walk_ms * 1e-3, s.terms_per_body);
  p.moments_seconds = s.moments_ms * 1e-3;
  p.cell_terms_per_body = s.cell_terms_per_body;
  p.shape = s.tree_shape;
  p.root_mass = s.root_mass;
  return p;
}
template <class T>
double OctreeBackend<T>::last_device_seconds() const {
  const Impl& s = *impl_;
  return s.walk_ms < 0 ? -1.0 : (s.build_ms + s.moments_ms + s.walk_ms) * 1e-3;
}
template <class T>
Launch OctreeBackend<T>::last_launch() const {
  return impl_->last;
}

}  // namespace nbody::cuda
