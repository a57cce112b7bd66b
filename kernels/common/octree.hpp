#pragma once
// Seed S4's octree for Barnes-Hut, built from Morton keys, and its walk, host and device: the CPU
// engine (solver/engines/octree/) and the CUDA kernels call these.
//
// The tree. The bodies' bounding cube (side L, corner lo) is cut into 2^21 cells per axis; a body's
// key interleaves the 21 bits of its cell's x, y and z (x highest), so that sorting by key puts the
// bodies in the order of a depth-first walk of the octree. A node at level l holds the bodies
// whose keys share their first 3l bits: a cube of side L / 2^l. A node is a leaf when it holds at
// most k bodies (--leaf-size) or lies at level 21 (bodies closer than L / 2^21 on every axis, e.g.
// coincident ones); otherwise its non-empty octants are its children. Given the cube, the keys and
// k the tree is unique, so every back end builds the same one (tests/test_tree_engines.cpp).
//
// Layout. Nodes in breadth-first order, root 0, the children of a node contiguous and in key
// order; bodies in key order (ties by input index).
//   node[4i .. 4i+3]    centre of mass x, y, z and crit2 (below)
//   mass[i]             the node's mass
//   quad[6i .. 6i+5]    its traceless quadrupole about the centre of mass, xx yy zz xy xz yz
//                       (null: monopoles only)
//   child[i], nchild[i] first child and number of children (0: a leaf)
//   first[i], end[i]    its bodies, positions [first, end) in key order
//   bx, by, bz, bm      the bodies in key order
//
// Opening rule (S4, after Barnes): a node is taken whole when
//   d > l / theta + delta,  crit2 = (l / theta + delta)^2,
// with d the distance from the body to the node's centre of mass, l the node's side and delta the
// distance between its centre of mass and its geometric centre (which grows the rule for lopsided
// cells). A body inside the cell is at most delta + l sqrt(3)/2 from the centre of mass, so for
// theta <= 1 a node is never taken whole by one of its own bodies. theta = 0 opens every node:
// direct summation. A leaf of one body is a point (crit2 = 0): taken whole it is the exact pair
// term. An opened leaf's bodies are summed directly, the target body itself left out.
//
// Quadrupole (optional, --moments quadrupole): a node taken whole adds, with d = r_com - r_body,
// s^2 = dist2(d) (softening and clamp as for a pair) and q = d.Q.d,
//   a = M d / s^3 - Q d / s^5 + (5/2) q d / s^7,
// the gradient in d of -M/s - q/(2 s^5), the softened multipole expansion Bonsai and Ryoanji use;
// the node's potential at the body is phi = -G (M/s + q/(2 s^5)) (add_node), so that a = -grad phi.
#include "host_device.hpp"
#include "interaction.hpp"

