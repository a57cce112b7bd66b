#pragma once
// Neumaier's improved Kahan summation: the running sum plus a correction term that collects the
// low-order bits each addition loses. Exact to O(eps) whatever the order and spread of the terms
// (as long as the build does not use -ffast-math, which would fold the correction away).
namespace nbody {

template <class T>
class CompensatedSum {
 public:
  void add(T x) {
    const T t = sum_ + x;
    if (abs(sum_) >= abs(x))
      correction_ += (sum_ - t) + x;
    else
      correction_ += (x - t) + sum_;
    sum_ = t;
  }
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
