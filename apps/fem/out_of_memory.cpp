#include "out_of_memory.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace fem::cli {

namespace {

std::string& activity() {
  static std::string what = "starting";
  return what;
}

std::string gib(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

/// MemAvailable of /proc/meminfo in bytes, or -1 where there is none (not Linux).
double available_memory() {
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

}  // namespace

void set_activity(std::string what) {
  activity() = std::move(what);
}

std::string out_of_memory_message() {
  // Nothing here may need much memory: the message is built from a few short strings.
  std::string limits;
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY)
    limits = "the address-space limit (ulimit -v) is " +
             gib(static_cast<double>(address_space.rlim_cur)) + ", ";
  const double available = available_memory();
  if (available >= 0) limits += "the system had " + gib(available) + " available";
  return "error: out of memory while " + activity() +
         "\n  hint: the model is too large for the memory fem may use here: reduce it "
         "(mesh.divisions, a coarser mesh file) or raise the limit" +
         (limits.empty() ? std::string() : "; " + limits);
}

}  // namespace fem::cli
