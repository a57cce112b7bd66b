#pragma once
// The integrator interface (REBOUND's model): one small class per method, one file each, and one
// line in integrators/registry.cpp. An integrator advances a State by one step using the
// right-hand side Rhs, which counts every force evaluation (rejected trials included).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/state.hpp"
#include "engines/engine.hpp"
#include "engines/resident.hpp"
#include "io/archive.hpp"

namespace nbody {

// for (i = 0; i < m; ++i) f(i), for loops whose iterations are independent (f(i) writes element
// i only). Those of the software real types (dd, qd, quad, mp50) run on every core from m = 768
// (N = 128) on: at N = 512 Bulirsch-Stoer's updates in qd cost as much as a qd force evaluation
// on the GPU. Every element is computed as in the serial loop: results do not depend on threads.
template <class T, class F>
void for_each_element(std::size_t m, F&& f) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    for (std::size_t i = 0; i < m; ++i) f(i);
  } else {
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(m);
#pragma omp parallel for schedule(static) if (count >= 768)
    for (std::ptrdiff_t i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
  }
}

// dy/dt = f(y) for y = [r, v]: f = [v, a(r)]. Every call is one force evaluation.
template <class T>
class Rhs {
 public:
  Rhs(ForceEngine<T>& engine, const std::vector<T>& mass) : engine_(engine), mass_(mass) {}
  std::size_t size() const { return mass_.size(); }
  const std::vector<T>& mass() const { return mass_; }
  ForceEngine<T>& engine() { return engine_; }
  std::uint64_t evaluations() const { return evaluations_; }
  void set_evaluations(std::uint64_t n) { evaluations_ = n; }
  void add_evaluations(std::uint64_t n) { evaluations_ += n; }  // made elsewhere (device-resident steps)

  // dydt[0..3n) = velocities of y, dydt[3n..6n) = accelerations at the positions of y.
  void derivative(const T* y, T* dydt) {
    const std::size_t n = size();
    for (std::size_t k = 0; k < 3 * n; ++k) dydt[k] = y[3 * n + k];
    accelerations(y, dydt + 3 * n);
  }
  // acc[0..3n) = accelerations at positions pos[0..3n).
  void accelerations(const T* pos, T* acc) {
    engine_.accelerations(pos, mass_.data(), size(), acc);
    ++evaluations_;
  }

 private:
  ForceEngine<T>& engine_;
  const std::vector<T>& mass_;
  std::uint64_t evaluations_ = 0;
};

// Step-size control of the embedded methods: `pi` (the proportional-integral controller of
// step_controller.hpp) or `subdivide` (seed S0's scheme: start every step at h_max, split it into
// 8 sub-steps, recursively, while the unscaled max-norm of the error estimate exceeds atol).
enum class Controller { pi, subdivide };

// Where the steps are taken (--stepping): `automatic` on the device when the engine offers
// device-resident stepping (engines/resident.hpp) and the method can use it, else on the host;
// `host` always on the host; `device` on the device or not at all (an error).
enum class Stepping { automatic, host, device };

// gauss-radau15's step criterion (--ias15-criterion): prs23, the step from each body's
// acceleration, jerk and snap (Pham, Rein & Spiegel 2024; REBOUND's default since 2024), or b6,
// the bound on max|b6| / max|a| of Rein & Spiegel 2015 (REBOUND's default before).
enum class Ias15Criterion { prs23, b6 };

// How the user asked to step: a fixed step (--dt) or tolerances (--tol / --atol --rtol).
template <class T>
struct StepOptions {
  Controller controller = Controller::pi;
  bool adaptive = false;
  T dt{0};  // fixed step; for adaptive runs an optional first trial step (0: chosen automatically)
  T atol{0}, rtol{0};
  T h_min{0};
  T h_max{RealTraits<T>::infinity()};
  int order = 0;  // methods with a selectable order (Adams): --order; 0 = the method's default
  // --compensated: state updates y + dy carry their rounding error to the next update (Kahan).
  // Explicit Runge-Kutta, Adams and the symplectic methods honour it; gauss-radau15 always
  // compensates; the implicit and extrapolation methods refuse it (their updates are not sums).
  bool compensated = false;
  Stepping stepping = Stepping::automatic;
  Ias15Criterion ias15_criterion = Ias15Criterion::prs23;
};

struct StepCounters {
  std::uint64_t steps = 0;     // accepted steps
  std::uint64_t rejected = 0;  // rejected trial steps (their force evaluations count too)
  // Accepted steps whose implicit iteration (gauss-radau15's sweeps) stopped at its cap unconverged.
  std::uint64_t iteration_cap_hits = 0;
};

template <class T>
class Integrator {
 public:
  Integrator(Rhs<T>& f, const StepOptions<T>& opt) : f_(f), opt_(opt) {}
  virtual ~Integrator() = default;

