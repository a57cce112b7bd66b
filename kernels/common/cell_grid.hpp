#pragma once
// The periodic box and the cell grid of the short-range particle methods (seed S3's DPD and SPH),
// host and device: the CPU cell lists (solver/particles/cells/cell_list.hpp) and the GPU builders call
// these, so that every back end puts a particle in the same cell and sees the same neighbours.
//
// Box: [0, L_x) x [0, L_y) x [0, L_z), any aspect ratio, periodic on every axis. Pairs interact by
// their minimum image. Grid: n_a = max(1, floor(L_a / r_c)) cells per axis of side L_a / n_a >=
// r_c, so that every partner within r_c lies in the particle's cell or one of its neighbours
// (the 3 x 3 x 3 block around it, wrapped; with 1 or 2 cells on an axis fewer distinct ones).
// Cells are numbered x fastest: c = ix + n_x (iy + n_y iz).
#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody::particles {

template <class T>
struct PeriodicBox {
  T L[3];

  // x wrapped into [0, L_a): exact for one period off, as particles move less than a box per step.
  NBODY_HD T wrap(T x, int a) const {
    if (x >= L[a]) x -= L[a];
    else if (x < T(0)) x += L[a];
    return x < L[a] && x >= T(0) ? x : x - L[a] * floor(x / L[a]);  // farther off, and x = L_a after rounding
  }
  // The minimum image of a separation d along axis a (|d| < L_a for wrapped positions).
  NBODY_HD T minimum_image(T d, int a) const {
    if (d > L[a] / T(2)) return d - L[a];
    if (d < -L[a] / T(2)) return d + L[a];
    return d;
  }
};

template <class T>
struct CellGrid {
  unsigned n[3];  // cells per axis
  T scale[3];     // cells per unit length, n_a / L_a

  NBODY_HD static CellGrid make(const PeriodicBox<T>& box, T cutoff) {
    CellGrid g;
    for (int a = 0; a < 3; ++a) {
      const T cells = floor(box.L[a] / cutoff);
      g.n[a] = cells >= T(1) ? static_cast<unsigned>(cells) : 1u;
      g.scale[a] = T(g.n[a]) / box.L[a];
    }
    return g;
  }
  NBODY_HD unsigned cells() const { return n[0] * n[1] * n[2]; }
  // The cell of a wrapped position (a coordinate that rounds onto the far face stays in the last
  // cell; one outside the box, or not finite, is clamped into it before it is converted).
  NBODY_HD unsigned cell_of(T x, T y, T z) const {
    const T p[3] = {x, y, z};
    unsigned i[3];
    for (int a = 0; a < 3; ++a) {
      const T c = p[a] * scale[a];
      i[a] = c > T(0) ? (c < T(n[a]) ? static_cast<unsigned>(c) : n[a] - 1) : 0u;
    }
    return i[0] + n[0] * (i[1] + n[1] * i[2]);
  }
  // The distinct cells around cell c (c included), in increasing order; returns their number (27
  // when every axis has 3 cells or more).
  NBODY_HD unsigned neighbours(unsigned c, unsigned out[27]) const {
    const unsigned i[3] = {c % n[0], (c / n[0]) % n[1], c / (n[0] * n[1])};
    unsigned axis[3][3], count[3];
    for (int a = 0; a < 3; ++a) {  // the distinct indices i - 1, i, i + 1 (wrapped), ascending
      count[a] = 0;
      for (int d = -1; d <= 1; ++d) {
        const unsigned k = (i[a] + n[a] + static_cast<unsigned>(d + 1) - 1u) % n[a];
        bool seen = false;
        for (unsigned m = 0; m < count[a]; ++m) seen = seen || axis[a][m] == k;
        if (!seen) axis[a][count[a]++] = k;
      }
      for (unsigned p = 1; p < count[a]; ++p)  // insertion sort of at most 3
        for (unsigned q = p; q > 0 && axis[a][q - 1] > axis[a][q]; --q) {
          const unsigned t = axis[a][q];
          axis[a][q] = axis[a][q - 1], axis[a][q - 1] = t;
        }
    }
    unsigned total = 0;
    for (unsigned z = 0; z < count[2]; ++z)
      for (unsigned y = 0; y < count[1]; ++y)
        for (unsigned x = 0; x < count[0]; ++x) out[total++] = axis[0][x] + n[0] * (axis[1][y] + n[1] * axis[2][z]);
    return total;
  }
};

}  // namespace nbody::particles
