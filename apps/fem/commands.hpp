// The subcommands of the `fem` program. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include <exception>
#include <memory>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>

namespace fem::cli {

/// Exit codes: 0 success, 1 internal error, 2 bad input (case, mesh, plugin), 3 failed solve,
/// 4 results disagree (`fem bench`: backends beyond tolerance, or the peer code).
enum ExitCode : int { kOk = 0, kInternal = 1, kBadInput = 2, kSolveFailed = 3, kDisagreement = 4 };

/// Options shared by `run` and `check`: the case and its command-line overrides.
struct CaseOptions {
  std::string case_file;
  std::string backend;
  std::string precision;
  std::string output;
  double end_time = 0.0;
  std::vector<std::string> sets;  ///< key.path=value
  [[nodiscard]] std::vector<CaseOverride> overrides() const;
};

/// A case loaded, overridden, validated and resolved against its plugins.
struct PreparedCase {
  std::unique_ptr<PluginRegistry> plugins;
  Model model;
};
PreparedCase prepare_case(const CaseOptions& options);

/// Prints an error the way every subcommand does and returns its exit code.
int report_error(const std::exception& e);

/// time_verbs: implicit solvers synchronise after every backend verb for exact per-verb times.
int run_command(const CaseOptions& options, bool quiet, bool time_verbs);
int check_command(const CaseOptions& options);
int plugins_command(const std::vector<std::string>& extra_dirs);

}  // namespace fem::cli
