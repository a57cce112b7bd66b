#pragma once
// Provenance: every CSV the program writes gets a sidecar X.meta.json (X.csv -> X.meta.json) with
// the build (commit, compiler, flags), the host (CPU model, threads) and the run's parameters.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace nbody {

nlohmann::json build_info();  // commit, dirty flag, build type, compiler, flags, optional back ends
nlohmann::json host_info();   // CPU model, logical cores, OpenMP threads
std::string utc_timestamp();

// X.csv -> X.meta.json (any other name gets .meta.json appended).
std::filesystem::path meta_path_for(const std::filesystem::path& csv);

// The provenance of an output: the time written, the build, the host and the run's `parameters`
// (the sidecar of a CSV holds it, an HDF5 snapshot's Header too).
nlohmann::json provenance_record(const nlohmann::json& parameters);

// The text of the sidecar of `csv` (io/output_set.hpp writes it): its name and provenance_record(parameters).
std::string meta_record(const std::filesystem::path& csv, const nlohmann::json& parameters);

}  // namespace nbody
