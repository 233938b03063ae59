// One `fem run` of a case in a process of its own, as `fem sweep` and `fem fit` start them: a
// run that fails, even one that crashes, cannot take the study with it, and its files and what it
// printed (log.txt) stay in its own folder.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace fem::cli {

/// What every run of a study shares: the case and the options passed on to `fem run`.
struct StudyCase {
  std::string case_file;
  std::vector<std::string> fixed;  ///< --fix key.path=value: the same override in every run
  std::string backend, precision;
  int device = -1;  ///< --device N (-1: not given)
  double end_time = 0.0;
};

/// Adds the case and --fix, --backend, --device, --precision, --end-time to a study command.
void add_study_case_options(CLI::App& cmd, StudyCase& study);

/// Builds the model of one run of the study (with `overrides` after the fixed ones) as fem check
/// would, so that a case, key or mesh that fails every run stops the study before any (its
/// InputError propagates); returns the case's output folder.
std::string check_study_case(const StudyCase& study, const std::vector<std::string>& overrides);

struct ChildRun {
  std::vector<std::string> overrides;  ///< key=value, after the study's fixed ones
  std::string directory;               ///< its output folder
  pid_t pid = -1;
  std::chrono::steady_clock::time_point start;
  double wall_s = 0.0;
  int exit_code = -1;              ///< fem's exit code (128 + N: killed by signal N); -1: not run
  std::string status = "not run";  ///< completed, bad input, solve failed, ...
  std::string error;               ///< the first error line it printed
};

/// The `fem run` command line of a run ("fem" first).
std::vector<std::string> child_arguments(const StudyCase& study, const ChildRun& run);

/// `args` as a line a POSIX shell reads back.
std::string shell_line(const std::vector<std::string>& args);

/// Starts the run (this program, /proc/self/exe) with its output in <directory>/log.txt.
/// threads > 0: OMP_NUM_THREADS for it, unless the environment sets it. Sets run.pid (-1 and
/// run.error when the process could not be started).
void start_child(const StudyCase& study, ChildRun& run, int threads);

/// Records how a started run ended (waitpid's status): time, exit code, status and error.
void finish_child(ChildRun& run, int wait_status);

/// Starts the run and waits for it; returns its exit code.
int run_child(const StudyCase& study, ChildRun& run);

/// fem's words for an exit code (commands.hpp): "completed", "bad input", ...
std::string exit_status_text(int code);

/// A CSV table fem wrote (a history, energy.csv): its header and the rows as text.
struct CsvTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  /// The index of a column, or -1.
  [[nodiscard]] int column(const std::string& name) const;
  /// The columns, comma-separated, for messages.
  [[nodiscard]] std::string column_list() const;
};

/// Reads a CSV file fem wrote (no quoted cells); empty when the file is missing.
CsvTable read_csv_table(const std::string& path);

/// A history column as the study commands name it, `table.column` (top.reaction_force_z: column
/// reaction_force_z of top.csv), split at its last dot.
struct HistoryColumn {
  std::string table, column;
};
HistoryColumn split_history_column(const std::string& spec);

/// <directory>/<table>.csv of a run, as read_csv_table() reads it.
CsvTable read_history_table(const std::string& directory, const std::string& table);

}  // namespace fem::cli