namespace nbody::octree {

constexpr unsigned max_level = 21;  // bits per axis of a key
constexpr unsigned root = 0;

// The bounding cube: corner and side, and the factor from a coordinate to its cell (2^21 / side).
template <class T>
struct Cube {
  T x, y, z, side, scale;
};

// The cube that holds a bounding box: side its longest extent, grown by a few roundings so that
// the largest coordinate maps to cell 2^21 - 1, not 2^21 (a zero extent gives side 1).
template <class T>
NBODY_HD Cube<T> bounding_cube(T xlo, T ylo, T zlo, T xhi, T yhi, T zhi) {
  T side = xhi - xlo;
  if (yhi - ylo > side) side = yhi - ylo;
  if (zhi - zlo > side) side = zhi - zlo;
  if (!(side > T(0))) side = T(1);
  side = side * (T(1) + T(16) * T(sizeof(T) == 4 ? 1.1920929e-07 : 2.220446049250313e-16));
  return {xlo, ylo, zlo, side, T(2097152) / side};
}

// Spreads the low 21 bits of v to every third bit.
NBODY_HD unsigned long long spread_bits(unsigned long long v) {
  v &= 0x1fffffULL;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

// A coordinate's cell on one axis, 0 .. 2^21 - 1. One subtraction and one product, which no
// compiler contracts to an FMA, so host and device agree on every key.
template <class T>
NBODY_HD unsigned cell_of(T x, T lo, T scale) {
  const T c = (x - lo) * scale;
  if (!(c > T(0))) return 0;
  if (c >= T(2097151)) return 2097151u;
  return static_cast<unsigned>(c);
}

template <class T>
NBODY_HD unsigned long long morton_key(T x, T y, T z, const Cube<T>& c) {
  return spread_bits(cell_of(x, c.x, c.scale)) << 2 | spread_bits(cell_of(y, c.y, c.scale)) << 1 |
         spread_bits(cell_of(z, c.z, c.scale));
}

// The octant (0..7) of a key at level l + 1, i.e. its 3 bits below the first 3l.
NBODY_HD unsigned octant(unsigned long long key, unsigned l) {
  return static_cast<unsigned>(key >> (3 * (max_level - 1 - l))) & 7u;
}

// A node's geometric centre from its level and any of its keys.
template <class T>
NBODY_HD void cell_centre(unsigned long long key, unsigned level, const Cube<T>& c, T& x, T& y, T& z, T& side) {
  unsigned ix = 0, iy = 0, iz = 0;
  for (unsigned l = 0; l < level; ++l) {
    const unsigned o = octant(key, l);
    ix = ix << 1 | (o >> 2 & 1u);
    iy = iy << 1 | (o >> 1 & 1u);
    iz = iz << 1 | (o & 1u);
  }
  side = c.side / T(1u << level);
  x = c.x + (T(ix) + T(0.5)) * side;
  y = c.y + (T(iy) + T(0.5)) * side;
  z = c.z + (T(iz) + T(0.5)) * side;
}

// crit2 of a node: 0 for a point, beyond any distance when every node is opened (theta = 0), else
// (side / theta + delta)^2.
template <class T>
NBODY_HD T critical_distance2(T side, T delta, T theta, bool point) {
  if (point) return T(0);
  if (!(theta > T(0))) return T(1.7976931348623157e308);  // the largest double (inf in float)
  const T r = side / theta + delta;
  return r * r;
}

// In the key-ordered bodies [b, e) of a node at level l: the first position whose octant is at
// least o (e if none). A binary search.
NBODY_HD unsigned octant_start(const unsigned long long* key, unsigned b, unsigned e, unsigned l, unsigned o) {
  unsigned lo = b, hi = e;
  while (lo < hi) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (octant(key[mid], l) < o) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The children of such a node from the starts of its 8 octants (at[o] = octant_start(.., o), at[8]
// = e): the number of non-empty octants, and in start[0 .. count] their first positions and e.
NBODY_HD unsigned children_of(const unsigned at[9], unsigned start[9]) {
  unsigned count = 0;
  for (unsigned o = 0; o < 8; ++o)
    if (at[o] < at[o + 1]) start[count++] = at[o];
  start[count] = at[8];
  return count;
}

// Both at once (the host build).
NBODY_HD unsigned octants(const unsigned long long* key, unsigned b, unsigned e, unsigned l, unsigned start[9]) {
  unsigned at[9];
  for (unsigned o = 0; o < 8; ++o) at[o] = octant_start(key, b, e, l, o);
  at[8] = e;
  return children_of(at, start);
}

// A tree's arrays as its build writes them (View's, the levels and the bodies' keys).
template <class T>
struct Arrays {
  T *node, *mass, *quad;
  unsigned *child, *nchild, *first, *end, *level;
  const unsigned long long* key;
  const T *bx, *by, *bz, *bm;
};

// The moments of node i from its bodies (a leaf) or from its children (done before it): mass,
// centre of mass (a lone body's own position exactly), quadrupole, and crit2 from its cell.
template <class T>
NBODY_HD void summarise(const Arrays<T>& t, unsigned i, const Cube<T>& cube, T theta) {
  const bool leaf = t.nchild[i] == 0;
  const unsigned b = t.first[i], e = t.end[i];
  const unsigned from = leaf ? b : t.child[i], to = leaf ? e : t.child[i] + t.nchild[i];
  // Point j of the node's parts: a body or a child's centre of mass.
  auto part = [&](unsigned j, T& m, T& x, T& y, T& z) {
    if (leaf) m = t.bm[j], x = t.bx[j], y = t.by[j], z = t.bz[j];
    else m = t.mass[j], x = t.node[4 * j], y = t.node[4 * j + 1], z = t.node[4 * j + 2];
  };
  T M{0}, sx{0}, sy{0}, sz{0};
  for (unsigned j = from; j < to; ++j) {
    T m, x, y, z;
    part(j, m, x, y, z);
    M += m, sx += m * x, sy += m * y, sz += m * z;
  }
  T cx, cy, cz;
  if (e - b == 1 || !(M > T(0))) cx = t.bx[b], cy = t.by[b], cz = t.bz[b];  // one body; or massless ones: any of theirs
  else cx = sx / M, cy = sy / M, cz = sz / M;
  t.mass[i] = M;
  t.node[4 * i] = cx, t.node[4 * i + 1] = cy, t.node[4 * i + 2] = cz;
  if (t.quad) {
    T q[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
    for (unsigned j = from; j < to; ++j) {  // parallel axes: a part's own quadrupole plus its mass's
      T m, x, y, z;
      part(j, m, x, y, z);
      const T dx = x - cx, dy = y - cy, dz = z - cz, d2 = dx * dx + dy * dy + dz * dz;
      q[0] += m * (T(3) * dx * dx - d2), q[1] += m * (T(3) * dy * dy - d2), q[2] += m * (T(3) * dz * dz - d2);
      q[3] += m * T(3) * dx * dy, q[4] += m * T(3) * dx * dz, q[5] += m * T(3) * dy * dz;
      if (!leaf)
        for (int k = 0; k < 6; ++k) q[k] += t.quad[6 * j + k];
    }
    for (int k = 0; k < 6; ++k) t.quad[6 * i + k] = q[k];
  }
  T gx, gy, gz, side;
  cell_centre(t.key[b], t.level[i], cube, gx, gy, gz, side);
  const T delta = sqrt((cx - gx) * (cx - gx) + (cy - gy) * (cy - gy) + (cz - gz) * (cz - gz));
  t.node[4 * i + 3] = critical_distance2(side, delta, theta, e - b == 1);
}

template <class T>
struct View {
  const T* node;  // 4 per node
  const T* mass;
  const T* quad;  // 6 per node, or null
  const unsigned *child, *nchild, *first, *end;
  const T *bx, *by, *bz, *bm;
};

template <class T>
struct Target {
  T x, y, z;
  unsigned self;  // its position in key order, left out of leaf sums
};

// Q d and d.Q.d for a node's quadrupole q (xx yy zz xy xz yz): the quadrupole's part of the
// force's and of the potential's term.
template <class T>
struct QuadrupoleForm {
  T x, y, z, dqd;
};
template <class T>
NBODY_HD QuadrupoleForm<T> quadrupole_form(const T* q, T dx, T dy, T dz) {
  const T qx = q[0] * dx + q[3] * dy + q[4] * dz;
  const T qy = q[3] * dx + q[1] * dy + q[5] * dz;
  const T qz = q[4] * dx + q[5] * dy + q[2] * dz;
  return {qx, qy, qz, dx * qx + dy * qy + dz * qz};
}

// A node taken whole with its quadrupole (see the top), added to a: w3 = Math::weight(1, s2) =
// 1/s^3 gives 1/s = w3 s^2 and so the higher powers without a division. 3 + 41 flops.
template <class T>
NBODY_HD void accumulate_multipole(T m, const T* q, T dx, T dy, T dz, T s2, T w3, T& ax, T& ay, T& az) {
  const T inv_s = w3 * s2, inv_s2 = inv_s * inv_s, w5 = w3 * inv_s2;
  const QuadrupoleForm<T> f = quadrupole_form(q, dx, dy, dz);
  const T g = m * w3 + T(2.5) * f.dqd * w5 * inv_s2;
  ax += g * dx - w5 * f.x;
  ay += g * dy - w5 * f.y;
  az += g * dz - w5 * f.z;
}

// A node taken whole, to the sum of a walk (common/interaction.hpp): its mass m at its centre of
// mass, d = r_com - r_body away, with its quadrupole q (null: a point, or monopoles only). The
// force's term is the top's; the potential's is m k(s) + d.Q.d / (2 s^5) with the pair's k and
// the force's s^2 = dist2(d), the function of the body's position whose gradient that force is
// (the clamp aside, which no node taken whole reaches).
template <class T, class Math>
NBODY_HD void add_node(AccelerationSum<T, Math>& a, T m, const T* q, T dx, T dy, T dz, T eps2, T rmin2) {
  const T s2 = Math::dist2(dx, dy, dz, eps2, rmin2);
  if (q) {
    accumulate_multipole(m, q, dx, dy, dz, s2, Math::weight(T(1), s2), a.x, a.y, a.z);
  } else {
    const T w = Math::weight(m, s2);
    a.x += w * dx;
    a.y += w * dy;
    a.z += w * dz;
  }
}
template <class T>
NBODY_HD void add_node(PotentialSum<T>& p, T m, const T* q, T dx, T dy, T dz, T eps2, T rmin2) {
  p.k += m * pair_potential_kernel(dx, dy, dz, eps2, rmin2);
  if (q) {
    const T inv_s = T(1) / sqrt(ExactMath::dist2(dx, dy, dz, eps2, rmin2)), inv_s2 = inv_s * inv_s;
    p.k += T(0.5) * quadrupole_form(q, dx, dy, dz).dqd * (inv_s * inv_s2 * inv_s2);
  }
}

// The terms of a walk: nodes of several bodies taken whole (particle-cell) and bodies, summed one
// by one or as a node of one body (particle-particle).
struct Terms {
  unsigned cells = 0, bodies = 0;
};

// Barnes-Hut for one target: a depth-first walk with a stack, children in key order, each term
// added to sum (an AccelerationSum or a PotentialSum, common/interaction.hpp). Returns the terms
// added. The stack holds at most 7 siblings per level.
template <class T, class Sum>
NBODY_HD Terms walk(const View<T>& t, const Target<T>& r, T eps2, T rmin2, Sum& sum) {
  unsigned stack[8 * (max_level + 1)];
  int top = 0;
  Terms terms;
  stack[top++] = root;
  while (top > 0) {
    const unsigned i = stack[--top];
    const T cx = t.node[4 * i], cy = t.node[4 * i + 1], cz = t.node[4 * i + 2];
    const T dx = cx - r.x, dy = cy - r.y, dz = cz - r.z;
    if (dx * dx + dy * dy + dz * dz > t.node[4 * i + 3]) {
      const bool cell = t.node[4 * i + 3] > T(0);  // a point has no quadrupole
      add_node(sum, t.mass[i], t.quad && cell ? t.quad + 6 * i : nullptr, dx, dy, dz, eps2, rmin2);
      ++(cell ? terms.cells : terms.bodies);
    } else if (t.nchild[i] == 0) {
      for (unsigned j = t.first[i]; j < t.end[i]; ++j) {
        if (j == r.self) continue;
        sum.add(r.x, r.y, r.z, t.bx[j], t.by[j], t.bz[j], t.bm[j], eps2, rmin2);
        ++terms.bodies;
      }
    } else {
      for (unsigned c = t.nchild[i]; c-- > 0;) stack[top++] = t.child[i] + c;
    }
  }
  return terms;
}

}  // namespace nbody::octree
