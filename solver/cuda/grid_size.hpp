#pragma once
// The grid of a launch that gives each of `count` items a thread (or a block of `per_block` items a
// block): the fewest blocks that cover them, the last one partly idle.
#include <cstddef>

namespace nbody::cuda {

constexpr unsigned blocks_for(std::size_t count, std::size_t per_block) {
  return static_cast<unsigned>((count + per_block - 1) / per_block);
}

}  // namespace nbody::cuda
