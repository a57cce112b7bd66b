#pragma once
// Math functions of the built-in real types, declared in namespace nbody so that generic code
// calls every function unqualified: `sqrt(x)`, never `std::sqrt(x)` or `using std::sqrt`.
// Unqualified lookup from inside namespace nbody finds these overloads (and those of nbody::dd and
// of __float128, declared in the same namespace), and argument-dependent lookup adds those of
// class types from other namespaces (Boost.Multiprecision). A `using std::sqrt` would hide them:
// for __float128, std::sqrt has no overload and the call would not compile, or worse, convert.
#include <cmath>

#include "host_device.hpp"

namespace nbody {

NBODY_HD float sqrt(float x) { return ::sqrtf(x); }
NBODY_HD double sqrt(double x) { return ::sqrt(x); }
NBODY_HD float abs(float x) { return ::fabsf(x); }
NBODY_HD double abs(double x) { return ::fabs(x); }
NBODY_HD float pow(float x, float y) { return ::powf(x, y); }
NBODY_HD double pow(double x, double y) { return ::pow(x, y); }
NBODY_HD float sin(float x) { return ::sinf(x); }
NBODY_HD double sin(double x) { return ::sin(x); }
NBODY_HD float cos(float x) { return ::cosf(x); }
NBODY_HD double cos(double x) { return ::cos(x); }
NBODY_HD float fmod(float x, float y) { return ::fmodf(x, y); }
NBODY_HD double fmod(double x, double y) { return ::fmod(x, y); }
NBODY_HD float floor(float x) { return ::floorf(x); }
NBODY_HD double floor(double x) { return ::floor(x); }
NBODY_HD bool isfinite(float x) { return x - x == 0.0f; }  // false for inf and NaN
NBODY_HD bool isfinite(double x) { return x - x == 0.0; }

}  // namespace nbody
