#pragma once
// Checkpoint files: a magic line, the run's parameters as JSON (what a resume continues and is
// checked against; they name the precision, so that a checkpoint is never read in another one),
// the archive of the run's state (Simulation::save), and an FNV-1a checksum of all of it. Written
// atomically: a temporary file, the previous checkpoint kept as FILE.bak, the new one renamed to
// FILE (which exists at every moment).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nbody {

struct Checkpoint {
  nlohmann::json parameters;
  std::string state;  // ArchiveWriter bytes
};

// FILE.bak: the previous checkpoint.
std::filesystem::path checkpoint_backup(const std::filesystem::path& path);

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c);
// Whether the file starts as a checkpoint of some version of nbody does (read_checkpoint says
// whether it is one this version reads).
bool looks_like_checkpoint(const std::filesystem::path& path);
Checkpoint read_checkpoint(const std::filesystem::path& path);
// The command whose run the checkpoint holds ("run", "dpd", "sph"), "" where it names none.
std::string checkpoint_model(const Checkpoint& c);

// The checksum a checkpoint ends with (its last 8 bytes, little-endian) of all that precedes it: a
// file whose checksum holds passes on to the checks of its content (a fuzzer sets it to get there).
std::uint64_t checkpoint_checksum(std::string_view body);

}  // namespace nbody
