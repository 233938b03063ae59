#include "fem/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
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

/// The first number in a file, or -1 ("max", no file).
double number_in(const std::string& path) {
  std::ifstream in(path);
  double value = -1;
  if (!(in >> value)) return -1;
  return value;
}

}  // namespace

detail::CgroupMemory detail::cgroup_memory(const std::string& proc_cgroup,
                                           const std::string& root) {
  // Lines "id:controllers:path": v1 names the memory controller, v2 has id 0 and none.
  std::ifstream in(proc_cgroup);
  std::string line, v1_path, v2_path;
  bool v1 = false, v2 = false;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::istringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ','))
      if (name == "memory") {
        v1 = true;
        v1_path = path;
      }
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {
      v2 = true;
      v2_path = path;
    }
  }
  // Limits beyond 2^60 bytes are v1's way of saying none.
  constexpr double kNone = 1152921504606846976.0;
  const auto limit_from = [&](const std::string& mount, std::string path, const char* limit_file,
                              const char* usage_file) -> CgroupMemory {
    while (true) {
      const std::string dir = mount + (path == "/" ? std::string() : path);
      const double limit = number_in(dir + "/" + limit_file);
      if (limit >= 0 && limit < kNone)
        return {limit, std::max(0.0, number_in(dir + "/" + usage_file))};
      if (path.empty() || path == "/") return {};
      path = path.substr(0, path.find_last_of('/'));
    }
  };
  if (v1) {
    const CgroupMemory m =
        limit_from(root + "/memory", v1_path, "memory.limit_in_bytes", "memory.usage_in_bytes");
    if (m.limit >= 0) return m;
  }
  if (v2) return limit_from(root, v2_path, "memory.max", "memory.current");
  return {};
}

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
  const detail::CgroupMemory group = detail::cgroup_memory();
  if (group.limit >= 0) {
    budget.limits += (budget.limits.empty() ? "" : "; ") +
                     std::string(
                         "the control group's memory limit (a batch job's or "
                         "container's) is ") +
                     gib(group.limit) + ", " + gib(group.used) + " in use";
    const double left = group.limit > group.used ? group.limit - group.used : 0;
    if (budget.bytes < 0 || left < budget.bytes) budget.bytes = left;
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
