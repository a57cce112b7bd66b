// The CUDA cell-list builders (cell_list_cuda.hpp) on the kernels of kernels/cuda/cell_list.cuh, with
// CUB's scans and radix sort, for float and double. Every build runs on the list's own stream and
// waits for its end; its device time is taken between two events around the kernels only.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <utility>

#include "cuda/cell_list.cuh"
#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/grid_size.hpp"
#include "cuda/stream.cuh"
#include "particles/cells/cell_list_cuda.hpp"

namespace nbody::particles {

using namespace nbody::cuda::cell_kernels;

namespace {

template <class U>
using Buffer = cuda::DeviceBuffer<U>;

using cuda::blocks_for;

// CUB's counts are ints, our indices unsigned with one value kept for the end of a list.
constexpr std::size_t max_count = (std::size_t(1) << 31) - 1;

template <class T>
CellGrid<T> checked_grid(const PeriodicBox<T>& box, T rc, std::size_t n) {
  if (n > max_count) throw InputError("the CUDA cell lists take at most 2^31 - 1 particles, not " + std::to_string(n));
  if (!(rc > T(0)) || !std::isfinite(double(rc))) throw InputError("the cell lists' cut-off must be positive and finite");
  for (int a = 0; a < 3; ++a)
    if (!(box.L[a] > T(0)) || !(double(box.L[a]) / double(rc) < double(max_count)))
      throw InputError("the cell lists' box sides must be positive and at most 2^31 cut-offs");
  const CellGrid<T> grid = CellGrid<T>::make(box, rc);
  if (std::size_t(grid.n[0]) * grid.n[1] * grid.n[2] >= max_count)
    throw InputError("the cell lists' grid has more than 2^31 - 1 cells: take a larger cut-off");
  return grid;
}

template <class T>
bool same_grid(const CellGrid<T>& a, const CellGrid<T>& b) {
  for (int k = 0; k < 3; ++k)
    if (a.n[k] != b.n[k] || a.scale[k] != b.scale[k]) return false;
  return true;
}

}  // namespace

template <class T>
struct DeviceCellList<T>::Impl {
  enum Mark { started, finished };  // around a build's kernels
  cuda::Stream<2> stream;

  // The list: cell (n), start (cells + 1), order (n); new_cell and new_start take the incremental
  // re-sort's result, then swap with them.
  Buffer<unsigned> cell, start, order, new_cell, new_start;
  Buffer<Slot> slots;                  // a cell's particles in their slots before the sort within cells
  Buffer<unsigned> count;              // per cell (+ 1 zero), scanned into start
  Buffer<unsigned> head, next;         // linked lists
  Buffer<unsigned> rank;               // counting sort: a particle's place in its cell as counted
  Buffer<unsigned> index, sorted_cell; // radix sort's values and sorted keys
  Buffer<unsigned> bins, overflow;     // binned: `capacity` places per cell, the largest count past them
  // Places per bin: 16 (DPD at density 3 fills a cell with 3), grown to a power of two up to
  // max_capacity when a build overflows; a cell fuller still is built by the counting sort, whose
  // work does not grow with the square of a cell's count.
  static constexpr unsigned max_capacity = 64;
  unsigned capacity = 16;
  Buffer<unsigned> leavers, arrivals, filled, moved_count;  // incremental: per cell, and the total
  // two-level: per bucket its count (then one word more, the overflow), its start, and each block's
  // first place in it
  Buffer<unsigned> bucket_count, bucket_start, share;
  struct BucketPlan {
    unsigned bits = 0, buckets = 0, blocks = 0, chunk = 0;  // buckets of 2^bits cells; blocks of chunk particles
  } plan;
  Buffer<unsigned char> temp;          // CUB's
  Buffer<T> pos_copy, vel_copy;        // host particles uploaded
  Buffer<T> sorted_pos, sorted_vel;    // linked_to_arrays' reordered data
  Buffer<unsigned char> scratch;       // written over before a cold build: twice the L2
  bool cold = false;

