// Barnes-Hut walks of seed S0's kd-tree in its heap layout, one work-item per body. The layout,
// the acceptance rule and both walks are those of kernels/common/kdtree.hpp, restated in OpenCL C
// (no templates): the same terms in the same order (pre-order, left child first). Built after
// interaction.cl (the force law, with its REAL, REAL4 and NBODY_CLAMP); the tree is built on the
// host (solver/engines/kdtree/heap_tree.hpp).
//   node[i]        centre of mass x, y, z and crit2 of node i (1 .. 2m-1; leaves m .. 2m-1)
//   mass[i]        its mass
//   leaf_first/last  leaf i's bodies are tree positions [leaf_first[i-m], leaf_last[i-m])
//   body[j]        the bodies in tree order (x, y, z, mass)
//   index[j]       tree position j -> body index;  position[i]: body index i -> tree position
// Accelerations are written by body index (SoA, 3n), terms per work-item (nodes taken whole and
// bodies summed).

typedef struct {
  __global const REAL4* node;
  __global const REAL* mass;
  __global const uint* leaf_first;
  __global const uint* leaf_last;
  __global const REAL4* body;
  uint m;
} Tree;

// One node of a walk: taken whole, or (a leaf) summed directly without the target itself (tree
// position self); returns whether the walk goes past i's subtree (else it descends).
inline bool visit(const Tree* t, uint i, REAL4 r, uint self, REAL eps2, REAL rmin2, REAL* ax, REAL* ay, REAL* az,
                  uint* terms) {
  const REAL4 c = t->node[i];
  const REAL dx = c.x - r.x, dy = c.y - r.y, dz = c.z - r.z;
  if (dx * dx + dy * dy + dz * dz > c.w) {
    accumulate_interaction(r.x, r.y, r.z, (REAL4)(c.x, c.y, c.z, t->mass[i]), eps2, rmin2, ax, ay, az);
    ++*terms;
    return true;
  }
  if (i >= t->m) {
    const uint last = t->leaf_last[i - t->m];
    for (uint j = t->leaf_first[i - t->m]; j < last; ++j)
      if (j != self) {
        accumulate_interaction(r.x, r.y, r.z, t->body[j], eps2, rmin2, ax, ay, az);
        ++*terms;
      }
    return true;
  }
  return false;
}

// The walk with an explicit stack; the heap is at most 32 levels deep: 64 entries suffice.
inline uint walk_stack(const Tree* t, REAL4 r, uint self, REAL eps2, REAL rmin2, REAL* ax, REAL* ay, REAL* az) {
  uint stack[64];
  int top = 0;
  uint terms = 0;
  stack[top++] = 1;
  while (top > 0) {
    const uint i = stack[--top];
    if (!visit(t, i, r, self, eps2, rmin2, ax, ay, az, &terms)) {
      stack[top++] = 2 * i + 1;
      stack[top++] = 2 * i;
    }
  }
  return terms;
}

// The node after i's subtree in pre-order (S0's skip_down): i >> (its trailing ones), + 1; the
// root when the walk is over. ~i & (i + 1) is i's lowest zero bit, so its position is the count of
// trailing ones (OpenCL 1.2 has clz, not ctz).
inline uint skip(uint i) { return (i >> (31 - clz(~i & (i + 1)))) + 1; }

// The stackless walk: descend to 2i, or go past i's subtree.
inline uint walk_stackless(const Tree* t, REAL4 r, uint self, REAL eps2, REAL rmin2, REAL* ax, REAL* ay, REAL* az) {
  uint terms = 0;
  uint i = 1;
  do {
    i = visit(t, i, r, self, eps2, rmin2, ax, ay, az, &terms) ? skip(i) : 2 * i;
  } while (i != 1);
  return terms;
}

#define KDTREE_KERNEL(NAME, TREE_POSITION, WALK)                                                                       \
  __kernel void NAME(__global const REAL4* node, __global const REAL* mass, __global const uint* leaf_first,         \
                     __global const uint* leaf_last, __global const REAL4* body, __global const uint* index,           \
                     __global const uint* position, const uint n, const uint m, const REAL eps2, const REAL rmin2,    \
                     const REAL G, __global REAL* acc, __global uint* terms) {                                          \
    const uint q = (uint)get_global_id(0);                                                                             \
    if (q >= n) return;                                                                                                \
    const Tree t = {node, mass, leaf_first, leaf_last, body, m};                                                       \
    const uint p = TREE_POSITION;                                                                                      \
    const uint i = index[p];                                                                                           \
    REAL ax = 0, ay = 0, az = 0;                                                                                       \
    terms[q] = WALK(&t, body[p], p, eps2, rmin2, &ax, &ay, &az);                                                       \
    acc[i] = G * ax;                                                                                                   \
    acc[n + i] = G * ay;                                                                                               \
    acc[2 * n + i] = G * az;                                                                                           \
  }

// Work-items in body order (S0's heap+cycle), in tree order (heap+nested: neighbouring work-items
// walk nearly the same path), and in tree order without a stack (heap+stackless).
KDTREE_KERNEL(kdtree_cycle, position[q], walk_stack)
KDTREE_KERNEL(kdtree_nested, q, walk_stack)
KDTREE_KERNEL(kdtree_stackless, q, walk_stackless)
