#pragma once
// Device-resident stepping: a GPU engine that offers it advances the state by
// many steps of an explicit method in one call, the state, the stages and the step-size control
// staying on the device; only the state at the end of the call comes back. The integrator (an
// explicit Runge-Kutta method at a fixed step or under the PI controller, Adams-Bashforth, or a
// kick-drift-kick leapfrog composition) describes itself once (ResidentMethod); a stepper says
// which methods it takes; the driver says where the call must stop (ResidentSegment). Between calls the integrator's own memory (first stage or Adams history,
// controller state) is back on the host, so checkpoints, samples and resumes work as with host
// stepping. The arithmetic is the host's to rounding (other summation order, FMAs), so a
// device-stepped run is not bit for bit a host-stepped one; it is bit for bit itself, however the
// run is cut into calls.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/step_control.hpp"

namespace nbody {

// The method, as the device needs it (built once by the integrator).
template <class T>
struct ResidentMethod {
  bool adams = false;     // Adams-Bashforth: y += h sum_j b_j f_{n-j}; else explicit Runge-Kutta
  // Leapfrog compositions (integrators/leapfrog.hpp): for each weight b_j a kick of b_j h / 2, a
  // drift of b_j h, an evaluation, a kick; the history is the acceleration at the positions (3n).
  bool splitting = false;
  int stages = 0;         // Runge-Kutta stages, the Adams order k, or the composition's weights
  bool fsal = false;      // the last stage is f(y_new)
  std::vector<T> a;       // stages x stages, row-major (Runge-Kutta)
  std::vector<T> b;       // weights of the solution advanced (Adams: of f_n, f_{n-1}, ...)
  std::vector<T> e, e2;   // b - b_hat and b - b_hat2 (adaptive; e2 empty unless DOP853's second estimate)
  bool adaptive = false;  // PI-controlled steps; else fixed steps of dt
  T atol{0}, rtol{0};
  PIRule<T> rule{};
};

// One call: where to stop, and the state and method memory, updated on return.
template <class T>
struct ResidentSegment {
  // The call ends after the first step that ends at or after stop_when, or that lands on land_on
  // (adaptive steps are clamped to end exactly there), or after max_steps accepted steps.
  T land_on{0}, stop_when{0};
  std::uint64_t max_steps = 0;
  // Fixed steps: step number k ends at t0 + k dt; step_index steps were taken before this call.
  T t0{0}, dt{0};
  std::uint64_t step_index = 0;

  std::size_t n = 0;
  const T* mass = nullptr;     // n
  T t{0};                      // in/out
  T* y = nullptr;              // 6n: positions (SoA), then velocities; in/out
  std::vector<T*> history;     // Runge-Kutta: {f(y)}; Adams: f_n, f_{n-1}, ... (k of them); leapfrog: {a(x)}; in/out
  bool history_current = false;  // history[0] is f at the current y; in/out
  T h_next{0};                 // adaptive: the next trial step; in/out
  PIMemory<T> pi{};            // in/out

  // Out: what the call did.
  std::uint64_t steps = 0, rejected = 0, evaluations = 0;
  T h_last{0};
  bool underflow = false;      // the controller collapsed: controller_collapsed (h_next holds the step it asked for)
};

template <class T>
class ResidentStepper {
 public:
  virtual ~ResidentStepper() = default;
  // Whether this stepper takes the method's steps (the integrator steps on the host otherwise).
  virtual bool takes(const ResidentMethod<T>& method) const = 0;
  // Takes at least one step unless the controller underflows; see ResidentSegment.
  virtual void advance(const ResidentMethod<T>& method, ResidentSegment<T>& segment) = 0;
};

}  // namespace nbody
