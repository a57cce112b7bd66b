#pragma once
// mpi-octree: seed S4's octree distributed over the MPI ranks of `mpiexec -n P nbody ...`, as the
// codes that reached the largest systems distribute theirs (Salmon and Warren's locally essential
// trees; Bonsai; the cornerstone octree's global tree): the bodies in Morton-key order over the
// cube of all of them, cut into P domains of equal work (each body's terms in the last
// evaluation; domains end between keys). The tree is the one-process tree, in parts:
//   shared cells   the cells whose bodies lie in several domains: those that hold the last body
//                  of one domain and the first of the next. Every rank knows them, their bodies'
//                  counts (each rank's, gathered) and so which of them split, and computes their
//                  moments from their children's (gathered) as the build does;
//   top cells      a shared cell's children that lie in one domain: its rank grows each one's
//                  subtree from its own bodies (grow_cells), the one-process tree's cells;
//   shared leaves  a shared cell of at most --leaf-size bodies: its bodies, gathered.
// Each rank sends every other rank the essential tree of its top cells for that rank's cells (its
// top cells and the shared leaves it has bodies in, each cut to the box of its bodies;
// essential.hpp) and walks its bodies over the tree they make together: the same terms in the
// same order as the one-process walk, so the result equals `octree`'s bit for bit on any number
// of ranks, and a run's bits do not depend on P.
//
// The bodies: each rank holds a block of them (set_blocks: no rank holds them all; `nbody bench`),
// or every rank all of them (the run loop's state, as for mpi:<engine>), of which it takes its
// block. The cut needs no rank to see all keys: the cuts between domains are found by bisection
// over the keys, each rank counting the work below a candidate in its block (mpi::sum). Each rank
// sends its bodies to their domains' ranks (their ids, which break ties of keys as the one-process
// sort does) and gets their sums and terms back; given all bodies, the ranks then gather every
// block's sums (MPI_Allgatherv).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "engines/engine.hpp"
#include "engines/octree/essential.hpp"
#include "engines/octree/octree_cpu.hpp"
#include "engines/octree/tree.hpp"
#include "mpi/ranks.hpp"

