#pragma once
// The CUDA force kernels, in registry order: each is an engine (cuda-naive, ...) in every real
// type its spec runs in. Adding a kernel: its device code in kernels/cuda/NAME.cuh, its spec and
// launch in engines/cuda/cuda_NAME.hpp (as cuda_naive.hpp), and its name in this list.
#include "engines/cuda/cuda_naive.hpp"
#include "engines/cuda/cuda_pairs.hpp"
#include "engines/cuda/cuda_tiled.hpp"
#include "engines/launch.hpp"

namespace nbody::cuda {

using Kernels = KernelList<Naive, Tiled, Split, Pairs>;

}  // namespace nbody::cuda
