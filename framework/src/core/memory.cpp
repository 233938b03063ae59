#include "fem/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace fem {

namespace {

/// MemAvailable of /proc/meminfo in bytes, or -1 where there is none.
double system_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line))
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      double kib = -1;
      fields >> kib;
      return kib * 1024.0;
    }
  return -1;
}

/// The process's address space in bytes (the first field of /proc/self/statm, in pages), or -1.
double address_space_in_use() {
  std::ifstream statm("/proc/self/statm");
  double pages = -1;
  if (!(statm >> pages)) return -1;
  return pages * static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

MemoryBudget memory_budget() {
  MemoryBudget budget;
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    const double limit = static_cast<double>(address_space.rlim_cur);
    const double in_use = address_space_in_use();
    budget.limits = "the address-space limit (ulimit -v) is " + gib(limit);
    if (in_use >= 0) {
      budget.limits += ", " + gib(in_use) + " in use";
      budget.bytes = limit > in_use ? limit - in_use : 0;
    }
  }
  const double available = system_available();
  if (available >= 0) {
    budget.limits += (budget.limits.empty() ? "" : "; ") + std::string("the system had ") +
                     gib(available) + " available";
    if (budget.bytes < 0 || available < budget.bytes) budget.bytes = available;
  }
  return budget;
}

void require_memory(double bytes, const std::string& what, const SourceLocation& where,
                    const std::string& hint, const MemoryBudget& budget) {
  if (budget.bytes < 0 || bytes <= budget.bytes) return;
  throw InputError(where,
                   what + " needs at least " + gib(bytes) + ", more than the " + gib(budget.bytes) +
                       " fem can still use here (" + budget.limits + ")",
                   hint);
}

}  // namespace fem
