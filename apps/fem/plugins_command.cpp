#include <fmt/format.h>

#include <map>

#include <fem/parallel/communicator.hpp>
#include <fem/solver/linear_solver.hpp>

#include "commands.hpp"

namespace fem::cli {

int plugins_command(const std::vector<std::string>& extra_dirs) {
  try {
    const std::string parallel = parallel_line();   // collective under mpirun
    if (parallel::world().rank() != 0) return kOk;  // rank 0 speaks for all
    const PluginRegistry registry(extra_dirs);
    // Each plugin's own version, then the plugin ABI it was built against (a file built against
    // another ABI is not loaded: it is listed under problems with how to rebuild it).
    const auto abi = [](const PluginInfo& p) {
      return fmt::format("ABI {}", p.descriptor->abi_version);
    };
    fmt::print("fem {}, plugin ABI {}\n", FEM_CLI_VERSION, FEM_PLUGIN_ABI_VERSION);
    fmt::print("linear solvers: {}\n", linear_solver_libraries().describe());
    fmt::print("{}\n", parallel);
    fmt::print("python module: {}\n", FEM_PYTHON_MODULE);
    fmt::print("search path:\n");
    for (const std::string& d : registry.search_path()) fmt::print("  {}\n", d);

    fmt::print("backends:\n");
    for (const PluginInfo& p : registry.plugins()) {
      if (p.kind != "backend") continue;
      std::string where;
      std::vector<ComputeDevice> devices;
      try {
        const std::unique_ptr<Backend> backend = registry.create_backend(p.name);
        where = backend->execution_space();
        devices = backend->devices();
      } catch (const std::exception& e) {
        const std::string what = e.what();
        where = "unavailable: " + what.substr(0, what.find('\n'));
      }
      fmt::print("  {:<24} {:<8} {}  {}  [{}]\n", p.name, p.version, abi(p), p.file, where);
      // Every GPU it can run on: `device: N` or `--device N` picks one.
      for (const ComputeDevice& d : devices)
        fmt::print("    device {}: {} ({}){}\n", d.index, d.name, d.details,
                   d.in_use ? ", the default here" : "");
    }
    fmt::print("elements:\n");
    for (const PluginInfo& p : registry.plugins()) {
      if (p.kind != "element") continue;
      const auto* e = static_cast<const ElementData*>(p.descriptor->api);
      fmt::print("  {:<24} {:<8} {}  {}  ({}; {} nodes, {} points, {})\n", p.name, p.version,
                 abi(p), p.file, e->description, e->num_nodes, e->num_quadrature_points,
                 to_string(e->family));
    }
    // One line per material, listing the backends it was built for.
    std::map<std::string, std::vector<const PluginInfo*>> materials;
    for (const PluginInfo& p : registry.plugins())
      if (p.kind == "material") materials[p.name].push_back(&p);
    fmt::print("materials:\n");
    for (const auto& [name, builds] : materials) {
      const auto* m = static_cast<const MaterialApi*>(builds.front()->descriptor->api);
      std::string backends;
      for (const PluginInfo* b : builds) backends += (backends.empty() ? "" : ", ") + b->backend;
      fmt::print("  {:<24} {:<8} backends: {}  ({})\n", name, builds.front()->version, backends,
                 m->host.description);
      for (const PluginInfo* b : builds)
        fmt::print("    {:<8} {:<8} {}  {}\n", b->backend, b->version, abi(*b), b->file);
    }
    if (!registry.problems().empty()) {
      fmt::print("problems:\n");
      for (const PluginProblem& p : registry.problems()) fmt::print("  {}\n", p.reason);
    }
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
