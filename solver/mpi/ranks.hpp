#pragma once
// The MPI ranks of a run under `mpiexec` (Open MPI from Debian; cmake/mpi.cmake). With the
// mpi:<engine> engines (engines/mpi.hpp) every rank holds the whole state and integrates it
// identically, only the force evaluation split; with the distributed tree
// (engines/octree/distributed.hpp) each rank holds and integrates its block of the bodies
// (driver/simulation.hpp: BodyBlock).
// Rank 0 writes every file and every line of output; the other ranks' stdout and stderr go to
// /dev/null.
//
// Failures: a rank that fails must not leave the others waiting in a collective. Every collective
// of a run is preceded by agree(), which all ranks reach at the same points (each force
// evaluation, and Session::finish at the exit): a failed rank goes straight to finish(), whose
// agree() meets the others' next one. The ranks that learn of another's failure there throw
// PeerFailed and end with its exit code in silence; the lowest failing rank prints its one line.
// The interrupt signals (SIGINT, SIGTERM) travel in the same agreement, so all ranks stop after
// the same step.
//
// Without MPI in the build, or without mpiexec, there is one rank and none of this costs anything.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace nbody::mpi {

bool built();           // this build has MPI
std::string library();  // the MPI library's version line, or "" without MPI
int rank();             // 0 .. size() - 1; 0 without mpiexec
int size();             // 1 without mpiexec
int local_rank();       // the rank among those on this node (the GPU it takes)
inline bool writes_files() { return rank() == 0; }

// The process's MPI life: MPI_Init when launched by mpiexec (its environment says so), and on
// ranks other than 0 stdout and stderr to /dev/null. finish(code) is the exit code: every rank
// agrees on the worst (unless an earlier agreement already found a failure) and the lowest
// failing rank prints its line (report()).
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int finish(int code);
};

// The error line of this process ("nbody: error: ..."): printed now with one rank, else kept for
// Session::finish, which prints it on the rank that reports for all.
void report(const std::string& line);

// What all ranks agreed: the worst exit code (0: all well), the lowest rank that failed (-1:
// none), and an interrupt signal that any rank received (0: none).
struct Agreement {
  int code = 0, reporter = -1, signal = 0;
};
// Collective (every rank, at the same point): this rank's exit code so far and its recorded
// interrupt signal in, the agreement out.
Agreement agree(int code, int signal);

// Thrown where an agreement finds that another rank failed: end with `code`, printing nothing.
struct PeerFailed {
  int code;
};

// The interrupt signal the ranks agreed on at the last agreement (one rank: the one recorded,
// core/interrupt.hpp), so that every rank stops after the same step.
int interrupt_signal();

// A rank's failure in its own part of a collective step, if any: its exception and exit code.
// agree() shares it with every rank (all reach it at the same points) and ends each with the
// failing rank's code, so that no rank waits in a collective for one that is gone.
struct Failure {
  std::exception_ptr failure;
  int code = 0;
  template <class F>
  void run(F&& f) {
    try {
      f();
    } catch (const InputError&) {
      failure = std::current_exception(), code = 2;
    } catch (...) {
      failure = std::current_exception(), code = 3;
    }
  }
  void agree() const {
    const Agreement agreed = mpi::agree(code, nbody::interrupt_signal());
    if (agreed.code != 0) {
      if (failure) std::rethrow_exception(failure);
      throw PeerFailed{agreed.code};
    }
  }
};

// The bodies of each rank: rank r computes [bounds[r], bounds[r + 1]) of n, as even as whole
// blocks of 64 bodies allow (the last rank takes the rest).
std::vector<std::size_t> block_bounds(std::size_t n);
// The next bounds from the last ones and each rank's seconds for its block: each rank's share of
// the n bodies in proportion to the rate it showed (bodies per second), on whole blocks of 64
// bodies; from the even split at once, later halfway from the last share (the rates are noisy). Cores of one machine do not run
// alike (clocks, shared cores of a virtual machine), and every rank waits for the slowest. The
// same inputs give every rank the same bounds; which rank computes a body does not change its bits.
std::vector<std::size_t> balanced_bounds(const std::vector<std::size_t>& bounds, const std::vector<double>& seconds);
// Collective: every rank's value, in rank order.
std::vector<double> allgather(double value);
// Collective: each element summed over the ranks, in place (MPI_Allreduce; whole numbers, so the
// sum does not depend on the library's order).
void sum(std::vector<unsigned long long>& values);