namespace nbody::octree {

// A cell of the one-process tree: its level and its key's first 3 level bits.
struct Cell {
  unsigned level = 0;
  unsigned long long prefix = 0;
  unsigned shift() const { return 3 * (max_level - level); }
  unsigned long long first_key() const { return prefix << shift(); }  // the first key in it
  Cell child(unsigned octant) const { return {level + 1, prefix << 3 | octant}; }
  auto operator<=>(const Cell&) const = default;
};

// The number of keys of the sorted keys [key, key + n) in cell c.
inline unsigned count_in(const unsigned long long* key, std::size_t n, const Cell& c) {
  const unsigned long long lo = c.first_key(), hi = (c.prefix + 1) << c.shift();  // < 2^63 + 1: no overflow
  const auto* b = std::lower_bound(key, key + n, lo);
  return static_cast<unsigned>((c.level == 0 ? key + n : std::lower_bound(b, key + n, hi)) - b);
}

// What a rank tells every other before the tree: its bodies' count, first and last key, and box.
template <class T>
struct Extent {
  unsigned long long count = 0, first = 0, last = 0;
  T lo[3] = {}, hi[3] = {};
};

// What a rank tells every other first: its block's count, work and box; added up, all bodies'.
template <class T>
struct Summary {
  unsigned long long count = 0, work = 0;
  T lo[3] = {}, hi[3] = {};
  void add(const Summary& b) {
    if (!b.count) return;
    for (int a = 0; a < 3; ++a) {
      lo[a] = count == 0 || b.lo[a] < lo[a] ? b.lo[a] : lo[a];
      hi[a] = count == 0 || b.hi[a] > hi[a] ? b.hi[a] : hi[a];
    }
    count += b.count, work += b.work;
  }
};

// The shared cells of the domains whose extents are given, sorted (every level's after the one
// above): for each two consecutive domains with bodies, the cells that hold the last key of the
// first and the first key of the second.
template <class T>
std::vector<Cell> shared_cells(const std::vector<Extent<T>>& extents) {
  std::vector<Cell> cells;
  const Extent<T>* before = nullptr;
  for (const Extent<T>& e : extents) {
    if (!e.count) continue;
    if (before)
      for (unsigned l = 0; l <= max_level; ++l) {
        const Cell c{l, before->last >> (3 * (max_level - l))};
        if (c.prefix != e.first >> (3 * (max_level - l))) break;
        cells.push_back(c);
      }
    before = &e;
  }
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  return cells;
}

// The top of the one-process tree, the same on every rank: its shared cells and top cells in
// breadth-first order, each cell's children contiguous (a View's layout).
struct TopPlan {
  enum class Kind { shared, shared_leaf, top };
  struct Slot {
    Kind kind;
    Cell cell;
    unsigned owner = 0, index = 0;  // top: its rank and its place among that rank's top cells
    unsigned child = 0, nchild = 0;  // shared: its children's slots
    std::size_t shared = 0;          // shared and shared_leaf: its index among the shared cells
  };
  std::vector<Slot> slots;
  std::vector<std::vector<Cell>> tops;  // each rank's top cells, in slot order
};

// counts[r][9 j + 0]: rank r's bodies in shared cell j, [9 j + 1 + o] in its child o.
template <class T>
TopPlan plan_top(const std::vector<Extent<T>>& extents, const std::vector<Cell>& shared,
                 const std::vector<std::vector<unsigned>>& counts, unsigned k) {
  const std::size_t ranks = extents.size();
  TopPlan plan;
  plan.tops.resize(ranks);
  auto add_top = [&](const Cell& c, unsigned owner) {
    plan.slots.push_back({TopPlan::Kind::top, c, owner, static_cast<unsigned>(plan.tops[owner].size()), 0, 0, 0});
    plan.tops[owner].push_back(c);
  };
  if (shared.empty()) {  // one domain holds every body: the tree is its rank's
    for (std::size_t r = 0; r < ranks; ++r)
      if (extents[r].count) add_top(Cell{}, static_cast<unsigned>(r));
    return plan;
  }
  auto index_of = [&](const Cell& c) -> std::ptrdiff_t {
    const auto it = std::lower_bound(shared.begin(), shared.end(), c);
    return it != shared.end() && *it == c ? it - shared.begin() : -1;
  };
  auto total = [&](std::size_t j, unsigned part) {
    unsigned long long sum = 0;
    for (std::size_t r = 0; r < ranks; ++r) sum += counts[r][9 * j + part];
    return sum;
  };
  plan.slots.push_back({TopPlan::Kind::shared, Cell{}, 0, 0, 0, 0, static_cast<std::size_t>(index_of(Cell{}))});
  for (std::size_t s = 0; s < plan.slots.size(); ++s) {
    if (plan.slots[s].kind != TopPlan::Kind::shared) continue;
    const Cell c = plan.slots[s].cell;
    const std::size_t j = plan.slots[s].shared;
    if (total(j, 0) <= k || c.level == max_level) {
      plan.slots[s].kind = TopPlan::Kind::shared_leaf;
      continue;
    }
    const unsigned first = static_cast<unsigned>(plan.slots.size());
    for (unsigned o = 0; o < 8; ++o) {
      if (!total(j, 1 + o)) continue;
      const Cell child = c.child(o);
      if (const std::ptrdiff_t i = index_of(child); i >= 0) {
        plan.slots.push_back({TopPlan::Kind::shared, child, 0, 0, 0, 0, static_cast<std::size_t>(i)});
        continue;
      }
      for (std::size_t r = 0; r < ranks; ++r)  // the one rank whose bodies it holds
        if (counts[r][9 * j + 1 + o]) add_top(child, static_cast<unsigned>(r));
    }
    plan.slots[s].child = first, plan.slots[s].nchild = static_cast<unsigned>(plan.slots.size()) - first;
  }
  return plan;
}

template <class T>
class DistributedEngine final : public ForceEngine<T> {
 public:
  struct info {
    static constexpr std::string_view name = "mpi-octree";
    static constexpr std::string_view description =
        "S4's octree over MPI ranks: Morton-key domains of equal work, each rank's part of the tree sent to the "
        "others as locally essential trees; octree's result bit for bit on any number of ranks";
    static EngineCapabilities capabilities() {  // octree's, distributed
      EngineCapabilities c = CpuEngine<T>::info::capabilities();
      c.distributed = true;
      c.bits_of = "octree";
      c.host_reals = 40;  // octree's, the key order, the terms, the sums in key order, the walked copy
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    evaluate<AccelerationSum<T>>(pos, mass, n, acc, 3);
  }
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override {
    const TreeProfile tree = tree_profile_;
    const RankProfile ranks = rank_profile_;
    evaluate<PotentialSum<T>>(pos, mass, n, phi, 1);
    tree_profile_ = tree, rank_profile_ = ranks;  // the forces' profile stays the last one reported
  }
  std::string body_potential_method() const override {
    return "octree walks over MPI ranks on the CPU (OpenMP; " + opening_text(TreeKind::octree, this->law_.tree) + ")";
  }
  TreeProfile last_tree_profile() const override { return tree_profile_; }
  RankProfile last_rank_profile() const override { return rank_profile_; }
  void set_blocks(bool blocks) override { blocks_ = blocks; }

