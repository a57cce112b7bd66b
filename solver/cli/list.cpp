// `nbody list WHAT`: one line per item, name then a short description.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "core/real.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "integrators/integrator.hpp"
#include "physics/tree_params.hpp"

namespace nbody::cli {

namespace {

void line(std::string_view name, const std::string& text) {
  std::printf("%-16.*s %s\n", static_cast<int>(name.size()), name.data(), text.c_str());
}

// An engine's registry entry and capabilities, its launch knobs as compiled for `precision` when
// it runs in it (the compiled variants differ between types), else for its first precision, and
// whether it can run on this machine (a GPU engine needs its device).
nlohmann::json engine_json(const EngineName& e, std::string_view precision) {
  const bool runs = std::find(e.precisions.begin(), e.precisions.end(), precision) != e.precisions.end();
  const std::string_view p = runs ? precision : e.precisions.front();
  nlohmann::json j;
  dispatch_precision(p, [&]<class T>() {
    const EngineEntry<T>& entry = find_engine<T>(e.name);
    nlohmann::json launch = nlohmann::json::array();
    for (const Knob& k : entry.can.launch)
      launch.push_back({{"key", k.key}, {"meaning", k.meaning}, {"valid", k.valid_text(0)}, {"tune", k.tune}});
    nlohmann::json tree = nlohmann::json::array();  // the parameters of its tree, with its defaults
    for (const TreeParam& p : tree_params)
      if (steers(p, entry.can.tree))
        tree.push_back({{"flag", p.flag},
                        {"meaning", p.meaning},
                        {"valid", valid_text(p)},
                        {"default", value_text(p, default_tree_options(entry.can)).value_or("")}});
    j = {{"name", e.name},
         {"description", entry.description},
         {"device", device_name(entry.can.device)},
         {"precisions", e.precisions},
         {"compensated_forces", entry.can.compensated_forces},
         {"block_forces", entry.can.block_forces},
         {"pass_forces", entry.can.pass_forces},
         {"body_potentials", potentials_name(entry.can.potentials)},
         {"tree", tree_name(entry.can.tree)},
         {"tree_parameters", tree},
         {"simd", entry.can.simd},
         {"launch", launch},
         {"launch_precision", p}};
    const std::string why = unavailable_reason(entry.can.device);
    j["available"] = why.empty();
    if (!why.empty()) j["unavailable_reason"] = why;
  });
  return j;
}

int list_engines(bool json, std::string_view precision) {
  nlohmann::json out = nlohmann::json::array();
  for (const EngineName& e : all_engines()) out.push_back(engine_json(e, precision));
  if (json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& j : out) {
    std::string text = j["description"].get<std::string>() + " [" + j["device"].get<std::string>() + ": ";
    for (std::size_t k = 0; k < j["precisions"].size(); ++k) text += (k ? ", " : "") + j["precisions"][k].get<std::string>();
    text += "]";
    if (j["compensated_forces"].get<bool>()) text += " [--compensated forces]";
    if (j["block_forces"].get<bool>()) text += " [mpi:" + j["name"].get<std::string>() + " splits it over MPI ranks]";
    if (j["pass_forces"].get<bool>()) text += " [mpi:" + j["name"].get<std::string>() + " splits its passes over MPI ranks]";
    if (!j["tree_parameters"].empty()) {
      text += " [approximate:";
      for (std::size_t k = 0; k < j["tree_parameters"].size(); ++k)
        text += std::string(k ? "," : "") + " " + j["tree_parameters"][k]["flag"].get<std::string>() + " (default " +
                j["tree_parameters"][k]["default"].get<std::string>() + ")";
      text += "]";
    }
    if (!j["simd"].get<std::string>().empty()) text += " [SIMD here: " + j["simd"].get<std::string>() + "]";
    if (!j["launch"].empty()) {
      text += " [--launch in " + j["launch_precision"].get<std::string>() + ":";
      for (std::size_t k = 0; k < j["launch"].size(); ++k)
        text += std::string(k ? ";" : "") + " " + j["launch"][k]["key"].get<std::string>() + "= " +
                j["launch"][k]["valid"].get<std::string>();
      text += "]";
    }
    if (!j["available"].get<bool>()) text += " [cannot run here: " + j["unavailable_reason"].get<std::string>() + "]";
    line(j["name"].get<std::string>(), text);
  }
  return 0;
}

}  // namespace

int list_command(const std::string& what, bool json, const std::string& precision) {
  if (what == "engines") return list_engines(json, precision);
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
                       {"implicit", e.implicit},
                       {"selectable_order", e.selectable_order}});
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
      line(e.name, std::string(e.description) + (e.error_estimate ? " [--dt or --tol" : " [--dt") +
                       (e.selectable_order ? ", --order]" : "]"));
  } else if (what == "ics") {
    for (const auto& e : ic_list()) line(e.name, std::string(e.description));
  } else {
    std::apply([](auto... t) { (line(RealTraits<decltype(t)>::name, std::string(RealTraits<decltype(t)>::description)), ...); },
               Precisions{});
  }
  return 0;
}

}  // namespace nbody::cli
