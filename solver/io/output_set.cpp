#include "io/output_set.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/provenance.hpp"
#include "io/snapshot_hdf5.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

fs::path folder_of(const fs::path& path) { return path.parent_path().empty() ? fs::path(".") : path.parent_path(); }

fs::path lock_path_for(const fs::path& path) {
  fs::path lock = path;
  return lock += ".lock";
}

// A name the set writes, or claims (the NAME.hdf5 of a series, whose files are NAME_000.hdf5, ...).
struct Name {
  enum Role { output, record, sidecar, backup, lock } role;
  std::string description;  // "--diagnostics d.csv", "the provenance record d.meta.json of --diagnostics d.csv"
  const OutputFile* owner;
  fs::path path;
  fs::path place;      // the canonical folder and the name: where the file goes
  fs::path canonical;  // the name resolved too (a symbolic link leads to the file written through it)
  bool series() const { return role == output && owner->kind == OutputKind::series; }
  // Written by the set's files: an output (not a series' name, not the checkpoint), a record, a sidecar.
  bool staged() const {
    return role == record || role == sidecar ||
           (role == output && owner->kind != OutputKind::series && owner->kind != OutputKind::checkpoint);
  }
};

Name name(Name::Role role, std::string description, const OutputFile* owner, const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute.lexically_normal();
  fs::path folder = fs::weakly_canonical(absolute.parent_path(), ec);
  if (ec) folder = absolute.parent_path().lexically_normal();
  return {role, std::move(description), owner, path, folder / path.filename(), canonical};
}

// An input under another name too (a hard link): a name of the set that is one is refused. (Two
// names of the set may be hard links of one file: each is replaced by a rename, which leaves the
// other as it was; and a checkpoint and its backup are links of one file while it is saved.)
bool is_input(const Name& n, const Name& input) {
  std::error_code ec;
  return n.canonical == input.canonical || fs::equivalent(n.path, input.path, ec);
}

// The file of series `s` that `place` or `canonical` names, if any.
bool in_series(const Name& s, const fs::path& place, const fs::path& canonical) {
  return is_hdf5_snapshot_file(s.place, place) || is_hdf5_snapshot_file(s.place, canonical);
}

void check_place(const Name& n) {
  std::error_code ec;
  if (n.role != Name::output) {  // beside its output, whose folder is checked
    if (fs::is_directory(n.path, ec))
      throw InputError(n.description + " is a directory; remove it or give " + n.owner->flag + " another name");
    return;
  }
  if (n.path.empty() || n.path.filename().empty()) throw InputError(n.description + ": give a file name");
  if (fs::is_directory(n.path, ec)) throw InputError(n.description + ": is a directory; give a file name");
  const fs::path folder = folder_of(n.path);
  if (!fs::exists(folder, ec)) throw InputError(n.description + ": folder " + quoted(folder) + " does not exist");
  if (!fs::is_directory(folder, ec)) throw InputError(n.description + ": " + quoted(folder) + " is not a folder");
  if (n.series())
    for (const auto& e : fs::directory_iterator(folder, ec))
      if (is_hdf5_snapshot_file(n.place, n.place.parent_path() / e.path().filename()) && e.is_directory(ec))
        throw InputError("the snapshot " + e.path().filename().string() + " of " + n.description +
                         " is a directory; remove it or give " + n.owner->flag + " another name");
}

// The process whose pid the lock file open as `fd` holds, if it is alive; else 0.
long holder_of(int fd) {
  char text[32] = {};
  if (::pread(fd, text, sizeof text - 1, 0) <= 0) return 0;
  const long pid = std::strtol(text, nullptr, 10);
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) ? pid : 0;
}

// Whether the file open as fd is the one at `path`.
bool is_at(int fd, const fs::path& path) {
  struct stat opened {}, there {};
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &there) == 0 && opened.st_dev == there.st_dev &&
         opened.st_ino == there.st_ino;
}

struct Lock {
  fs::path path;
  int fd = -1;
  std::unique_ptr<RegisteredTemporary> registration;
};

