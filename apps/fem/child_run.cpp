#include "child_run.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "case_cli.hpp"
#include "commands.hpp"

namespace fem::cli {

namespace fs = std::filesystem;

void add_study_case_options(CLI::App& cmd, StudyCase& s) {
  cmd.add_option("case", s.case_file, "case file (YAML or an Abaqus/CalculiX deck)")->required();
  cmd.add_option("--fix", s.fixed, "an override the same in every run (as fem run's --set)")
      ->type_name("KEY.PATH=VALUE");
  cmd.add_option("--backend", s.backend, "compute backend of every run");
  add_device_option(cmd, s.device);
  cmd.add_option("--precision", s.precision, "single or double")
      ->check(CLI::IsMember({"single", "double"}));
  cmd.add_option("--end-time", s.end_time, "simulated time in s of every run")
      ->check(CLI::PositiveNumber);
}

std::string check_study_case(const StudyCase& s, const std::vector<std::string>& overrides) {
  CaseOptions options;
  options.case_file = s.case_file;
  options.backend = s.backend;
  options.device = s.device;
  options.precision = s.precision;
  options.end_time = s.end_time;
  options.sets = s.fixed;
  options.sets.insert(options.sets.end(), overrides.begin(), overrides.end());
  return output_directory(prepare_case(options).model.spec);
}

std::vector<std::string> child_arguments(const StudyCase& s, const ChildRun& run) {
  std::vector<std::string> args = {"fem", "run", s.case_file, "--quiet", "--output", run.directory};
  if (!s.backend.empty()) args.insert(args.end(), {"--backend", s.backend});
  if (s.device >= 0) args.insert(args.end(), {"--device", std::to_string(s.device)});
  if (!s.precision.empty()) args.insert(args.end(), {"--precision", s.precision});
  if (s.end_time > 0) args.insert(args.end(), {"--end-time", fmt::format("{}", s.end_time)});
  for (const std::string& o : s.fixed) args.insert(args.end(), {"--set", o});
  for (const std::string& o : run.overrides) args.insert(args.end(), {"--set", o});
  return args;
}

std::string shell_line(const std::vector<std::string>& args) {
  std::string line;
  for (const std::string& a : args) {
    if (!line.empty()) line += ' ';
    if (!a.empty() && a.find_first_of(" '\"[]{}(),*?$\\;&|<>") == std::string::npos) {
      line += a;
      continue;
    }
    line += '\'';
    for (const char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

void start_child(const StudyCase& s, ChildRun& run, int threads) {
  fs::create_directories(run.directory);
  const std::vector<std::string> args = child_arguments(s, run);
  const std::string log = (fs::path(run.directory) / "log.txt").string();
  std::fflush(stdout);  // what the study printed must not be printed again by the child
  std::fflush(stderr);
  run.start = std::chrono::steady_clock::now();
  run.pid = ::fork();
  if (run.pid < 0) {
    run.exit_code = kInternal;
    run.status = "not started";
    run.error = std::string("fork failed: ") + std::strerror(errno);
    return;
  }
  if (run.pid != 0) return;
  // The child.
  if (std::freopen(log.c_str(), "w", stdout) == nullptr ||
      ::dup2(::fileno(stdout), STDERR_FILENO) < 0)
    ::_exit(127);
  if (threads > 0 && std::getenv("OMP_NUM_THREADS") == nullptr)
    ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  std::fprintf(stderr, "error: cannot start /proc/self/exe: %s\n", std::strerror(errno));
  ::_exit(127);
}

void finish_child(ChildRun& run, int wait_status) {
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
  run.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  run.status = exit_status_text(run.exit_code);
  // fem prints one "error: " line per failure; the first says what stopped the run.
  std::ifstream in(fs::path(run.directory) / "log.txt");
  run.error.clear();
  for (std::string line; std::getline(in, line);)
    if (const std::size_t at = line.find("error: "); at != std::string::npos) {
      run.error = line.substr(at + 7);
      break;
    }
}

int run_child(const StudyCase& s, ChildRun& run) {
  start_child(s, run, 0);
  if (run.pid < 0) return run.exit_code;
  int status = 0;
  while (::waitpid(run.pid, &status, 0) < 0)
    if (errno != EINTR) {
      run.exit_code = kInternal;
      run.status = "lost";
      return run.exit_code;
    }
  finish_child(run, status);
  return run.exit_code;
}

std::string exit_status_text(int code) {
  switch (code) {
    case kOk:
      return "completed";
    case kInternal:
      return "internal error";
    case kBadInput:
      return "bad input";
    case kSolveFailed:
      return "solve failed";
    case kDisagreement:
      return "disagreement";
    case kInterrupted:
      return "interrupted";
    default:
      return code > 128 ? "killed by signal " + std::to_string(code - 128)
                        : "exit code " + std::to_string(code);
  }
}

int CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

std::string CsvTable::column_list() const {
  std::string list;
  for (const std::string& c : columns) list += (list.empty() ? "" : ", ") + c;
  return list;
}

HistoryColumn split_history_column(const std::string& spec) {
  const std::size_t dot = spec.rfind('.');
  return {spec.substr(0, dot), spec.substr(dot + 1)};
}

CsvTable read_history_table(const std::string& directory, const std::string& table) {
  return read_csv_table((fs::path(directory) / (table + ".csv")).string());
}

CsvTable read_csv_table(const std::string& path) {
  CsvTable t;
  std::ifstream in(path);
  std::string line, cell;
  if (!std::getline(in, line)) return t;
  for (std::stringstream s(line); std::getline(s, cell, ',');) t.columns.push_back(cell);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> row;
    for (std::stringstream s(line); std::getline(s, cell, ',');) row.push_back(cell);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace fem::cli
