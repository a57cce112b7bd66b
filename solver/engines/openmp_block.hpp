#pragma once
// Seed S0's "openmp + block" engine: cache tiles. The bodies i are taken in tiles of kTileI (one
// tile per OpenMP iteration, its accumulators in a small local array) and the bodies j in tiles
// of kTileJ that fit the L1 data cache (kTileJ * 4 values: 32 KiB in double); each j tile is
// then reused by every i of the i tile before the next is touched, so the j data come from L1
// instead of L2 or memory (S0: "load a part of the data into the cache and use it repeatedly").
// The innermost loop over the j tile is the same compiler-vectorised reduction as `openmp`
// (interaction.hpp, exact sqrt and division), split around i so that no branch is needed.
//
// Layout (E08): `openmp-block` reads the j tile from the state's structure-of-arrays (x[], y[],
// z[], m[]: unit-stride loads, one vector load per coordinate); `openmp-block-aos` first packs
// the bodies into array-of-structures records {x, y, z, m} (the layout of S0's nbvertex_t and of
// the CUDA Handbook's float4 bodies) and reads the tile from them, so that the vectorised j loop
// needs strided loads (gathers or shuffles). The packing is O(N) per evaluation, included in
// the time.
//
// Any N: the last tiles are short; any real type: for types other than float and double the
// inner loop is plain (OpenMP has no `+` reduction for them).
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/interaction.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "engines/engine.hpp"

namespace nbody {

template <class T, bool AoS = false>
class OpenMPBlockEngine final : public ForceEngine<T> {
 private:
  struct Body {  // one record of the AoS variant
    T x, y, z, m;
  };

 public:
  struct info {
    static constexpr std::string_view name = AoS ? "openmp-block-aos" : "openmp-block";
    static constexpr std::string_view description =
        AoS ? "openmp-block reading bodies from packed {x,y,z,m} records (array of structures; E08)"
            : "all pairs, OpenMP over tiles of bodies, j tiles reused from L1 cache (S0's block)";
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.host_reals = AoS ? 7 : 1;  // the bodies packed as {x,y,z,m}
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  static constexpr std::size_t kTileI = 64;    // bodies i per tile (per OpenMP iteration)
  static constexpr std::size_t kTileJ = 1024;  // bodies j per tile: 4 * 1024 doubles = 32 KiB

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    const T *x = pos, *y = pos + n, *z = pos + 2 * n;
    if constexpr (AoS) {  // pack (O(N)); the force loop below reads only the records
      packed_.resize(n);
      for (std::size_t i = 0; i < n; ++i) packed_[i] = Body{x[i], y[i], z[i], mass[i]};
    }
    const Body* bodies = AoS ? packed_.data() : nullptr;
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const std::ptrdiff_t tiles = static_cast<std::ptrdiff_t>((n + kTileI - 1) / kTileI);

    for_each_index(tiles, parallel_forces(n), [&](std::ptrdiff_t t) {
      const std::size_t i0 = static_cast<std::size_t>(t) * kTileI;
      const std::size_t ni = n - i0 < kTileI ? n - i0 : kTileI;
      T ax[kTileI], ay[kTileI], az[kTileI];
      for (std::size_t b = 0; b < ni; ++b) ax[b] = ay[b] = az[b] = T(0);
      for (std::size_t j0 = 0; j0 < n; j0 += kTileJ) {
        const std::size_t nj = n - j0 < kTileJ ? n - j0 : kTileJ;
        for (std::size_t b = 0; b < ni; ++b) {
          const std::size_t i = i0 + b;
          T xi, yi, zi;
          if constexpr (AoS) {
            xi = bodies[i].x, yi = bodies[i].y, zi = bodies[i].z;
          } else {
            xi = x[i], yi = y[i], zi = z[i];
          }
          // The j range of this tile, without i: [j0, split) and [resume, j0 + nj).
          const std::size_t split = i >= j0 && i < j0 + nj ? i : j0 + nj;
          const std::size_t resume = i >= j0 && i < j0 + nj ? i + 1 : j0 + nj;
          T sx{0}, sy{0}, sz{0};
          tile_sum(xi, yi, zi, x, y, z, mass, bodies, j0, split, eps2, rmin2, sx, sy, sz);
          tile_sum(xi, yi, zi, x, y, z, mass, bodies, resume, j0 + nj, eps2, rmin2, sx, sy, sz);
          ax[b] += sx, ay[b] += sy, az[b] += sz;
        }
      }
      for (std::size_t b = 0; b < ni; ++b) {
        acc[i0 + b] = G * ax[b];
        acc[n + i0 + b] = G * ay[b];
        acc[2 * n + i0 + b] = G * az[b];
      }
    });
  }

 private:
  static void tile_sum(T xi, T yi, T zi, const T* x, const T* y, const T* z, const T* m, const Body* bodies,
                       std::size_t begin, std::size_t end, T eps2, T rmin2, T& sx, T& sy, T& sz) {
    const std::ptrdiff_t b = static_cast<std::ptrdiff_t>(begin), e = static_cast<std::ptrdiff_t>(end);
    T ax{0}, ay{0}, az{0};
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if constexpr (AoS) {
#pragma omp simd reduction(+ : ax, ay, az)
        for (std::ptrdiff_t j = b; j < e; ++j)  // 20 flops (interaction.hpp)
          accumulate_interaction(xi, yi, zi, bodies[j].x, bodies[j].y, bodies[j].z, bodies[j].m, eps2, rmin2, ax, ay, az);
      } else {
#pragma omp simd reduction(+ : ax, ay, az)
        for (std::ptrdiff_t j = b; j < e; ++j)  // 20 flops (interaction.hpp)
          accumulate_interaction(xi, yi, zi, x[j], y[j], z[j], m[j], eps2, rmin2, ax, ay, az);
      }
    } else {  // software types: plain loop
      for (std::ptrdiff_t j = b; j < e; ++j) {
        if constexpr (AoS)
          accumulate_interaction(xi, yi, zi, bodies[j].x, bodies[j].y, bodies[j].z, bodies[j].m, eps2, rmin2, ax, ay, az);
        else
          accumulate_interaction(xi, yi, zi, x[j], y[j], z[j], m[j], eps2, rmin2, ax, ay, az);
      }
    }
    sx += ax, sy += ay, sz += az;
  }

  std::vector<Body> packed_;
};

template <class T>
using OpenMPBlockAosEngine = OpenMPBlockEngine<T, true>;

}  // namespace nbody
