#pragma once
// The CUDA Barnes-Hut engines on seed S0's kd-tree (kernels/common/kdtree.hpp): their specs, the
// engine class and the host interface of their back end (implemented in kdtree_backend.cuh,
// instantiated for float and double in kdtree_backend.cu). Plain C++, so that the registry compiles
// without nvcc.
//
// One evaluation: the positions and masses go to the device, the tree is built there
// (kernels/cuda/kdtree_build.cuh: the same tree as the host's build_heap_tree) or, with
// --launch host_build=1, on the host and copied (as S0 did), then one thread per body walks it
// (kernels/cuda/kdtree.cuh) and the accelerations come back.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/cuda/backend.hpp"
#include "engines/engine.hpp"
#include "engines/kdtree/heap_tree.hpp"
#include "engines/launch.hpp"

namespace nbody::cuda {

// The knobs of every tree engine.
inline std::vector<Knob> tree_knobs() {
  return {Knob::range(&Launch::block, "block", "threads per block (default 1024)", 8, 1, 0, {128, 256, 512, 1024}),
          Knob::list(&Launch::l1, "l1", "1: prefer L1 cache over shared memory (S0's cudaFuncCachePreferL1)", {0, 1}, {0, 1}),
          Knob::list(&Launch::host_build, "host_build", "1: build the tree on the host and copy it (S0); 0: on the GPU",
                     {0, 1})};
}

template <class T>
class TreeBackend;

// The four engines: which thread takes which body, how nodes are read, which walk (kernels/cuda/kdtree.cuh).
#define NBODY_CUDA_TREE_SPEC(TYPE, NAME, INPUT_ORDER, READ_ONLY, STACKLESS, TEXT)                         \
  struct TYPE {                                                                                          \
    static constexpr std::string_view name = NAME;                                                       \
    static constexpr std::string_view description = "Barnes-Hut on S0's kd-tree, CUDA: " TEXT; \
    static constexpr bool input_order = INPUT_ORDER, read_only = READ_ONLY, stackless = STACKLESS;       \
    static constexpr TreeKind tree = TreeKind::kdtree;                                                   \
    static constexpr unsigned leaf_size = 1;                                                             \
    template <class T>                                                                                   \
    using Backend = TreeBackend<T>;                                                                      \
    template <class T>                                                                                   \
    static constexpr bool runs_in = one_of<T, float, double>;                                            \
    template <class T>                                                                                   \
    static std::vector<Knob> knobs() {                                                                   \
      return tree_knobs();                                                                               \
    }                                                                                                    \
  };
NBODY_CUDA_TREE_SPEC(TreeCycle, "cuda-kdtree-cycle", true, false, false,
                     "threads in body order, heap array and a stack (S0's cycle+heap)")
NBODY_CUDA_TREE_SPEC(TreeNested, "cuda-kdtree-nested", false, false, false,
                     "threads in tree order, heap array and a stack (S0's nestedtree+heap)")
NBODY_CUDA_TREE_SPEC(TreeNestedLdg, "cuda-kdtree-nested-ldg", false, true, false,
                     "threads in tree order, nodes read through the read-only cache, a stack")
NBODY_CUDA_TREE_SPEC(TreeStackless, "cuda-kdtree-stackless", false, true, true,
                     "threads in tree order, nodes read through the read-only cache, walked without a stack (S0's best)")
#undef NBODY_CUDA_TREE_SPEC

using TreeKernels = KernelList<TreeCycle, TreeNested, TreeNestedLdg, TreeStackless>;

// The tree engines' device work on device 0, for one real type.
template <class T>
class TreeBackend {
 public:
  using Kernels = TreeKernels;
  TreeBackend();
  ~TreeBackend();
  TreeBackend(const TreeBackend&) = delete;
  TreeBackend& operator=(const TreeBackend&) = delete;

