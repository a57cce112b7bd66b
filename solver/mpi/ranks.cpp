#include "mpi/ranks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/error.hpp"
#include "core/interrupt.hpp"

#if NBODY_WITH_MPI
#define OMPI_SKIP_MPICXX 1  // the C API alone: no deprecated C++ bindings to link
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace nbody::mpi {

namespace {

struct Ranks {
  bool initialised = false;
  int rank = 0, size = 1, local_rank = 0;
  int real_stderr = 2;        // ranks > 0: the stderr mpiexec gave, before /dev/null replaced it
  std::string line;           // this rank's error line, for finish()
  bool failure_agreed = false;
  int agreed_code = 0, reporter = -1, signal = 0;
  unsigned long long sent = 0;  // bytes_sent()
};
Ranks g;

// Launched by mpiexec: Open MPI's, or a PMI launcher's (MPICH, Slurm's srun).
bool launched_by_mpiexec() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

void write_line(int fd, const std::string& line) {
  std::string text = line + "\n";
  for (const char* p = text.data(); !text.empty();) {
    const ssize_t w = ::write(fd, p, text.size());
    if (w <= 0) return;
    text.erase(0, static_cast<std::size_t>(w));
    p = text.data();
  }
}

#if NBODY_WITH_MPI
void check(int err, const char* what) {
  if (err == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(err, text, &length);
  throw RunError(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

// A contiguous type of `bytes` bytes, so that counts stay in elements (int) for any N we run.
MPI_Datatype element_type(std::size_t bytes) {
  static std::map<std::size_t, MPI_Datatype> types;
  auto it = types.find(bytes);
  if (it != types.end()) return it->second;
  MPI_Datatype t;
  check(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t), "MPI_Type_contiguous");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return types[bytes] = t;
}

int as_int(std::size_t v) {
  if (v > static_cast<std::size_t>(2147483647)) throw InputError("MPI: a block of more than 2^31 - 1 bodies");
  return static_cast<int>(v);
}
#endif

}  // namespace

bool built() {
#if NBODY_WITH_MPI
  return true;
#else
  return false;
#endif
}

std::string library() {
#if NBODY_WITH_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<std::size_t>(length));
  if (const auto eol = s.find_first_of("\n,"); eol != std::string::npos) s.resize(eol);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
#else
  return "";
#endif
}

int rank() { return g.rank; }
int size() { return g.size; }
int local_rank() { return g.local_rank; }

Session::Session() {
#if NBODY_WITH_MPI
  if (!launched_by_mpiexec()) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  g.initialised = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &g.local_rank);
  MPI_Comm_free(&node);
  if (g.rank > 0) {  // rank 0 speaks for all; the reporting rank's line goes to the saved stderr
    std::fflush(stdout);
    std::fflush(stderr);
    g.real_stderr = ::dup(2);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::close(null);
    }
  }
#endif
}

Session::~Session() {
#if NBODY_WITH_MPI
  if (g.initialised) MPI_Finalize();
#endif
}

int Session::finish(int code) {
  if (g.size == 1) return code;
  if (!g.failure_agreed) agree(code, 0);
  if (g.rank == g.reporter && !g.line.empty()) write_line(g.real_stderr, g.line);
  return code != 0 ? code : g.agreed_code;
}

void report(const std::string& line) {
  if (g.size == 1) {
    write_line(2, line);
    return;
  }
  g.line = line;
}

Agreement agree(int code, int signal) {
  Agreement a{code, code != 0 ? g.rank : -1, signal};
#if NBODY_WITH_MPI
  if (g.size > 1) {
    // One MAX reduction: the worst code, the lowest failing rank (as size - 1 - rank), a signal.
    const int in[3] = {code, code != 0 ? g.size - 1 - g.rank : -1, signal};
    int out[3] = {0, -1, 0};
    check(MPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    a = {out[0], out[1] >= 0 ? g.size - 1 - out[1] : -1, out[2]};
  }
#endif
  g.signal = a.signal;
  if (a.code != 0) g.failure_agreed = true, g.agreed_code = a.code, g.reporter = a.reporter;
  return a;
}

int interrupt_signal() { return g.size == 1 ? nbody::interrupt_signal() : g.signal; }

namespace {
// n bodies over p ranks: n r / p without overflow, rounded down to whole SIMD blocks of
// openmp-simd (at most 64 bodies).
std::vector<std::size_t> even_bounds(std::size_t n, std::size_t p) {
  std::vector<std::size_t> b(p + 1);
  for (std::size_t r = 1; r < p; ++r) b[r] = (n / p * r + n % p * r / p) / 64 * 64;
  b[p] = n;
  return b;
}
}  // namespace

std::vector<std::size_t> block_bounds(std::size_t n) { return even_bounds(n, static_cast<std::size_t>(g.size)); }

std::vector<std::size_t> balanced_bounds(const std::vector<std::size_t>& bounds, const std::vector<double>& seconds) {
  const std::size_t p = seconds.size(), n = bounds.back();
  std::vector<double> rate(p);
  double measured = 0, total = 0;
  std::size_t ranks_measured = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const double count = static_cast<double>(bounds[r + 1] - bounds[r]);
    rate[r] = count > 0 && seconds[r] > 0 ? count / seconds[r] : 0;
    if (rate[r] > 0) measured += rate[r], ++ranks_measured;
  }
  if (ranks_measured == 0) return bounds;  // nothing measured: keep them
  for (double& x : rate) {
    if (!(x > 0)) x = measured / static_cast<double>(ranks_measured);  // a rank without bodies: the mean rate
    total += x;
  }
  const double step = bounds == even_bounds(n, p) ? 1.0 : 0.5;  // the first measurement sets the shares
  std::vector<std::size_t> next(p + 1, 0);
  double share_sum = 0;
  for (std::size_t r = 0; r + 1 < p; ++r) {
    const double was = static_cast<double>(bounds[r + 1] - bounds[r]) / static_cast<double>(n);
    share_sum += was + step * (rate[r] / total - was);
    const auto b = static_cast<std::size_t>(share_sum * static_cast<double>(n)) / 64 * 64;
    next[r + 1] = std::min(n, std::max(b, next[r]));
  }
  next[p] = n;
  return next;
}

unsigned long long bytes_sent() { return g.sent; }

BytesSent bytes_sent_since(unsigned long long since) {
  BytesSent b;
  for (const double x : allgather(static_cast<double>(g.sent - since))) b.mean += x, b.most = std::max(b.most, x);
  b.mean /= g.size;
  return b;
}

std::vector<double> allgather(double value) {
  std::vector<double> all(static_cast<std::size_t>(g.size), value);
#if NBODY_WITH_MPI
  if (g.size > 1) {
    g.sent += sizeof value * static_cast<unsigned long long>(g.size - 1);
    check(MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD), "MPI_Allgather");
  }
#endif
  return all;
}