 private:
  using clock = std::chrono::steady_clock;
  static double seconds(clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
  unsigned leaf_size() const { return leaf_size_or(this->law_.tree, info::capabilities().leaf_size); }

  // out (components x n, SoA) = each body's Sum; every rank takes part (collectives), each
  // preceded by an agreement on the ranks' failures. The bodies go from the ranks that hold them to
  // their domains' ranks and the sums come back: a rank holds its block (blocks_), or, given all
  // bodies, takes the block mpi::block_bounds gives it and the blocks' sums are then gathered.
  template <class Sum>
  void evaluate(const T* pos, const T* mass, std::size_t n, T* out, int components) {
    const auto t0 = clock::now();
    const unsigned long long sent = mpi::bytes_sent();
    const std::size_t ranks = static_cast<std::size_t>(mpi::size()), me = static_cast<std::size_t>(mpi::rank());
    const std::vector<std::size_t> all_blocks = blocks_ ? std::vector<std::size_t>{} : mpi::block_bounds(n);
    const Held held{pos, mass, n, blocks_ ? 0 : all_blocks[me], blocks_ ? n : all_blocks[me + 1] - all_blocks[me]};
    double exchange = 0;
    auto collective = [&](auto&& f) {
      const auto a = clock::now();
      auto result = f();
      exchange += seconds(a, clock::now());
      return result;
    };
    mpi::Failure failure;
    // The cube of all bodies, their number and work, and where this rank's block starts.
    std::vector<unsigned char> mine;
    failure.run([&] { pod_bytes(held.summary(work_), mine); });
    failure.agree();
    const auto summaries = collective([&] { return mpi::all_gather(mine); });
    Summary<T> all;
    std::size_t first_id = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      const Summary<T> b = from_bytes<Summary<T>>(summaries[r]);
      if (r < me) first_id += b.count;
      all.add(b);
    }
    if (all.count == 0) return;
    // The domains: the bodies in key order over the cube of all, cut where the work reaches each
    // rank's share (the bodies' keys, this rank's counted by bisection; every rank the same cuts).
    std::vector<std::vector<unsigned char>> to(ranks);
    failure.run([&] {
      if (all.count >= std::size_t(1) << 31) throw InputError("tree engines take fewer than 2^31 bodies");
      cube_ = bounding_cube(all.lo[0], all.lo[1], all.lo[2], all.hi[0], all.hi[1], all.hi[2]);
      key_held(held, first_id);
    });
    failure.agree();
    const std::vector<unsigned long long> cuts = collective([&] { return domain_cuts(all.work); });
    failure.run([&] { to = bodies_to_domains(held, cuts); });
    failure.agree();
    unsigned long long body_bytes = mpi::bytes_sent();  // the bodies' and their sums' (a difference)
    const auto bodies = collective([&] { return mpi::all_to_all(to); });
    body_bytes = mpi::bytes_sent() - body_bytes;
    failure.run([&] {
      sort_domain(bodies);
      mine.clear();
      pod_bytes(extent(), mine);
    });
    failure.agree();
    const auto extent_bytes = collective([&] { return mpi::all_gather(mine); });
    // The shared cells and each rank's bodies in them and in their children.
    std::vector<Extent<T>> extents;
    std::vector<Cell> shared;
    failure.run([&] {
      for (const auto& b : extent_bytes) extents.push_back(from_bytes<Extent<T>>(b));
      shared = shared_cells(extents);
      std::vector<unsigned> my_counts;
      for (const Cell& c : shared) {
        my_counts.push_back(count_in(tree_.key.data(), tree_.key.size(), c));
        for (unsigned o = 0; o < 8; ++o)
          my_counts.push_back(c.level < max_level ? count_in(tree_.key.data(), tree_.key.size(), c.child(o)) : 0u);
      }
      mine.clear();
      ByteWriter{mine}.put(my_counts);
    });
    failure.agree();
    std::vector<std::vector<unsigned>> counts;
    for (const auto& b : collective([&] { return mpi::all_gather(mine); })) {
      ByteReader r{b.data(), b.size()};
      r.get(counts.emplace_back(), 9 * shared.size());
      r.finish();
    }
    // This rank's top cells grown, their moments and its bodies of the shared leaves to all.
    TopPlan plan;
    failure.run([&] {
      plan = plan_top(extents, shared, counts, leaf_size());
      std::vector<Seed> seeds;
      for (const Cell& c : plan.tops[me]) {
        const auto [b, e] = key_range(c);
        seeds.push_back({c.level, static_cast<unsigned>(b), static_cast<unsigned>(e)});
      }
      grow_cells(tree_, seeds, this->law_.tree, leaf_size());
      mine.clear();
      ByteWriter w{mine};
      const TreeShape shape = tree_.shape();
      w.put(&shape, sizeof shape);
      for (unsigned t = 0; t < plan.tops[me].size(); ++t) w.put(&tree_.node[4 * t], 4 * sizeof(T)), w.put(&tree_.mass[t], sizeof(T));
      if (this->law_.tree.quadrupole) w.put(tree_.quad.data(), 6 * plan.tops[me].size() * sizeof(T));
      for (const auto& slot : plan.slots)
        if (slot.kind == TopPlan::Kind::shared_leaf) {
          const auto [b, e] = key_range(slot.cell);
          for (const auto* v : {&tree_.bx, &tree_.by, &tree_.bz, &tree_.bm}) w.put(v->data() + b, (e - b) * sizeof(T));
        }
      to.assign(ranks, {});
      for (std::size_t r = 0; r < ranks; ++r)  // the essential tree of each other domain's cells
        if (r != me && extents[r].count && !plan.tops[me].empty())
          pack(essential_tree(tree_, boxes_of(r, plan, counts, extents[r])), to[r]);
    });
    failure.agree();
    const auto gathered = collective([&] { return mpi::all_gather(mine); });
    const auto received = collective([&] { return mpi::all_to_all(to); });
    // The tree of this rank's walks: the top, its own cells and the essential trees received.
    const std::size_t count = tree_.key.size();
    std::vector<T> sums(static_cast<std::size_t>(components) * count);
    std::vector<unsigned> terms(count, 0);
    const auto t1 = clock::now();
    const double build_seconds = seconds(t0, t1) - exchange;  // the cut, the sort and the top cells' trees
    unsigned long long cells = 0;
    T root_mass = 0;
    failure.run([&] {
      const EssentialTree<T> walked = assemble(plan, counts, gathered, received);
      root_mass = walked.mass[0];
      cells = walk_domain<Sum>(walked, sums.data(), terms.data());
      to = sums_to_holders(sums, terms, components);
    });
    failure.agree();
    const auto t2 = clock::now();
    // The domain's sums and terms back to the ranks that hold the bodies.
    const unsigned long long sums_from = mpi::bytes_sent();
    const auto back = mpi::all_to_all(to);
    failure.run([&] { receive_sums(back, held, out, components); });
    failure.agree();
    if (!blocks_)
      for (int c = 0; c < components; ++c) mpi::exchange_blocks(out + c * n, sizeof(T), all_blocks, mpi::Exchange::allgatherv);
    body_bytes += mpi::bytes_sent() - sums_from;
    std::vector<unsigned long long> totals = {cells, 0, body_bytes};
    for (unsigned w : terms) totals[1] += w;
    const mpi::BytesSent bytes = mpi::bytes_sent_since(sent);
    mpi::sum(totals);
    const auto t3 = clock::now();
    exchange += seconds(t2, t3);
    tree_profile_ = TreeProfile::timed(build_seconds, seconds(t1, t2), double(totals[1]) / double(all.count));
    tree_profile_.cell_terms_per_body = double(totals[0]) / double(all.count);
    tree_profile_.shape = shape_;
    tree_profile_.root_mass = double(root_mass);
    rank_profile_.ranks = static_cast<int>(ranks);
    rank_profile_.exchange = "essential trees";
    rank_profile_.compute_seconds = seconds(t0, t3) - exchange;
    rank_profile_.exchange_seconds = exchange;
    rank_profile_.total_compute_seconds += rank_profile_.compute_seconds;
    rank_profile_.total_exchange_seconds += rank_profile_.exchange_seconds;
    rank_profile_.count_bytes(bytes.mean, bytes.most);
    rank_profile_.body_bytes = double(totals[2]) / double(ranks);
  }

