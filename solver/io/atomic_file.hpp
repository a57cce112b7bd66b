#pragma once
// A file that appears under its name only when whole: it is written under a temporary name in
// the same folder (FILE.tmp.PID), registered so that a signal removes it (core/interrupt.hpp),
// renamed by commit(), and removed by the destructor otherwise. The stream writes straight to the
// file descriptor: a write that fails (a full disk, a file size limit, an I/O error) throws
// RunError naming the file and the reason at once, so that a run stops as soon as its output
// cannot be written. Under mpiexec only rank 0 writes: on the other ranks the stream goes to
// /dev/null (mpi/ranks.hpp). The outputs of a command are committed together by an OutputSet
// (io/output_set.hpp); an AtomicFile alone is one file written whole (a checkpoint, a cache).
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include "core/interrupt.hpp"

namespace nbody {

// FILE.tmp.PID, where FILE is written until it is whole.
std::filesystem::path temporary_for(const std::filesystem::path& path);

// Writes `path`'s data to the disk, where errors that no write saw (a quota, a network file
// system) show: RunError naming `shown` and the reason.
void sync_file(const std::filesystem::path& path, const std::string& shown);

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream();
  const std::filesystem::path& path() const { return path_; }
  // Where the file is being written: a library that writes by name (HDF5) writes here.
  const std::filesystem::path& temporary() const { return tmp_; }
  // Flushes the stream, writes the file to the disk and closes it: RunError if any of it failed.
  void close();
  // close(), then the file takes its name.
  void commit();

 private:
  class Buffer;
  std::filesystem::path path_, tmp_;
  RegisteredTemporary registration_;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> out_;
  bool closed_ = false, committed_ = false;
};

// Writes `text` to `path` atomically.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace nbody
