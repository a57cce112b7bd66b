#include "io/provenance.hpp"

#include <omp.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "build_config.hpp"
#include "engines/gpu_engines.hpp"
#include "git_info.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

nlohmann::json build_info() {
  return {
      {"program", "nbody"},
      {"version", NBODY_VERSION},
      {"git_commit", NBODY_GIT_COMMIT},
      {"git_dirty", NBODY_GIT_DIRTY},
      {"build_type", NBODY_BUILD_TYPE},
      {"compiler", NBODY_COMPILER},
      {"cxx_flags", NBODY_CXX_FLAGS},
      {"cuda_compiler_found", std::string(NBODY_CUDA_COMPILER_FOUND) == "ON"},
      {"opencl_found", std::string(NBODY_OPENCL_FOUND) == "TRUE" || std::string(NBODY_OPENCL_FOUND) == "1"},
      {"gpu_engines", gpu_engine_names()},
      {"mpi", mpi::built() ? nlohmann::json(mpi::library()) : nlohmann::json()},  // null: built without MPI
  };
}

nlohmann::json host_info() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return {{"cpu_model", model},
          {"logical_cores", std::thread::hardware_concurrency()},
          {"openmp_max_threads", omp_get_max_threads()},  // per rank
          {"mpi_ranks", mpi::size()}};
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::filesystem::path meta_path_for(const std::filesystem::path& csv) {
  std::filesystem::path meta = csv;
  if (meta.extension() == ".csv") meta.replace_extension();
  meta += ".meta.json";
  return meta;
}

nlohmann::json provenance_record(const nlohmann::json& parameters) {
  return {{"written_utc", utc_timestamp()}, {"build", build_info()}, {"host", host_info()}, {"parameters", parameters}};
}

std::string meta_record(const std::filesystem::path& csv, const nlohmann::json& parameters) {
  nlohmann::json meta = provenance_record(parameters);
  meta["file"] = csv.filename().string();
  return meta.dump(2) + "\n";
}

}  // namespace nbody