  // acc (3n, SoA) by the tree engine at position `kernel` of TreeKernels: the launch shape checked
  // (InputError naming the valid values), the tree built as the shape says, every call checked.
  void compute(std::size_t kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n,
               const ForceLaw<T>& law, T* acc);
  // The tree built on the device from pos (3n, SoA) and mass (n), copied back.
  kdtree::HeapTree<T> build(const T* pos, const T* mass, std::size_t n, const TreeOptions& o);

  TreeProfile last_profile() const;
  double last_device_seconds() const;  // build (or the tree's upload) and walk, GPU events
  Launch last_launch() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The tree of n bodies built on the GPU, copied back (tests compare it with build_heap_tree's).
template <class T>
kdtree::HeapTree<T> build_kdtree_on_device(const T* pos, const T* mass, std::size_t n, const TreeOptions& o) {
  return TreeBackend<T>().build(pos, mass, n, o);
}

}  // namespace nbody::cuda

namespace nbody {

// A CUDA tree engine: its spec's back end (Spec::Backend: cuda::TreeBackend for the kd-trees,
// cuda::OctreeBackend for the octree) and its launch shape.
template <class T, class Spec>
class CudaTreeEngine final : public ForceEngine<T> {
  using Backend = typename Spec::template Backend<T>;

 public:
  explicit CudaTreeEngine(const ForceLaw<T>& law) : ForceEngine<T>(law) {}

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    backend_.compute(Backend::Kernels::template index_of<Spec>(), launch_, pos, mass, n, this->law_, acc);
  }
  void set_launch(std::string_view spec) override {
    const Launch l = parse_launch(spec);
    check_keys(Spec::name, Spec::template knobs<T>(), l);  // the values are checked against the device at the launch
    launch_ = l;
  }
  double last_device_seconds() const override { return backend_.last_device_seconds(); }
  std::string device_info() const override {
    std::string info = cuda::device_name() + "; " + to_string(backend_.last_launch(), Spec::template knobs<T>());
    if constexpr (requires(const Backend& b) { b.steps_on_device(); })
      if (backend_.steps_on_device()) info += "; steps on the device";
    return info;
  }
  TreeProfile last_tree_profile() const override { return backend_.last_profile(); }
  // The potential at the bodies: the octree back end's own, by the force's walk; for the kd-tree
  // engines the direct sum on the GPU (cuda::Backend's, made on first use).
  static constexpr bool walks_potentials = requires(Backend& b, const T* p, T* out) {
    b.body_potentials(std::size_t{0}, Launch{}, p, p, std::size_t{0}, ForceLaw<T>{}, out);
  };
  static constexpr Potentials body_potential_kind = walks_potentials ? Potentials::tree : Potentials::direct_device;
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override {
    const ForceLaw<T>& law = this->law_;
    if constexpr (walks_potentials) {
      backend_.body_potentials(Backend::Kernels::template index_of<Spec>(), launch_, pos, mass, n, law, phi);
    } else {
      if (!direct_) direct_ = std::make_unique<cuda::Backend<T>>();
      direct_->potentials(pos, mass, n, nullptr, n, law.G, law.eps2, law.rmin2, law.compensated, phi);
    }
  }
  std::string body_potential_method() const override {
    if constexpr (walks_potentials)
      return "octree walk on the GPU (CUDA, " + cuda::device_name() + "; the force's walk, " +
             opening_text(TreeKind::octree, this->law_.tree) + ")";
    else
      return cuda::potential_method(this->law_.compensated);
  }
  // The back ends that step on the device (the octree's leapfrog) offer a stepper.
  ResidentStepper<T>* resident() override {
    if constexpr (requires(Backend& b) { b.stepper(std::size_t{0}, Launch{}, ForceLaw<T>{}); })
      return backend_.stepper(Backend::Kernels::template index_of<Spec>(), launch_, this->law_);
    else
      return nullptr;
  }

 private:
  Backend backend_;
  Launch launch_{};
  std::unique_ptr<cuda::Backend<T>> direct_;  // the kd-trees' body potentials
};

}  // namespace nbody
