#include "real.hpp"

namespace nbody {

namespace {
template <class... Ts>
std::string names_of(std::tuple<Ts...>*) {
  std::string out;
  ((out += (out.empty() ? "" : ", ") + std::string(RealTraits<Ts>::name)), ...);
  return out;
}
}  // namespace

std::string precision_names() { return names_of(static_cast<Precisions*>(nullptr)); }

}  // namespace nbody
