#pragma once
// Gravity as a model of the run loop (run/loop.hpp): the state, the force engine and the
// integrator, stepped as the loop asks. Fixed-step runs take steps of exactly dt (times are
// t0 + k dt, not an accumulated sum) and a last step that ends exactly on the run's end; adaptive
// runs take the controller's steps, shortened to land on the end and on snapshot times (so the
// trajectory depends on the snapshot interval); fixed steps land on snapshot times only when the
// interval is a multiple of dt. With device-resident stepping (engines/resident.hpp) the steps
// up to the loop's next event are taken in calls on the device; the events, and what happens at
// them, are the same. A sample measures the conserved quantities with the potential energy the
// run asks for (Energy).
// With an engine that distributes the bodies itself (mpi-octree) under several ranks, each rank
// holds its block of the bodies (BodyBlock) and integrates it: the integrator's state is the
// block's. A sample's sums are carried from rank to rank in turn and an output's state is gathered
// by rank 0, so that the run writes the bits of the run in one process; so is a checkpoint's,
// which a run on any number of ranks resumes.
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "integrators/integrator.hpp"
#include "io/archive.hpp"
#include "io/snapshot_hdf5.hpp"
#include "io/state_csv.hpp"
#include "mpi/ranks.hpp"
#include "physics/diagnostics.hpp"
#include "run/loop.hpp"

namespace nbody {

// Where a sample's potential energy comes from (--energy): the exact pair sum on the CPU (O(N^2));
// the force engine in use (on its device; a tree's own walk, which is approximate; the exact sum
// for the CPU all-pairs engines); or none (energy and its drift not measured).
enum class Energy { exact, engine, off };

template <class T>
struct Sample {
  T t, dt;
  StepCounters counters;
  std::uint64_t force_evaluations;
  Snapshot<T> snapshot;
  typename DriftTracker<T>::Drift drift;
};

template <class T>
class Simulation {
 public:
  using Time = T;
  using Sample = nbody::Sample<T>;
  static constexpr std::string_view command = "run";

  Simulation(State<T> initial, const ForceLaw<T>& law, const std::string& engine, const std::string& integrator,
             const StepOptions<T>& steps, Energy energy = Energy::exact, BodyBlock block = {})
      : state_(std::move(initial)),
        block_(block.distributed ? block : BodyBlock{0, state_.size(), state_.size(), false}),
        law_(law),
        engine_name_(engine),
        integrator_name_(integrator),
        engine_(make_engine<T>(engine, law)),
        rhs_(*engine_, state_.mass),
        steps_(steps),
        potentials_(find_engine<T>(engine).can.potentials),
        energy_(energy == Energy::engine && potentials_ == Potentials::direct_cpu ? Energy::exact : energy) {
    const auto& entry = find_entry(integrator_table<T>(), integrator, "integrator");
    order_ = steps.order ? steps.order : entry.order;
    if (steps.adaptive && !entry.error_estimate)
      throw InputError("integrator '" + integrator + "' has no error estimate, so it cannot run with --tol/--atol/--rtol; use --dt");
    if (block_.distributed) {  // each rank steps its own bodies: nothing in a step may need the others'
      const std::string why = !std::is_trivially_copyable_v<T> ? "--precision " + std::string(RealTraits<T>::name) + " (its "
                                                                 "numbers are not plain bytes to send)"
                              : steps.adaptive ? "an adaptive step (its error norm is over all bodies)"
                              : entry.evaluations_per_step == 0 ? "'" + integrator + "' (its iterations test all bodies)"
                              : steps.stepping == Stepping::device ? "--stepping device"
                              : energy_ == Energy::exact ? "--energy exact (the O(N^2) sum over every pair)"
                                                         : std::string();
      if (!why.empty())
        throw InputError("--engine " + engine + " distributes the bodies over the ranks, which does not go with " + why +
                         "; use a fixed --dt with an explicit method, and --energy engine or off");
      engine_->set_blocks(true);
    }
    integrator_ = entry.make(rhs_, steps);
    if (steps.stepping == Stepping::device && !integrator_->steps_on_device())
      throw InputError("--stepping device: steps stay on the device only in float or double without --compensated, with a "
                       "CUDA all-pairs engine and an explicit Runge-Kutta method (fixed --dt, or --tol with --controller pi) "
                       "or adams-bashforth, or with a CUDA octree engine and leapfrog or a composition of it; use --stepping "
                       "auto or host");
  }

