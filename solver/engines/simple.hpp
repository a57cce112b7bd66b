#pragma once
// The reference engine: one thread, plain loops over all ordered pairs, exact sqrt and division.
#include "engines/engine.hpp"
#include "common/interaction.hpp"
#include "engines/compensated_pair_sum.hpp"

namespace nbody {

template <class T>
class SimpleEngine final : public ForceEngine<T> {
 public:
  struct info {
    static constexpr std::string_view name = "simple";
    static constexpr std::string_view description = "reference: one thread, plain loop over all pairs";
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.compensated_forces = true;
      c.block_forces = true;
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override { accelerations_of(pos, mass, n, 0, n, acc); }
  void accelerations_of(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t count, T* acc) override {
    const T *x = pos, *y = pos + n, *z = pos + 2 * n;
    const auto& law = this->law_;
    for (std::size_t i = first; i < first + count; ++i) {
      T ax{0}, ay{0}, az{0};
      if (law.compensated) {
        compensated_pair_sum(pos, mass, n, i, law, ax, ay, az);
      } else {
        for (std::size_t j = 0; j < n; ++j) {
          if (j == i) continue;
          accumulate_interaction(x[i], y[i], z[i], x[j], y[j], z[j], mass[j], law.eps2, law.rmin2, ax, ay, az);
        }
      }
      acc[i] = law.G * ax;
      acc[n + i] = law.G * ay;
      acc[2 * n + i] = law.G * az;
    }
  }
};

}  // namespace nbody
