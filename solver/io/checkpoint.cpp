#include "io/checkpoint.hpp"

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/archive.hpp"
#include "io/atomic_file.hpp"

namespace nbody {

namespace {

// The format version: 2 added the snapshot clock to the run's archive.
constexpr const char* kFamily = "nbody-checkpoint ";
constexpr const char* kMagic = "nbody-checkpoint 2\n";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c) {
  ArchiveWriter w;
  w.put_text(c.parameters.dump());
  w.put_text(c.state);
  const std::string body = kMagic + w.bytes();
  ArchiveWriter sum;
  sum.put(fnv1a(body));
  AtomicFile out(path.string() + ".new");
  out.stream() << body << sum.bytes();
  out.commit();
  std::error_code ec;
  if (std::filesystem::exists(path)) std::filesystem::rename(path, path.string() + ".bak", ec);
  std::filesystem::rename(path.string() + ".new", path, ec);
  if (ec) throw RunError("cannot write checkpoint '" + path.string() + "': " + ec.message());
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open checkpoint '" + path.string() + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  const std::string magic = kMagic;
  const std::string where = "checkpoint '" + path.string() + "'";
  if (all.compare(0, magic.size(), magic) != 0) {
    if (all.starts_with(kFamily))
      throw InputError(where + " was written by another version of nbody (format '" + all.substr(0, all.find('\n')) +
                       "', this one reads '" + magic.substr(0, magic.size() - 1) + "'); start the run again");
    throw InputError(where + " is not an nbody checkpoint");
  }
  if (all.size() < magic.size() + sizeof(std::uint64_t)) throw InputError(where + " is truncated");
  const std::string body = all.substr(0, all.size() - sizeof(std::uint64_t));
  ArchiveReader sum(all.substr(body.size()));
  if (sum.get<std::uint64_t>() != fnv1a(body)) throw InputError(where + " is corrupt (checksum mismatch)");
  ArchiveReader r(body.substr(magic.size()));
  Checkpoint c;
  try {
    c.parameters = nlohmann::json::parse(r.get_text());
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + " has unreadable parameters");
  }
  c.state = r.get_text();
  return c;
}

}  // namespace nbody