  const State<T>& state() const { return state_; }
  ForceEngine<T>& engine() { return *engine_; }
  const StepCounters& counters() const { return integrator_->counters(); }
  std::uint64_t force_evaluations() const { return rhs_.evaluations(); }
  const Snapshot<T>& initial_snapshot() const { return drift_.initial(); }
  // How a sample's potential energy is measured (the CPU all-pairs engines' is the exact sum).
  Energy energy() const { return energy_; }
  std::string energy_method() const {
    return energy_ == Energy::exact    ? "exact pair sum on the CPU (OpenMP, compensated)"
           : energy_ == Energy::engine ? engine_->body_potential_method()
                                       : "not measured";
  }

  // The loop's model (run/loop.hpp).
  run::Position<T> position() const { return {state_.t, step_index_}; }
  // With distributed bodies a sample is collective: every rank takes it or none (all must allow it).
  bool agreed(bool mine) const {
    if (!block_.distributed) return mine;
    mpi::Failure{}.agree();
    std::vector<unsigned long long> allowing{mine ? 1ull : 0ull};
    mpi::sum(allowing);
    return allowing[0] == static_cast<unsigned long long>(mpi::size());
  }
  bool lands_on_snapshots() const { return steps_.adaptive; }

  void begin(const run::Mark<T>& end, const run::Every<T>& snapshots) {
    if (end.by_steps()) throw InputError("a gravity run ends at a time");
    t_end_ = end.time;
    if (!started_) t0_ = state_.t, started_ = true;
    if (!(t_end_ > t0_)) throw InputError("--t-end must be after the start time " + RealTraits<T>::format(t0_));
    if (steps_.adaptive) return;
    if (snapshots.time > T(0)) {  // fixed steps land on the snapshot times only if they divide them
      const T ratio = snapshots.time / steps_.dt, k = floor(ratio + T(0.5));
      if (k < T(1) || abs(ratio - k) > T(64) * RealTraits<T>::epsilon() * k)
        throw InputError("--snapshot-every " + RealTraits<T>::format(snapshots.time) + " is not a multiple of --dt " +
                         RealTraits<T>::format(steps_.dt) + " (fixed steps land on snapshot times only then)");
    }
    if (state_.t < t0_ + T(step_index_) * steps_.dt - T(8) * RealTraits<T>::epsilon() * abs(t0_ + T(step_index_) * steps_.dt))
      throw InputError("the run stands at t = " + RealTraits<T>::format(state_.t) + ", between its steps t0 + k dt (dt = " +
                       RealTraits<T>::format(steps_.dt) + "): a run at a fixed step continues only from one of them");
    fixed_steps_ = fixed_step_count(t_end_);
  }

  // One step on the host, or the steps up to the loop's next event on the device.
  void advance(const run::Bounds<T>& b) {
    if (!(integrator_->steps_on_device() && advance_on_device(b))) advance_on_host(b.land_on);
    if (counters().iteration_cap_hits > 0 && !cap_warned_) {  // once: the summary counts them all
      cap_warned_ = true;
      std::fprintf(stderr,
                   "nbody: warning: %s's iteration stopped at its cap without converging in the step to t = %s (the summary "
                   "counts such steps: iteration_cap_hits); a smaller --tol or --dt may help\n",
                   integrator_name_.c_str(), RealTraits<T>::format(state_.t).c_str());
    }
  }

