#pragma once
// The progress line of long runs (nbody run, sph, dpd: on stderr every 10 s of wall time, none
// under --quiet): where the run stands, how fast it goes, how long it should still take.
#include <cstdio>
#include <ctime>
#include <string>

namespace nbody {

// A span of wall time for people: "42 s", "7.5 min", "2.3 h".
inline std::string duration_text(double seconds) {
  char text[32];
  if (seconds < 90) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 5400) std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  else std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

// "POSITION (37 %), 13.3 steps/s, about 4.2 min left (to 23:41 UTC)": fraction is the part of this
// run done, in `steps` steps that took `elapsed` wall seconds; the rest is expected at the same pace.
inline std::string progress_line(const std::string& position, double fraction, double steps, double elapsed) {
  char rate[48];
  std::snprintf(rate, sizeof rate, "%.3g steps/s", elapsed > 0 ? steps / elapsed : 0.0);
  std::string line = position + " (" + std::to_string(static_cast<int>(100 * fraction)) + " %), " + rate;
  if (fraction > 0 && fraction < 1 && elapsed > 0) {
    const double left = elapsed * (1 - fraction) / fraction;
    const std::time_t end = std::time(nullptr) + static_cast<std::time_t>(left);
    char clock[16];
    std::strftime(clock, sizeof clock, "%H:%M", std::gmtime(&end));
    line += ", about " + duration_text(left) + " left (to " + clock + " UTC)";
  }
  return line;
}

}  // namespace nbody
