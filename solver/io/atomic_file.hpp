#pragma once
// An output file that appears under its name only when complete: it is written to a temporary
// name in the same directory and renamed on commit(); if the writer fails or throws, the
// destructor removes the temporary file, so no half-written output is ever left behind; a signal
// removes it too (core/interrupt.hpp). Under mpiexec only rank 0 writes: on the other ranks the
// stream goes to /dev/null (mpi/ranks.hpp).
#include <filesystem>
#include <fstream>
#include <string>

#include "core/interrupt.hpp"

namespace nbody {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ofstream& stream() { return out_; }
  const std::filesystem::path& path() const { return path_; }
  // Flushes, checks for write errors, and renames the temporary file to the final name.
  void commit();

 private:
  std::filesystem::path path_, tmp_;
  RegisteredTemporary registration_;
  std::ofstream out_;
  bool committed_ = false;
};

// Writes `text` to `path` atomically.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace nbody
