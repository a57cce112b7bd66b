#pragma once
// mpi-octree: seed S4's octree distributed over the MPI ranks of `mpiexec -n P nbody ...`, as the
// codes that reached the largest systems distribute theirs (Salmon and Warren's locally essential
// trees; Bonsai; the cornerstone octree's global tree): the bodies in Morton-key order over the
// cube of all of them, cut into P domains of equal work (each body's terms in the last
// evaluation). The tree is the one-process tree, in parts:
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
// Every rank holds every position (the run loop's state, as for mpi:<engine>); the domains' sums
// are exchanged (MPI_Allgatherv) so that each rank holds every acceleration, and their terms with
// them (the next cut).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
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

 private:
  using clock = std::chrono::steady_clock;
  static double seconds(clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
  unsigned leaf_size() const { return leaf_size_or(this->law_.tree, info::capabilities().leaf_size); }

  // out (components x n, SoA) = each body's Sum; every rank takes part (collectives), each
  // preceded by an agreement on the ranks' failures.
  template <class Sum>
  void evaluate(const T* pos, const T* mass, std::size_t n, T* out, int components) {
    if (n == 0) return;
    const auto t0 = clock::now();
    const unsigned long long sent = mpi::bytes_sent();
    const std::size_t ranks = static_cast<std::size_t>(mpi::size()), me = static_cast<std::size_t>(mpi::rank());
    double exchange = 0;
    auto collective = [&](auto&& f) {
      const auto a = clock::now();
      auto result = f();
      exchange += seconds(a, clock::now());
      return result;
    };
    mpi::Failure failure;
    std::vector<unsigned char> mine;
    failure.run([&] {
      cut(pos, n);
      sort_domain(pos, mass, n);
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
    std::vector<std::vector<unsigned char>> to(ranks);
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
      for (std::size_t r = 0; r < ranks; ++r)  // the essential tree of each other domain's cells
        if (r != me && extents[r].count && !plan.tops[me].empty())
          pack(essential_tree(tree_, boxes_of(r, plan, counts, extents[r])), to[r]);
    });
    failure.agree();
    const auto gathered = collective([&] { return mpi::all_gather(mine); });
    const auto received = collective([&] { return mpi::all_to_all(to); });
    // The tree of this rank's walks: the top, its own cells and the essential trees received.
    std::vector<T> sorted(static_cast<std::size_t>(components) * n);
    std::vector<unsigned> terms(n, 0);
    const auto t1 = clock::now();
    const double build_seconds = seconds(t0, t1) - exchange;  // the cut, the sort and the top cells' trees
    unsigned long long cells = 0;
    T root_mass = 0;
    failure.run([&] {
      const EssentialTree<T> walked = assemble(plan, counts, gathered, received);
      root_mass = walked.mass[0];
      cells = walk_domain<Sum>(walked, n, sorted.data(), terms.data());
    });
    failure.agree();
    const auto t2 = clock::now();
    // Every domain's sums and terms to every rank, then from key order to the bodies' order.
    for (int c = 0; c < components; ++c) mpi::exchange_blocks(sorted.data() + c * n, sizeof(T), bounds_, mpi::Exchange::allgatherv);
    mpi::exchange_blocks(terms.data(), sizeof(unsigned), bounds_, mpi::Exchange::allgatherv);
    double all_cells = 0;
    for (double c : mpi::allgather(double(cells))) all_cells += c;
    const mpi::BytesSent bytes = mpi::bytes_sent_since(sent);
    for (std::size_t k = 0; k < n; ++k) {
      const unsigned i = order_[k];
      for (int c = 0; c < components; ++c) out[c * n + i] = sorted[c * n + k];
      work_[i] = terms[k];
    }
    const auto t3 = clock::now();
    exchange += seconds(t2, t3);
    unsigned long long all_terms = 0;
    for (unsigned w : terms) all_terms += w;
    tree_profile_ = TreeProfile::timed(build_seconds, seconds(t1, t2), double(all_terms) / double(n));
    tree_profile_.cell_terms_per_body = all_cells / double(n);
    tree_profile_.shape = shape_;
    tree_profile_.root_mass = double(root_mass);
    rank_profile_.ranks = static_cast<int>(ranks);
    rank_profile_.exchange = "essential trees";
    rank_profile_.compute_seconds = seconds(t0, t3) - exchange;
    rank_profile_.exchange_seconds = exchange;
    rank_profile_.total_compute_seconds += rank_profile_.compute_seconds;
    rank_profile_.total_exchange_seconds += rank_profile_.exchange_seconds;
    rank_profile_.count_bytes(bytes.mean, bytes.most);
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

  // The bodies in key order over the cube of all (order_), cut into the ranks' domains (bounds_)
  // of equal work: each body's terms in the last evaluation (work_; 1 each at first).
  void cut(const T* pos, std::size_t n) {
    if (n >= std::size_t(1) << 31) throw InputError("tree engines take fewer than 2^31 bodies");
    cube_ = bounding_cube_of(pos, n);
    std::vector<std::pair<unsigned long long, unsigned>> keyed(n);
    for (std::size_t i = 0; i < n; ++i)
      keyed[i] = {morton_key(pos[i], pos[n + i], pos[2 * n + i], cube_), static_cast<unsigned>(i)};
    std::sort(keyed.begin(), keyed.end());
    order_.resize(n);
    for (std::size_t k = 0; k < n; ++k) order_[k] = keyed[k].second;
    if (work_.size() != n) work_.assign(n, 1);
    const std::size_t ranks = static_cast<std::size_t>(mpi::size());
    double total = 0;
    for (unsigned w : work_) total += w;
    bounds_.assign(ranks + 1, n);
    bounds_[0] = 0;
    double done = 0;
    std::size_t r = 1;
    for (std::size_t k = 0; k < n && r < ranks; ++k) {
      while (r < ranks && done >= total * double(r) / double(ranks)) bounds_[r++] = k;
      done += work_[order_[k]];
    }
  }

  // This rank's domain's bodies, keyed and sorted into tree_ (their tree grows later).
  void sort_domain(const T* pos, const T* mass, std::size_t n) {
    const std::size_t me = static_cast<std::size_t>(mpi::rank()), b = bounds_[me], count = bounds_[me + 1] - b;
    std::vector<T> p(3 * count), m(count);
    for (std::size_t k = 0; k < count; ++k) {
      const unsigned i = order_[b + k];
      for (int a = 0; a < 3; ++a) p[a * count + k] = pos[a * n + i];
      m[k] = mass[i];
    }
    sort_bodies(p.data(), m.data(), count, cube_, tree_);
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

  // Each body of this rank's domain walked over the assembled tree: its Sum into sorted (SoA over
  // n, at its key-order position), its terms into terms.
  template <class Sum>
  unsigned long long walk_domain(const EssentialTree<T>& walked, std::size_t n, T* sorted, unsigned* terms) const {
    const std::size_t b = bounds_[static_cast<std::size_t>(mpi::rank())];
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(tree_.bm.size());
    if (!count) return 0;
    const View<T> v = walked.view();
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const auto walk_body = [&](std::ptrdiff_t q) {
      const unsigned p = static_cast<unsigned>(q);
      Sum sum;
      const Terms t = walk(v, Target<T>{tree_.bx[p], tree_.by[p], tree_.bz[p], own_[p]}, eps2, rmin2, sum);
      // The domain's tree keeps the domain's key order (its sort ties by the position in it).
      sum.store(sorted, n, static_cast<unsigned>(b + tree_.body[p]), G);
      terms[b + tree_.body[p]] = t.cells + t.bodies;
      return t.cells;
    };
    unsigned long long cells = 0;  // whole numbers: their sum does not depend on the threads
    if (parallel_forces(static_cast<std::size_t>(count))) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : cells)
      for (std::ptrdiff_t q = 0; q < count; ++q) cells += walk_body(q);
    } else {
      for (std::ptrdiff_t q = 0; q < count; ++q) cells += walk_body(q);
    }
    return cells;
  }

  Cube<T> cube_{};
  Tree<T> tree_;                        // this rank's bodies and the subtrees of its top cells
  std::vector<unsigned> own_;           // where each of them is in the walked tree
  TreeShape shape_;                     // the whole tree's
  std::vector<unsigned> order_, work_;  // key order of all bodies; each body's terms last time
  std::vector<std::size_t> bounds_;     // the ranks' domains in key order
  TreeProfile tree_profile_;
  RankProfile rank_profile_;
};

}  // namespace nbody::octree
