#pragma once
// What the timing subcommands (bench, tune, cells) share: the median of repeated times, and the
// quoting of the free-text fields of their CSV rows.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace nbody::cli {

// The median of v (the mean of the middle two for an even count); v not empty.
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t r = v.size();
  return r % 2 ? v[r / 2] : (v[r / 2 - 1] + v[r / 2]) / 2;
}

// s as one CSV field (RFC 4180): quoted, with its quotes doubled, where it holds a comma, a quote
// or a line break (a CPU model, compiler flags, a device's name).
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace nbody::cli
