#pragma once
// The CPU cell list of the short-range methods (seed S3): particles sorted by cell with a counting
// sort (count per cell, exclusive scan, scatter in particle order, so that a cell's particles stay
// in increasing index: the neighbour order is fixed and a run is reproducible bit for bit), and
// the pairs within the cut-off found through each cell's neighbours (kernels/common/cell_grid.hpp).
// The reference of the GPU builders.
#include <cstddef>
#include <vector>

#include "common/cell_grid.hpp"

namespace nbody::particles {

template <class T>
struct CellList {
  CellGrid<T> grid{};
  std::vector<unsigned> start;  // cell c's particles are order[start[c] .. start[c + 1])
  std::vector<unsigned> order;  // particle indices by cell, increasing within a cell
  std::vector<unsigned> cell;   // each particle's cell

  // n wrapped positions (SoA: x[n] y[n] z[n]) into the grid of `box` for cut-off rc.
  void build(const T* pos, std::size_t n, const PeriodicBox<T>& box, T rc) {
    grid = CellGrid<T>::make(box, rc);
    const unsigned cells = grid.cells();
    start.assign(cells + 1, 0u);
    cell.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      cell[i] = grid.cell_of(pos[i], pos[n + i], pos[2 * n + i]);
      ++start[cell[i] + 1];
    }
    for (unsigned c = 0; c < cells; ++c) start[c + 1] += start[c];
    std::vector<unsigned> next(start.begin(), start.end() - 1);
    order.resize(n);
    for (std::size_t i = 0; i < n; ++i) order[next[cell[i]]++] = static_cast<unsigned>(i);
  }

  // Calls f(j, dx, dy, dz, r2) for every partner j != i closer than rc by minimum image (d = r_j -
  // r_i), cell by cell in increasing cell order, then index: a fixed order, whatever the threads.
  template <class F>
  void for_each_neighbour(unsigned i, const T* pos, std::size_t n, const PeriodicBox<T>& box, T rc, F&& f) const {
    const T rc2 = rc * rc;
    unsigned around[27];
    const unsigned m = grid.neighbours(cell[i], around);
    for (unsigned k = 0; k < m; ++k)
      for (unsigned s = start[around[k]]; s < start[around[k] + 1]; ++s) {
        const unsigned j = order[s];
        if (j == i) continue;
        const T dx = box.minimum_image(pos[j] - pos[i], 0);
        const T dy = box.minimum_image(pos[n + j] - pos[n + i], 1);
        const T dz = box.minimum_image(pos[2 * n + j] - pos[2 * n + i], 2);
        const T r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) f(j, dx, dy, dz, r2);
      }
  }
  // Calls f(i, j, dx, dy, dz, r2) for every ordered pair (for_each_neighbour of each i in turn).
  template <class F>
  void for_each_pair(const T* pos, std::size_t n, const PeriodicBox<T>& box, T rc, F&& f) const {
    for (unsigned i = 0; i < n; ++i)
      for_each_neighbour(i, pos, n, box, rc, [&](unsigned j, T dx, T dy, T dz, T r2) { f(i, j, dx, dy, dz, r2); });
  }
};

}  // namespace nbody::particles
