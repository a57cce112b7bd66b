// `nbody bench`: median time of one force evaluation (a Plummer sphere, or --ic) over --repeats,
// with the fastest and the slowest, as one CSV row; --accelerations: the last evaluation's values.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <ostream>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/timing.hpp"
#include "core/memory.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/force_error.hpp"
#include "engines/request.hpp"
#include "core/registry.hpp"
#include "integrators/integrator.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "mpi/ranks.hpp"
#include "physics/initial_conditions.hpp"

namespace nbody::cli {

namespace {

// The force error of a run whose ranks hold blocks of the bodies (this rank's s, from body
// `first` of n): the measured bodies' positions and accelerations gathered by every rank, their
// direct sums carried over the ranks' blocks in turn (the one process's bit for bit).
template <class T>
ForceErrorSummary distributed_force_error(const State<T>& s, std::size_t first, std::size_t n, const ForceLaw<T>& law,
                                          const std::vector<T>& acc, std::size_t sample) {
  std::vector<ErrorPoint> points;
  const std::vector<ErrorPoint> mine = error_points(s.y.data(), acc.data(), first, s.size(), n, sample);
  for (const auto& part : mpi::all_gather(mpi::to_bytes(mine))) mpi::append_from_bytes(points, part);
  std::vector<DirectSum> sums(points.size());
  mpi::in_turn(sums.data(), sums.size(), sizeof(DirectSum),
               [&] { add_direct_sums(sums, points, s.y.data(), s.mass.data(), s.size(), first, law); });
  return error_summary(points, sums, static_cast<double>(law.G));
}

template <class T>
int bench_typed(const BenchOptions& o) {
  if (o.n < 2) throw InputError("--n must be at least 2, got " + std::to_string(o.n));
  if (o.repeats < 1) throw InputError("--repeats must be at least 1, got " + std::to_string(o.repeats));
  if (o.steps < 0) throw InputError("--steps must be at least 0, got " + std::to_string(o.steps));
  std::optional<OutputSet> outputs;  // --accelerations, checked and locked before any work
  if (!o.accelerations.empty()) outputs.emplace(std::vector<OutputFile>{{"--accelerations", o.accelerations, OutputKind::recorded}});
  const ForceLaw<T> law = parse_force_law<T>(o.force);
  const ResolvedEngine<T> resolved = resolve_engine<T>(engine_request(o.engine, o.launch, o.force), law);
  // An engine that distributes the bodies itself: each rank holds its block of them alone.
  const bool blocks = resolved.entry.can.distributed && mpi::size() > 1;
  const std::size_t n = static_cast<std::size_t>(o.n);
  const std::vector<std::size_t> bounds = blocks ? mpi::block_bounds(n) : std::vector<std::size_t>{0, n};
  const std::size_t first = bounds[blocks ? mpi::rank() : 0], count = bounds[blocks ? mpi::rank() + 1 : 1] - first;
  const auto& integrator_entry = find_entry(integrator_table<T>(), o.integrator, "integrator");
  if (blocks && o.steps > 0 && integrator_entry.evaluations_per_step == 0)
    throw InputError("--steps with --engine " + resolved.name + " (the bodies distributed over the ranks) needs an integrator whose "
                     "steps take a fixed number of force evaluations, not '" + o.integrator + "'");
  // The bodies, the accelerations, the engine's arrays; --steps: the integrator's vectors (core/memory.hpp)
  const double stepping = o.steps > 0 ? 6 * integrator_entry.state_vectors : 0;
  check_memory(memory_need<T>(static_cast<std::uint64_t>(count), resolved.entry.can.memory_with(10 + stepping)),
               "--n " + std::to_string(o.n) + (blocks ? " (this rank's block of " + std::to_string(count) + ")" : ""),
               o.skip_memory_check, free_gpu_memory(resolved.entry.can));
  IcParams ic;
  ic.name = o.ic;
  ic.n = n;
  ic.seed = o.seed;
  const State<T> s = make_initial_block<T>(ic, first, count);
  auto engine = resolved.make(law);  // an invalid launch shape is an error, never a time
  engine->set_blocks(blocks);
  std::vector<T> acc(3 * s.size());
  engine->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());  // warm-up
  // GPU engines: seconds_per_eval is the kernels' device time (events), wall_seconds_per_eval
  // adds the host<->device copies; CPU engines: both are the wall time.
  // Tree engines also time the build and the walk apart (their medians).
  std::vector<double> seconds, wall, build_times, walk_times, moments_times, compute_times, exchange_times, kernel_times;
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    engine->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const double device = engine->last_device_seconds();
    seconds.push_back(device >= 0 ? device : wall.back());
    build_times.push_back(engine->last_tree_profile().build_seconds);
    walk_times.push_back(engine->last_tree_profile().walk_seconds);
    moments_times.push_back(engine->last_tree_profile().moments_seconds);
    compute_times.push_back(engine->last_rank_profile().compute_seconds);
    exchange_times.push_back(engine->last_rank_profile().exchange_seconds);
    kernel_times.push_back(engine->last_rank_profile().kernel_seconds);
  }
  const double median = median_of(seconds);
  const double wall_median = median_of(wall);
  const auto [fastest, slowest] = std::minmax_element(seconds.begin(), seconds.end());  // the spread
  // --steps K (E06): K steps of --integrator with the fixed step 2^-10 from this state, each
  // timed alone (wall: force evaluations and the integrator's own vector work); the median.
  std::string step_seconds, step_fevals;
  if (o.steps > 0) {
    State<T> st = s;
    Rhs<T> rhs(*engine, st.mass);
    StepOptions<T> opt;
    opt.dt = T(1) / T(1024);
    auto integrator = integrator_entry.make(rhs, opt);
    std::vector<double> step_times;
    for (int k = 0; k < o.steps; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      integrator->step(st, opt.dt);
      step_times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", median_of(step_times));
    step_seconds = buf;
    std::snprintf(buf, sizeof buf, "%.6g", double(rhs.evaluations()) / o.steps);
    step_fevals = buf;
  }
  const TreeProfile tree = engine->last_tree_profile();
  std::string tree_columns = ",,", tree_parts = ",,,";
  if (tree.build_seconds >= 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.6g,%.6g,%.6g", median_of(build_times), median_of(walk_times), tree.terms_per_body);
    tree_columns = buf;
    // The moments' share of the build (where timed apart) and the tree's shape (where reported).
    const double moments = median_of(moments_times);
    if (moments >= 0) std::snprintf(buf, sizeof buf, "%.6g", moments);
    tree_parts = (moments >= 0 ? std::string(buf) : std::string()) + ",";
    if (tree.shape.nodes)
      tree_parts += std::to_string(tree.shape.nodes) + "," + std::to_string(tree.shape.leaves) + "," + std::to_string(tree.shape.depth);
    else
      tree_parts += ",,";
  }
  // Of the terms, the nodes taken whole (particle-cell); the rest are particle-particle.
  std::string cell_terms;
  if (tree.cell_terms_per_body >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", tree.cell_terms_per_body);
    cell_terms = buf;
  }
  // --force-error: the last evaluation against direct summation in double (force_error.hpp).
  std::string error_columns = ",,", error_count;
  if (o.force_error) {
    error_count = std::to_string(error_point_count(n, o.error_bodies));
    const ForceErrorSummary e = blocks ? distributed_force_error(s, first, n, law, acc, o.error_bodies)
                                       : force_error(s.y.data(), s.mass.data(), s.size(), law, acc.data(), o.error_bodies);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.6g,%.6g,%.6g", e.median, e.p99, e.max);
    error_columns = buf;
  }
  if (outputs) {
    // Each rank's rows, written by rank 0 in rank order (the bodies' order).
    std::string rows;
    for (std::size_t i = 0; i < s.size(); ++i) {
      rows += std::to_string(first + i);
      for (int c = 0; c < 3; ++c) rows += ',' + RealTraits<T>::format(acc[c * s.size() + i]);
      rows += '\n';
    }
    std::ostream& out = outputs->stream(o.accelerations);
    out << "id,ax,ay,az\n";
    for (const auto& part : blocks ? mpi::gather({rows.begin(), rows.end()}) : std::vector<std::vector<unsigned char>>{{rows.begin(), rows.end()}})
      out.write(reinterpret_cast<const char*>(part.data()), static_cast<std::streamsize>(part.size()));
    outputs->commit({{"engine", resolved.name}, {"precision", o.precision}, {"n", o.n}, {"seed", o.seed}, {"ic", o.ic}});
  }
  const std::string timing = engine->last_device_seconds() >= 0 ? "device-events" : "wall";
  // mpi:<engine>: the ranks, and rank 0's medians of its local engine's time (a GPU engine's copies
  // included), of the exchange (waiting for the slowest rank included) and, for a GPU engine, of
  // its kernels alone (device events).
  // The bytes a rank sent in the last evaluation: the mean over the ranks and the most, and of the
  // mean the bodies' and their sums' (mpi-octree).
  std::string rank_columns = ",,,", byte_columns = ",,";
  if (const RankProfile r = engine->last_rank_profile(); r.ranks > 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%d,%.6g,%.6g,", r.ranks, median_of(compute_times), median_of(exchange_times));
    rank_columns = buf;
    std::snprintf(buf, sizeof buf, "%.0f,%.0f,", r.exchange_bytes, r.exchange_bytes_max);
    byte_columns = buf;
    if (r.body_bytes >= 0) std::snprintf(buf, sizeof buf, "%.0f", r.body_bytes), byte_columns += buf;
    if (r.kernel_seconds >= 0) {
      std::snprintf(buf, sizeof buf, "%.6g", median_of(kernel_times));
      rank_columns += buf;
    }
  }
  const double interactions = static_cast<double>(n) * static_cast<double>(n - 1);
  const auto host = host_info();
  const auto build = build_info();
  // simd: the instruction set an explicit-SIMD engine dispatched to on this CPU (avx512, avx2 or
  // scalar); empty for the others (compiled for baseline x86-64).
  const std::string& simd_isa = resolved.entry.can.simd;
  std::printf("engine,precision,n,threads,repeats,seconds_per_eval,interactions_per_s,gflops,simd,cpu_model,compiler_flags,timing,wall_seconds_per_eval,device,step_integrator,seconds_per_step,fevals_per_step,build_seconds,walk_seconds,terms_per_body,error_median,error_p99,error_max,moments_seconds,tree_nodes,tree_leaves,tree_depth,error_bodies,cell_terms_per_body,ranks,compute_seconds,exchange_seconds,kernel_seconds,seconds_per_eval_min,seconds_per_eval_max,exchange_bytes,exchange_bytes_max,body_bytes\n");
  std::printf("%s,%s,%zu,%d,%d,%.6g,%.6g,%.6g,%s,%s,%s,%s,%.6g,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.6g,%.6g,%s\n", resolved.name.c_str(), o.precision.c_str(), n,
              host["openmp_max_threads"].get<int>(), o.repeats, median, interactions / median,
              20.0 * interactions / median / 1e9,  // 20 flops per interaction (interaction.hpp)
              simd_isa.c_str(),
              csv_field(host["cpu_model"].get<std::string>()).c_str(),
              csv_field(build["cxx_flags"].get<std::string>()).c_str(), timing.c_str(), wall_median,
              csv_field(engine->device_info()).c_str(), o.steps > 0 ? o.integrator.c_str() : "",
              step_seconds.c_str(), step_fevals.c_str(), tree_columns.c_str(), error_columns.c_str(), tree_parts.c_str(),
              error_count.c_str(), cell_terms.c_str(), rank_columns.c_str(), *fastest, *slowest, byte_columns.c_str());
  return 0;
}

}  // namespace

int bench_command(const BenchOptions& o) {
  return dispatch_precision(o.precision, [&]<class T>() { return bench_typed<T>(o); });
}

}  // namespace nbody::cli
