#pragma once
// The OpenCL force kernels, in registry order: each is an engine in every real type its spec runs
// in. Adding a kernel: its source kernels/opencl/NAME.cl (embedded at build time, built at run
// time with -D REAL=float|double; it takes the arguments of nbody_tiled.cl: bodies, n, eps2,
// rmin2, G, acc and a local tile of block= bodies), its spec engines/opencl/NAME.hpp (as
// tiled.hpp), and its name in this list.
#include "engines/launch.hpp"
#include "engines/opencl/tiled.hpp"

namespace nbody::opencl {

using Kernels = KernelList<Tiled>;

}  // namespace nbody::opencl
