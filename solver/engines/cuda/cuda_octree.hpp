#pragma once
// The CUDA Barnes-Hut engine on seed S4's octree (kernels/common/octree.hpp): its spec and the
// host interface of its back end (implemented in octree_backend.cuh, instantiated for float and
// double in octree_backend.cu). Plain C++, so that the registry compiles without nvcc.
//
// One evaluation runs S4's pipeline on the device (kernels/cuda/octree.cuh): bounding cube, Morton
// keys and their sort, the bodies in key order, the nodes level by level, the moments from the
// deepest level up, one thread per body walking the tree; the same tree as the host's
// build_octree.
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "engines/cuda/backend.hpp"
#include "engines/engine.hpp"
#include "engines/launch.hpp"
#include "engines/resident.hpp"

namespace nbody::cuda {

template <class T>
class OctreeBackend;

// What the octree engines share: their tree, precisions and back end.
struct OctreeSpec {
  static constexpr TreeKind tree = TreeKind::octree;
  template <class T>
  static constexpr bool runs_in = one_of<T, float, double>;
  template <class T>
  using Backend = OctreeBackend<T>;
};

struct OctreeS4 : OctreeSpec {
  static constexpr std::string_view name = "cuda-octree";
  static constexpr std::string_view description =
      "Barnes-Hut on S4's octree, CUDA: bounding box, Morton-key build, moments, bodies in key order and one thread "
      "per body walking the tree, every step on the GPU without spin-waits";
  static constexpr unsigned leaf_size = 1;  // S4: a body per leaf
  template <class T>
  static std::vector<Knob> knobs() {
    return {Knob::range(&Launch::block, "block", "threads per block of the walk (default 256)", 8, 1, 0,
                        {64, 128, 256, 512, 1024})};
  }
};

// The fast engine: the same tree, walked by a warp per group of up to 64 bodies (two per lane) with
// interaction lists (kernels/cuda/octree.cuh, group_walk_kernel).
struct OctreeGroups : OctreeSpec {
  static constexpr std::string_view name = "cuda-octree-groups";
  static constexpr std::string_view description =
      "Barnes-Hut on S4's octree, CUDA: the GPU build of cuda-octree, walked by a warp per group of up to 64 bodies in key "
      "order with interaction lists (the opening rule against the group's box)";
  static constexpr unsigned leaf_size = 16;
  template <class T>
  static std::vector<Knob> knobs() {
    return {Knob::range(&Launch::block, "block", "threads per block of the walk, a multiple of 32 (default 256)", 32, 32,
                        1024, {64, 128, 256, 512, 1024})};
  }
};

using OctreeKernels = KernelList<OctreeS4, OctreeGroups>;

// The octree engines' device work on device 0, for one real type (the interface of TreeBackend).
template <class T>
class OctreeBackend {
 public:
  using Kernels = OctreeKernels;
  OctreeBackend();
  ~OctreeBackend();
  OctreeBackend(const OctreeBackend&) = delete;
  OctreeBackend& operator=(const OctreeBackend&) = delete;

  void compute(std::size_t kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n,
               const ForceLaw<T>& law, T* acc);
  // phi (n) at the bodies: the tree's own potential (G applied), by `kernel`'s walk of the tree
  // built as compute() builds it. Leaves the last evaluation's profile, shape and time and the
  // stepper's state as they were.
  void body_potentials(std::size_t kernel, const Launch& requested, const T* pos, const T* mass, std::size_t n,
                       const ForceLaw<T>& law, T* phi);
  // Device-resident leapfrog steps with `kernel`'s walk (engines/resident.hpp), valid while this
  // lives; it reads `requested` and `law` (the engine's own) at each call.
  ResidentStepper<T>* stepper(std::size_t kernel, const Launch& requested, const ForceLaw<T>& law);
  bool steps_on_device() const;      // the stepper has taken steps
  TreeProfile last_profile() const;  // build, moments, walk and the tree's shape
  double last_device_seconds() const;
  Launch last_launch() const;

 private:
  struct Impl;
  class Stepper;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<ResidentStepper<T>> stepper_;
};

}  // namespace nbody::cuda