  template <class V>
  static void pod_bytes(const V& v, std::vector<unsigned char>& out) { ByteWriter{out}.put(&v, sizeof v); }
  template <class V>
  static V from_bytes(const std::vector<unsigned char>& b) {
    V v;
    ByteReader r{b.data(), b.size()};
    r.get(&v, sizeof v);
    r.finish();
    return v;
  }

  // The bodies this rank holds: [first, first + count) of the n given (SoA over n).
  struct Held {
    const T* pos;
    const T* mass;
    std::size_t n, first, count;
    T x(int a, std::size_t i) const { return pos[a * n + first + i]; }
    T m(std::size_t i) const { return mass[first + i]; }
    // Their number, work (each body's terms in the last evaluation, 1 at first) and box.
    Summary<T> summary(std::vector<unsigned>& work) const {
      if (work.size() != count) work.assign(count, 1);
      Summary<T> s;
      s.count = count;
      for (unsigned w : work) s.work += w;
      for (int a = 0; a < 3; ++a) coordinate_range(pos + a * n + first, count, s.lo[a], s.hi[a]);
      return s;
    }
  };

  // The held bodies' keys over the cube of all, sorted with their ids (held_, a body's place in
  // the key order of all bodies), and the work below each of them (work_below_).
  void key_held(const Held& h, std::size_t first_id) {
    held_.resize(h.count);
    for (std::size_t i = 0; i < h.count; ++i)
      held_[i] = {morton_key(h.x(0, i), h.x(1, i), h.x(2, i), cube_), first_id + i, i};
    std::sort(held_.begin(), held_.end(), [](const Keyed& a, const Keyed& b) { return std::tie(a.key, a.id) < std::tie(b.key, b.id); });
    work_below_.assign(h.count + 1, 0);
    for (std::size_t k = 0; k < h.count; ++k) work_below_[k + 1] = work_below_[k] + work_[held_[k].index];
  }

