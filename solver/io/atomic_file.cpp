#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>

#include "core/error.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace {

[[noreturn]] void cannot_write(const std::string& shown, int error) {
  throw RunError("cannot write '" + shown + "': " + std::strerror(error));
}

// fsync on a file that cannot be synced (a character device, some file systems) is no failure.
bool sync_failed(int fd) { return ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS; }

}  // namespace

// The stream's buffer: full blocks written to the descriptor, a failed write thrown at once.
class AtomicFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, std::string shown) : fd_(fd), shown_(std::move(shown)) { setp(data_, data_ + sizeof data_); }
  ~Buffer() override { ::close(fd_); }
  void drain() {
    const char* p = pbase();
    for (std::size_t left = static_cast<std::size_t>(pptr() - pbase()); left > 0;) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) cannot_write(shown_, errno);
      p += n, left -= static_cast<std::size_t>(n);
    }
    setp(data_, data_ + sizeof data_);
  }
  void finish() {
    drain();
    if (sync_failed(fd_)) cannot_write(shown_, errno);
  }

 protected:
  int_type overflow(int_type c) override {
    drain();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    drain();
    return 0;
  }

 private:
  int fd_;
  std::string shown_;
  char data_[1 << 16];
};

std::filesystem::path temporary_for(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  return tmp;
}

void sync_file(const std::filesystem::path& path, const std::string& shown) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannot_write(shown, errno);
  const bool failed = sync_failed(fd);
  const int error = errno;
  ::close(fd);
  if (failed) cannot_write(shown, error);
}

AtomicFile::AtomicFile(std::filesystem::path path)
    : path_(std::move(path)),
      tmp_(mpi::writes_files() ? temporary_for(path_) : std::filesystem::path("/dev/null")),
      registration_(mpi::writes_files() ? tmp_.string() : std::string()) {
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (mpi::writes_files() ? O_TRUNC : 0), 0666);
  if (fd < 0) cannot_write(path_.string(), errno);
  buffer_ = std::make_unique<Buffer>(fd, path_.string());
  out_ = std::make_unique<std::ostream>(buffer_.get());
  out_->exceptions(std::ios::badbit);  // the Buffer's RunError goes through to the writer
}

AtomicFile::~AtomicFile() {
  out_.reset();
  buffer_.reset();
  if (!committed_ && mpi::writes_files()) ::unlink(tmp_.c_str());
}

std::ostream& AtomicFile::stream() { return *out_; }

void AtomicFile::close() {
  if (closed_) return;
  buffer_->finish();
  closed_ = true;
}

void AtomicFile::commit() {
  close();
  if (mpi::writes_files()) {  // an MPI rank other than 0: rank 0 writes the file
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) throw RunError("cannot rename '" + tmp_.string() + "' to '" + path_.string() + "': " + ec.message());
    registration_.release();
  }
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace nbody
