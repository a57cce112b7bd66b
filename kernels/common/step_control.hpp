#pragma once
// Step-size control as functions of plain values, shared by the host integrators
// (solver/integrators/step_controller.hpp, dop853.hpp) and the device-resident stepping kernel
// (kernels/cuda/resident.cuh), so that both take the same decisions: the PI controller's rule and
// DOP853's combination of its two error estimates. Written with comparisons only (no std::max, no
// is_finite), so that it compiles for the device and a NaN error norm fails every test it meets:
// it is rejected and shrinks the step the most.
#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody {

// The controller's constants (Hairer's DOPRI5 settings; alpha and beta from the error order).
template <class T>
struct PIRule {
  T alpha, beta, h_min, h_max;
  T epsilon;  // the real type's machine epsilon (step_underflows)
  T safety{0.9}, shrink_limit{0.2}, growth_limit{10};
};

// What the controller carries from one step to the next.
template <class T>
struct PIMemory {
  T err_prev{1e-4};
  bool last_rejected = false;
};

// The smallest step an adaptive method may take at time t: h_min (--h-min), and more than 4 units
// of round-off of t. A controller that asks for less has collapsed (a collision, or an error
// estimate that is round-off noise and does not shrink with h): t + h would barely move t, or not
// at all, and the run would go on for ever with t frozen. The run stops instead (exit 3).
// epsilon: the real type's machine epsilon.
template <class T>
NBODY_HD bool step_underflows(T t, T h, T h_min, T epsilon) {
  const T abs_t = t < T(0) ? -t : t;
  return !(h >= h_min) || !(h > T(4) * epsilon * abs_t);
}

// Whether a controller that tried a step h and now asks for h_next has collapsed: it shrank the
// step (h_next < h, for the error of the trial) and the new step underflows. A short step the
// controller did not choose, the driver's cut to land on t_end or a snapshot, and the steps that
// grow from it are not a collapse, however small.
template <class T>
NBODY_HD bool controller_collapsed(T t, T h, T h_next, T h_min, T epsilon) {
  return !(h_next >= h) && step_underflows(t, h_next, h_min, epsilon);
}

// Judges a trial step of size h with error norm err and sets h_next; returns true if accepted. The
// caller checks h_next with controller_collapsed after either verdict: h_next is never raised to h_min.
// pow is called unqualified: each real type supplies its own (common/real_math.hpp for float and
// double, on host and device).
template <class T>
NBODY_HD bool pi_judge(const PIRule<T>& r, PIMemory<T>& m, T err, T h, T& h_next) {
  if (!(err <= T(1))) {
    const T q = r.safety / pow(err, r.alpha);  // NaN or 0 for a blown-up trial: the limit applies
    h_next = h * (q > r.shrink_limit ? q : r.shrink_limit);
    m.last_rejected = true;
    return false;
  }
  const T e = err < T(1e-4) ? T(1e-4) : err;  // Hairer's floor: no infinite growth request
  T factor = r.safety * pow(e, -r.alpha) * pow(m.err_prev, r.beta);
  factor = factor < r.shrink_limit ? r.shrink_limit : (r.growth_limit < factor ? r.growth_limit : factor);
  if (m.last_rejected && T(1) < factor) factor = T(1);
  const T grown = h * factor;
  h_next = r.h_max < grown ? r.h_max : grown;
  m.err_prev = e;
  m.last_rejected = false;
  return true;
}

// Hairer's combination of DOP853's two error estimates (DOP853, "error estimation"): err5^2 /
// sqrt(err5^2 + 0.01 err3^2), with err5 and err3 the norms of the 5th- and 3rd-order estimates.
// Where the 3rd-order estimate is small it is err5; where it dominates, the estimate is damped,
// which makes it O(h^8) and robust for large steps. sqrt is called unqualified, as pow above.
template <class T>
NBODY_HD T dop853_combined_error(T err5, T err3) {
  const T denominator = err5 * err5 + err3 * err3 / T(100);
  return denominator > T(0) ? err5 * err5 / sqrt(denominator) : T(0);
}

}  // namespace nbody