  // The first key of each rank's domain (P + 1 cuts: 0, ..., 2^63): cut r is the least key v with
  // the work of the bodies below v at least total r / P, found by bisection in 16 parts at once for
  // every cut, the work below each candidate summed over the ranks (whole numbers: every rank finds
  // the same cuts).
  std::vector<unsigned long long> domain_cuts(unsigned long long total) const {
    const std::size_t ranks = static_cast<std::size_t>(mpi::size());
    constexpr unsigned long long end = 1ull << 63;  // above every key (3 x 21 bits)
    constexpr unsigned parts = 16;
    std::vector<unsigned long long> lo(ranks + 1, 0), hi(ranks + 1, end);  // work below lo < share <= work below hi
    hi[0] = 0;
    auto below = [&](unsigned long long v) {
      const auto it = std::lower_bound(held_.begin(), held_.end(), v, [](const Keyed& k, unsigned long long x) { return k.key < x; });
      return work_below_[static_cast<std::size_t>(it - held_.begin())];
    };
    auto candidate = [&](std::size_t r, unsigned p) {
      return lo[r] + static_cast<unsigned long long>((unsigned __int128)(hi[r] - lo[r]) * p / parts);
    };
    for (;;) {
      bool open = false;
      std::vector<unsigned long long> work;
      for (std::size_t r = 1; r < ranks; ++r)
        for (unsigned p = 1; p < parts; ++p) work.push_back(below(candidate(r, p))), open = open || hi[r] - lo[r] > 1;
      if (!open) break;
      mpi::sum(work);
      for (std::size_t r = 1; r < ranks; ++r) {
        std::array<unsigned long long, parts> v;  // this round's candidates, before lo and hi move
        for (unsigned p = 1; p < parts; ++p) v[p] = candidate(r, p);
        for (unsigned p = 1; p < parts; ++p) {
          const bool reached = (unsigned __int128)work[(r - 1) * (parts - 1) + p - 1] * ranks >= (unsigned __int128)total * r;
          if (reached) hi[r] = std::min(hi[r], v[p]);
          else lo[r] = std::max(lo[r], v[p]);
        }
      }
    }
    hi[ranks] = end;
    return hi;
  }

  // Each domain's rank's part of the held bodies (their ids, positions and masses, in key order);
  // sent_ keeps which they are, for the sums that come back.
  std::vector<std::vector<unsigned char>> bodies_to_domains(const Held& h, const std::vector<unsigned long long>& cuts) {
    const std::size_t ranks = cuts.size() - 1;
    std::vector<std::vector<unsigned char>> to(ranks);
    sent_.assign(ranks + 1, 0);
    std::size_t k = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      sent_[r] = k;
      ByteWriter w{to[r]};
      for (; k < held_.size() && held_[k].key < cuts[r + 1]; ++k) {
        const std::size_t i = held_[k].index;
        const T body[4] = {h.x(0, i), h.x(1, i), h.x(2, i), h.m(i)};
        w.put(&held_[k].id, sizeof(std::uint64_t));
        w.put(body, sizeof body);
      }
    }
    sent_[ranks] = k;
    return to;
  }

  // This rank's domain: the bodies received, sorted into tree_ by key and id (the one-process
  // tree's order; their tree grows later); from_ keeps where each came from.
  void sort_domain(const std::vector<std::vector<unsigned char>>& bodies) {
    struct Arrived {
      unsigned long long key;
      std::uint64_t id;
      T body[4];
      unsigned rank, index;
    };
    std::vector<Arrived> arrived;
    for (std::size_t r = 0; r < bodies.size(); ++r) {
      ByteReader in{bodies[r].data(), bodies[r].size()};
      for (unsigned j = 0; in.at < in.size; ++j) {
        Arrived a{0, 0, {}, static_cast<unsigned>(r), j};
        in.get(&a.id, sizeof a.id);
        in.get(a.body, sizeof a.body);
        a.key = morton_key(a.body[0], a.body[1], a.body[2], cube_);
        arrived.push_back(a);
      }
    }
    std::sort(arrived.begin(), arrived.end(), [](const Arrived& a, const Arrived& b) { return std::tie(a.key, a.id) < std::tie(b.key, b.id); });
    const std::size_t count = arrived.size();
    std::vector<T> p(3 * count), m(count);
    from_.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      for (int a = 0; a < 3; ++a) p[a * count + k] = arrived[k].body[a];
      m[k] = arrived[k].body[3];
      from_[k] = {arrived[k].rank, arrived[k].index};
    }
    from_counts_.assign(bodies.size(), 0);
    for (const auto& f : from_) ++from_counts_[f.first];
    sort_bodies(p.data(), m.data(), count, cube_, tree_);
  }

