#include "io/atomic_file.hpp"

#include <unistd.h>

#include "core/error.hpp"

namespace nbody {

namespace {
std::filesystem::path temporary_for(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  return tmp;
}
}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path)
    : path_(std::move(path)), tmp_(temporary_for(path_)), registration_(tmp_.string()) {
  out_.open(tmp_, std::ios::out | std::ios::trunc);
  if (!out_) throw InputError("cannot write '" + path_.string() + "' (does its directory exist?)");
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw RunError("error while writing '" + path_.string() + "' (disk full?)");
  out_.close();
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
