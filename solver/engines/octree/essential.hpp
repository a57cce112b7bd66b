#pragma once
// The locally essential tree (Salmon and Warren; Bonsai's LET): the part of a tree that the walks
// of every body in a set of boxes need. A node that every box's group test takes whole (its centre
// of mass farther than sqrt(crit2) from every point of each box, as the GPU's grouped walk tests a
// group) is kept without its children; any other node is kept with its children, or, a leaf, with
// its bodies. A body inside one of the boxes walks the essential tree to the same terms in the
// same order as it walks the whole tree, so to the same sum bit for bit: every node it reaches in
// the whole tree is there with the data it reads, and each node the boxes take whole it takes
// whole too (its distance is at least its box's, in rounded arithmetic as well: each step of the
// distance is monotonic in the coordinates).
//
// The distributed tree (engines/octree/distributed.hpp) sends each rank the essential tree of the
// boxes of its top cells; essential trees travel packed in one array of bytes (pack, unpack).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common/octree.hpp"
#include "engines/octree/tree.hpp"

namespace nbody::octree {

// A tree's nodes and bodies as a walk reads them (View), breadth-first, children contiguous.
template <class T>
struct EssentialTree {
  std::vector<T> node, mass, quad;  // 4, 1 and 6 (or none) per node
  std::vector<unsigned> child, nchild, first, end;
  std::vector<T> bx, by, bz, bm;

  std::size_t nodes() const { return mass.size(); }
  std::size_t bodies() const { return bm.size(); }
  View<T> view() const {
    return {node.data(),  mass.data(),  quad.empty() ? nullptr : quad.data(),
            child.data(), nchild.data(), first.data(), end.data(),
            bx.data(),    by.data(),    bz.data(),    bm.data()};
  }
};

// An axis-aligned box [lo, hi] (lo <= hi on each axis).
template <class T>
struct Box {
  T lo[3], hi[3];
};

// The squared distance from (x, y, z) to the box [lo, hi].
template <class T>
T box_distance2(T x, T y, T z, const T lo[3], const T hi[3]) {
  const T p[3] = {x, y, z};
  T d2 = T(0);
  for (int a = 0; a < 3; ++a) {
    const T d = p[a] < lo[a] ? lo[a] - p[a] : p[a] > hi[a] ? p[a] - hi[a] : T(0);
    d2 += d * d;
  }
  return d2;
}

// The essential tree of t for the bodies in the boxes, its roots (t.roots) first. A tree of no
// bodies gives none.
template <class T>
EssentialTree<T> essential_tree(const Tree<T>& t, const std::vector<Box<T>>& boxes) {
  EssentialTree<T> e;
  if (t.bm.empty()) return e;
  const bool quad = !t.quad.empty();
  // Copies node i of t as node j of e (its children and bodies not yet placed).
  std::vector<unsigned> from;  // e's node j is t's node from[j]
  auto add = [&](unsigned i) {
    from.push_back(i);
    for (int k = 0; k < 4; ++k) e.node.push_back(t.node[4 * i + k]);
    e.mass.push_back(t.mass[i]);
    if (quad)
      for (int k = 0; k < 6; ++k) e.quad.push_back(t.quad[6 * i + k]);
    e.child.push_back(0), e.nchild.push_back(0), e.first.push_back(0), e.end.push_back(0);
  };
  for (unsigned r = 0; r < t.roots; ++r) add(r);
  for (std::size_t j = 0; j < from.size(); ++j) {  // breadth-first: children after their parent
    const unsigned i = from[j];
    const auto near = [&](const Box<T>& b) {
      return !(box_distance2(t.node[4 * i], t.node[4 * i + 1], t.node[4 * i + 2], b.lo, b.hi) > t.node[4 * i + 3]);
    };
    if (std::none_of(boxes.begin(), boxes.end(), near)) {
      // Taken whole by every box, so by each of their bodies: a cell's crit2 becomes the smallest
      // positive number, which no body's distance fails (a point's stays 0: it is outside the boxes).
      if (t.node[4 * i + 3] > T(0)) e.node[4 * j + 3] = std::numeric_limits<T>::min();
      continue;
    }
    if (t.nchild[i] == 0) {  // a leaf that some body of the box opens: its bodies
      e.first[j] = static_cast<unsigned>(e.bm.size());
      for (unsigned b = t.first[i]; b < t.end[i]; ++b)
        e.bx.push_back(t.bx[b]), e.by.push_back(t.by[b]), e.bz.push_back(t.bz[b]), e.bm.push_back(t.bm[b]);
      e.end[j] = static_cast<unsigned>(e.bm.size());
      continue;
    }
    e.child[j] = static_cast<unsigned>(from.size()), e.nchild[j] = t.nchild[i];
    for (unsigned c = 0; c < t.nchild[i]; ++c) add(t.child[i] + c);
  }
  return e;
}

// Bytes that travel between ranks: values appended, and read back in the same order.
struct ByteWriter {
  std::vector<unsigned char>& out;
  void put(const void* p, std::size_t bytes) {
    const auto* b = static_cast<const unsigned char*>(p);
    out.insert(out.end(), b, b + bytes);
  }
  template <class V>
  void put(const std::vector<V>& v) { put(v.data(), v.size() * sizeof(V)); }
};
struct ByteReader {
  const unsigned char* data;
  std::size_t size, at = 0;
  void get(void* p, std::size_t bytes) {
    if (at + bytes > size) throw RunError("a message between ranks arrived shorter than its counts say");
    std::memcpy(p, data + at, bytes);
    at += bytes;
  }
  template <class V>
  void get(std::vector<V>& v, std::size_t count) { v.resize(count), get(v.data(), count * sizeof(V)); }
  void finish() const {
    if (at != size) throw RunError("a message between ranks arrived longer than its counts say");
  }
};

// An essential tree packed into bytes: its counts, then its arrays; unpack reverses it.
template <class T>
void pack(const EssentialTree<T>& e, std::vector<unsigned char>& out) {
  ByteWriter w{out};
  const std::size_t counts[3] = {e.nodes(), e.bodies(), e.quad.empty() ? 0u : 1u};
  w.put(counts, sizeof counts);
  for (const auto* v : {&e.node, &e.mass, &e.quad}) w.put(*v);
  for (const auto* v : {&e.child, &e.nchild, &e.first, &e.end}) w.put(*v);
  for (const auto* v : {&e.bx, &e.by, &e.bz, &e.bm}) w.put(*v);
}

// The essential tree packed in bytes [data, data + size).
template <class T>
EssentialTree<T> unpack(const unsigned char* data, std::size_t size) {
  EssentialTree<T> e;
  ByteReader r{data, size};
  std::size_t counts[3];
  r.get(counts, sizeof counts);
  const std::size_t nodes = counts[0], bodies = counts[1];
  r.get(e.node, 4 * nodes), r.get(e.mass, nodes), r.get(e.quad, counts[2] ? 6 * nodes : 0);
  for (auto* v : {&e.child, &e.nchild, &e.first, &e.end}) r.get(*v, nodes);
  for (auto* v : {&e.bx, &e.by, &e.bz, &e.bm}) r.get(*v, bodies);
  r.finish();
  return e;
}

}  // namespace nbody::octree
