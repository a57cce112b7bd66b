#pragma once
// The whole command line of nbody in one call: parses argv, runs the subcommand and returns its
// exit code (0; 2 bad input; 3 a failed run; 128 + signal an interrupted one), having printed the
// one line of a failure. main() adds the signal handlers and MPI's life around it; the readers'
// fuzzers (tests/fuzz) call it as a library.
namespace nbody::cli {

int run_command_line(int argc, char** argv);

}  // namespace nbody::cli
