// AVX2 + FMA instantiation of the double-double `openmp` kernel (openmp_dd_kernel.hpp), 4 lanes.
// This file alone is compiled with -mavx2 -mfma (CMakeLists.txt); the engine calls it only on a
// CPU that has both (openmp_dd.cpp checks cpuid). It includes nothing but the kernel header (see
// there why).
#include "engines/openmp_dd_kernel.hpp"

#if NBODY_DD_X86
namespace nbody::ddsimd {
void run_avx2(const Args& a) { run<kWidthAvx2, true>(a); }
}  // namespace nbody::ddsimd
#endif
