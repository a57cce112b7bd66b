#pragma once
// The CUDA force engines (host side): cuda-naive, cuda-tiled and cuda-split, for float, double, dd
// and qd; cuda-pairs for float and double. The kernels live in kernels/cuda/, the device buffers and launches in cuda_backend.cuh; this
// header is plain C++ so that the registry compiles without nvcc.
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "engines/cuda_backend.hpp"
#include "engines/cuda_tune_cache.hpp"
#include "engines/engine.hpp"

namespace nbody {

template <class T>
constexpr bool cuda_supports =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, dd> || std::is_same_v<T, qd>;

template <class T, cuda::Kernel K>
class CudaEngine final : public ForceEngine<T> {
 public:
  explicit CudaEngine(const ForceLaw<T>& law) : ForceEngine<T>(law) {}

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    if (!explicit_launch_ && n != cached_n_) {  // the tuned shape for this N, if `nbody tune` stored one
      cached_n_ = n;
      const auto spec = tune_cache::lookup(cuda::device_key(), cuda::engine_name(K), cuda::precision_name<T>(), n);
      cached_ = spec ? cuda::parse_launch(*spec) : cuda::Launch{};
    }
    backend_.compute(K, explicit_launch_ ? launch_ : cached_, pos, mass, n, this->law_.G, this->law_.eps2,
                     this->law_.rmin2, acc);
  }
  void set_launch(std::string_view spec) override {
    launch_ = cuda::parse_launch(spec);
    explicit_launch_ = !spec.empty();
    if constexpr (has_resident)
      if (resident_) resident_->set_launch(launch_);
  }
  double last_device_seconds() const override { return backend_.last_kernel_seconds(); }
  std::string device_info() const override {
    // With device-resident steps the stepping kernel's shape is what the run ran with (the host
    // kernel only evaluates a starting step, if any), so that resumed parts name the same shape.
    if constexpr (has_resident)
      if (resident_ && !resident_->last_shape().empty())
        return cuda::device_name() + "; steps on the device, " + resident_->last_shape();
    return cuda::device_name() + "; " + cuda::to_string(backend_.last_launch());
  }
  // float and double: the cooperative stepping kernel, with this engine's force law and the
  // block=, split= and cluster= of its --launch (the force loop is the stepping kernel's own).
  ResidentStepper<T>* resident() override {
    if constexpr (!has_resident) {
      return nullptr;
    } else {
      if (!resident_) resident_ = std::make_unique<cuda::ResidentBackend<T>>();
      resident_->set_law(this->law_.G, this->law_.eps2, this->law_.rmin2);
      resident_->set_launch(explicit_launch_ ? launch_ : cuda::Launch{});
      return resident_.get();
    }
  }
  cuda::Backend<T>& backend() { return backend_; }

 private:
  cuda::Backend<T> backend_;
  static constexpr bool has_resident = std::is_same_v<T, float> || std::is_same_v<T, double>;
  std::unique_ptr<std::conditional_t<has_resident, cuda::ResidentBackend<T>, ResidentStepper<T>>> resident_;  // on first use
  cuda::Launch launch_{}, cached_{};
  bool explicit_launch_ = false;
  std::size_t cached_n_ = 0;
};

template <class T>
struct CudaNaiveEngine {
  struct info {
    static constexpr std::string_view name = "cuda-naive";
    static constexpr std::string_view description =
        "CUDA, one thread per body, j read from global memory (seed S1's basic kernel); --launch block=B";
  };
  using type = CudaEngine<T, cuda::Kernel::naive>;
};
template <class T>
struct CudaTiledEngine {
  struct info {
    static constexpr std::string_view name = "cuda-tiled";
    static constexpr std::string_view description =
        "CUDA, shared-memory tiles of packed (x,y,z,m), unrolled inner loop (S2, S4); --launch block=,unroll=,ipt=";
  };
  using type = CudaEngine<T, cuda::Kernel::tiled>;
};
template <class T>
struct CudaSplitEngine {
  struct info {
    static constexpr std::string_view name = "cuda-split";
    static constexpr std::string_view description =
        "CUDA, tiles with each body's j-range split over blocks, summed in a fixed order (S1); --launch block=,split=,unroll=,ipt=";
  };
  using type = CudaEngine<T, cuda::Kernel::split>;
};

template <class T>
struct CudaPairsEngine {
  struct info {
    static constexpr std::string_view name = "cuda-pairs";
    static constexpr std::string_view description =
        "CUDA, each pair once (Newton's third law), the other body's sum passed between lanes and added in a fixed "
        "order; float, double; --launch block=,ipt=,split= (passes)";
  };
  using type = CudaEngine<T, cuda::Kernel::pairs>;
};

}  // namespace nbody
