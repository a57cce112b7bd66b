#pragma once
// Neumaier's improved Kahan summation: the running sum plus a correction term that collects the
// low-order bits each addition loses. Exact to O(eps) whatever the order and spread of the terms
// (as long as the build does not use -ffast-math, which would fold the correction away). Host and
// device: the CPU's compensated sums and the CUDA potential kernel call it.
#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody {

// One addition: sum + correction gains x.
template <class T>
NBODY_HD void neumaier_add(T& sum, T& correction, T x) {
  const T t = sum + x;
  if (abs(sum) >= abs(x))
    correction += (sum - t) + x;
  else
    correction += (x - t) + sum;
  sum = t;
}

template <class T>
class CompensatedSum {
 public:
  void add(T x) { neumaier_add(sum_, correction_, x); }
  CompensatedSum& operator+=(T x) {
    add(x);
    return *this;
  }
  T value() const { return sum_ + correction_; }

 private:
  T sum_{0};
  T correction_{0};
};

}  // namespace nbody
