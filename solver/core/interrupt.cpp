#include "core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace nbody {

namespace {

// Fixed storage: the handler may neither allocate nor follow pointers that another thread frees.
constexpr int kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> claimed{false};  // owned by a RegisteredTemporary
  std::atomic<bool> live{false};     // path is complete: the handler may unlink it
  char path[kPathBytes];
};
Slot slots[kSlots];

std::atomic<int> deferring{0};
std::atomic<int> recorded{0};

extern "C" void on_interrupt(int sig) {
  if (deferring.load() > 0) {
    int none = 0;
    if (recorded.compare_exchange_strong(none, sig)) return;
  }
  const int saved_errno = errno;
  for (Slot& s : slots)
    if (s.live.load()) ::unlink(s.path);
  errno = saved_errno;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

// Once, on first use. A signal the process was started with ignored (nohup, `cmd &` in a script)
// stays ignored.
void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_handler = on_interrupt;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace

int interrupt_signal() { return recorded.load(); }

DeferInterrupts::DeferInterrupts() {
  install_handlers();
  ++deferring;
}
DeferInterrupts::~DeferInterrupts() { --deferring; }

RegisteredTemporary::RegisteredTemporary(const std::string& path) : slot_(-1) {
  install_handlers();
  if (path.empty() || path.size() >= kPathBytes) return;
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].claimed.exchange(true)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].live.store(true);
    slot_ = i;
    return;
  }
}

void RegisteredTemporary::release() {
  if (slot_ < 0) return;
  slots[slot_].live.store(false);
  slots[slot_].claimed.store(false);
  slot_ = -1;
}

}  // namespace nbody