  CellGrid<T> grid{};
  PeriodicBox<T> box{};
  T rc = 0;
  std::size_t n = 0;
  unsigned cells = 0;
  bool valid = false;      // a finished build is held
  bool sorted = false;     // sorted_pos (and sorted_vel when has_vel) hold the last build's data
  bool has_vel = false;
  std::size_t moved = 0;
  float ms = 0;

  void upload(const T* host, Buffer<T>& to, std::size_t count) {
    to.reserve(count);
    stream.to_device(to.p, host, count);
  }

  void build(CellBuilder builder, const T* pos, const T* vel, std::size_t count, const PeriodicBox<T>& b, T cutoff) {
    const CellGrid<T> g = checked_grid(b, cutoff, count);
    const bool incremental = builder == CellBuilder::incremental && valid && count == n && same_grid(g, grid);
    valid = sorted = false;
    grid = g, box = b, rc = cutoff, n = count, cells = g.cells();
    has_vel = vel != nullptr;
    if (builder == CellBuilder::two_level) {
      plan = bucket_plan();
      if (!plan.buckets) builder = CellBuilder::counting_sort;  // too crowded or too many cells for its buckets
    }
    reserve(builder, incremental);
    if (cold) {
      scratch.reserve(2 * std::size_t(cuda::device_properties().l2CacheSize));
      NBODY_CUDA_CHECK(cudaMemsetAsync(scratch.p, 0, scratch.capacity, stream));
    }
    stream.mark(started);
    if (n == 0) {
      NBODY_CUDA_CHECK(cudaMemsetAsync(start.p, 0, (cells + 1) * sizeof(unsigned), stream));
    } else {
      switch (builder) {
        case CellBuilder::linked_list:
          insert_lists(pos, false);
          lists_to_arrays(false);
          break;
        case CellBuilder::shared_lists:
          NBODY_CUDA_CHECK(cudaMemsetAsync(head.p, 0xff, cells * sizeof(unsigned), stream));
          shared_lists_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cell.p, head.p, next.p);
          NBODY_CUDA_CHECK_LAUNCH("shared_lists_kernel");
          lists_to_arrays(false);
          break;
        case CellBuilder::linked_to_arrays:
          insert_lists(pos, true);
          lists_to_arrays(true);
          gather_into(pos, sorted_pos.p, 3);
          if (vel) gather_into(vel, sorted_vel.p, 3);
          sorted = true;
          break;
        case CellBuilder::incremental:
          if (incremental) resort(pos);
          else counting_sort(pos);
          break;
        case CellBuilder::counting_sort: counting_sort(pos); break;
        case CellBuilder::radix_sort: radix_sort(pos); break;
        case CellBuilder::binned: binned(pos); break;
        case CellBuilder::two_level: two_level_sort(pos); break;
      }
    }
    stream.mark(finished);
    stream.wait(finished);
    ms = stream.milliseconds(started, finished);
    const unsigned* overflowed = builder == CellBuilder::binned      ? overflow.p
                                 : builder == CellBuilder::two_level ? bucket_count.p + plan.buckets
                                                                     : nullptr;
    if (overflowed && n) {
      const unsigned most = read_back(overflowed);  // a bin's or a bucket's count past what it holds, or 0
      if (most) {  // the build again (both timed): in larger bins, or as a counting sort
        const float first = ms;
        const bool grow = builder == CellBuilder::binned && most <= max_capacity;
        if (grow) capacity = std::bit_ceil(most);
        build(grow ? builder : CellBuilder::counting_sort, pos, vel, count, b, cutoff);
        ms += first;
        return;
      }
    }
    moved = incremental && n ? read_back(moved_count.p) : n;
    valid = true;
  }

  // A device counter's value (after the stream's work).
  unsigned read_back(const unsigned* counter) const {
    unsigned value = 0;
    stream.to_host(&value, counter, 1);
    stream.synchronize();
    return value;
  }

