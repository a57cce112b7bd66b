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
  const std::string given = text;
  std::erase(text, ' ');
  // The error names the whole text and every accepted form.
  auto not_a_time = [&] {
    return InputError(flag + ": " + quoted_excerpt(given) + " is not a time (a decimal number: " + kDecimalExamples +
                      "; or, for a two-body system, a multiple of its orbital period: 10P, 0.5P, P/1024, 3P/4)");
  };
  auto number = [&](const std::string& part) {
    try {
      return RealTraits<T>::parse(part, flag);
    } catch (const InputError&) {
      throw not_a_time();
    }
  };
  const auto p = text.find('P');
  if (p == std::string::npos) return number(text);
  std::string factor = text.substr(0, p), divisor = text.substr(p + 1);
  if (!factor.empty() && factor.back() == '*') factor.pop_back();
  if (!divisor.empty() && divisor.front() != '/') throw not_a_time();
  const T f = factor.empty() ? T(1) : number(factor);
  const T d = divisor.empty() ? T(1) : number(divisor.substr(1));
  return f * period() / d;
}

}  // namespace nbody::cli
