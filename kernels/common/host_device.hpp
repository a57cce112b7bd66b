#pragma once
// One macro so that the interaction functions compile unchanged as plain C++ on the host and as
// __host__ __device__ functions under nvcc (HOOMD-blue / CUDA Handbook ch. 14 style).
#if defined(__CUDACC__)
#define NBODY_HD __host__ __device__ inline
#else
#define NBODY_HD inline
#endif
