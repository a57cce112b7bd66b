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
// A local engine that sums in passes instead (pass_forces: cuda-pairs, whose pair tiles add to the
// rows of both bodies, so no block of rows stands alone) is split by its passes: each rank computes
// the sums of its share of them, then the ranks add theirs on in turn, in pass order (rank r after
// r - 1, mpi::in_turn), which is the order of one process, and the last rank's result goes to all.
//
// The exchange moves 3 N numbers per evaluation, as an exchange of positions would. Its two
// forms: MPI_Allgatherv (mpi:, the library picks its algorithm) and a ring of P - 1
// MPI_Sendrecv (mpi-ring:). Before either, one agreement (a 3-int MPI_Allreduce) carries a
// rank's failure or interrupt to all, so that no rank waits for one that is gone.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

template <class T>
class MpiEngine final : public ForceEngine<T> {
 public:
  // by_passes: the local engine sums in passes (pass_forces) instead of computing blocks.
  MpiEngine(std::unique_ptr<ForceEngine<T>> local, mpi::Exchange how, bool by_passes = false)
      : ForceEngine<T>(local->law()), local_(std::move(local)), how_(how), by_passes_(by_passes) {
    profile_.ranks = mpi::size();
    profile_.exchange = by_passes ? "in turn" : how == mpi::Exchange::ring ? "ring" : "allgatherv";
  }

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const unsigned long long sent = mpi::bytes_sent();
    mpi::Failure f;
    const bool by_passes = by_passes_ && mpi::size() > 1;  // one rank: the local engine's own evaluation
    if (by_passes) {
      f.run([&] { pass_sums(pos, mass, n); });
    } else {
      if (bounds_.empty() || bounds_.back() != n) bounds_ = mpi::block_bounds(n);
      const std::size_t first = bounds_[mpi::rank()], count = bounds_[mpi::rank() + 1] - first;
      f.run([&] { local_->accelerations_of(pos, mass, n, first, count, acc); });
    }
    const auto t1 = clock::now();
    f.agree();
    if (by_passes) {
      // Rank r adds its passes' sums onto those of the ranks before it, in pass order.
      mpi::in_turn(acc, 3 * n, sizeof(T), [&] {
        if (pass_end_ > pass_first_) f.run([&] { local_->fold_pass_sums(n, pass_first_ == 0, pass_end_ == passes_, acc); });
      });
      f.agree();  // a failure in a rank's turn (the turn went on, so that no rank waits)
    } else {
      for (int c = 0; c < 3; ++c) mpi::exchange_blocks(acc + c * n, sizeof(T), bounds_, how_);
    }
    profile_.compute_seconds = std::chrono::duration<double>(t1 - t0).count();
    profile_.kernel_seconds = local_->last_device_seconds();
    if (!by_passes) bounds_ = mpi::balanced_bounds(bounds_, mpi::allgather(profile_.compute_seconds));  // for the next evaluation
    const mpi::BytesSent bytes = mpi::bytes_sent_since(sent);
    profile_.count_bytes(bytes.mean, bytes.most);
    const auto t2 = clock::now();
    profile_.exchange_seconds = std::chrono::duration<double>(t2 - t1).count();
    profile_.total_compute_seconds += profile_.compute_seconds;
    profile_.total_exchange_seconds += profile_.exchange_seconds;
  }

  // The potential at points and at the bodies: each rank computes all of them (a diagnostic, not
  // the run's loop).
  void potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) override {
    local_->potentials(pos, mass, n, at, m, phi);
  }
  std::string potential_method() const override { return local_->potential_method(); }
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override { local_->body_potentials(pos, mass, n, phi); }
  std::string body_potential_method() const override { return local_->body_potential_method(); }
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
  // This rank's passes, as even as whole passes allow, computed and kept by the local engine.
  void pass_sums(const T* pos, const T* mass, std::size_t n) {
    const std::size_t p = static_cast<std::size_t>(mpi::size()), r = static_cast<std::size_t>(mpi::rank());
    passes_ = local_->pass_count(n);
    pass_first_ = passes_ * r / p, pass_end_ = passes_ * (r + 1) / p;
    local_->pass_sums(pos, mass, n, pass_first_, pass_end_);
  }

  std::unique_ptr<ForceEngine<T>> local_;
  mpi::Exchange how_;
  bool by_passes_;
  std::size_t passes_ = 0, pass_first_ = 0, pass_end_ = 0;
  std::vector<std::size_t> bounds_;  // the ranks' blocks of the next evaluation (balanced by the last)
  RankProfile profile_;
};

}  // namespace nbody