  // The conserved quantities now, their drift from the first sample, and the counters.
  Sample sample() {
    MotionSums<T> motion;
    over_blocks(&motion, 1, [&] { motion.add(state_); });
    Snapshot<T> now = motion.snapshot();
    if (energy_ == Energy::exact) {
      add_exact_potential(now, state_, law_);
    } else if (energy_ == Energy::engine) {
      phi_.resize(state_.size());
      engine_->body_potentials(state_.y.data(), state_.mass.data(), state_.size(), phi_.data());
      CompensatedSum<T> potential;
      over_blocks(&potential, 1, [&] { add_potential_terms(potential, state_, phi_); });
      set_potential(now, potential);
      // A tree's potential is approximate: its error against the direct sum, measured once.
      if (!potential_error_ && potentials_ == Potentials::tree) potential_error_ = measured_potential_error(64);
    }
    Sample s{state_.t, h_last_, counters(), rhs_.evaluations(), now, drift_.update(now)};
    return s;
  }

  // The run contract's part (run/command.hpp): the outputs and the summary.
  // A time unit of the run's times (a two-body orbit's period, `10P`), for the summary.
  void set_period(std::optional<T> period) { period_ = period; }
  std::string diagnostics_header() const {
    return "t,steps,fevals,rejected,dt,E,dE_rel,dE_rel_max,P_rel,L_rel,com_x,com_y,com_z,min_pair_dist";
  }
  // Quantities not measured (--energy off or engine) are written as nan.
  std::string diagnostics_row(const Sample& s) const {
    auto f = [](T x) { return RealTraits<T>::format(x); };
    auto known = [&](bool measured, T x) { return measured ? f(x) : std::string("nan"); };
    const auto& c = s.snapshot.centre_of_mass;
    return f(s.t) + "," + std::to_string(s.counters.steps) + "," + std::to_string(s.force_evaluations) + "," +
           std::to_string(s.counters.rejected) + "," + f(s.dt) + "," + known(s.snapshot.has_potential, s.snapshot.energy) + "," +
           known(s.drift.has_energy, s.drift.dE_rel) + "," + known(s.drift.has_energy, s.drift.dE_rel_max) + "," +
           f(s.drift.P_rel) + "," + f(s.drift.L_rel) + "," + f(c[0]) + "," + f(c[1]) + "," + f(c[2]) + "," +
           known(s.snapshot.has_min_pair_distance, s.snapshot.min_pair_distance);
  }
  std::string particles_header() const { return kSnapshotHeader; }
  std::string particle_rows() const { return format_snapshot_rows(whole()); }
  std::string final_state() const { return format_state_csv(whole()); }
  void write_hdf5_snapshot(Hdf5Snapshots& series) const { series.write(whole()); }
  void write_hdf5_final_state(OutputSet& outputs, const std::string& path, const nlohmann::json& parameters) const {
    nbody::write_hdf5_snapshot(outputs, path, whole(), parameters);
  }
  nlohmann::json parameters() const {
    return {{"engine", engine_name_}, {"device", engine_->device_info()}, {"energy_method", energy_method()}};
  }
  // A tree's potential against the direct sum at this process's first sample; null otherwise.
  nlohmann::json potential_error_json() const {
    if (!potential_error_) return nullptr;
    const PotentialError& e = *potential_error_;
    return {{"bodies", e.bodies}, {"max_rel", e.max_rel}, {"rms_rel", e.rms_rel}, {"energy_rel", e.energy_rel}};
  }
  // Another engine or launch shape than the checkpoint's sums the forces in another order: the
  // continuation is a valid run, but not bit for bit the uninterrupted one. Says so ("" otherwise).
  std::string resume_note(const nlohmann::json& checkpoint) const {
    const nlohmann::json& was = checkpoint.at("parameters");
    const std::string was_engine = was.value("engine", std::string("?")), was_device = was.value("device", std::string()),
                      device = engine_->device_info();
    if (bits_engine(was_engine) == bits_engine(engine_name_) && was_device == device) return {};  // ranks: the same bits
    return "the checkpoint was written with engine " + was_engine + (was_device.empty() ? "" : " (" + was_device + ")") +
           ", this part runs with " + engine_name_ + (device.empty() ? "" : " (" + device + ")") +
           ": the continuation is not bit for bit the uninterrupted run";
  }
  nlohmann::json summary(const Sample& now) const {
    auto number = [](bool measured, T x) { return measured ? nlohmann::json(static_cast<double>(x)) : nlohmann::json(); };
    const Snapshot<T>& e0 = drift_.initial();
    nlohmann::json j = {
        {"integrator", integrator_name_},
        {"method_order", order_},  // the order of the method as run (Adams: --order)
        {"precision", RealTraits<T>::name},
        {"engine", engine_name_},
        {"device", engine_->device_info()},
        {"n", block_.total},
        {"t", static_cast<double>(state_.t)},
        {"steps", counters().steps},
        {"fevals", force_evaluations()},
        {"rejected", counters().rejected},
        {"iteration_cap_hits", counters().iteration_cap_hits},  // gauss-radau15: steps whose iteration hit its cap
        {"dt_last", static_cast<double>(h_last_)},
        {"energy_method", energy_method()},
        {"potential_error", potential_error_json()},
        {"E0", number(e0.has_potential, e0.energy)},
        {"E", number(now.snapshot.has_potential, now.snapshot.energy)},
        {"dE_rel", number(now.drift.has_energy, now.drift.dE_rel)},
        {"dE_rel_max", number(now.drift.has_energy, now.drift.dE_rel_max)},
        {"P_rel", static_cast<double>(now.drift.P_rel)},
        {"L_rel", static_cast<double>(now.drift.L_rel)},
        {"min_pair_dist", number(now.snapshot.has_min_pair_distance, now.snapshot.min_pair_distance)},  // at the end
        {"min_pair_dist_min", number(now.drift.has_min_pair_distance, now.drift.min_pair_distance_min)},  // over the samples
        {"period", period_ ? nlohmann::json(static_cast<double>(*period_)) : nlohmann::json()},
    };
    if (const RankProfile r = engine_->last_rank_profile(); r.ranks > 0)  // mpi:<engine>: rank 0's times
      j["mpi"] = {{"ranks", r.ranks}, {"exchange", r.exchange}, {"compute_s", r.total_compute_seconds},
                  {"exchange_s", r.total_exchange_seconds}, {"exchange_bytes", r.total_exchange_bytes}};
    return j;
  }
  std::string summary_line(const nlohmann::json& s) const {
    char line[512];
    auto value = [&](const char* key) { return s[key].is_number() ? s[key].get<double>() : std::nan(""); };
    std::snprintf(line, sizeof line,
                  "%s %s %s: t = %s, %llu steps (%llu rejected), %llu force evaluations, dE/E0 = %.3g (max %.3g), %.3g s",
                  integrator_name_.c_str(), std::string(RealTraits<T>::name).c_str(), engine_name_.c_str(),
                  RealTraits<T>::format(state_.t).c_str(), static_cast<unsigned long long>(counters().steps),
                  static_cast<unsigned long long>(counters().rejected), static_cast<unsigned long long>(force_evaluations()),
                  value("dE_rel"), value("dE_rel_max"), value("wall_s"));
    return line;
  }

