#include "io/output_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/provenance.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) {
  std::string s = p.string();
  s.insert(s.begin(), '\'');
  s.push_back('\'');
  return s;
}

// Creates and removes a file in `folder`, as writing an output will: the one test of permission
// that also holds for root and for read-only file systems. An empty text when it worked, else why not.
std::string cannot_create_in(const fs::path& folder) {
  const fs::path probe = folder / (".nbody-probe." + std::to_string(::getpid()));
  RegisteredTemporary registration(probe.string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

void check_place(const OutputFile& out) {
  const std::string named = out.flag + " " + out.path.string();
  if (out.path.empty() || out.path.filename().empty()) throw InputError(named + ": give a file name");
  std::error_code ec;
  if (fs::is_directory(out.path, ec)) throw InputError(named + ": is a directory; give a file name");
  const fs::path folder = out.path.parent_path().empty() ? fs::path(".") : out.path.parent_path();
  if (!fs::exists(folder, ec)) throw InputError(named + ": folder " + quoted(folder) + " does not exist");
  if (!fs::is_directory(folder, ec)) throw InputError(named + ": " + quoted(folder) + " is not a folder");
  if (const std::string why = cannot_create_in(folder); !why.empty())
    throw InputError(named + ": cannot write in folder " + quoted(folder) + " (" + why + ")");
}

// A file under all its names: symbolic links and . and .. resolved; hard links through equivalent().
struct Named {
  std::string description, flag;
  bool companion;
  fs::path path, canonical;
};
bool same_file(const Named& a, const Named& b) {
  if (a.canonical == b.canonical) return true;
  std::error_code ec;
  return fs::equivalent(a.path, b.path, ec);
}
Named named(std::string description, std::string flag, bool companion, const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute.lexically_normal();
  return {std::move(description), std::move(flag), companion, path, canonical};
}

}  // namespace

OutputFile output_with_meta(const std::string& flag, const std::filesystem::path& path) {
  return {flag, path, {{meta_path_for(path), "provenance record"}}};
}

void check_output_files(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs) {
  std::vector<Named> files;
  for (const OutputFile& out : outputs) {
    check_place(out);
    const std::string named_output = out.flag + " " + out.path.string();
    files.push_back(named(named_output, out.flag, false, out.path));
    for (const auto& c : out.companions)
      files.push_back(named("the " + c.what + " " + c.path.string() + " of " + named_output, out.flag, true, c.path));
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = i + 1; j < files.size(); ++j)
      if (same_file(files[i], files[j]))
        throw InputError(files[i].description + " and " + files[j].description + " are the same file; give different names");
  for (const InputFile& in : inputs) {
    const Named input = named(in.flag, in.flag, false, in.path);
    for (const Named& f : files)
      if (same_file(f, input) && (f.companion || f.flag != in.rewritten_by))
        throw InputError(f.description + " would overwrite the input " + in.flag + " " + in.path.string() +
                         "; give another name");
  }
}

}  // namespace nbody
