#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"

namespace fem::cli {

std::vector<CaseOverride> CaseOptions::overrides() const {
  // The dedicated flags are sugar for --set; they go first so an explicit --set wins.
  std::vector<CaseOverride> o;
  if (!backend.empty()) o.push_back({"backend", backend});
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

PreparedCase prepare_case(const CaseOptions& options) {
  CaseSpec spec = load_case(options.case_file, options.overrides());
  auto plugins = std::make_unique<PluginRegistry>(spec.plugin_paths);
  Model model = build_model(spec, *plugins);
  return PreparedCase{std::move(plugins), std::move(model)};
}

int report_error(const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  if (dynamic_cast<const SolveError*>(&e)) return kSolveFailed;
  if (dynamic_cast<const Error*>(&e)) return kBadInput;
  return kInternal;
}

}  // namespace fem::cli
