// nbody: the one solver binary (cli/command_line.hpp).
#include "cli/command_line.hpp"
#include "core/interrupt.hpp"
#include "mpi/ranks.hpp"

int main(int argc, char** argv) {
  nbody::install_interrupt_handlers();  // first: a signal at any instant ends the command in one line (core/interrupt.hpp)
  nbody::mpi::Session ranks;            // under mpiexec: MPI's life, and the exit code all ranks agree on
  const int code = nbody::cli::run_command_line(argc, argv);
  nbody::hold_interrupts();  // the command has ended, its outputs written or removed
  return ranks.finish(code);
}
