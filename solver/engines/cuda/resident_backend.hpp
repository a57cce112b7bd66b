#pragma once
// Device-resident stepping (engines/resident.hpp) on CUDA device 0: one cooperative kernel
// (kernels/cuda/resident.cuh) takes the steps of a call. Its spec, in plain C++ (the CUDA engines
// offer it for the real types it runs in, --help and the errors name its knobs), and the host
// interface, implemented in resident_backend.cuh.
#include <memory>
#include <string>
#include <vector>

#include "engines/launch.hpp"
#include "engines/resident.hpp"

namespace nbody::cuda {

struct Resident {
  static constexpr std::string_view name = "device-resident steps";
  template <class T>
  static constexpr bool runs_in = one_of<T, float, double>;
  static constexpr int max_block = 256;          // kernels/cuda/resident.cuh's kResidentMaxBlock
  static constexpr int max_cluster_blocks = 16;  // the most blocks of one (non-portable) thread-block cluster
  // block= threads per block, split= threads per body (each body's j-range split over them, a
  // power of 2 up to block=), cluster= 1 for the grid-wide sync or K for one thread-block cluster
  // of at most K blocks (compute capability 9.0 and later). Left at 0: block 256, and up to 64
  // threads per body for about one block per multiprocessor (or to fill the cluster), since every
  // force evaluation waits at a barrier.
  static std::vector<Knob> knobs() {
    return {Knob::list(&Launch::block, "block", "threads per block", {32, 64, 128, max_block}),
            Knob::list(&Launch::split, "split", "threads per body", {1, 2, 4, 8, 16, 32, 64, 128, max_block}),
            Knob::range(&Launch::cluster, "cluster", "blocks of one thread-block cluster (1: grid-wide sync)", 1, 1,
                        max_cluster_blocks)};
  }
};

template <class T>
class ResidentBackend final : public ResidentStepper<T> {
 public:
  ResidentBackend();
  ~ResidentBackend() override;
  ResidentBackend(const ResidentBackend&) = delete;
  ResidentBackend& operator=(const ResidentBackend&) = delete;

  bool takes(const ResidentMethod<T>& method) const override { return !method.splitting; }
  void set_law(T G, T eps2, T rmin2);
  void set_launch(const Launch& requested);
  void advance(const ResidentMethod<T>& method, ResidentSegment<T>& segment) override;
  // The shape of the last call ("" before the first): block, threads per body, blocks.
  std::string last_shape() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::cuda
