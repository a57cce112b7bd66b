// Barnes-Hut walk of seed S4's octree, one work-item per body in key order (neighbouring
// work-items walk nearly the same nodes). The layout, the opening rule and the walk are those of
// kernels/common/octree.hpp, restated in OpenCL C (no templates): the same terms in the same order
// (depth first, children in key order). Built after interaction.cl (the force law, with its REAL,
// REAL4 and NBODY_CLAMP); the tree is built on the host (solver/engines/octree/tree.hpp).
//   node[i]             centre of mass x, y, z and crit2 of node i (breadth-first, root 0)
//   mass[i]             its mass
//   quad[6i .. 6i+5]    its traceless quadrupole xx yy zz xy xz yz (read only when quadrupole != 0)
//   child[i], nchild[i] first child and number of children (0: a leaf)
//   first[i], end[i]    its bodies, key-order positions [first, end)
//   body[j]             the bodies in key order (x, y, z, mass);  index[j]: key order -> body index
// Accelerations are written by body index (SoA, 3n); per work-item, all terms and the nodes of
// several bodies taken whole among them (cells).
#pragma OPENCL FP_CONTRACT OFF  // the opening test decides as the host's, which contracts nothing

#define MAX_LEVEL 21  // bits per axis of a key: a node's depth at most

// A node taken whole with its quadrupole (common/octree.hpp's accumulate_multipole):
// a = M d / s^3 - Q d / s^5 + (5/2) (d.Q.d) d / s^7, d = r_com - r_body.
inline void accumulate_multipole(REAL m, __global const REAL* q, REAL dx, REAL dy, REAL dz, REAL eps2, REAL rmin2,
                                 REAL* ax, REAL* ay, REAL* az) {
  REAL s2 = dx * dx + dy * dy + dz * dz + eps2;
#ifdef NBODY_CLAMP
  s2 = s2 < rmin2 ? rmin2 : s2;
#endif
  const REAL r = rsqrt(s2);
  const REAL w3 = r * r * r, inv_s = w3 * s2, inv_s2 = inv_s * inv_s, w5 = w3 * inv_s2;
  const REAL qx = q[0] * dx + q[3] * dy + q[4] * dz;
  const REAL qy = q[3] * dx + q[1] * dy + q[5] * dz;
  const REAL qz = q[4] * dx + q[5] * dy + q[2] * dz;
  const REAL dqd = dx * qx + dy * qy + dz * qz;
  const REAL f = m * w3 + (REAL)2.5 * dqd * w5 * inv_s2;
  *ax += f * dx - w5 * qx;
  *ay += f * dy - w5 * qy;
  *az += f * dz - w5 * qz;
}

__kernel void octree_walk(__global const REAL4* node, __global const REAL* mass, __global const REAL* quad,
                          const uint quadrupole, __global const uint* child, __global const uint* nchild,
                          __global const uint* first, __global const uint* end, __global const REAL4* body,
                          __global const uint* index, const uint n, const REAL eps2, const REAL rmin2, const REAL G,
                          __global REAL* acc, __global uint* terms, __global uint* cells) {
  const uint p = (uint)get_global_id(0);
  if (p >= n) return;
  const REAL4 r = body[p];
  REAL ax = 0, ay = 0, az = 0;
  uint stack[8 * (MAX_LEVEL + 1)];  // at most 7 siblings wait per level
  int top = 0;
  uint cell_terms = 0, body_terms = 0;
  stack[top++] = 0;
  while (top > 0) {
    const uint i = stack[--top];
    const REAL4 c = node[i];
    const REAL dx = c.x - r.x, dy = c.y - r.y, dz = c.z - r.z;
    if (dx * dx + dy * dy + dz * dz > c.w) {
      if (c.w > 0) {  // a node of several bodies
        ++cell_terms;
        if (quadrupole) {
          accumulate_multipole(mass[i], quad + 6 * (size_t)i, dx, dy, dz, eps2, rmin2, &ax, &ay, &az);
          continue;
        }
      } else {  // a point: the pair term
        ++body_terms;
      }
      accumulate_interaction(r.x, r.y, r.z, (REAL4)(c.x, c.y, c.z, mass[i]), eps2, rmin2, &ax, &ay, &az);
    } else if (nchild[i] == 0) {
      const uint e = end[i];
      for (uint j = first[i]; j < e; ++j)
        if (j != p) {
          accumulate_interaction(r.x, r.y, r.z, body[j], eps2, rmin2, &ax, &ay, &az);
          ++body_terms;
        }
    } else {
      for (uint k = nchild[i]; k-- > 0;) stack[top++] = child[i] + k;
    }
  }
  const uint b = index[p];
  acc[b] = G * ax;
  acc[n + b] = G * ay;
  acc[2 * n + b] = G * az;
  terms[p] = cell_terms + body_terms;
  cells[p] = cell_terms;
}
