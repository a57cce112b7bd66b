#pragma once
#include <stdexcept>

namespace nbody {

// Bad input from the user (flag, file, numbers): reported as one line, exit code 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The computation itself failed (non-finite state, step size underflow): exit code 3.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nbody
