#include "core/memory.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace nbody {

namespace {

// The first number in the file at `path` (after `key` when given), scaled by `unit`.
std::optional<std::uint64_t> read_number(const char* path, const std::string& key = "", std::uint64_t unit = 1) {
  std::ifstream in(path);
  for (std::string word; in >> word;) {
    if (!key.empty() && word != key) continue;
    if (!key.empty() && !(in >> word)) return std::nullopt;
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;  // cgroup v2's "max": no limit
    return value * unit;
  }
  return std::nullopt;
}

// The limit less the usage of the process's memory cgroup (v2, else v1).
std::optional<std::uint64_t> cgroup_headroom() {
  for (auto [limit_file, usage_file] : {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
                                        std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                                  "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
    const auto limit = read_number(limit_file), usage = read_number(usage_file);
    if (limit && usage) return *limit > *usage ? *limit - *usage : 0;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> available_memory() {
  const auto meminfo = read_number("/proc/meminfo", "MemAvailable:", 1024);
  const auto cgroup = cgroup_headroom();
  if (meminfo && cgroup) return std::min(*meminfo, *cgroup);
  return meminfo ? meminfo : cgroup;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) bytes /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

std::optional<std::uint64_t> peak_memory() { return read_number("/proc/self/status", "VmHWM:", 1024); }

void check_memory(const MemoryNeed& need, const std::string& what, bool skip, std::optional<std::uint64_t> device_free) {
  if (skip) return;
  const auto refuse = [&](double needed, std::uint64_t free, const char* where) {
    throw InputError(what + " needs about " + bytes_text(needed) + " of " + where + " memory, more than the " +
                     bytes_text(static_cast<double>(free)) + " free; --skip-memory-check tries anyway");
  };
  if (const auto available = available_memory(); available && need.host_bytes > static_cast<double>(*available))
    refuse(need.host_bytes, *available, "host");
  if (device_free && need.device_bytes > static_cast<double>(*device_free)) refuse(need.device_bytes, *device_free, "GPU");
}

}  // namespace nbody
