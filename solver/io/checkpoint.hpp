#pragma once
// Checkpoint files: a magic line, the run's parameters as JSON (to check a resume against), the
// archive of the run's state (Simulation::save), and an FNV-1a checksum of all of it. Written
// atomically: a new file, the previous checkpoint renamed to FILE.bak, the new one renamed to FILE.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace nbody {

struct Checkpoint {
  nlohmann::json parameters;
  std::string state;  // ArchiveWriter bytes
};

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c);
Checkpoint read_checkpoint(const std::filesystem::path& path);

}  // namespace nbody
