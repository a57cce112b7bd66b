// The tuned-launch cache (tune_cache.hpp): a small JSON file.
#include "cuda/tune_cache.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.hpp"

namespace nbody::tune_cache {

std::string path() {
  if (const char* p = std::getenv("NBODY_TUNE_CACHE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/nbody-lab/tune.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/nbody-lab/tune.json";
  return ".nbody-tune.json";
}

namespace {
nlohmann::json load() {
  std::ifstream in(path());
  if (!in) return nlohmann::json::object();
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    return j.is_object() ? j : nlohmann::json::object();
  } catch (...) {
    return nlohmann::json::object();  // a damaged cache is ignored, never fatal
  }
}
std::string key(const std::string& device_key, const std::string& engine, const std::string& precision) {
  return device_key + " | " + engine + " | " + precision;
}
}  // namespace

std::optional<std::string> lookup(const std::string& device_key, const std::string& engine, const std::string& precision,
                                  std::size_t n) {
  const nlohmann::json j = load();
  const auto it = j.find(key(device_key, engine, precision));
  if (it == j.end() || !it->is_array()) return std::nullopt;
  std::optional<std::string> best;
  double best_d = 1e300;
  for (const auto& e : *it) {
    if (!e.contains("n") || !e.contains("launch")) continue;
    const double d = std::fabs(std::log2(double(e["n"].get<std::size_t>())) - std::log2(double(n)));
    if (d < best_d) {
      best_d = d;
      best = e["launch"].get<std::string>();
    }
  }
  return best;
}

void store(const std::string& device_key, const std::string& engine, const std::string& precision, std::size_t n,
           const std::string& launch, double seconds) {
  nlohmann::json j = load();
  auto& list = j[key(device_key, engine, precision)];
  if (!list.is_array()) list = nlohmann::json::array();
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& e : list)
    if (!(e.contains("n") && e["n"].get<std::size_t>() == n)) kept.push_back(e);
  kept.push_back({{"n", n}, {"launch", launch}, {"seconds", seconds}});
  list = kept;
  const std::filesystem::path p(path());
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  write_file_atomically(p, j.dump(2) + "\n");
}

}  // namespace nbody::tune_cache
