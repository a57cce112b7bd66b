#pragma once
// The run contract of every model's command (nbody run, dpd, sph): a model stepped by the run loop
// (run/loop.hpp) from its start or from a checkpoint, its outputs checked before the first step
// and written whole at the end, its checkpoints, its interruptions, its progress and its summary.
// The command (cli/) parses its flags, makes the model and says what the run asks (Request); this
// does the rest, the same for every model.
//
// Beside the loop's model interface a model offers:
//   static constexpr std::string_view command;     the subcommand ("run", "dpd", "sph"), in its checkpoints
//   std::string diagnostics_header(), diagnostics_row(const Sample&)   the diagnostics CSV
//   std::string particles_header(), particle_rows()                    a snapshot as CSV rows (t first)
//   std::string final_state()                      the final state file's text
//   nlohmann::json parameters()                    the model's part of every output's provenance
//   nlohmann::json summary(const Sample& now)      the model's part of the summary
//   std::string summary_line(const nlohmann::json& summary)   the line printed at the end
// and optionally
//   void write_hdf5(path, parameters), Hdf5Snapshots series (HDF5 snapshots; gravity)
//   void resumed_from(const nlohmann::json& checkpoint_parameters)   a note on how the resume differs
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/device_memory.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"
#include "io/checkpoint.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "io/snapshot_hdf5.hpp"
#include "mpi/ranks.hpp"
#include "run/loop.hpp"

namespace nbody::run {

// The files of a run: its outputs, its checkpoint and the checkpoint it resumes.
struct Files {
  std::string diagnostics, snapshots, final_state, summary, checkpoint, resume;
  bool quiet = false;  // no progress lines
};

// What a command line asks of the run: the schedule (intervals resolved, the defaults filled in),
// and whether it gave the snapshot interval (a run whose steps land on snapshot times keeps its own).
template <class Time>
struct Request {
  Schedule<Time> schedule;
  std::string snapshots_given;  // the snapshot interval as given, or empty
  std::string snapshots_flag = "--snapshot-every";
  std::optional<MemoryNeed> memory;  // the estimate the command checked (the summary sets it beside the peak)
};

// The checkpoint of a model's run, refused (InputError, one line naming the file as `given`, by
// default "--resume PATH") unless `command` wrote it and its records are whole.
Checkpoint read_run_checkpoint(const std::string& command, const std::string& path, std::string given = {});

// Calls `read` (a model's reader of the checkpoint `path`'s state, which checks what it reads
// against the model's rules): its InputError is refused naming the checkpoint.
template <class Read>
decltype(auto) reading_checkpoint(const std::string& path, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw InputError("--resume " + path + ": " + e.what());
  }
}

// The files of a run, checked and locked (io/output_set.hpp): its outputs (a CSV with its provenance
// record, an HDF5 series, the checkpoint) and inputs (the checkpoint resumed, and `inputs`).
// InputError, in one line naming the flag and the file, at the first problem.
OutputSet open_run_files(const Files& files, std::vector<InputFile> inputs = {});

namespace detail {
// An interval for people and for provenance records: "0.25" (time) or "100 steps".
template <class Time>
std::string every_text(const Every<Time>& e) {
  return !e.on() ? "none" : e.steps ? std::to_string(e.steps) + " steps" : RealTraits<Time>::format(e.time);
}
}  // namespace detail