  // The domain's sums (components x count, SoA, in the domain's order) and terms, each back to the
  // rank it came from, in the order that rank sent it.
  std::vector<std::vector<unsigned char>> sums_to_holders(const std::vector<T>& sums, const std::vector<unsigned>& terms,
                                                          int components) const {
    const std::size_t count = terms.size(), record = components * sizeof(T) + sizeof(unsigned);
    std::vector<std::vector<unsigned char>> to(from_counts_.size());
    for (std::size_t r = 0; r < to.size(); ++r) to[r].resize(from_counts_[r] * record);
    for (std::size_t k = 0; k < count; ++k) {
      unsigned char* at = to[from_[k].first].data() + from_[k].second * record;
      for (int c = 0; c < components; ++c, at += sizeof(T)) std::memcpy(at, &sums[c * count + k], sizeof(T));
      std::memcpy(at, &terms[k], sizeof(unsigned));
    }
    return to;
  }

  // The held bodies' sums into out (their places among the n given) and their terms into work_.
  void receive_sums(const std::vector<std::vector<unsigned char>>& back, const Held& h, T* out, int components) {
    for (std::size_t r = 0; r + 1 < sent_.size(); ++r) {
      ByteReader in{back[r].data(), back[r].size()};
      for (std::size_t k = sent_[r]; k < sent_[r + 1]; ++k) {
        const std::size_t i = held_[k].index;
        for (int c = 0; c < components; ++c) in.get(&out[c * h.n + h.first + i], sizeof(T));
        in.get(&work_[i], sizeof(unsigned));
      }
      in.finish();
    }
  }

  Extent<T> extent() const {
    Extent<T> e;
    e.count = tree_.key.size();
    if (!e.count) return e;
    e.first = tree_.key.front(), e.last = tree_.key.back();
    for (int a = 0; a < 3; ++a) {
      const std::vector<T>& v = a == 0 ? tree_.bx : a == 1 ? tree_.by : tree_.bz;
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      e.lo[a] = *lo, e.hi[a] = *hi;
    }
    return e;
  }

  // Boxes that hold rank r's bodies: each cell of the plan where r has bodies (its top cells, the
  // shared leaves it has bodies in), cut to the box of r's bodies. A cell grows on every side by
  // two cells of the finest level and a few roundings of its coordinates: a body's cell comes
  // from its rounded key, and the cell's bounds here are rounded too, so a body may lie that much
  // outside them. Cells of different ranks do not overlap, so a rank's essential tree for them
  // is far smaller than for the one box of its bodies, which may reach into other domains.
  std::vector<Box<T>> boxes_of(std::size_t r, const TopPlan& plan, const std::vector<std::vector<unsigned>>& counts,
                               const Extent<T>& bodies) const {
    std::vector<Box<T>> boxes;
    constexpr T eps = std::numeric_limits<T>::epsilon();
    for (const TopPlan::Slot& slot : plan.slots) {
      const bool has = slot.kind == TopPlan::Kind::top ? slot.owner == r
                       : slot.kind == TopPlan::Kind::shared_leaf && counts[r][9 * slot.shared] > 0;
      if (!has) continue;
      T c[3], side;
      cell_centre(slot.cell.first_key(), slot.cell.level, cube_, c[0], c[1], c[2], side);
      Box<T> b;
      for (int a = 0; a < 3; ++a) {
        const T margin = cube_.side / T(1u << (max_level - 1)) + T(8) * eps * (std::abs(c[a]) + cube_.side);
        b.lo[a] = std::max(bodies.lo[a], c[a] - side / 2 - margin), b.hi[a] = std::min(bodies.hi[a], c[a] + side / 2 + margin);
      }
      boxes.push_back(b);
    }
    return boxes;
  }

  // This rank's bodies in cell c: [first, end) of tree_'s key order.
  std::pair<std::size_t, std::size_t> key_range(const Cell& c) const {
    const auto b = std::lower_bound(tree_.key.begin(), tree_.key.end(), c.first_key()) - tree_.key.begin();
    return {static_cast<std::size_t>(b), static_cast<std::size_t>(b) + count_in(tree_.key.data(), tree_.key.size(), c)};
  }