// Takes the lock of name n: its lock file held with flock, and checked after locking to be the
// file at the path (the run that held it before removes it while it holds it). Held by another
// process: InputError naming it, once its pid is written (a lock taken a moment ago). A file
// system without locks: no lock.
Lock take_lock(const Name& n) {
  const fs::path path = lock_path_for(n.path);
  const auto cannot_write = [&](int error) {
    return InputError(n.owner->flag + " " + n.owner->path.string() + ": cannot write in folder " +
                      quoted(folder_of(n.path)) + " (" + std::strerror(error) + ")");
  };
  long holder = 0;
  for (int attempt = 0; attempt < 100 && holder == 0; ++attempt) {
    {
      const BlockInterrupts blocked;  // from the file's creation to its registration
      int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
      const bool writable = fd >= 0;
      const int error = errno;
      if (!writable && error == EACCES) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another user's, left behind
      if (fd < 0) throw cannot_write(error);
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        if (is_at(fd, path)) {
          const std::string pid = std::to_string(::getpid()) + "\n";
          if (writable &&
              (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))) {
            const int failed = errno;
            ::unlink(path.c_str());
            ::close(fd);
            throw cannot_write(failed);
          }
          return {path, fd, std::make_unique<RegisteredTemporary>(path.string())};
        }
        ::close(fd);  // removed by the run that held it: the next one is at the path
        continue;
      }
      const int refused = errno;
      if (refused == EWOULDBLOCK) holder = holder_of(fd);
      ::close(fd);
      if (refused != EWOULDBLOCK) return {};  // ENOLCK, EOPNOTSUPP: this file system has no locks
    }
    if (holder == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // its pid is not written yet
  }
  throw InputError(n.description + " is being written by another nbody run" +
                   (holder > 0 ? " (process " + std::to_string(holder) + ")" : std::string()) +
                   "; wait for it or give another name");
}

// Removes the lock file if it is still the one held, then lets go of it.
void release(Lock& lock) {
  if (lock.fd < 0) return;
  lock.registration->release();
  if (is_at(lock.fd, lock.path)) ::unlink(lock.path.c_str());
  ::close(lock.fd);
  lock.fd = -1;
}

// FILE.tmp.PID (atomic_file.hpp) and FILE.tmp.PID.K (a series' K-th file): what a run writing FILE
// leaves when it is killed.
bool is_temporary_of(const std::string& file, const std::string& entry) {
  const std::string prefix = file + ".tmp.";
  if (!entry.starts_with(prefix) || entry.size() == prefix.size()) return false;
  const std::string rest = entry.substr(prefix.size());
  const auto dot = rest.find('.');
  const auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return digits(rest.substr(0, dot)) && (dot == std::string::npos || digits(rest.substr(dot + 1)));
}

}  // namespace

struct OutputSet::Files {
  std::vector<OutputFile> outputs;
  std::vector<Name> names;  // outputs and their companions, then the lock files
  std::vector<Lock> locks;
  struct Staged {
    const Name* name;
    std::unique_ptr<AtomicFile> file;
  };
  std::vector<Staged> staged;
  struct Series {
    const Name* name;
    std::unique_ptr<RegisteredTemporary> registration;  // the files' temporary names: NAME.tmp.PID.K
    std::vector<fs::path> files;                        // their names, K = 0, 1, ...
  };
  std::vector<Series> series;
  bool committed = false;

  // Uncommitted (or not even constructed whole): every file staged removed. Then the locks.
  ~Files() {
    staged.clear();  // each AtomicFile not committed removes its temporary file
    for (Series& s : series) {
      if (!committed && mpi::writes_files())
        for (std::size_t k = 0; k < s.files.size(); ++k) ::unlink(member_temporary(s, k).c_str());
      s.registration->release();
    }
    for (Lock& lock : locks) release(lock);
  }
  // NAME.tmp.PID. + K: the temporary name of a series' K-th file.
  static fs::path member_prefix(const Name& series) {
    fs::path prefix = temporary_for(series.path);
    return prefix += ".";
  }
  static fs::path member_temporary(const Series& s, std::size_t k) {
    fs::path tmp = member_prefix(*s.name);
    return tmp += std::to_string(k);
  }
  const Name* declared(const fs::path& path) const {
    for (const Name& n : names)
      if (n.staged() && n.path == path) return &n;
    return nullptr;
  }
  AtomicFile& staged_file(const fs::path& path) {
    for (Staged& s : staged)
      if (s.name->path == path) return *s.file;
    const Name* n = declared(path);
    if (!n) throw std::logic_error("'" + path.string() + "' is not an output of this command");
    staged.push_back({n, std::make_unique<AtomicFile>(path)});
    return *staged.back().file;
  }
};