// Runs `model` (made from its start, or loaded from `resumed`'s state) as `request` asks and writes
// `files` (opened as `outputs`: nothing appears unless the run ends or stops at --stop-at).
// `identity` (the flags that make the run what it is) and `part` (what this part chose: its end,
// outputs, ...; a resume inherits them) go into the checkpoints, `provenance` (the command line,
// ...) into every output's record. Returns the exit code: 0 done or stopped at --stop-at,
// 128 + signal when interrupted.
template <class Model>
int run_model(Model& model, const Files& files, OutputSet& outputs, const Request<typename Model::Time>& request,
              const std::optional<Checkpoint>& resumed, const nlohmann::json& identity, const nlohmann::json& part,
              const nlohmann::json& provenance) {
  using Time = typename Model::Time;
  using Sample = typename Model::Sample;
  const auto wall_start = std::chrono::steady_clock::now();

  // A resume: the checkpoint's clocks count on where this part keeps their intervals. Where steps
  // land on snapshot times (they shape the trajectory) the interval is the run's: the checkpoint's,
  // one given anew must be the same, and a run that took none cannot start.
  Schedule<Time> schedule = request.schedule;
  std::uint64_t snapshots_written = 0;
  if (resumed) {
    const nlohmann::json& clocks = resumed->parameters.at("clocks");
    snapshots_written = resumed->parameters.value("snapshots_written", std::uint64_t{0});
    const Every<Time> stored = RunLoop<Model>::stored_every(clocks, "snapshots");
    if (model.lands_on_snapshots() && schedule.snapshots.on()) {
      if (!stored.on())
        throw InputError("--resume " + files.resume + ": the checkpoint's run took no snapshots, so its steps landed on no "
                         "snapshot time; --snapshots would change them (start the run again with --snapshots)");
      if (!request.snapshots_given.empty() && !(stored == schedule.snapshots))
        throw InputError("--resume " + files.resume + ": " + request.snapshots_flag + " is " + request.snapshots_given +
                         " here but " + detail::every_text(stored) + " in the checkpoint's run, whose steps landed on its "
                         "snapshot times; leave it out to continue that run");
      schedule.snapshots = stored;
    }
  }
  RunLoop<Model> loop(model, schedule, {});
  std::string resume_note;  // said once the run is accepted, so that a refusal stays one line
  if (resumed) {
    loop.resume(resumed->parameters.at("clocks"));
    if constexpr (requires { model.resume_note(resumed->parameters); }) resume_note = model.resume_note(resumed->parameters);
  }
  typename RunLoop<Model>::Events events;
  events.begun = [&] {
    if (!resume_note.empty()) std::fprintf(stderr, "nbody: note: %s\n", resume_note.c_str());
  };

  // The outputs, committed together at the end: the diagnostics and CSV snapshots written as the
  // run goes, HDF5 snapshots one file per time.
  nlohmann::json parameters = identity;
  parameters.update(provenance);
  parameters.update(model.parameters());
  parameters["diag_every"] = detail::every_text(loop.schedule().samples);
  if (!files.snapshots.empty()) parameters["snapshot_every"] = detail::every_text(loop.schedule().snapshots);
  std::ostream* diagnostics = files.diagnostics.empty() ? nullptr : &outputs.stream(files.diagnostics);
  if (diagnostics) *diagnostics << model.diagnostics_header() << "\n";
  std::optional<Hdf5Snapshots> hdf5_snapshots;
  if (is_hdf5_path(files.snapshots)) {
    if constexpr (requires { model.write_hdf5_snapshot(*hdf5_snapshots); }) {
      hdf5_snapshots.emplace(outputs, files.snapshots, parameters, snapshots_written);
      events.snapshot = [&] { model.write_hdf5_snapshot(*hdf5_snapshots), ++snapshots_written; };
    } else {
      throw InputError("--snapshots " + files.snapshots + ": this model writes CSV (give a .csv name)");
    }
  } else if (!files.snapshots.empty()) {
    std::ostream& snapshots = outputs.stream(files.snapshots);
    snapshots << model.particles_header() << "\n";
    events.snapshot = [&] { snapshots << model.particle_rows(), ++snapshots_written; };
  }
  std::optional<Sample> last;
  Position<Time> last_at;
  events.sample = [&](const Sample& s) {
    if (diagnostics) *diagnostics << model.diagnostics_row(s) << "\n";
    last = s, last_at = model.position();
  };
  const auto write_checkpoint_now = [&] {
    ArchiveWriter w;
    model.save(w);
    nlohmann::json stored = {{"model", Model::command},
                             {"identity", identity},
                             {"part", part},
                             {"clocks", loop.clocks()},
                             {"snapshots_written", snapshots_written},
                             {"parameters", parameters}};
    write_checkpoint(files.checkpoint, {stored, w.bytes()});
  };
  if (!files.checkpoint.empty()) events.checkpoint = write_checkpoint_now;
  events.interrupted = [] { return mpi::interrupt_signal() != 0; };  // under mpiexec: as all ranks agreed
  if (!files.quiet) events.progress = [](const std::string& line) { std::fprintf(stderr, "nbody: %s\n", line.c_str()); };
  loop.set_events(events);

  const Position<Time> started_at = model.position();
  std::optional<DeferInterrupts> defer(std::in_place);  // SIGINT, SIGTERM: the loop stops between two steps
  const bool completed = loop.run();
  defer.reset();  // from here on a signal acts at once
  const Position<Time> at = model.position();
  const std::string where = loop.schedule().end.by_steps()
                                ? "step " + std::to_string(at.step)
                                : "t = " + RealTraits<Time>::format(at.t) + " (step " + std::to_string(at.step) + ")";
  // Interrupted: the checkpoint (written by the loop on stopping) is the run's one output; the
  // others would be partial, so their temporary files go.
  if (const int sig = mpi::interrupt_signal(); !completed && sig) {
    say_interrupted("interrupted at " + where + "; " +
                    (files.checkpoint.empty() ? "nothing saved" : "checkpoint " + files.checkpoint + " resumes it"));
    return 128 + sig;
  }
  if (completed && !files.checkpoint.empty()) write_checkpoint_now();  // the end: a later end extends the run

  // The summary: where the run stands (the last sample, or a fresh one where it stopped between
  // samples), the model's own measures, and what the run cost.
  const Sample now = last && last_at.step == at.step && last_at.t == at.t ? *last : model.sample();
  nlohmann::json summary = model.summary(now);
  summary["completed"] = completed;
  summary["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  summary["step_wall_s"] = loop.stepping_seconds();  // of wall_s, the steps alone (no samples, outputs, checkpoints)
  summary["diagnostics_s"] = loop.sampling_seconds();  // of wall_s, the samples
  const auto taken = static_cast<double>(at.step - started_at.step);
  summary["steps_taken"] = at.step - started_at.step;  // by this process
  summary["seconds_per_step"] = taken > 0 ? loop.stepping_seconds() / taken : 0.0;
  summary["threads"] = host_info().value("openmp_max_threads", 0);
  summary["samples"] = loop.samples_taken();
  summary["samples_skipped"] = loop.samples_skipped();  // due but over the diagnostics' share (--diag-budget)
  if (request.memory) {
    const auto peak = peak_memory();
    summary["memory"] = {{"estimated_host_bytes", request.memory->host_bytes},
                         {"peak_host_bytes", peak ? nlohmann::json(*peak) : nlohmann::json()},
                         {"estimated_device_bytes", request.memory->device_bytes},
                         {"peak_device_bytes", device_allocation_peak()}};  // nbody's own allocations
  }

  if (is_hdf5_path(files.final_state)) {
    if constexpr (requires { model.write_hdf5_final_state(outputs, files.final_state, parameters); })
      model.write_hdf5_final_state(outputs, files.final_state, parameters);
  } else if (!files.final_state.empty()) {
    outputs.stream(files.final_state) << model.final_state();
  }
  if (!files.summary.empty()) outputs.stream(files.summary) << summary.dump(2) << "\n";
  if (hdf5_snapshots) hdf5_snapshots->finish();
  outputs.commit(parameters);
  std::printf("%s%s\n", model.summary_line(summary).c_str(),
              completed ? "" : (" (stopped at " + where + "; checkpoint " + files.checkpoint + ")").c_str());
  return 0;
}

}  // namespace nbody::run