  // The model as it stands between two steps: state, position in the step schedule, the
  // diagnostics' baseline and running max, the integrator's own state.
  // (Collective with distributed bodies: rank 0's archive holds every body.)
  void save(ArchiveWriter& w) const {
    if (block_.distributed) mpi::Failure{}.agree();  // a rank that failed is not waiting here: end with it
    w.set_bodies(block_);
    w.put_bodies(state_.mass, 1);
    w.put_bodies(state_.y, 6);
    w.put(state_.t);
    w.put(t0_);
    w.put(step_index_);
    w.put(h_last_);
    w.put(rhs_.evaluations());
    drift_.save(w);
    integrator_->save(w);
  }
  // The number of bodies a checkpoint's state holds (the length of its masses, save's first value).
  static std::size_t saved_body_count(const std::string& archive) {
    ArchiveReader r(archive);
    return r.get<std::uint64_t>();
  }
  // The bodies a checkpoint's state holds (those of the reader's block), read from its start (save's
  // first three values).
  static State<T> saved_state(ArchiveReader& r) {
    State<T> s;
    r.get_bodies(s.mass, 1);
    r.get_bodies(s.y, 6);
    r.get(s.t);
    if (r.bodies().total == 0) throw InputError("checkpoint holds no bodies");
    for (const T& m : s.mass)
      if (!(m > T(0)) || !is_finite(m)) throw InputError("checkpoint holds a mass that is not finite and positive");
    for (const T& x : s.y)
      if (!is_finite(x)) throw InputError("checkpoint holds a coordinate that is not finite");
    if (!is_finite(s.t)) throw InputError("checkpoint holds a time that is not finite");
    return s;
  }
  void load(ArchiveReader& r) {
    State<T> saved = saved_state(r);
    if (saved.size() != state_.size())
      throw InputError("checkpoint holds " + std::to_string(saved.size()) + " bodies, the run " + std::to_string(state_.size()));
    state_.mass = std::move(saved.mass);  // same vector object: Rhs keeps referring to it
    state_.y = std::move(saved.y);
    state_.t = saved.t;
    r.get(t0_);
    r.get(step_index_);
    r.get(h_last_);
    rhs_.set_evaluations(r.get<std::uint64_t>());
    drift_.load(r);
    integrator_->load(r);
    started_ = true;
  }

