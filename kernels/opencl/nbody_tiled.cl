// OpenCL all-pairs force kernel with local-memory tiles (seed S0's OpenCL engine, S2's tiling).
// Built at run time with -D REAL=float|double -D REAL4=float4|double4 (and NBODY_CLAMP when the
// minimum-distance clamp is on). The force law is that of kernels/common/interaction.hpp (OpenCL C
// has no templates, so the few lines are restated here; the tests check this kernel against the
// `simple` engine): a_i = G sum_{j != i} m_j (r_j - r_i) / s^3, s^2 = max(|r_j - r_i|^2 + eps^2, r_min^2).
#ifdef NBODY_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

inline void accumulate_interaction(REAL xi, REAL yi, REAL zi, REAL4 bj, REAL eps2, REAL rmin2,
                                   REAL* ax, REAL* ay, REAL* az) {
  const REAL dx = bj.x - xi;
  const REAL dy = bj.y - yi;
  const REAL dz = bj.z - zi;
  REAL s2 = dx * dx + dy * dy + dz * dz + eps2;
#ifdef NBODY_CLAMP
  s2 = s2 < rmin2 ? rmin2 : s2;
#endif
  const REAL r = rsqrt(s2);
  const REAL w = bj.w * r * r * r;
  *ax += w * dx;
  *ay += w * dy;
  *az += w * dz;
}

// One work-item per body; the work-group stages get_local_size(0) bodies at a time in local
// memory. Any n: the last tile is counted, work-items past n load body n-1 and write nothing;
// only the tile holding the group's own bodies tests j != i.
__kernel void nbody_tiled(__global const REAL4* bodies, const int n, const REAL eps2, const REAL rmin2, const REAL G,
                          __global REAL* acc, __local REAL4* tile) {
  const int B = (int)get_local_size(0);
  const int tid = (int)get_local_id(0);
  const int i = (int)get_global_id(0);
  const REAL4 bi = bodies[i < n ? i : n - 1];
  REAL ax = 0, ay = 0, az = 0;
  const int own = (int)get_group_id(0);
  const int ntiles = (n + B - 1) / B;
  for (int t = 0; t < ntiles; ++t) {
    const int j0 = t * B;
    if (j0 + tid < n) tile[tid] = bodies[j0 + tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int count = min(B, n - j0);
    if (t != own) {
      for (int k = 0; k < count; ++k) accumulate_interaction(bi.x, bi.y, bi.z, tile[k], eps2, rmin2, &ax, &ay, &az);
    } else {
      for (int k = 0; k < count; ++k)
        if (j0 + k != i) accumulate_interaction(bi.x, bi.y, bi.z, tile[k], eps2, rmin2, &ax, &ay, &az);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) {
    acc[i] = G * ax;
    acc[n + i] = G * ay;
    acc[2 * n + i] = G * az;
  }
}
