#pragma once
// mpi:<engine> (and mpi-ring:<engine>): the force evaluation split over the MPI ranks of
// `mpiexec -n P nbody run ...`. Every rank holds all positions (each integrates the whole state,
// mpi/ranks.hpp); rank r computes the accelerations of its block of bodies from all of them with
// its local engine (accelerations_of), and the blocks are then exchanged so that every rank holds
// them all. Each body's sum is formed on one rank exactly as the local engine forms it on one
// process, so the result does not depend on the number of ranks, bit for bit.
//
// The blocks follow the ranks' speeds: each evaluation's compute times set the next one's blocks
// (mpi::balanced_bounds), so that no rank waits long for a slower one.
//
// The exchange moves 3 N numbers per evaluation, as an exchange of positions would. Its two
// forms: MPI_Allgatherv (mpi:, the library picks its algorithm) and a ring of P - 1
// MPI_Sendrecv (mpi-ring:). Before either, one agreement (a 3-int MPI_Allreduce) carries a
// rank's failure or interrupt to all, so that no rank waits for one that is gone.
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "engines/engine.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

template <class T>
class MpiEngine final : public ForceEngine<T> {
 public:
  MpiEngine(std::unique_ptr<ForceEngine<T>> local, mpi::Exchange how)
      : ForceEngine<T>(local->law()), local_(std::move(local)), how_(how) {
    profile_.ranks = mpi::size();
    profile_.exchange = how == mpi::Exchange::ring ? "ring" : "allgatherv";
  }

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    if (bounds_.empty() || bounds_.back() != n) bounds_ = mpi::block_bounds(n);
    const std::vector<std::size_t> bounds = bounds_;
    const std::size_t first = bounds[mpi::rank()], count = bounds[mpi::rank() + 1] - first;
    std::exception_ptr failure;
    int code = 0;
    try {
      local_->accelerations_of(pos, mass, n, first, count, acc);
    } catch (const InputError&) {
      failure = std::current_exception(), code = 2;
    } catch (...) {
      failure = std::current_exception(), code = 3;
    }
    const auto t1 = clock::now();
    const mpi::Agreement agreed = mpi::agree(code, nbody::interrupt_signal());
    if (agreed.code != 0) {
      if (failure) std::rethrow_exception(failure);
      throw mpi::PeerFailed{agreed.code};
    }
    for (int c = 0; c < 3; ++c) mpi::exchange_blocks(acc + c * n, sizeof(T), bounds, how_);
    profile_.compute_seconds = std::chrono::duration<double>(t1 - t0).count();
    profile_.kernel_seconds = local_->last_device_seconds();
    bounds_ = mpi::balanced_bounds(bounds, mpi::allgather(profile_.compute_seconds));  // for the next evaluation
    const auto t2 = clock::now();
    profile_.exchange_seconds = std::chrono::duration<double>(t2 - t1).count();
    profile_.total_compute_seconds += profile_.compute_seconds;
    profile_.total_exchange_seconds += profile_.exchange_seconds;
  }

  // The potential at points: each rank computes all of them (a diagnostic, not the run's loop).
  void potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) override {
    local_->potentials(pos, mass, n, at, m, phi);
  }
  std::string potential_method() const override { return local_->potential_method(); }
  void set_launch(std::string_view spec) override { local_->set_launch(spec); }
  // None: an evaluation's time is its wall time, the exchange included (the local kernels' device
  // time is the rank profile's kernel_seconds).
  double last_device_seconds() const override { return -1; }
  // The local engine's alone (the ranks and the exchange are in the summary's mpi section): a run
  // resumed on another number of ranks, or as the local engine on one process, continues bit for
  // bit, and the resume compares this text to say whether it does.
  std::string device_info() const override { return local_->device_info(); }
  RankProfile last_rank_profile() const override { return profile_; }

 private:
  std::unique_ptr<ForceEngine<T>> local_;
  mpi::Exchange how_;
  std::vector<std::size_t> bounds_;  // the ranks' blocks of the next evaluation (balanced by the last)
  RankProfile profile_;
};

}  // namespace nbody
