#pragma once
// `nbody run --resume FILE`: the run continues with the settings its checkpoint holds. The
// checkpoint keeps the run's whole command line; a resume runs that command line with the flags
// given anew in place of the stored ones. A resume may change where and when the run stops and
// what it writes (kResumeMayChange); any other flag given anew must have the stored run's value.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nbody::cli {

// args: the whole command line (argv). For `run ... --resume FILE`, the checkpoint's command line
// with args' flags in place of its own (and without its --resume and --stop-at, which belonged to
// that part); any other command line unchanged. `run` is the run subcommand: it says which tokens
// are flags and which of them take a value. Throws InputError (one line naming the flag and both
// values) when a flag given anew differs from the stored run's and a resume may not change it.
std::vector<std::string> with_resumed_flags(const CLI::App& run, const std::vector<std::string>& args);

}  // namespace nbody::cli
