#pragma once
// SIGINT (Ctrl-C) and SIGTERM (what a batch system sends before it kills a job). By default, in
// every subcommand, the handler removes the temporary files of the outputs being written (see
// io/atomic_file.hpp, which registers them here) and ends the process by the same signal, so an
// interrupted command leaves nothing behind. While a DeferInterrupts lives (`nbody run`), the
// first signal is only recorded: the time loop polls interrupt_signal() between steps, finishes,
// saves its checkpoint and exits 128 + signal; a second signal acts at once, as by default.
// The handler does only async-signal-safe things: atomic loads and stores, unlink, sigaction,
// raise.
#include <string>

namespace nbody {

// The signal (SIGINT or SIGTERM) recorded while interrupts were deferred, or 0.
int interrupt_signal();

class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;
};

// A file that a signal removes while it is registered: register it before the file is created,
// release it once the file is renamed or removed.
class RegisteredTemporary {
 public:
  explicit RegisteredTemporary(const std::string& path);
  ~RegisteredTemporary() { release(); }
  RegisteredTemporary(const RegisteredTemporary&) = delete;
  RegisteredTemporary& operator=(const RegisteredTemporary&) = delete;
  void release();

 private:
  int slot_;  // -1: not registered (the table was full or the path too long)
};

}  // namespace nbody