  // Every buffer the build uses, and CUB's temporary storage, before the timed part.
  void reserve(CellBuilder builder, bool incremental) {
    cell.reserve(n), start.reserve(cells + 1), order.reserve(n), count.reserve(cells + 1);
    if (builder != CellBuilder::radix_sort && builder != CellBuilder::binned) slots.reserve(n);  // the others sort slots
    std::size_t bytes = 0;
    NBODY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, count.p, start.p, int(cells + 1), stream));
    switch (builder) {
      case CellBuilder::linked_list:
      case CellBuilder::shared_lists: head.reserve(cells), next.reserve(n); break;
      case CellBuilder::linked_to_arrays:
        head.reserve(cells), next.reserve(n), sorted_pos.reserve(3 * n);
        if (has_vel) sorted_vel.reserve(3 * n);
        break;
      case CellBuilder::incremental:
        if (incremental) {
          new_cell.reserve(n), new_start.reserve(cells + 1);
          for (Buffer<unsigned>* b : {&leavers, &arrivals, &filled}) b->reserve(cells);
          moved_count.reserve(1);
          break;
        }
        [[fallthrough]];  // a fresh counting sort
      case CellBuilder::counting_sort: rank.reserve(n); break;
      case CellBuilder::binned: bins.reserve(std::size_t(cells) * capacity), overflow.reserve(1); break;
      case CellBuilder::two_level:
        bucket_count.reserve(plan.buckets + 1), bucket_start.reserve(plan.buckets + 1);
        share.reserve(std::size_t(plan.blocks) * plan.buckets);
        break;
      case CellBuilder::radix_sort: {
        index.reserve(n), sorted_cell.reserve(n);
        std::size_t sort = 0;
        NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, cell.p, sorted_cell.p, index.p, order.p, int(n), 0,
                                                         key_bits(), stream));
        bytes = std::max(bytes, sort);
        break;
      }
    }
    temp.reserve(std::max<std::size_t>(bytes, 1));
  }

  // The bits of a cell number: the radix sort looks at no others.
  int key_bits() const { return std::max(1, int(std::bit_width(cells - 1))); }

  // count (cells + 1, the last 0) into `to` by CUB's exclusive scan: to[cells] = n.
  void scan_counts(unsigned* to) {
    std::size_t bytes = temp.capacity;
    NBODY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.p, bytes, count.p, to, int(cells + 1), stream));
  }

  // slots into order, each cell sorted (only those with touched[c] != 0 when touched is given).
  void sort_within_cells(const unsigned* starts, const unsigned* touched) {
    sort_within_cells_kernel<<<blocks_for(n, block), block, 0, stream>>>(slots.p, starts, touched, unsigned(n), order.p);
    NBODY_CUDA_CHECK_LAUNCH("sort_within_cells_kernel");
  }

  // (a), (c): S3's lists by atomicExch; counted: (c) counts each cell's particles as they go in.
  void insert_lists(const T* pos, bool counted) {
    NBODY_CUDA_CHECK(cudaMemsetAsync(head.p, 0xff, cells * sizeof(unsigned), stream));
    if (counted) NBODY_CUDA_CHECK(cudaMemsetAsync(count.p, 0, (cells + 1) * sizeof(unsigned), stream));
    insert_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cell.p, head.p, next.p,
                                                              counted ? count.p : nullptr);
    NBODY_CUDA_CHECK_LAUNCH("insert_kernel");
  }

  // The lists into arrays: their lengths (unless counted at insertion), CUB's scan into start, each
  // list walked into its cell's slots, each cell sorted.
  void lists_to_arrays(bool counted) {
    if (!counted) {
      list_lengths_kernel<<<blocks_for(cells + 1, block), block, 0, stream>>>(head.p, next.p, cells, count.p);
      NBODY_CUDA_CHECK_LAUNCH("list_lengths_kernel");
    }
    scan_counts(start.p);
    unroll_lists_kernel<<<blocks_for(cells, block), block, 0, stream>>>(head.p, next.p, start.p, cells, slots.p);
    NBODY_CUDA_CHECK_LAUNCH("unroll_lists_kernel");
    sort_within_cells(start.p, nullptr);
  }

  // (e): atomic count (each particle keeps its place in the count), scan, scatter, cells sorted.
  void counting_sort(const T* pos) {
    NBODY_CUDA_CHECK(cudaMemsetAsync(count.p, 0, (cells + 1) * sizeof(unsigned), stream));
    count_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cell.p, count.p, rank.p);
    NBODY_CUDA_CHECK_LAUNCH("count_kernel");
    scan_counts(start.p);
    scatter_kernel<<<blocks_for(n, block), block, 0, stream>>>(cell.p, rank.p, start.p, unsigned(n), slots.p);
    NBODY_CUDA_CHECK_LAUNCH("scatter_kernel");
    sort_within_cells(start.p, nullptr);
  }

  // (f): CUB's radix sort of (cell, index) pairs, stable, so a cell's indices come out increasing;
  // then where each cell starts.
  void radix_sort(const T* pos) {
    keys_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cell.p, index.p);
    NBODY_CUDA_CHECK_LAUNCH("keys_kernel");
    std::size_t bytes = temp.capacity;
    NBODY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.p, bytes, cell.p, sorted_cell.p, index.p, order.p, int(n), 0,
                                                     key_bits(), stream));
    cell_starts_kernel<<<blocks_for(n, block), block, 0, stream>>>(sorted_cell.p, unsigned(n), cells, start.p);
    NBODY_CUDA_CHECK_LAUNCH("cell_starts_kernel");
  }

  // (g): HOOMD-blue's bins: the count's places put each particle into its cell's bin, the scan,
  // and each bin into its cell's slots of order by index. A cell that held more than the capacity
  // is left out; build() then sees the overflow and builds again (in larger bins, or as a counting
  // sort when the cell would need more than max_capacity places).
  void binned(const T* pos) {
    NBODY_CUDA_CHECK(cudaMemsetAsync(count.p, 0, (cells + 1) * sizeof(unsigned), stream));
    NBODY_CUDA_CHECK(cudaMemsetAsync(overflow.p, 0, sizeof(unsigned), stream));
    bin_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cells, capacity, cell.p, count.p, bins.p, overflow.p);
    NBODY_CUDA_CHECK_LAUNCH("bin_kernel");
    scan_counts(start.p);
    bins_to_order_kernel<<<blocks_for(cells, block), block, 0, stream>>>(bins.p, start.p, cells, capacity, order.p);
    NBODY_CUDA_CHECK_LAUNCH("bins_to_order_kernel");
  }

  // (h) the two-level bucket sort in the shape `plan` (kernels/cuda/cell_list.cuh); a bucket past its
  // capacity leaves its count in the word after the buckets' counts, and build() builds again.
  void two_level_sort(const T* pos) {
    const BucketPlan& p = plan;
    constexpr unsigned threads = two_level::threads;
    NBODY_CUDA_CHECK(cudaMemsetAsync(bucket_count.p, 0, (p.buckets + 1) * sizeof(unsigned), stream));
    bucket_count_kernel<<<p.blocks, threads, 0, stream>>>(pos, unsigned(n), grid, p.bits, p.buckets, p.chunk, cell.p,
                                                          bucket_count.p, share.p);
    NBODY_CUDA_CHECK_LAUNCH("bucket_count_kernel");
    bucket_scatter_kernel<<<p.blocks, threads, 0, stream>>>(cell.p, unsigned(n), p.bits, p.buckets, p.chunk, bucket_count.p,
                                                            share.p, bucket_start.p, slots.p);
    NBODY_CUDA_CHECK_LAUNCH("bucket_scatter_kernel");
    bucket_sort_kernel<<<p.buckets, threads, 0, stream>>>(slots.p, bucket_start.p, p.bits, cells, unsigned(n), start.p,
                                                          order.p, bucket_count.p + p.buckets);
    NBODY_CUDA_CHECK_LAUNCH("bucket_sort_kernel");
  }

  // The two-level sort's shape for n particles in `cells` cells: the widest buckets (at most
  // 2^max_bits cells) whose mean count, with eight standard deviations of a uniform box's
  // fluctuation, fits a block's shared memory, and fewer buckets than the kernels count; none
  // (buckets 0) when no width fits. A block per 4096 particles, but no more blocks than the device
  // holds at once (two of 1024 threads per multiprocessor), which then take more each.
  BucketPlan bucket_plan() const {
    BucketPlan p;
    const double per_cell = double(n) / cells;
    for (int bits = int(two_level::max_bits); bits >= 0; --bits) {
      const double mean = per_cell * double(1u << bits);
      if (mean + 8 * std::sqrt(mean) > two_level::max_in_bucket) continue;
      const std::size_t buckets = (std::size_t(cells) + (1u << bits) - 1) >> bits;
      if (buckets < two_level::max_buckets) p.bits = unsigned(bits), p.buckets = unsigned(buckets);
      break;  // narrower buckets would be more still
    }
    if (!p.buckets || n == 0) return BucketPlan{};
    const std::size_t resident = 2 * std::size_t(cuda::device_properties().multiProcessorCount);
    p.blocks = unsigned(std::min<std::size_t>(resident, blocks_for(n, 4096)));
    p.chunk = unsigned((n + p.blocks - 1) / p.blocks);
    return p;
  }

  // (d), S3's incremental re-sort of the list held (same n and grid) for new positions. The
  // particles that changed cell are counted out of their old cells and into their new ones; the new
  // counts are scanned into the new starts; the particles that stayed move up to the front of their
  // cell's new slots in their old (increasing) order, the movers are put after them, and only the
  // cells that received movers are sorted again. Arrays, unlike S3's lists, have no holes: the
  // stayers' slots shift (a copy, no atomics), and only movers are taken out and put back.
  void resort(const T* pos) {
    for (Buffer<unsigned>* b : {&leavers, &arrivals, &filled})
      NBODY_CUDA_CHECK(cudaMemsetAsync(b->p, 0, cells * sizeof(unsigned), stream));
    NBODY_CUDA_CHECK(cudaMemsetAsync(moved_count.p, 0, sizeof(unsigned), stream));
    classify_kernel<<<blocks_for(n, block), block, 0, stream>>>(pos, unsigned(n), grid, cell.p, new_cell.p, leavers.p, arrivals.p,
                                                                moved_count.p);
    NBODY_CUDA_CHECK_LAUNCH("classify_kernel");
    recount_kernel<<<blocks_for(cells + 1, block), block, 0, stream>>>(start.p, leavers.p, arrivals.p, cells, count.p);
    NBODY_CUDA_CHECK_LAUNCH("recount_kernel");
    scan_counts(new_start.p);
    keep_stayers_kernel<<<blocks_for(n, block), block, 0, stream>>>(order.p, start.p, cell.p, new_cell.p, leavers.p, new_start.p,
                                                                    unsigned(n), slots.p);
    NBODY_CUDA_CHECK_LAUNCH("keep_stayers_kernel");
    insert_movers_kernel<<<blocks_for(n, block), block, 0, stream>>>(cell.p, new_cell.p, start.p, leavers.p, new_start.p,
                                                                     unsigned(n), filled.p, slots.p);
    NBODY_CUDA_CHECK_LAUNCH("insert_movers_kernel");
    sort_within_cells(new_start.p, arrivals.p);
    swap(cell, new_cell);
    swap(start, new_start);
  }

  template <class U>
  void gather_into(const U* in, U* out, unsigned components) const {
    if (n == 0) return;
    gather_kernel<<<blocks_for(n, block), block, 0, stream>>>(order.p, in, unsigned(n), components, out);
    NBODY_CUDA_CHECK_LAUNCH("gather_kernel");
  }

  void require_list() const {
    if (!valid) throw InputError("the CUDA cell list has not been built");
  }

};

