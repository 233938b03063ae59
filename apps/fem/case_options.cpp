#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>

#include <fem/parallel/communicator.hpp>

#include "commands.hpp"
#include "interrupt.hpp"
#include "out_of_memory.hpp"

namespace fem::cli {

std::vector<CaseOverride> CaseOptions::overrides() const {
  // The dedicated flags are sugar for --set; they go first so an explicit --set wins.
  std::vector<CaseOverride> o;
  if (!backend.empty()) o.push_back({"backend", backend});
  if (device >= 0) o.push_back({"device", std::to_string(device)});
  if (!precision.empty()) o.push_back({"precision", precision});
  if (!output.empty()) o.push_back({"output.directory", output});
  if (end_time > 0) o.push_back({"solver.end_time", fmt::format("{:.17g}", end_time)});
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError({"<command line>", 0, 0},
                       "--set '" + s + "' is not of the form key.path=value",
                       "for example --set solver.end_time=0.5");
    o.push_back({s.substr(0, eq), s.substr(eq + 1)});
  }
  return o;
}

std::string output_directory(const CaseSpec& spec) {
  return spec.output.directory.empty() ? spec.name + "_results" : spec.output.directory;
}

std::string CaseOptions::case_text() const {
  std::ifstream in(case_file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!text.empty() && text.back() != '\n') text += '\n';
  for (const CaseOverride& o : overrides()) text += "# --set " + o.path + "=" + o.value + "\n";
  return text;
}

PreparedCase prepare_case(const CaseOptions& options) {
  set_activity("reading the case '" + options.case_file + "' and its mesh file");
  CaseSpec spec = load_case(options.case_file, options.overrides());
  set_activity("loading the plugins");
  auto plugins = std::make_unique<PluginRegistry>(spec.plugin_paths);
  set_activity("building the model (mesh, node sets, node ordering, material parameters)");
  Model model = build_model(spec, *plugins);
  set_activity(fmt::format("setting up the solver for {} nodes and {} elements",
                           model.mesh.num_nodes(), model.num_elements()));
  return PreparedCase{std::move(plugins), std::move(model)};
}

std::string parallel_line() {
  if (!parallel::mpi_built())
    return "parallel: one process (built without MPI and METIS: install libopenmpi-dev and "
           "libmetis-dev and build again to run on several)";
  parallel::Communicator& world = parallel::world();
  if (world.size() == 1)
    return "parallel: MPI build, one process (mpirun -np N fem run CASE splits the mesh over N "
           "ranks)";
  return "parallel: " + world.description();
}

void leave_together() {
  parallel::Communicator& world = parallel::world();
  if (world.size() == 1) return;
  default_interrupts();
  std::fflush(stdout);
  std::fflush(stderr);
  (void)world.all_reduce(std::int64_t{0}, parallel::Reduction::Max);
}

int report_error(const std::exception& e) {
  // Out of memory is a model too large for this machine, not a bug in fem: bad input.
  const bool out_of_memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
  const std::string message = out_of_memory ? out_of_memory_message() : std::string(e.what());
  int code = kInternal;
  if (out_of_memory)
    code = kBadInput;
  else if (dynamic_cast<const SolveError*>(&e))
    code = kSolveFailed;
  else if (dynamic_cast<const InternalError*>(&e))
    code = kInternal;
  else if (dynamic_cast<const Error*>(&e))
    code = kBadInput;
  parallel::Communicator& world = parallel::world();
  if (world.size() == 1) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return code;
  }
  // Every rank meets bad input and a failed solve at the same point (they read the same case
  // and agree on every step): rank 0 says it once and all end with its code. Anything else met
  // one rank alone while the others wait in the next exchange: it says so and ends the run.
  if (dynamic_cast<const InputError*>(&e) || dynamic_cast<const PluginError*>(&e) ||
      dynamic_cast<const SolveError*>(&e) || dynamic_cast<const CheckpointError*>(&e)) {
    if (world.rank() == 0) std::fprintf(stderr, "%s\n", message.c_str());
    leave_together();
    return code;
  }
  std::fprintf(stderr, "rank %d of %d: %s\n", world.rank(), world.size(), message.c_str());
  std::fflush(stderr);
  world.abort(code);
  return code;  // not reached
}

}  // namespace fem::cli
