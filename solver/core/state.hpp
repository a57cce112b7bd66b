#pragma once
// The phase-space state in structure-of-arrays form, one contiguous buffer so that integrators
// treat it as a plain vector y of 6N numbers: y = [x(N) y(N) z(N) vx(N) vy(N) vz(N)]. The time
// derivative dy/dt has the same layout: [vx vy vz ax ay az].
#include <cstddef>
#include <vector>

namespace nbody {

template <class T>
struct State {
  std::vector<T> mass;  // N
  std::vector<T> y;     // 6N, layout above
  T t{0};

  State() = default;
  explicit State(std::size_t n) : mass(n), y(6 * n) {}

  std::size_t size() const { return mass.size(); }
  // Component d (0 = x, 1 = y, 2 = z) of positions and velocities.
  T* pos(int d) { return y.data() + d * size(); }
  const T* pos(int d) const { return y.data() + d * size(); }
  T* vel(int d) { return y.data() + (3 + d) * size(); }
  const T* vel(int d) const { return y.data() + (3 + d) * size(); }
};

// The bodies a process holds: [first, first + count) of `total`, and whether the others are held
// by other MPI ranks (an engine that spreads the bodies over the ranks: driver/simulation.hpp).
struct BodyBlock {
  std::size_t first = 0, count = 0, total = 0;
  bool distributed = false;
};

}  // namespace nbody
