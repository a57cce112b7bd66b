// OpenCL all-pairs force kernel with local-memory tiles (seed S0's OpenCL engine, S2's tiling),
// after interaction.cl (the force law) in its program.
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
