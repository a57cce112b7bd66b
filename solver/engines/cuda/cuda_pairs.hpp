#pragma once
// cuda-pairs: each pair once (Newton's third law). Its spec and (for nvcc) its launch. The kernel:
// kernels/cuda/pairs.cuh (tiles of block x ipt bodies, one block per row of tiles, the other
// body's sums passed between lanes, each tile pair's sums to its own slot and added per body in a
// fixed order by a second kernel).
#include "engines/launch.hpp"

namespace nbody::cuda {

struct Pairs {
  static constexpr std::string_view name = "cuda-pairs";
  static constexpr std::string_view description =
      "CUDA, each pair once (Newton's third law), the other body's sum passed between lanes and added in a fixed "
      "order";
  template <class T>
  static constexpr bool runs_in = one_of<T, float, double>;
  static constexpr int max_block = 256;  // whole warps; the kernel's shared arrays hold this many
  // The shape of a large N when not given: float 256 x 8, double 128 x 8 (its registers).
  template <class T>
  static constexpr int default_block = std::is_same_v<T, float> ? 256 : 128;
  static constexpr int default_ipt = 8;
  // Its sum is one per pass over the tile distances, added in pass order: MPI ranks split the
  // passes (launch_passes) and add their sums on in turn, bit for bit the sum of one process.
  static constexpr bool pass_forces = true;

  template <class T>
  static std::vector<Knob> knobs() {
    return {Knob::range(&Launch::block, "block", "threads per block", 32, 32, max_block, {32, 64, 128, 256}),
            Knob::range(&Launch::split, "split", "passes over the tile distances (one pass's sums in device memory)", 1, 1,
                        Knob::unbounded, {0}),
            Knob::list(&Launch::ipt, "ipt", "bodies per thread", {1, 2, 4, 8}, {1, 2, 4, 8})};
  }
};

}  // namespace nbody::cuda

#ifdef __CUDACC__
#include <algorithm>

#include "cuda/device_math.cuh"
#include "cuda/pairs.cuh"
#include "engines/cuda/launch.cuh"

namespace nbody::cuda {

static_assert(Pairs::max_block == pairs_max_block);

template <>
struct Launcher<Pairs> {
  // Device memory for one pass's slots when split= is not given: as many distances per pass as fit.
  static constexpr std::size_t slot_budget = std::size_t(1) << 30;

  // The number of passes over the tile distances 1..rows/2 and the distances per pass.
  struct Passes {
    int passes, per_pass;
  };
  static Passes passes(int split, std::size_t rows, std::size_t slot_bytes) {
    const int dmax = static_cast<int>(rows / 2);
    if (dmax == 0) return {1, 1};
    int per_pass = dmax;
    if (split > 0) per_pass = (dmax + split - 1) / split;
    else if ((per_pass + 1) * slot_bytes > slot_budget)
      per_pass = static_cast<int>(std::max<std::size_t>(2, slot_budget / slot_bytes) - 1);
    return {(dmax + per_pass - 1) / per_pass, per_pass};
  }
  static std::size_t rows(const Launch& l, std::size_t n) {
    return std::max<std::size_t>(1, blocks_for(n, static_cast<std::size_t>(l.block) * l.ipt));
  }

  template <class T>
  using Fn = void (*)(PairsArgs<T>);
  template <class T>
  static Fn<T> function(const Launch& l, bool clamp) {
    auto by_ipt = [&]<bool C>() -> Fn<T> {
      switch (l.ipt) {
        case 1: return &pairs_kernel<T, DeviceMath<C>, 1>;
        case 2: return &pairs_kernel<T, DeviceMath<C>, 2>;
        case 4: return &pairs_kernel<T, DeviceMath<C>, 4>;
        case 8: return &pairs_kernel<T, DeviceMath<C>, 8>;
        default: return nullptr;
      }
    };
    return clamp ? by_ipt.template operator()<true>() : by_ipt.template operator()<false>();
  }

