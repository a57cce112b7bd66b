#pragma once
// SIGINT (Ctrl-C) and SIGTERM (what a batch system sends before it kills a job) end every command
// with exit 130 or 143 and one line on stderr, leaving no file behind but a checkpoint.
// install_interrupt_handlers() sets the handler at the start of main(), before any file exists.
// By default the handler removes the files registered here (outputs being written under temporary
// names, io/atomic_file.hpp; the lock files of io/output_set.hpp), prints "nbody: interrupted by
// SIGTERM; nothing saved" (or names the checkpoint that resumes the run, note_checkpoint) and
// exits 128 + signal. While a DeferInterrupts lives (the time loop of run, dpd and sph), the first
// signal is only recorded: the loop polls interrupt_signal() between steps, saves its checkpoint,
// says so (say_interrupted) and returns 128 + signal; a second signal acts at once. From
// hold_interrupts() on (the outputs are being committed, or the command has ended) a signal
// changes nothing. SIGXFSZ is ignored, so that a file over the size limit fails its write (EFBIG)
// as a full disk does, instead of killing the process.
// The handler does only async-signal-safe things: atomic loads and stores, unlink, write, _exit.
#include <string>

namespace nbody {

// The handlers of the program (main() installs them; without them, as in the tests, a signal acts
// as by default). A signal the process was started with ignored (nohup, `cmd &` in a script) stays
// ignored.
void install_interrupt_handlers();

// The signal (SIGINT or SIGTERM) recorded while interrupts were deferred, or 0.
int interrupt_signal();

class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;
};

// While one lives, SIGINT and SIGTERM wait (blocked on this thread) and act when it ends: a file
// made in its time and registered (RegisteredTemporary) before it ends is never left behind
// unregistered, for a file whose path another process may hold and so cannot be registered before
// it is made (a lock file).
class BlockInterrupts {
 public:
  BlockInterrupts();
  ~BlockInterrupts();
  BlockInterrupts(const BlockInterrupts&) = delete;
  BlockInterrupts& operator=(const BlockInterrupts&) = delete;

 private:
  unsigned char before_[128];  // the thread's signal mask before (a sigset_t)
};

// From now on to the end of the process a signal changes nothing: the command has passed its
// point of no return (its outputs are being renamed into place) or has ended.
void hold_interrupts();

// Prints the command's one line about the interruption it handled ("nbody: " + what); a later
// signal prints none.
void say_interrupted(const std::string& what);

// The checkpoint `path` now resumes the run: a signal acting at once says so.
void note_checkpoint(const std::string& path);

// Files that a signal removes while they are registered: register them before they are created,
// release them once they are renamed or removed. Either `path` itself or, numbered, the files
// path + "0", path + "1", ..., one more each time add() is called (a series staged under one name).
class RegisteredTemporary {
 public:
  explicit RegisteredTemporary(const std::string& path, bool numbered = false);
  ~RegisteredTemporary() { release(); }
  RegisteredTemporary(const RegisteredTemporary&) = delete;
  RegisteredTemporary& operator=(const RegisteredTemporary&) = delete;
  void add();
  void release();

 private:
  int slot_;  // -1: not registered (the table was full or the path too long)
};

}  // namespace nbody