OutputSet::OutputSet(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs)
    : files_(std::make_unique<Files>()) {
  Files& f = *files_;
  f.outputs = outputs;
  auto& names = f.names;
  for (const OutputFile& out : f.outputs) {
    const std::string named = out.flag + " " + out.path.string();
    names.push_back(name(Name::output, named, &out, out.path));
    const auto companion = [&](Name::Role role, const std::string& what, const fs::path& path) {
      names.push_back(name(role, "the " + what + " " + path.string() + " of " + named, &out, path));
    };
    if (out.kind == OutputKind::recorded) companion(Name::record, "provenance record", meta_path_for(out.path));
    if (out.kind == OutputKind::series) companion(Name::sidecar, "XDMF time series", xdmf_path_for(out.path));
    if (out.kind == OutputKind::checkpoint) companion(Name::backup, "backup", checkpoint_backup(out.path));
  }
  const std::size_t files = names.size();
  for (std::size_t i = 0; i < files; ++i) {
    const fs::path lock = lock_path_for(names[i].path);
    names.push_back(name(Name::lock, "the lock file " + lock.string() + " of " + names[i].description, names[i].owner, lock));
  }

  for (const Name& n : names) check_place(n);
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (j > i && names[i].canonical == names[j].canonical)
        throw InputError(names[i].description + " and " + names[j].description + " are the same file; give different names");
      if (names[i].series() && j != i && in_series(names[i], names[j].place, names[j].canonical))
        throw InputError("the snapshot " + names[j].path.filename().string() + " of " + names[i].description + " and " +
                         names[j].description + " are the same file; give different names");
    }
  for (const InputFile& in : inputs) {
    const Name input = name(Name::output, in.flag, nullptr, in.path);
    for (const Name& n : names) {
      const std::string overwrites = " would overwrite the input " + in.flag + " " + in.path.string() + "; give another name";
      if (is_input(n, input) && (n.role != Name::output || n.owner->flag != in.rewritten_by))
        throw InputError(n.description + overwrites);
      if (n.series() && in_series(n, input.place, input.canonical))
        throw InputError("the snapshot " + in.path.filename().string() + " of " + n.description + overwrites);
    }
  }
  if (!mpi::writes_files()) return;

  // The locks, in one order for every process (of two runs that want the same files, one gets
  // them all), then the debris of dead runs, which no one else may be writing now.
  std::vector<const Name*> ordered;
  for (std::size_t i = 0; i < files; ++i) ordered.push_back(&names[i]);
  std::sort(ordered.begin(), ordered.end(), [](const Name* a, const Name* b) { return a->place < b->place; });
  std::map<fs::path, std::vector<std::string>> by_folder;  // the names held, where a dead run's debris may be
  for (const Name* n : ordered)
    if (Lock lock = take_lock(*n); lock.fd >= 0) {
      f.locks.push_back(std::move(lock));
      by_folder[folder_of(n->path)].push_back(n->path.filename().string());
    }
  for (const auto& [folder, held] : by_folder) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
      const std::string entry = e.path().filename().string();
      if (std::any_of(held.begin(), held.end(), [&](const std::string& file) { return is_temporary_of(file, entry); }))
        fs::remove(e.path(), ec);
    }
  }
}

OutputSet::OutputSet(OutputSet&&) noexcept = default;
OutputSet& OutputSet::operator=(OutputSet&&) noexcept = default;

OutputSet::~OutputSet() = default;

std::ostream& OutputSet::stream(const fs::path& path) { return files_->staged_file(path).stream(); }

fs::path OutputSet::stage(const fs::path& path) {
  Files& f = *files_;
  if (f.declared(path)) return f.staged_file(path).temporary();
  for (const Name& n : f.names) {
    if (!n.series() || !is_hdf5_snapshot_file(n.path, path)) continue;
    auto s = std::find_if(f.series.begin(), f.series.end(), [&](const Files::Series& s) { return s.name == &n; });
    if (s == f.series.end()) {
      f.series.push_back({&n, std::make_unique<RegisteredTemporary>(Files::member_prefix(n).string(), true), {}});
      s = std::prev(f.series.end());
    }
    s->registration->add();  // before the file exists
    s->files.push_back(path);
    return f.member_temporary(*s, s->files.size() - 1);
  }
  throw std::logic_error("'" + path.string() + "' is not an output of this command");
}

void OutputSet::commit(const nlohmann::json& parameters) {
  Files& f = *files_;
  if (f.committed) throw std::logic_error("an output set is committed once");
  for (const Name& n : f.names)
    if (n.role == Name::record) stream(n.path) << meta_record(n.owner->path, parameters);
  const auto written = [&](const Name& n) {
    return std::any_of(f.staged.begin(), f.staged.end(), [&](const Files::Staged& s) { return s.name == &n; });
  };
  for (const Name& n : f.names)
    if (n.staged() && mpi::writes_files() && !written(n)) throw std::logic_error("nothing was written to " + n.description);
  // Every file whole on the disk before any takes its name.
  for (Files::Staged& s : f.staged) s.file->close();
  if (mpi::writes_files())
    for (const Files::Series& s : f.series)
      for (std::size_t k = 0; k < s.files.size(); ++k) sync_file(f.member_temporary(s, k), s.files[k].string());
  hold_interrupts();
  // The snapshots and the outputs, then their sidecars and records (staged last): a record never
  // describes a file that is not there. A rename that fails takes back those before it.
  std::vector<fs::path> renamed;
  try {
    if (mpi::writes_files())
      for (const Files::Series& s : f.series)
        for (std::size_t k = 0; k < s.files.size(); ++k) {
          fs::rename(f.member_temporary(s, k), s.files[k]);
          renamed.push_back(s.files[k]);
        }
    for (Files::Staged& s : f.staged) {
      s.file->commit();
      renamed.push_back(s.file->path());
    }
  } catch (const std::exception& e) {
    for (const fs::path& p : renamed) ::unlink(p.c_str());
    throw RunError(std::string("cannot give the outputs their names: ") + e.what());
  }
  f.committed = true;
}

}  // namespace nbody
