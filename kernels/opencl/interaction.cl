// The force law of the OpenCL kernels, put before each kernel's own source when its program is
// built (with -D REAL=float|double -D REAL4=float4|double4, and NBODY_CLAMP when the
// minimum-distance clamp is on). It is that of kernels/common/interaction.hpp (OpenCL C has no
// templates, so the few lines are restated here; the tests check every OpenCL engine against the
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