void sum([[maybe_unused]] std::vector<unsigned long long>& values) {
#if NBODY_WITH_MPI
  if (g.size > 1) {
    // What a ring's reduce-scatter and allgather send: each rank twice (P - 1)/P of the values.
    g.sent += 2 * values.size() * sizeof(unsigned long long) * static_cast<unsigned long long>(g.size - 1) /
              static_cast<unsigned long long>(g.size);
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_int(values.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
#endif
}

void exchange_blocks([[maybe_unused]] void* data, [[maybe_unused]] std::size_t elem_bytes,
                     [[maybe_unused]] const std::vector<std::size_t>& bounds, [[maybe_unused]] Exchange how) {
#if NBODY_WITH_MPI
  if (g.size == 1) return;
  const MPI_Datatype t = element_type(elem_bytes);
  auto* bytes = static_cast<unsigned char*>(data);
  const int p = g.size;
  if (how == Exchange::allgatherv) {
    std::vector<int> counts(p), displs(p);
    for (int r = 0; r < p; ++r) counts[r] = as_int(bounds[r + 1] - bounds[r]), displs[r] = as_int(bounds[r]);
    g.sent += static_cast<unsigned long long>(counts[g.rank]) * elem_bytes * static_cast<unsigned long long>(p - 1);
    check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bytes, counts.data(), displs.data(), t, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return;
  }
  // The ring: at step s, pass on the block received at step s - 1 (this rank's own at s = 0).
  const int next = (g.rank + 1) % p, prev = (g.rank + p - 1) % p;
  for (int s = 0; s < p - 1; ++s) {
    const int send = (g.rank - s + p) % p, recv = (g.rank - s - 1 + 2 * p) % p;
    g.sent += (bounds[send + 1] - bounds[send]) * elem_bytes;
    check(MPI_Sendrecv(bytes + bounds[send] * elem_bytes, as_int(bounds[send + 1] - bounds[send]), t, next, s,
                       bytes + bounds[recv] * elem_bytes, as_int(bounds[recv + 1] - bounds[recv]), t, prev, s,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
#endif
}

namespace {
// Every rank's `mine`, in rank order: on every rank (MPI_Allgather(v)), or on rank 0 alone
// (MPI_Gather(v); empty on the others).
std::vector<std::vector<unsigned char>> collect(const std::vector<unsigned char>& mine, bool to_all) {
  std::vector<std::vector<unsigned char>> all(to_all || g.rank == 0 ? static_cast<std::size_t>(g.size) : 0);
  if (g.size == 1) {
    all[0] = mine;
    return all;
  }
#if NBODY_WITH_MPI
  const int p = g.size, size = as_int(mine.size());
  std::vector<int> counts(p), displs(p);
  g.sent += to_all ? mine.size() * static_cast<unsigned long long>(p - 1) : g.rank != 0 ? mine.size() : 0;
  if (to_all) check(MPI_Allgather(&size, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  else check(MPI_Gather(&size, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::size_t total = 0;
  for (std::size_t r = 0; r < all.size(); ++r) displs[r] = as_int(total), total += static_cast<std::size_t>(counts[r]);
  std::vector<unsigned char> recv(total);
  if (to_all)
    check(MPI_Allgatherv(mine.data(), size, MPI_BYTE, recv.data(), counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
  else
    check(MPI_Gatherv(mine.data(), size, MPI_BYTE, recv.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
  for (std::size_t r = 0; r < all.size(); ++r) all[r].assign(recv.begin() + displs[r], recv.begin() + displs[r] + counts[r]);
#endif
  return all;
}
}  // namespace

std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& mine) { return collect(mine, true); }
std::vector<std::vector<unsigned char>> gather(const std::vector<unsigned char>& mine) { return collect(mine, false); }

std::vector<std::vector<unsigned char>> all_to_all(const std::vector<std::vector<unsigned char>>& to) {
  std::vector<std::vector<unsigned char>> from(to.size());
  if (g.size == 1) {
    from[0] = to[0];
    return from;
  }
#if NBODY_WITH_MPI
  const int p = g.size;
  std::vector<int> send_counts(p), recv_counts(p), send_displs(p), recv_displs(p);
  std::vector<unsigned char> send;
  for (int r = 0; r < p; ++r) {
    send_counts[r] = as_int(to[r].size()), send_displs[r] = as_int(send.size());
    if (r != g.rank) g.sent += to[r].size();
    send.insert(send.end(), to[r].begin(), to[r].end());
  }
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
  std::size_t total = 0;
  for (int r = 0; r < p; ++r) recv_displs[r] = as_int(total), total += static_cast<std::size_t>(recv_counts[r]);
  std::vector<unsigned char> recv(total);
  check(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv.data(), recv_counts.data(),
                      recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Alltoallv");
  for (int r = 0; r < p; ++r) from[r].assign(recv.begin() + recv_displs[r], recv.begin() + recv_displs[r] + recv_counts[r]);
#endif
  return from;
}

void in_turn(void* data, [[maybe_unused]] std::size_t count, [[maybe_unused]] std::size_t elem_bytes,
             const std::function<void()>& step) {
#if NBODY_WITH_MPI
  if (g.size > 1) {
    const MPI_Datatype t = element_type(elem_bytes);
    if (g.rank > 0) check(MPI_Recv(data, as_int(count), t, g.rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    step();
    const unsigned long long bytes = count * elem_bytes;
    g.sent += g.rank + 1 < g.size ? bytes : bytes * static_cast<unsigned long long>(g.size - 1);  // on, or to all
    if (g.rank + 1 < g.size) check(MPI_Send(data, as_int(count), t, g.rank + 1, 0, MPI_COMM_WORLD), "MPI_Send");
    check(MPI_Bcast(data, as_int(count), t, g.size - 1, MPI_COMM_WORLD), "MPI_Bcast");
    return;
  }
#endif
  (void)data;
  step();
}

}  // namespace nbody::mpi
