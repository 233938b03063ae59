#include "openmp_waiting.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace fem::cli {

bool machine_busy(const char* loadavg) {
  std::FILE* f = std::fopen(loadavg, "r");
  if (!f) return false;
  double one_minute = 0.0;
  const int read = std::fscanf(f, "%lf", &one_minute);
  std::fclose(f);
  return read == 1 && one_minute >= kBusyLoad;
}

bool openmp_waiting_needs_settling(bool busy, const char* spin_count, const char* wait_policy,
                                   const char* proc_bind, const char* places) {
  return busy && spin_count == nullptr && wait_policy == nullptr && proc_bind == nullptr &&
         places == nullptr;
}

void settle_openmp_waiting(char** argv) {
  const auto set = [](const char* name) { return std::getenv(name); };
  if (!openmp_waiting_needs_settling(machine_busy(), set("GOMP_SPINCOUNT"), set("OMP_WAIT_POLICY"),
                                     set("OMP_PROC_BIND"), set("OMP_PLACES")))
    return;
  if (::setenv("GOMP_SPINCOUNT", kOpenMpSpinCount, 0) != 0) return;
  ::execv("/proc/self/exe", argv);  // only returns if it failed: go on with libgomp's default
}

}  // namespace fem::cli
