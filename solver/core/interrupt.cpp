#include "core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace nbody {

namespace {

// Fixed storage: the handler may neither allocate nor follow pointers that another thread frees.
constexpr int kSlots = 128;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> claimed{false};  // owned by a RegisteredTemporary
  std::atomic<bool> live{false};     // path is complete: the handler may unlink it
  std::atomic<long> numbered{-1};    // -1: the file path; else the files path + "0" ... path + (numbered - 1)
  char path[kPathBytes];
};
Slot slots[kSlots];

std::atomic<int> deferring{0};
std::atomic<int> recorded{0};
std::atomic<bool> held{false};
std::atomic<bool> said{false};
std::atomic<bool> noted{false};
char checkpoint[kPathBytes];

// Appends text to out (of capacity kLine) at `used`: async-signal-safe, unlike any formatting.
constexpr std::size_t kLine = kPathBytes + 128;
void append(char* out, std::size_t& used, const char* text) {
  for (; *text && used + 1 < kLine; ++text) out[used++] = *text;
}

void remove_registered() {
  char numbered[kPathBytes + 24];
  for (Slot& s : slots) {
    if (!s.live.load()) continue;
    const long count = s.numbered.load();
    if (count < 0) {
      ::unlink(s.path);
      continue;
    }
    const std::size_t n = std::strlen(s.path);
    std::memcpy(numbered, s.path, n);
    for (long k = 0; k < count; ++k) {
      char digits[24];
      int d = 0;
      for (long v = k; d == 0 || v > 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
      for (int i = 0; i < d; ++i) numbered[n + i] = digits[d - 1 - i];
      numbered[n + d] = '\0';
      ::unlink(numbered);
    }
  }
}

// The immediate end: the registered files removed, one line (unless the command said its own), exit.
[[noreturn]] void stop_now(int sig) {
  remove_registered();
  if (!said.exchange(true)) {
    char line[kLine];
    std::size_t used = 0;
    append(line, used, sig == SIGINT ? "nbody: interrupted by SIGINT; " : "nbody: interrupted by SIGTERM; ");
    if (noted.load()) {
      append(line, used, "checkpoint ");
      append(line, used, checkpoint);
      append(line, used, " resumes it");
    } else {
      append(line, used, "nothing saved");
    }
    line[used++] = '\n';
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, used);
  }
  ::_exit(128 + sig);
}

extern "C" void on_interrupt(int sig) {
  if (held.load()) return;
  if (deferring.load() > 0) {
    int none = 0;
    if (recorded.compare_exchange_strong(none, sig)) return;
  }
  stop_now(sig);
}

}  // namespace

void install_interrupt_handlers() {
  ::signal(SIGXFSZ, SIG_IGN);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

int interrupt_signal() { return recorded.load(); }

DeferInterrupts::DeferInterrupts() { ++deferring; }
DeferInterrupts::~DeferInterrupts() { --deferring; }

static_assert(sizeof(sigset_t) <= 128);
BlockInterrupts::BlockInterrupts() {
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGINT);
  sigaddset(&both, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &both, reinterpret_cast<sigset_t*>(before_));
}
BlockInterrupts::~BlockInterrupts() { ::pthread_sigmask(SIG_SETMASK, reinterpret_cast<const sigset_t*>(before_), nullptr); }

void hold_interrupts() { held.store(true); }

void say_interrupted(const std::string& what) {
  const std::string line = "nbody: " + what + "\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  said.store(true);
}

void note_checkpoint(const std::string& path) {
  if (noted.load() || path.size() >= kPathBytes) return;  // one checkpoint per run: its name is written once
  std::memcpy(checkpoint, path.c_str(), path.size() + 1);
  noted.store(true);
}

RegisteredTemporary::RegisteredTemporary(const std::string& path, bool numbered) : slot_(-1) {
  if (path.empty() || path.size() >= kPathBytes) return;
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].claimed.exchange(true)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].numbered.store(numbered ? 0 : -1);
    slots[i].live.store(true);
    slot_ = i;
    return;
  }
}

void RegisteredTemporary::add() {
  if (slot_ >= 0) ++slots[slot_].numbered;
}

void RegisteredTemporary::release() {
  if (slot_ < 0) return;
  slots[slot_].live.store(false);
  slots[slot_].claimed.store(false);
  slot_ = -1;
}

}  // namespace nbody
