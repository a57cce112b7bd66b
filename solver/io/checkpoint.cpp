#include "io/checkpoint.hpp"

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/archive.hpp"
#include "io/atomic_file.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace {

// The format version: 3 holds any model's run (its name, identity, the loop's clocks as JSON, and
// the model's archive).
constexpr const char* kFamily = "nbody-checkpoint ";
constexpr const char* kMagic = "nbody-checkpoint 3\n";

}  // namespace

std::uint64_t checkpoint_checksum(std::string_view body) {  // FNV-1a
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : body) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::filesystem::path checkpoint_backup(const std::filesystem::path& path) {
  std::filesystem::path bak = path;
  return bak += ".bak";
}

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c) {
  if (!mpi::writes_files()) return;  // an MPI rank other than 0: rank 0 keeps the checkpoint (and its .bak)
  ArchiveWriter w;
  w.put_text(c.parameters.dump());
  w.put_text(c.state);
  const std::string body = kMagic + w.bytes();
  ArchiveWriter sum;
  sum.put(checkpoint_checksum(body));
  AtomicFile out(path);
  out.stream() << body << sum.bytes();
  out.close();  // whole on the disk before the previous one is touched
  // The previous checkpoint becomes FILE.bak through a second name (a hard link), so that FILE
  // exists at every moment; where links are not supported, it is renamed.
  if (std::filesystem::exists(path)) {
    const auto bak = checkpoint_backup(path);
    std::error_code ec;
    std::filesystem::remove(bak, ec);
    std::filesystem::create_hard_link(path, bak, ec);
    if (ec) std::filesystem::rename(path, bak, ec);
    if (ec) throw RunError("cannot keep the previous checkpoint as '" + bak.string() + "': " + ec.message());
  }
  out.commit();
  note_checkpoint(path.string());
}

bool looks_like_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string start(std::string(kFamily).size(), '\0');
  return in && in.read(start.data(), static_cast<std::streamsize>(start.size())) && start == kFamily;
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  const std::string where = "checkpoint '" + path.string() + "'";
  if (std::filesystem::is_directory(path)) throw InputError(where + " is a directory, not a checkpoint file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open " + where);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  const std::string magic = kMagic;
  const InputError truncated(where + " is truncated (" + std::to_string(all.size()) + " bytes)");
  if (all.empty()) throw InputError(where + " is empty");
  if (all.size() < magic.size() && magic.starts_with(all)) throw truncated;
  if (!all.starts_with(magic)) {
    if (all.starts_with(kFamily))
      throw InputError(where + " was written by another version of nbody (format '" + all.substr(0, all.find('\n')) +
                       "', this one reads '" + magic.substr(0, magic.size() - 1) + "'); start the run again");
    throw InputError(where + " is not an nbody checkpoint");
  }
  // Two texts with their lengths, then the checksum: data that ends early was cut off.
  ArchiveReader r(all.substr(magic.size()));
  std::string parameters, state;
  std::uint64_t stored_sum = 0;
  try {
    parameters = r.get_text();
    state = r.get_text();
    stored_sum = r.get<std::uint64_t>();
  } catch (const InputError&) {
    throw truncated;
  }
  if (!r.at_end()) throw InputError(where + " is corrupt (data after its end)");
  if (stored_sum != checkpoint_checksum(std::string_view(all).substr(0, all.size() - sizeof stored_sum)))
    throw InputError(where + " is corrupt (checksum mismatch)");
  Checkpoint c;
  try {
    c.parameters = nlohmann::json::parse(parameters);
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + " has unreadable parameters");
  }
  c.state = std::move(state);
  return c;
}

std::string checkpoint_model(const Checkpoint& c) {
  const auto& p = c.parameters;
  return p.is_object() && p.contains("model") && p["model"].is_string() ? p["model"].get<std::string>() : std::string();
}

}  // namespace nbody
