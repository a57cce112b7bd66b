// `nbody list WHAT`: one line per item, name then a short description.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "core/real.hpp"
#include "engines/engine.hpp"
#include "integrators/integrator.hpp"

namespace nbody::cli {

namespace {
void line(std::string_view name, const std::string& text) {
  std::printf("%-16.*s %s\n", static_cast<int>(name.size()), name.data(), text.c_str());
}
}  // namespace

int list_command(const std::string& what, bool json) {
  if (json) {  // machine-readable, for the paper's tables
    nlohmann::json out = nlohmann::json::array();
    if (what == "integrators") {
      for (const auto& e : integrator_table<double>())
        out.push_back({{"name", e.name},
                       {"description", e.description},
                       {"order", e.order},
                       {"error_estimate", e.error_estimate},
                       {"family", e.family},
                       {"evaluations_per_step", e.evaluations_per_step},
                       {"symplectic", e.symplectic},
                       {"implicit", e.implicit}});
    } else if (what == "engines") {
      for (const auto& e : engine_table<double>()) out.push_back({{"name", e.name}, {"description", e.description}});
    } else if (what == "ics") {
      for (const auto& e : ic_list()) out.push_back({{"name", e.name}, {"description", e.description}});
    } else {
      std::apply([&](auto... t) { (out.push_back({{"name", RealTraits<decltype(t)>::name}, {"description", RealTraits<decltype(t)>::description}}), ...); },
                 Precisions{});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (what == "integrators") {
    for (const auto& e : integrator_table<double>())
      line(e.name, std::string(e.description) + (e.error_estimate ? " [--dt or --tol]" : " [--dt]"));
  } else if (what == "engines") {
    for (const auto& e : engine_table<double>()) line(e.name, std::string(e.description));
  } else if (what == "ics") {
    for (const auto& e : ic_list()) line(e.name, std::string(e.description));
  } else {
    std::apply([](auto... t) { (line(RealTraits<decltype(t)>::name, std::string(RealTraits<decltype(t)>::description)), ...); },
               Precisions{});
  }
  return 0;
}

}  // namespace nbody::cli
