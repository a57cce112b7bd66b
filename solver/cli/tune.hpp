#pragma once
// `nbody tune`: sweeps the launch shape of a GPU engine for one (precision, N), prints one CSV
// row per shape (invalid shapes as `invalid` rows with the reason, never with a time), and stores
// the fastest in the tuning cache (cuda/tune_cache.hpp) that `run` and `bench` read.
// The sweeps of experiments E10-E13 are runs of this command with explicit lists.
#include <string>

#include <CLI/CLI.hpp>

#include "cli/options.hpp"

namespace nbody::cli {

struct TuneOptions {
  ForceOptions force;
  std::string engine;
  std::string precision = "float";
  long long n = 0;
  int repeats = 3;
  std::uint64_t seed = 1;
  std::string ic = "plummer";  // plummer or two-galaxies
  std::string blocks, splits, unrolls, ipts;  // comma lists; empty: the engine's default grid
  bool no_store = false;
  std::string csv;  // also write the rows to this file (with a .meta.json)
};

void add_tune_options(CLI::App& cmd, TuneOptions& o);
int tune_command(const TuneOptions& o);

}  // namespace nbody::cli