template <class T>
DeviceCellList<T>::DeviceCellList() : impl_(std::make_unique<Impl>()) {}
template <class T>
DeviceCellList<T>::~DeviceCellList() = default;

template <class T>
void DeviceCellList<T>::build(CellBuilder builder, const T* pos, std::size_t n, const PeriodicBox<T>& box, T rc, const T* vel) {
  (void)checked_grid(box, rc, n);  // before any upload
  Impl& m = *impl_;
  m.upload(pos, m.pos_copy, 3 * n);
  if (vel) m.upload(vel, m.vel_copy, 3 * n);
  m.build(builder, m.pos_copy.p, vel ? m.vel_copy.p : nullptr, n, box, rc);
}

template <class T>
void DeviceCellList<T>::build_on_device(CellBuilder builder, const T* device_pos, std::size_t n, const PeriodicBox<T>& box,
                                        T rc, const T* device_vel) {
  impl_->build(builder, device_pos, device_vel, n, box, rc);
}

template <class T>
void DeviceCellList<T>::rebuild_incremental(const T* pos) {
  impl_->require_list();
  build(CellBuilder::incremental, pos, impl_->n, impl_->box, impl_->rc);
}

template <class T>
void DeviceCellList<T>::set_cold_cache(bool cold) {
  impl_->cold = cold;
}

