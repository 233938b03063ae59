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
/// 4 results disagree (`fem bench`: backends beyond tolerance, or the peer code), 5 interrupted
/// (`fem run` stopped by SIGINT or SIGTERM after writing a checkpoint and its files).
enum ExitCode : int {
  kOk = 0,
  kInternal = 1,
  kBadInput = 2,
  kSolveFailed = 3,
  kDisagreement = 4,
  kInterrupted = 5
};

/// Options shared by `run` and `check`: the case and its command-line overrides.
struct CaseOptions {
  std::string case_file;
  std::string backend;
  int device = -1;  ///< --device N (-1: not given)
  std::string precision;
  std::string output;
  double end_time = 0.0;
  std::vector<std::string> sets;  ///< key.path=value
  [[nodiscard]] std::vector<CaseOverride> overrides() const;
  /// The case file's text followed by the overrides as comments: what checkpoints record.
  [[nodiscard]] std::string case_text() const;
};

/// A case loaded, overridden, validated and resolved against its plugins.
struct PreparedCase {
  std::unique_ptr<PluginRegistry> plugins;
  Model model;
};
PreparedCase prepare_case(const CaseOptions& options);

/// Where a run writes its files: output.directory, or <name>_results.
std::string output_directory(const CaseSpec& spec);

/// "parallel: ..." for `fem plugins` and `fem check`: whether this is an MPI build and how many
/// ranks run.
std::string parallel_line();

/// Under mpirun, before a command returns a code every rank returns: mpirun ends all ranks once
/// one exits with a non-zero code, so the ranks leave together, after rank 0 has said what it
/// says (its output flushed), and a late SIGTERM ends a rank silently. Nothing on one process.
void leave_together();

/// Prints an error the way every subcommand does and returns its exit code.
int report_error(const std::exception& e);

/// time_verbs: implicit solvers synchronise after every backend verb for exact per-verb times.
/// restart_file: a checkpoint to continue from, "" for none.
int run_command(const CaseOptions& options, bool quiet, bool time_verbs,
                const std::string& restart_file);
int check_command(const CaseOptions& options);
int plugins_command(const std::vector<std::string>& extra_dirs);

}  // namespace fem::cli