// The payload bytes this rank has sent to other ranks so far through the collectives below: a
// block or message counted once for each rank it reaches (what point-to-point messages would
// move; the library's algorithm may route more), the sizes and agreements not counted. 0 with
// one rank.
unsigned long long bytes_sent();
// Collective: the bytes each rank has sent since its bytes_sent() was `since` (this exchange's own
// not counted): their mean over the ranks and the most any rank sent.
struct BytesSent {
  double mean = 0, most = 0;
};
BytesSent bytes_sent_since(unsigned long long since);

// How the ranks' blocks of a result reach every rank.
enum class Exchange { allgatherv, ring };
// Collective: each rank's block [bounds[r], bounds[r + 1]) of `data` (elements of elem_bytes) to
// every rank, in place: MPI_Allgatherv, or P - 1 steps of MPI_Sendrecv around the ring.
void exchange_blocks(void* data, std::size_t elem_bytes, const std::vector<std::size_t>& bounds, Exchange how);

// Values as the bytes that travel between ranks, and back (appended to `values`). Only plain values
// (trivially copyable) travel: any other type is a logic error, refused before any exchange.
template <class V>
std::vector<unsigned char> to_bytes(const std::vector<V>& values) {
  if constexpr (std::is_trivially_copyable_v<V>) {
    const auto* b = reinterpret_cast<const unsigned char*>(values.data());
    return std::vector<unsigned char>(b, b + values.size() * sizeof(V));
  } else {
    throw std::logic_error("values that are not plain bytes cannot travel between ranks");
  }
}
template <class V>
void append_from_bytes(std::vector<V>& values, const std::vector<unsigned char>& bytes) {
  if constexpr (std::is_trivially_copyable_v<V>) {
    const std::size_t at = values.size();
    values.resize(at + bytes.size() / sizeof(V));
    if (!bytes.empty()) std::memcpy(static_cast<void*>(values.data() + at), bytes.data(), bytes.size());
  } else {
    throw std::logic_error("values that are not plain bytes cannot travel between ranks");
  }
}

// Collective: every rank's `mine`, in rank order (MPI_Allgather of the sizes, then MPI_Allgatherv).
std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& mine);
// Collective: every rank's `mine`, in rank order, on rank 0 (empty on the others).
std::vector<std::vector<unsigned char>> gather(const std::vector<unsigned char>& mine);
// Collective: per-body arrays of bodies held in blocks by the ranks in rank order (`components`
// runs of a block's values one after another, as State::y) on rank 0, in the same layout over
// every body: rank r's run c at c * total + (rank r's first body). Empty on the other ranks.
template <class V>
std::vector<V> gather_bodies(const std::vector<V>& mine, std::size_t components) {
  std::vector<std::vector<V>> blocks;
  std::size_t total = 0;
  for (const auto& part : gather(to_bytes(mine))) {
    append_from_bytes(blocks.emplace_back(), part);
    total += blocks.back().size() / components;
  }
  std::vector<V> all(total * components);
  std::size_t first = 0;
  for (const auto& block : blocks) {
    const std::size_t count = block.size() / components;
    for (std::size_t c = 0; c < components; ++c)
      std::copy(block.begin() + c * count, block.begin() + (c + 1) * count, all.begin() + c * total + first);
    first += count;
  }
  return all;
}
// Collective: to[r] goes to rank r (this rank's own stays); returns from[r], what rank r sent this
// rank (MPI_Alltoall of the sizes, then MPI_Alltoallv). One process: to itself.
std::vector<std::vector<unsigned char>> all_to_all(const std::vector<std::vector<unsigned char>>& to);

// Collective: `data` (count elements of elem_bytes) built by the ranks in turn: rank r receives it
// from rank r - 1 (rank 0 starts it), applies `step` and passes it on to r + 1; then the last
// rank's result goes to every rank. `step` must not throw (a rank that fails still passes the
// data on, so that none waits; an agreement after it carries the failure).
void in_turn(void* data, std::size_t count, std::size_t elem_bytes, const std::function<void()>& step);

}  // namespace nbody::mpi