 private:
  // The engine whose bits an engine's results are: mpi:<engine>'s local one, a distributed engine's
  // single-process twin; any other engine's own.
  static std::string_view bits_engine(std::string_view name) {
    name = local_engine_name(name);
    for (const auto& e : engine_table<T>())
      if (e.name == name && !e.can.bits_of.empty()) return e.can.bits_of;
    return name;
  }
  // Steps of exactly dt to t_end: within rounding of an integer, that integer.
  std::uint64_t fixed_step_count(T t_end) const {
    const T ratio = (t_end - t0_) / steps_.dt;
    const double n = std::ceil(static_cast<double>(ratio - ratio * T(8) * RealTraits<T>::epsilon()));
    if (!(n <= 0x1p62))  // (a step count is an integer)
      throw InputError("--t-end " + RealTraits<T>::format(t_end) + " is " + RealTraits<T>::format(ratio) + " steps of --dt " +
                       RealTraits<T>::format(steps_.dt) + " away, more than a run counts (2^62)");
    return n < 1 ? 1 : static_cast<std::uint64_t>(n);
  }

  // One step; an adaptive one is clamped to end exactly on `land_on` (the end or the next snapshot).
  void advance_on_host(T land_on) {
    if (steps_.adaptive) {
      const T remaining = land_on - state_.t;
      const T h = std::min(integrator_->proposed_step(state_), remaining);
      h_last_ = integrator_->step(state_, h);
      if (h_last_ == remaining) state_.t = land_on;
    } else {
      const bool last = step_index_ + 1 >= fixed_steps_;
      const T t_k = t0_ + T(step_index_) * steps_.dt;
      h_last_ = last ? t_end_ - t_k : steps_.dt;
      integrator_->step(state_, h_last_);
      state_.t = last ? t_end_ : t0_ + T(step_index_ + 1) * steps_.dt;
    }
    ++step_index_;
    check_finite();
  }

  // Device-resident steps: as many as the bounds allow (fixed steps: all but the last, which ends
  // exactly on the end and is the host's) in one call, at most device_batch_ of them. False when
  // the integrator cannot take them now; the caller then takes one step on the host.
  bool advance_on_device(const run::Bounds<T>& b) {
    ResidentSegment<T> seg;
    seg.land_on = b.land_on;
    seg.stop_when = b.stop_when;
    seg.max_steps = std::min(device_batch_, b.last_step - step_index_);
    if (!steps_.adaptive) {
      if (step_index_ + 1 >= fixed_steps_) return false;
      seg.max_steps = std::min<std::uint64_t>(seg.max_steps, fixed_steps_ - 1 - step_index_);
    }
    seg.t0 = t0_;
    seg.dt = steps_.dt;
    seg.step_index = step_index_;
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t taken = integrator_->advance_on_device(state_, seg);
    if (taken == 0) return false;
    // Calls of about a second: progress lines stay regular, and launches stay rare.
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (taken == seg.max_steps && seconds < 0.25 && device_batch_ < (std::uint64_t(1) << 24)) device_batch_ *= 2;
    if (seconds > 2 && device_batch_ > 1) device_batch_ /= 2;
    step_index_ += taken;
    h_last_ = seg.h_last;
    check_finite();
    return true;
  }

