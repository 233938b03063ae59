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

void settle_openmp_waiting(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY") || !machine_busy()) return;
  if (::setenv("GOMP_SPINCOUNT", kOpenMpSpinCount, 0) != 0) return;
  ::execv("/proc/self/exe", argv);  // only returns if it failed: go on with libgomp's default
}

}  // namespace fem::cli
