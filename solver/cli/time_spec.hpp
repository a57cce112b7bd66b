#pragma once
// Time values on the command line: a number, or for a two-body problem a multiple of the orbital
// period P: "10P", "0.5P", "P/1024", "3P/4", "2*P".
#include <functional>
#include <string>

#include "core/error.hpp"
#include "core/real.hpp"

namespace nbody::cli {

template <class T>
T parse_time(std::string text, const std::string& flag, const std::function<T()>& period) {
  std::erase(text, ' ');
  const auto p = text.find('P');
  if (p == std::string::npos) return RealTraits<T>::parse(text, flag);
  std::string factor = text.substr(0, p), divisor = text.substr(p + 1);
  if (!factor.empty() && factor.back() == '*') factor.pop_back();
  if (!divisor.empty() && divisor.front() != '/')
    throw InputError(flag + ": '" + text + "' is not a time (examples: 6.28, 10P, P/1024, 3P/4)");
  const T f = factor.empty() ? T(1) : RealTraits<T>::parse(factor, flag);
  const T d = divisor.empty() ? T(1) : RealTraits<T>::parse(divisor.substr(1), flag);
  return f * period() / d;
}

}  // namespace nbody::cli