template <class T>
double DeviceCellList<T>::last_build_seconds() const {
  return impl_->ms * 1e-3;
}
template <class T>
std::size_t DeviceCellList<T>::moved() const {
  return impl_->moved;
}

template <class T>
void DeviceCellList<T>::download(CellList<T>& list) const {
  const Impl& m = *impl_;
  m.require_list();
  list.grid = m.grid;
  m.stream.to_host(list.start, m.start.p, m.cells + 1);
  m.stream.to_host(list.order, m.order.p, m.n);
  m.stream.to_host(list.cell, m.cell.p, m.n);
  m.stream.synchronize();
}

template <class T>
void DeviceCellList<T>::download_sorted(std::vector<T>& pos, std::vector<T>& vel) const {
  const Impl& m = *impl_;
  m.require_list();
  if (!m.sorted) throw InputError("only the linked-to-arrays builder reorders the particle data");
  m.stream.to_host(pos, m.sorted_pos.p, 3 * m.n);
  m.stream.to_host(vel, m.sorted_vel.p, m.has_vel ? 3 * m.n : 0);
  m.stream.synchronize();
}

template <class T>
const unsigned* DeviceCellList<T>::device_start() const {
  return impl_->start.p;
}
template <class T>
const unsigned* DeviceCellList<T>::device_order() const {
  return impl_->order.p;
}
template <class T>
const unsigned* DeviceCellList<T>::device_cell() const {
  return impl_->cell.p;
}
template <class T>
const T* DeviceCellList<T>::sorted_positions() const {
  return impl_->sorted ? impl_->sorted_pos.p : nullptr;
}
template <class T>
const T* DeviceCellList<T>::sorted_velocities() const {
  return impl_->sorted && impl_->has_vel ? impl_->sorted_vel.p : nullptr;
}

template <class T>
template <class U>
void DeviceCellList<T>::gather(const U* device_in, U* device_out, unsigned components, bool wait) const {
  impl_->require_list();
  impl_->gather_into(device_in, device_out, components);
  if (wait) impl_->stream.synchronize();
}

template class DeviceCellList<float>;
template class DeviceCellList<double>;
template void DeviceCellList<float>::gather(const float*, float*, unsigned, bool) const;
template void DeviceCellList<float>::gather(const unsigned*, unsigned*, unsigned, bool) const;
template void DeviceCellList<double>::gather(const double*, double*, unsigned, bool) const;
template void DeviceCellList<double>::gather(const unsigned*, unsigned*, unsigned, bool) const;

}  // namespace nbody::particles