  // The tree this rank walks: the plan's slots (their moments: a top cell's from its rank, a
  // shared cell's computed here as the build computes it), below each top cell its subtree (this
  // rank's own, or the essential part another rank sent), and the shared leaves' bodies. own_ is
  // where each of this rank's bodies went (its walk leaves itself out).
  EssentialTree<T> assemble(const TopPlan& plan, const std::vector<std::vector<unsigned>>& counts,
                            const std::vector<std::vector<unsigned char>>& gathered,
                            const std::vector<std::vector<unsigned char>>& received) {
    const std::size_t ranks = counts.size(), me = static_cast<std::size_t>(mpi::rank());
    const bool quad = this->law_.tree.quadrupole;
    EssentialTree<T> e;
    const std::size_t slots = plan.slots.size();
    e.node.assign(4 * slots, T(0)), e.mass.assign(slots, T(0)), e.quad.assign(quad ? 6 * slots : 0, T(0));
    e.child.assign(slots, 0), e.nchild.assign(slots, 0), e.first.assign(slots, 0), e.end.assign(slots, 0);
    own_.assign(tree_.key.size(), 0);
    // Each rank's gathered part: its top cells' moments, then its bodies of each shared leaf.
    std::vector<ByteReader> parts;
    for (const auto& b : gathered) parts.push_back({b.data(), b.size()});
    // The whole tree's shape: each rank's top cells' subtrees, and the shared cells.
    shape_ = TreeShape{};
    for (auto& part : parts) {
      TreeShape s;
      part.get(&s, sizeof s);
      shape_.nodes += s.nodes, shape_.leaves += s.leaves, shape_.bodies += s.bodies;
      shape_.depth = std::max(shape_.depth, s.depth), shape_.largest_leaf = std::max(shape_.largest_leaf, s.largest_leaf);
    }
    std::vector<std::vector<T>> top_node(ranks), top_mass(ranks), top_quad(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      const std::size_t tops = plan.tops[r].size();
      top_node[r].resize(4 * tops), top_mass[r].resize(tops);
      for (std::size_t t = 0; t < tops; ++t) parts[r].get(&top_node[r][4 * t], 4 * sizeof(T)), parts[r].get(&top_mass[r][t], sizeof(T));
      if (quad) parts[r].get(top_quad[r], 6 * tops);
    }
    std::vector<EssentialTree<T>> sent(ranks);
    for (std::size_t r = 0; r < ranks; ++r)
      if (r != me && !received[r].empty()) sent[r] = unpack<T>(received[r].data(), received[r].size());
    std::vector<unsigned long long> cell_key(slots, 0);  // for the shared cells' moments
    std::vector<unsigned> level(slots, 0);
    for (std::size_t s = 0; s < slots; ++s) {
      const TopPlan::Slot& slot = plan.slots[s];
      cell_key[s] = slot.cell.first_key(), level[s] = slot.cell.level;
      if (slot.kind != TopPlan::Kind::top) ++shape_.nodes, shape_.depth = std::max(shape_.depth, slot.cell.level);
      switch (slot.kind) {
        case TopPlan::Kind::shared:
          e.child[s] = slot.child, e.nchild[s] = slot.nchild;
          break;
        case TopPlan::Kind::shared_leaf:  // each rank's bodies of it, in rank order: key order
          e.first[s] = static_cast<unsigned>(e.bodies());
          for (std::size_t r = 0; r < ranks; ++r) {
            const std::size_t count = counts[r][9 * slot.shared];
            if (r == me)
              for (std::size_t b = key_range(slot.cell).first, k = 0; k < count; ++k) own_[b + k] = static_cast<unsigned>(e.bodies() + k);
            for (auto* v : {&e.bx, &e.by, &e.bz, &e.bm}) {
              std::vector<T> part;
              parts[r].get(part, count);
              v->insert(v->end(), part.begin(), part.end());
            }
          }
          e.end[s] = static_cast<unsigned>(e.bodies());
          ++shape_.leaves, shape_.bodies += e.end[s] - e.first[s];
          shape_.largest_leaf = std::max(shape_.largest_leaf, e.end[s] - e.first[s]);
          break;
        case TopPlan::Kind::top: {
          const std::size_t r = slot.owner, t = slot.index;
          for (int k = 0; k < 4; ++k) e.node[4 * s + k] = top_node[r][4 * t + k];
          e.mass[s] = top_mass[r][t];
          if (quad)
            for (int k = 0; k < 6; ++k) e.quad[6 * s + k] = top_quad[r][6 * t + k];
          if (r == me) append_subtree(e, tree_.view(), t, s, true);
          else append_subtree(e, sent[r].view(), t, s, false);
          break;
        }
      }
    }
    for (auto& p : parts) p.finish();
    // The shared cells' moments from their children, as the build's summarise computes them: each
    // shared cell reads its key and level at a slot of its own past the bodies.
    std::vector<unsigned long long> key(e.bodies() + slots, 0);
    std::vector<unsigned> first = e.first, end = e.end;
    for (std::size_t s = 0; s < slots; ++s) {
      if (plan.slots[s].kind == TopPlan::Kind::shared) first[s] = static_cast<unsigned>(e.bodies() + s), end[s] = first[s] + 2;
      if (plan.slots[s].kind != TopPlan::Kind::top) key[first[s]] = cell_key[s];
    }
    std::vector<unsigned> all_levels(e.nodes(), 0);
    std::copy(level.begin(), level.end(), all_levels.begin());
    const Arrays<T> a{e.node.data(), e.mass.data(), quad ? e.quad.data() : nullptr, e.child.data(), e.nchild.data(),
                      first.data(), end.data(), all_levels.data(), key.data(), e.bx.data(), e.by.data(), e.bz.data(),
                      e.bm.data()};
    for (std::size_t s = slots; s-- > 0;)
      if (plan.slots[s].kind != TopPlan::Kind::top) summarise(a, static_cast<unsigned>(s), cube_, T(this->law_.tree.theta));
    return e;
  }

