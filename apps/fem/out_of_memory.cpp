#include "out_of_memory.hpp"

#include "fem/memory.hpp"

namespace fem::cli {

namespace {

std::string& activity() {
  static std::string what = "starting";
  return what;
}

}  // namespace

void set_activity(std::string what) {
  activity() = std::move(what);
}

std::string out_of_memory_message() {
  // Nothing here may need much memory: the message is built from a few short strings.
  const std::string limits = memory_budget().limits;
  return "error: out of memory while " + activity() +
         "\n  hint: the model is too large for the memory fem may use here: reduce it "
         "(mesh.divisions, a coarser mesh file) or raise the limit" +
         (limits.empty() ? std::string() : "; " + limits);
}

}  // namespace fem::cli
