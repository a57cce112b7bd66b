#pragma once
// The CUDA cell lists of the short-range methods (seed S3, E18): eight builders of exactly the
// CPU's CellList (particles/cells/cell_list.hpp), the same cell, start and order element for element,
// each cell's particles in increasing index whatever order the device's atomics took, so that the
// neighbour order and a run do not depend on the builder. Plain C++, so that it compiles without
// nvcc; implemented in cell_list_cuda.cu (kernels: kernels/cuda/cell_list.cuh).
#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "core/registry.hpp"
#include "particles/cells/cell_list.hpp"

namespace nbody::particles {

enum class CellBuilder { linked_list, shared_lists, linked_to_arrays, incremental, counting_sort, radix_sort, binned, two_level };

struct CellBuilderInfo {
  CellBuilder builder;
  std::string_view name;
  std::string_view description;
};

// Every builder, in the order of E18's list, then HOOMD-blue's and a two-level bucket sort: names, --help text and
// the tests come from here.
inline constexpr std::array cell_builders = {
    CellBuilderInfo{CellBuilder::linked_list, "linked-list",
                    "S3's bucket sort: a linked list per cell by atomicExch on its head, then the lists counted, scanned "
                    "and walked into arrays"},
    CellBuilderInfo{CellBuilder::shared_lists, "shared-lists",
                    "S3's variant: each block links its particles in shared memory, then splices each of its lists into "
                    "the global one with one atomic; converted as linked-list"},
    CellBuilderInfo{CellBuilder::linked_to_arrays, "linked-to-arrays",
                    "linked-list with the cells counted as particles go in, CUB's scan, and positions and velocities "
                    "reordered by cell"},
    CellBuilderInfo{CellBuilder::incremental, "incremental",
                    "S3's re-sort of the previous list: only the particles that changed cell are taken out and put back "
                    "(a fresh counting sort when there is no previous list of that shape)"},
    CellBuilderInfo{CellBuilder::counting_sort, "counting-sort",
                    "an atomic count per cell, CUB's exclusive scan, and a scatter to the places the count handed out"},
    CellBuilderInfo{CellBuilder::radix_sort, "radix-sort",
                    "the usual baseline: CUB's radix sort of (cell, index) on the bits the cells need, then cell starts "
                    "where the key changes (NVIDIA's particles sample, DualSPHysics)"},
    CellBuilderInfo{CellBuilder::binned, "binned",
                    "HOOMD-blue's cell list: each particle put by an atomic count into its cell's bin of fixed capacity, CUB's "
                    "scan, a thread per cell ordering its bin (an overflow builds again: in bins of up to 64, else as "
                    "counting-sort)"},
    CellBuilderInfo{CellBuilder::two_level, "two-level",
                    "a bucket sort in two levels: particles counted and scattered in shared memory into buckets of up to "
                    "1024 consecutive cells, then a block per bucket sorting it into its cells (crowded buckets: as "
                    "counting-sort)"},
};

inline std::string_view name_of(CellBuilder b) {
  for (const auto& e : cell_builders)
    if (e.builder == b) return e.name;
  return "?";
}
// The builder of that name; InputError listing the valid names otherwise.
inline CellBuilder cell_builder_named(std::string_view name) { return find_entry(cell_builders, name, "cell-list builder").builder; }

// A cell list on CUDA device 0, float or double. Every CUDA call is checked (RunError); no device
// or a grid too large is an InputError. Builds overwrite one another; buffers grow, never shrink.
// The work runs on the list's own stream and each call returns when it is done: device data
// written on another stream must be complete (that stream synchronised) before it is passed in.
template <class T>
class DeviceCellList {
 public:
  DeviceCellList();
  ~DeviceCellList();
  DeviceCellList(const DeviceCellList&) = delete;
  DeviceCellList& operator=(const DeviceCellList&) = delete;

  // Sorts n particles (host memory, SoA x[n] y[n] z[n], wrapped into the box) into the cells of
  // `box` for cut-off rc (CellGrid::make). Velocities (SoA, or null) are reordered with the
  // positions by linked_to_arrays. incremental re-sorts the previous list when it has the same n,
  // box and rc, and otherwise builds afresh.
  void build(CellBuilder builder, const T* pos, std::size_t n, const PeriodicBox<T>& box, T rc, const T* vel = nullptr);
  // The same with positions (and velocities) in device memory, read in place.
  void build_on_device(CellBuilder builder, const T* device_pos, std::size_t n, const PeriodicBox<T>& box, T rc,
                       const T* device_vel = nullptr);
  // The incremental re-sort of the last list for new positions of its particles (host memory).
  void rebuild_incremental(const T* pos);

  // Cold: each build starts with nothing of its input in the L2 cache (a scratch buffer twice the
  // L2's size is written first, outside the timed part), as nvbench times kernels by default.
  void set_cold_cache(bool cold);
  double last_build_seconds() const;  // the last build's device time (CUDA events), transfers excluded
  std::size_t moved() const;          // particles that changed cell in the last incremental build (n when fresh)

  // The list into host memory: grid, start, order and cell as CellList::build makes them.
  void download(CellList<T>& list) const;
  // linked_to_arrays' positions and velocities in cell order (SoA; velocities empty when none were given).
  void download_sorted(std::vector<T>& pos, std::vector<T>& vel) const;

  // The last list in device memory, valid until the next build: start (cells + 1), order and cell (n).
  const unsigned* device_start() const;
  const unsigned* device_order() const;
  const unsigned* device_cell() const;
  // linked_to_arrays' reordered data (device, SoA 3n each; null when not made).
  const T* sorted_positions() const;
  const T* sorted_velocities() const;
  // Per-particle data (device, SoA: `components` arrays of n; reals or unsigned) into cell order:
  // out[k n + s] = in[k n + order[s]]. wait = false returns before it is done: the next call that
  // waits (a gather, a build) finishes it too.
  template <class U>
  void gather(const U* device_in, U* device_out, unsigned components, bool wait = true) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::particles
