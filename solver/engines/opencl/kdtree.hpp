#pragma once
// The OpenCL Barnes-Hut engines: seed S0's kd-tree built on the host (engines/kdtree/heap_tree.hpp),
// uploaded and walked by kernels/opencl/kdtree.cl, one work-item per body, on the device of
// engine.hpp's rule. Host code in kdtree.cpp.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "engines/launch.hpp"

namespace nbody::opencl {

// block = work-items per group, 8 up to what the device allows for the kernel.
inline std::vector<Knob> tree_knobs() {
  Knob block = block_knob();
  block.lo = 8;
  return {block};
}

// The specs, in registry order: name, description, the __kernel in kdtree.cl.
#define NBODY_OPENCL_KDTREE(STRUCT, NAME, FUNCTION, TEXT)                                                  \
  struct STRUCT {                                                                                          \
    static constexpr std::string_view name = NAME;                                                         \
    static constexpr std::string_view description = "Barnes-Hut on S0's kd-tree (--lambda-crit), OpenCL: " TEXT; \
    static constexpr std::string_view function = FUNCTION;                                                 \
    template <class T>                                                                                     \
    static constexpr bool runs_in = one_of<T, float, double>;                                              \
    template <class T>                                                                                     \
    static std::vector<Knob> knobs() {                                                                     \
      return tree_knobs();                                                                                 \
    }                                                                                                      \
  };
NBODY_OPENCL_KDTREE(KdtreeCycle, "opencl-kdtree-cycle", "kdtree_cycle",
                    "work-items in body order, heap array and a stack (S0's opencl heap+cycle)")
NBODY_OPENCL_KDTREE(KdtreeNested, "opencl-kdtree-nested", "kdtree_nested",
                    "work-items in tree order, heap array and a stack (S0's opencl heap+nested)")
NBODY_OPENCL_KDTREE(KdtreeStackless, "opencl-kdtree-stackless", "kdtree_stackless",
                    "work-items in tree order, heap array walked without a stack")
#undef NBODY_OPENCL_KDTREE

using TreeKernels = KernelList<KdtreeCycle, KdtreeNested, KdtreeStackless>;

// One walk kernel (its engine's name and __kernel function) on the chosen device, for T.
template <class T>
class TreeBackend {
 public:
  TreeBackend(std::string_view engine, std::string_view function, std::vector<Knob> knobs);
  ~TreeBackend();
  TreeBackend(const TreeBackend&) = delete;
  TreeBackend& operator=(const TreeBackend&) = delete;
  void set_launch(const Launch& l);  // checked against the knobs and the device when the kernel runs
  void compute(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, T* acc);
  // Build: the host build and the upload (wall time); walk: the kernel (profiling event).
  TreeProfile profile() const;
  std::string device_info() const;  // platform, device, driver, work-group size

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class TreeBackend<float>;
extern template class TreeBackend<double>;

}  // namespace nbody::opencl

namespace nbody {

template <class T, class Kernel>
class OpenCLTreeEngine final : public ForceEngine<T> {
 public:
  explicit OpenCLTreeEngine(const ForceLaw<T>& law)
      : ForceEngine<T>(law), backend_(Kernel::name, Kernel::function, Kernel::template knobs<T>()) {}
  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    backend_.compute(pos, mass, n, this->law_, acc);
  }
  void set_launch(std::string_view spec) override { backend_.set_launch(parse_launch(spec)); }
  double last_device_seconds() const override { return backend_.profile().walk_seconds; }
  std::string device_info() const override { return backend_.device_info(); }
  TreeProfile last_tree_profile() const override { return backend_.profile(); }

 private:
  opencl::TreeBackend<T> backend_;
};

}  // namespace nbody