  // Collective with distributed bodies: the sums sums[0 .. count) carried over the ranks' blocks in
  // turn, each adding its bodies' terms with `add`, then the whole sums to every rank; with every
  // body here, `add` alone.
  // (Values travel between ranks as bytes: a precision whose values are not plain bytes is refused
  // with distributed bodies where the run starts.)
  template <class Sums>
  void over_blocks(Sums* sums, std::size_t count, const std::function<void()>& add) const {
    if (!block_.distributed) return add();
    if constexpr (std::is_trivially_copyable_v<Sums>) {
      mpi::Failure{}.agree();  // a rank that failed is not waiting here: end with it
      mpi::in_turn(sums, count * sizeof(Sums), 1, add);
    } else {
      throw std::logic_error("sums that are not plain bytes cannot travel between ranks");
    }
  }
  // The state of every body, on rank 0 (gathered from the ranks' blocks; empty on the other
  // ranks, which write nothing); the state itself with every body here.
  const State<T>& whole() const {
    if (!block_.distributed) return state_;
    mpi::Failure{}.agree();
    whole_.mass = mpi::gather_bodies(state_.mass, 1);
    whole_.y = mpi::gather_bodies(state_.y, 6);
    whole_.t = state_.t;
    return whole_;
  }
  // A tree's potential against the direct sum on `count` bodies: with distributed bodies the
  // measured ones gathered by every rank and their exact sums carried over the blocks in turn.
  PotentialError measured_potential_error(std::size_t count) const {
    if (!block_.distributed) return potential_error(state_, law_, phi_, count);
    using W = ExactReal<T>;
    auto points = potential_points(state_, block_.first, block_.total, phi_, count);
    mpi::Failure{}.agree();
    const std::vector<unsigned char> mine = mpi::to_bytes(points);
    points.clear();
    for (const auto& part : mpi::all_gather(mine)) mpi::append_from_bytes(points, part);
    std::vector<CompensatedSum<W>> sums(points.size());
    over_blocks(sums.data(), sums.size(), [&] { add_exact_potentials(sums, points, state_, block_.first, law_); });
    return potential_error_of(points, sums, W(law_.G));
  }

  void check_finite() const {
    for (const T& v : state_.y)
      if (!is_finite(v))
        throw RunError("the state became non-finite at t = " + RealTraits<T>::format(state_.t) + " after " +
                       std::to_string(counters().steps) + " steps (try a smaller --dt or --tol, or --eps / --r-min)");
  }

  State<T> state_;
  BodyBlock block_;
  mutable State<T> whole_;  // every body, gathered on rank 0 for an output (distributed bodies)
  ForceLaw<T> law_;
  std::string engine_name_, integrator_name_;
  int order_ = 0;
  std::optional<T> period_;
  std::unique_ptr<ForceEngine<T>> engine_;
  Rhs<T> rhs_;
  StepOptions<T> steps_;
  Potentials potentials_;  // how the engine evaluates body potentials
  Energy energy_;
  DriftTracker<T> drift_;
  std::vector<T> phi_;  // each body's potential (Energy::engine)
  std::optional<PotentialError> potential_error_;
  std::unique_ptr<Integrator<T>> integrator_;
  bool started_ = false, cap_warned_ = false;
  T t0_{0}, h_last_{0}, t_end_{0};
  std::uint64_t step_index_ = 0;  // steps taken (fixed-step times are t0 + k dt)
  std::uint64_t fixed_steps_ = 0;  // to t_end_
  std::uint64_t device_batch_ = 256;  // the most steps of one device-resident call (adapted to its wall time)
};

}  // namespace nbody