  // Appends below slot `at` of e the subtree of src's node `root` (its children, their children,
  // ... and its leaves' bodies), breadth-first; own: src is this rank's tree (own_ records where
  // its bodies go).
  void append_subtree(EssentialTree<T>& e, const View<T>& src, unsigned root, std::size_t at, bool own) {
    std::vector<std::pair<unsigned, std::size_t>> queue = {{root, at}};
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const auto [i, j] = queue[q];
      if (q > 0) {  // the root's data is the gathered moments' (the same values)
        for (int k = 0; k < 4; ++k) e.node[4 * j + k] = src.node[4 * i + k];
        e.mass[j] = src.mass[i];
        if (src.quad)
          for (int k = 0; k < 6; ++k) e.quad[6 * j + k] = src.quad[6 * i + k];
      } else {
        e.node[4 * j + 3] = src.node[4 * i + 3];  // crit2 as the sender set it (taken whole for every body)
      }
      if (src.nchild[i] == 0) {
        e.first[j] = static_cast<unsigned>(e.bodies());
        for (unsigned b = src.first[i]; b < src.end[i]; ++b) {
          if (own) own_[b] = static_cast<unsigned>(e.bodies());
          e.bx.push_back(src.bx[b]), e.by.push_back(src.by[b]), e.bz.push_back(src.bz[b]), e.bm.push_back(src.bm[b]);
        }
        e.end[j] = static_cast<unsigned>(e.bodies());
        continue;
      }
      const std::size_t block = e.nodes();
      e.child[j] = static_cast<unsigned>(block), e.nchild[j] = src.nchild[i];
      e.node.resize(4 * (block + src.nchild[i]), T(0)), e.mass.resize(block + src.nchild[i], T(0));
      if (!e.quad.empty()) e.quad.resize(6 * (block + src.nchild[i]), T(0));
      e.child.resize(block + src.nchild[i], 0), e.nchild.resize(block + src.nchild[i], 0);
      e.first.resize(block + src.nchild[i], 0), e.end.resize(block + src.nchild[i], 0);
      for (unsigned c = 0; c < src.nchild[i]; ++c) queue.push_back({src.child[i] + c, block + c});
    }
  }

  // Each body of this rank's domain walked over the assembled tree: its Sum into sums (SoA over the
  // domain's bodies, in the order they were given to the sort), its terms into terms.
  template <class Sum>
  unsigned long long walk_domain(const EssentialTree<T>& walked, T* sums, unsigned* terms) const {
    const std::size_t count = tree_.bm.size();
    if (!count) return 0;
    const View<T> v = walked.view();
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const auto walk_body = [&](std::ptrdiff_t q) {
      const unsigned p = static_cast<unsigned>(q);
      Sum sum;
      const Terms t = walk(v, Target<T>{tree_.bx[p], tree_.by[p], tree_.bz[p], own_[p]}, eps2, rmin2, sum);
      sum.store(sums, count, tree_.body[p], G);
      terms[tree_.body[p]] = t.cells + t.bodies;
      return t.cells;
    };
    unsigned long long cells = 0;  // whole numbers: their sum does not depend on the threads
    if (parallel_forces(count)) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : cells)
      for (std::ptrdiff_t q = 0; q < static_cast<std::ptrdiff_t>(count); ++q) cells += walk_body(q);
    } else {
      for (std::ptrdiff_t q = 0; q < static_cast<std::ptrdiff_t>(count); ++q) cells += walk_body(q);
    }
    return cells;
  }

  // A held body: its key, its id (its place among all bodies) and its index in the block.
  struct Keyed {
    unsigned long long key;
    std::uint64_t id;
    std::size_t index;
  };

  bool blocks_ = false;                  // each rank passes its own block of the bodies
  Cube<T> cube_{};
  std::vector<Keyed> held_;              // the held bodies in key order
  std::vector<unsigned> work_;           // each held body's terms in the last evaluation
  std::vector<unsigned long long> work_below_;  // the work of the held bodies before each in key order
  std::vector<std::size_t> sent_;        // held_[sent_[r], sent_[r + 1]) went to rank r's domain
  Tree<T> tree_;                         // this rank's domain's bodies and the subtrees of its top cells
  std::vector<std::pair<unsigned, unsigned>> from_;  // each domain body's rank and place in its message
  std::vector<std::size_t> from_counts_;  // the domain's bodies from each rank
  std::vector<unsigned> own_;            // where each domain body is in the walked tree
  TreeShape shape_;                      // the whole tree's
  TreeProfile tree_profile_;
  RankProfile rank_profile_;
};

}  // namespace nbody::octree
