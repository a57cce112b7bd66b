// `nbody bench`: median time of one force evaluation on a Plummer sphere, as one CSV row.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "engines/engine.hpp"
#include "io/provenance.hpp"

namespace nbody::cli {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

template <class T>
int bench_typed(const BenchOptions& o) {
  if (o.n < 2) throw InputError("--n must be at least 2, got " + std::to_string(o.n));
  if (o.repeats < 1) throw InputError("--repeats must be at least 1, got " + std::to_string(o.repeats));
  IcParams ic;
  ic.name = "plummer";
  ic.n = static_cast<std::size_t>(o.n);
  ic.seed = o.seed;
  const State<T> s = make_initial_state<T>(ic);
  const std::string engine_name = o.engine.empty() ? std::string(engine_table<T>().front().name) : o.engine;
  auto engine = make_engine<T>(engine_name, parse_force_law<T>(o.force));
  std::vector<T> acc(3 * s.size());
  engine->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    engine->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t r = seconds.size();
  const double median = r % 2 ? seconds[r / 2] : (seconds[r / 2 - 1] + seconds[r / 2]) / 2;
  const double interactions = static_cast<double>(s.size()) * static_cast<double>(s.size() - 1);
  const auto host = host_info();
  const auto build = build_info();
  std::printf("engine,precision,n,threads,repeats,seconds_per_eval,interactions_per_s,gflops,cpu_model,compiler_flags\n");
  std::printf("%s,%s,%zu,%d,%d,%.6g,%.6g,%.6g,%s,%s\n", engine_name.c_str(), o.precision.c_str(), s.size(),
              host["openmp_max_threads"].get<int>(), o.repeats, median, interactions / median,
              20.0 * interactions / median / 1e9,  // 20 flops per interaction (interaction.hpp)
              csv_field(host["cpu_model"].get<std::string>()).c_str(),
              csv_field(build["cxx_flags"].get<std::string>()).c_str());
  return 0;
}

}  // namespace

int bench_command(const BenchOptions& o) {
  return dispatch_precision(o.precision, [&]<class T>() { return bench_typed<T>(o); });
}

}  // namespace nbody::cli
