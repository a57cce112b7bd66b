#include "io/atomic_file.hpp"

#include <unistd.h>

#include "core/error.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace {
std::filesystem::path temporary_for(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  return tmp;
}
}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path)
    : path_(std::move(path)),
      tmp_(mpi::writes_files() ? temporary_for(path_) : std::filesystem::path("/dev/null")),
      registration_(mpi::writes_files() ? tmp_.string() : std::string()) {
  out_.open(tmp_, std::ios::out | (mpi::writes_files() ? std::ios::trunc : std::ios::openmode{}));
  if (!out_) throw InputError("cannot write '" + path_.string() + "' (does its directory exist?)");
}

AtomicFile::~AtomicFile() {
  if (!committed_ && mpi::writes_files()) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw RunError("error while writing '" + path_.string() + "' (disk full?)");
  out_.close();
  if (!mpi::writes_files()) {  // an MPI rank other than 0: rank 0 writes the file
    committed_ = true;
    return;
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) throw RunError("cannot rename '" + tmp_.string() + "' to '" + path_.string() + "': " + ec.message());
  registration_.release();
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace nbody