  // Advances s by one step of at most h and s.t by the step taken, which is returned. Fixed-step
  // methods take exactly h; adaptive ones may take less after rejected trials.
  virtual T step(State<T>& s, T h) = 0;
  // The size an adaptive method wants for its next step (the driver clamps it to t_end).
  virtual T proposed_step(const State<T>&) { return opt_.dt; }
  // The state was changed from outside: drop cached derivatives and history.
  virtual void restart() {}

  // Device-resident stepping (engines/resident.hpp): whether this method, as configured, takes its
  // steps on the engine's device (explicit Runge-Kutta at a fixed step or under the PI controller
  // and Adams-Bashforth on the CUDA all-pairs engines, leapfrog compositions on the CUDA octree
  // engines; never with --compensated), and the call that
  // takes as many steps there as `segment` allows. It returns the steps taken, 0 when it cannot
  // take them now (a start-up or a step of another size: the driver then takes one step itself).
  bool steps_on_device() const { return device_ != nullptr; }
  virtual std::uint64_t advance_on_device(State<T>&, ResidentSegment<T>&) { return 0; }

  // Checkpoints: everything the method carries from one step to the next (cached derivatives,
  // multistep history, controller state, compensation terms), so that a run resumed from a
  // checkpoint is bit for bit the uninterrupted run. Overrides call the base first.
  virtual void save(ArchiveWriter& w) const {
    w.put(counters_.steps);
    w.put(counters_.rejected);
    w.put_bodies(carry_, opt_.compensated ? 6 : 0);
  }
  virtual void load(ArchiveReader& r) {
    r.get(counters_.steps);
    r.get(counters_.rejected);
    r.get_bodies(carry_, opt_.compensated ? 6 : 0);
  }

  const StepCounters& counters() const { return counters_; }

 protected:
  // y + dy for component k of the state (positions 0..3N-1, then velocities). With --compensated
  // the rounding error of the sum is kept and added to the next update of the same component
  // (Kahan), so what one step loses is not lost for good: read from carry_, written to
  // carry_out (carry_ itself, or a trial copy that a method commits when it accepts the step).
  T add_to_state(std::size_t k, T y, T dy, std::vector<T>& carry_out) {
    if (!opt_.compensated) return y + dy;
    const T a = dy + carry_[k];
    const T s = y + a;
    const T b = s - y;
    carry_out[k] = (y - (s - b)) + (a - b);  // two_sum: s + carry == y + a exactly (6 flops)
    return s;
  }
  T add_to_state(std::size_t k, T y, T dy) { return add_to_state(k, y, dy, carry_); }
  // Sizes the carries for a state of m components (all zero: nothing lost yet).
  void init_carry(std::size_t m) {
    if (opt_.compensated && carry_.size() != m) carry_.assign(m, T(0));
  }
  // A method that can step on the device describes itself here; it will, when the engine offers
  // device-resident stepping and the options allow it (not --stepping host, not --compensated).
  void offer_device_steps(ResidentMethod<T> method) {
    if (opt_.stepping == Stepping::host || opt_.compensated) return;
    device_ = f_.engine().resident();
    if (device_ && !device_->takes(method)) device_ = nullptr;
    device_method_ = std::move(method);
  }
  // The common part of a device call: the state and the method's memory go in, come back updated.
  void run_on_device(State<T>& s, ResidentSegment<T>& seg) {
    seg.n = f_.size();
    seg.mass = f_.mass().data();
    seg.t = s.t;
    seg.y = s.y.data();
    device_->advance(device_method_, seg);
    s.t = seg.t;
    counters_.steps += seg.steps;
    counters_.rejected += seg.rejected;
    f_.add_evaluations(seg.evaluations);
  }
  void refuse_compensation(std::string_view method) const {
    if (opt_.compensated)
      throw InputError("--compensated is not available for " + std::string(method) +
                       " (it is for the explicit Runge-Kutta, Adams and symplectic methods; gauss-radau15 always compensates)");
  }

  Rhs<T>& f_;
  StepOptions<T> opt_;
  StepCounters counters_;
  std::vector<T> carry_;  // --compensated: the rounding error still owed to each state component
  ResidentStepper<T>* device_ = nullptr;  // device-resident stepping, when offered and available
  ResidentMethod<T> device_method_;
};

template <class T>
struct IntegratorEntry {
  std::string_view name;
  std::string_view description;
  int order;            // theoretical order of the solution advanced
  bool error_estimate;  // has an embedded error estimate, so it can run with --tol
  std::string_view family;   // e.g. "explicit Runge-Kutta", "multistep" (the paper's method table)
  int evaluations_per_step;  // force evaluations of an accepted step; 0: it varies (iterations)
  bool symplectic;
  bool implicit;
  bool selectable_order;  // takes --order (its info says selectable_order = true)
  double state_vectors;   // the state-sized vectors (6 reals a body) it keeps: its share of the memory estimate
  std::unique_ptr<Integrator<T>> (*make)(Rhs<T>&, const StepOptions<T>&);
};

template <class T>
const std::vector<IntegratorEntry<T>>& integrator_table();

}  // namespace nbody
