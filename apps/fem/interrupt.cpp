#include "interrupt.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace fem::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
bool g_announce = true;

void on_signal(int /*signal*/) {
  g_interrupted = 1;
  // The next SIGINT or SIGTERM takes its default action and ends fem at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  // write() is async-signal-safe; spdlog and stdio are not.
  static const char message[] =
      "\nfem: stopping after the current step (a checkpoint and the last frame are written); "
      "interrupt again to stop at once\n";
  if (!g_announce) return;
  const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
}

}  // namespace

void default_interrupts() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

void install_interrupt_handlers(bool announce) {
  g_announce = announce;
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: reads and writes in progress continue rather than fail with EINTR.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

bool interrupt_requested() {
  return g_interrupted != 0;
}

}  // namespace fem::cli
