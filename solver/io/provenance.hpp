#pragma once
// Provenance: every CSV the program writes gets a sidecar X.meta.json (X.csv -> X.meta.json) with
// the build (commit, compiler, flags), the host (CPU model, threads) and the run's parameters.
#include <filesystem>

#include <nlohmann/json.hpp>

namespace nbody {

nlohmann::json build_info();  // commit, dirty flag, build type, compiler, flags, optional back ends
nlohmann::json host_info();   // CPU model, logical cores, OpenMP threads
std::string utc_timestamp();

// X.csv -> X.meta.json (any other name gets .meta.json appended).
std::filesystem::path meta_path_for(const std::filesystem::path& csv);

// Writes the sidecar of `csv`: build, host, time and `parameters`.
void write_meta(const std::filesystem::path& csv, const nlohmann::json& parameters);

}  // namespace nbody
