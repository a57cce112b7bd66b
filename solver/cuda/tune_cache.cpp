// The tuned-launch cache (tune_cache.hpp): a small JSON file.
#include "cuda/tune_cache.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "engines/launch.hpp"
#include "io/atomic_file.hpp"

namespace nbody::tune_cache {

std::string path() {
  if (const char* p = std::getenv("NBODY_TUNE_CACHE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/nbody-lab/tune.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/nbody-lab/tune.json";
  return ".nbody-tune.json";
}

namespace {
// The cache as JSON: {"DEVICE | ENGINE | PRECISION": [{"n": N, "launch": SPEC, "seconds": S}, ...]}.
// A file that is not that is refused, naming it (it decides launches silently otherwise).
nlohmann::json load() {
  const std::string file = path();
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  const auto damaged = [&](const std::string& problem) {
    return InputError("tuning cache '" + file + "' " + problem + "; remove it (`nbody tune` writes it again)");
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw damaged("is not JSON");
  }
  if (!j.is_object()) throw damaged("is not a JSON object");
  for (const auto& [k, list] : j.items()) {
    if (!list.is_array()) throw damaged("entry '" + k + "' is not a list");
    for (const auto& e : list)
      if (!e.is_object() || !e.contains("n") || !e["n"].is_number_unsigned() || e["n"].get<std::uint64_t>() == 0 ||
          !e.contains("launch") || !e["launch"].is_string())
        throw damaged("entry '" + k + "' has an item without a count n >= 1 and a launch text");
  }
  return j;
}
std::string key(const std::string& device_key, const std::string& engine, const std::string& precision) {
  return device_key + " | " + engine + " | " + precision;
}
}  // namespace

std::optional<Launch> lookup(const std::string& device_key, const std::string& engine, const std::string& precision,
                             std::size_t n) {
  const nlohmann::json j = load();
  const auto it = j.find(key(device_key, engine, precision));
  if (it == j.end()) return std::nullopt;
  const nlohmann::json* best = nullptr;
  double best_d = 1e300;
  for (const auto& e : *it) {
    const double d = std::fabs(std::log2(double(e["n"].get<std::uint64_t>())) - std::log2(double(n)));
    if (d < best_d) best_d = d, best = &e;
  }
  if (!best) return std::nullopt;
  try {
    return parse_launch((*best)["launch"].get<std::string>());
  } catch (const InputError& e) {
    throw InputError("tuning cache '" + path() + "': the launch of " + engine + " at n = " +
                     std::to_string((*best)["n"].get<std::uint64_t>()) + ": " + e.what() + "; remove the file (`nbody tune` writes it again)");
  }
}

void store(const std::string& device_key, const std::string& engine, const std::string& precision, std::size_t n,
           const std::string& launch, double seconds) {
  nlohmann::json j = load();
  auto& list = j[key(device_key, engine, precision)];
  if (list.is_null()) list = nlohmann::json::array();
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& e : list)
    if (e["n"].get<std::uint64_t>() != n) kept.push_back(e);
  kept.push_back({{"n", n}, {"launch", launch}, {"seconds", seconds}});
  list = kept;
  const std::filesystem::path p(path());
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  write_file_atomically(p, j.dump(2) + "\n");
}

}  // namespace nbody::tune_cache