  template <class T>
  static void choose(Launch& l, std::size_t n, const cudaDeviceProp& p) {
    // For fewer bodies than the default shape fills, smaller tiles until there are two rows
    // (blocks) per multiprocessor, halving what was not given: bodies per thread first.
    const bool auto_block = l.block == 0, auto_ipt = l.ipt == 0;
    if (auto_block) l.block = Pairs::default_block<T>;
    if (auto_ipt) l.ipt = Pairs::default_ipt;
    while (rows(l, n) < 2 * static_cast<std::size_t>(p.multiProcessorCount) &&
           ((auto_ipt && l.ipt > 1) || (auto_block && l.block > 32))) {
      if (auto_ipt && l.ipt > 1) l.ipt /= 2;
      else l.block /= 2;
    }
  }
  template <class T>
  static Variant variant(const Launch& l, bool clamp) {
    return {reinterpret_cast<const void*>(function<T>(l, clamp)), 0};
  }
  template <class T>
  static void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int) {
    check_grid<Pairs>(l, rows(l, n), p.maxGridSize[0], p);
    l.split = passes(l.split, rows(l, n), 3 * n * sizeof(T)).passes;
  }
  // Per pass: the pair kernel (one block per row of tiles), then the ordered reduction onto acc.
  template <class T>
  static void launch(const Launch& l, const ForceArgs<T>& a, Scratch<T>& s, cudaStream_t stream) {
    const int npasses = pass_count<T>(l, a.n);
    run_passes(l, a, s, stream, 0, npasses, [&](int pass) { return Reduce<T>{a.acc, pass == 0, pass == npasses - 1}; });
  }
  // The passes of a resolved launch (its split= as finish() left it).
  template <class T>
  static int pass_count(const Launch& l, std::size_t n) {
    return passes(l.split, rows(l, n), 3 * n * sizeof(T)).passes;
  }
  // Passes [pass_first, pass_end) of the launch (pass_count in all), each pass's sum to its own
  // 3n of `sums`, in pass order (mpi:cuda-pairs: the ranks split the passes; pass_fold_kernel adds
  // the sums on as launch() does).
  template <class T>
  static void launch_passes(const Launch& l, const ForceArgs<T>& a, Scratch<T>& s, cudaStream_t stream, int pass_first,
                            int pass_end, T* sums) {
    run_passes(l, a, s, stream, pass_first, pass_end, [&](int pass) {
      return Reduce<T>{sums + static_cast<std::size_t>(pass - pass_first) * 3 * a.n, true, false};
    });
  }

 private:
  template <class T>
  struct Reduce {
    T* to;
    bool first, last;
  };
  template <class T, class Target>
  static void run_passes(const Launch& l, const ForceArgs<T>& a, Scratch<T>& s, cudaStream_t stream, int pass_first,
                         int pass_end, Target target) {
    const int n = a.n, P = l.block * l.ipt, nrows = static_cast<int>(rows(l, n)), dmax = nrows / 2;
    const int per_pass = passes(l.split, nrows, 3 * static_cast<std::size_t>(n) * sizeof(T)).per_pass;
    T* slots = s.partial((1 + static_cast<std::size_t>(per_pass)) * 3 * n);  // slot 0 + one per distance
    const auto fn = function<T>(l, a.clamp);
    for (int pass = pass_first; pass < pass_end; ++pass) {
      const int d_first = 1 + pass * per_pass, d_last = std::min(dmax, d_first + per_pass - 1);
      fn<<<nrows, l.block, 0, stream>>>(PairsArgs<T>{a.bodies, n, nrows, a.eps2, a.rmin2, d_first, d_last, slots});
      NBODY_CUDA_CHECK_LAUNCH("cuda-pairs launch");
      const Reduce<T> r = target(pass);
      pairs_reduce_kernel<T><<<blocks_for(n, 256), 256, 0, stream>>>(slots, n, P, nrows, d_first, d_last, r.first, r.last,
                                                                     a.G, r.to);
      NBODY_CUDA_CHECK_LAUNCH("cuda-pairs reduction launch");
    }
  }
};

}  // namespace nbody::cuda
#endif
