// `fem sweep` (sweep.hpp). Each run is a child `fem run` process: a run that fails, even one that
// crashes, is recorded and the sweep goes on; runs on CPU backends can go side by side (--jobs).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include <fem/case.hpp>

#include "commands.hpp"
#include "interrupt.hpp"
#include "sweep.hpp"
#include "sweep_plan.hpp"

namespace fem::cli {

namespace fs = std::filesystem;

void add_sweep_options(CLI::App& cmd, SweepOptions& o) {
  add_study_case_options(cmd, o.study);
  cmd.add_option("--set", o.parameters,
                 "a key and its values, one run per value (the runs are the product of every "
                 "--set): --set materials.soft.shear_modulus=1000,2000,4000; with --samples also "
                 "uniform(a,b), normal(mean,sd) or lognormal(mu,sigma)")
      ->type_name("KEY.PATH=V1,V2,...")
      ->required();
  cmd.add_option("--samples", o.samples,
                 "draw this many runs at random instead of the product (lists: one value "
                 "uniformly)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--seed", o.seed, "seed of the random draws (default 1)");
  cmd.add_option("--jobs,-j", o.jobs,
                 "runs at once (default 1; CPU backends share the cores: OMP_NUM_THREADS is "
                 "divided among them unless set)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--history", o.histories,
                 "a column of a history CSV whose last value goes into the table, e.g. "
                 "top.reaction_force_z (top.csv) or energy.strain")
      ->type_name("TABLE.COLUMN");
  cmd.add_option("--output", o.output,
                 "folder of the sweep: run_000/, run_001/, ... and sweep.csv, sweep.json "
                 "(default: the case's output folder + _sweep)");
  cmd.add_flag("--dry-run", o.dry_run, "print the runs' command lines and stop");
}

namespace {

/// A run of the sweep: a child run and what the table takes from it.
struct Run : ChildRun {
  int index = 0;
  nlohmann::json summary;
  std::vector<std::string> histories;
};

/// The last value of `column` in <directory>/<table>.csv, or "" when the table or the column is
/// missing (and a warning, once per history, when the run completed: a misspelt name).
std::string last_value(const std::string& directory, const std::string& history, bool completed,
                       std::map<std::string, bool>& warned) {
  const auto [table, column] = split_history_column(history);
  const CsvTable t = read_history_table(directory, table);
  const int c = t.column(column);
  if (c >= 0 && !t.rows.empty())
    return static_cast<std::size_t>(c) < t.rows.back().size() ? t.rows.back()[c] : std::string();
  if (completed && !warned[history]) {
    if (t.columns.empty())
      spdlog::warn("--history {}: {}/{}.csv was not written", history, directory, table);
    else if (c < 0)
      spdlog::warn("--history {}: {}.csv has no column '{}' (its columns: {})", history, table,
                   column, t.column_list());
  }
  warned[history] = true;
  return {};
}

/// Numbers, strings and booleans of a summary, flattened to dotted keys.
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_number_float()) {
    out.emplace_back(prefix, fmt::format("{}", j.get<double>()));
  } else if (j.is_number() || j.is_boolean()) {
    out.emplace_back(prefix, j.dump());
  } else if (j.is_string()) {
    out.emplace_back(prefix, j.get<std::string>());
  }
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// Rewrites sweep.csv and sweep.json with every run so far (each finished run is in them at
/// once: a sweep stopped half-way keeps its table).
void write_tables(const SweepOptions& o, const std::vector<SweepParameter>& parameters,
                  const std::vector<Run>& runs, const std::string& directory) {
  // Summary columns: every key any finished run reported, in the order first seen; the ones the
  // table has already (status, error) and the case's name are left out.
  std::vector<std::string> summary_keys;
  std::vector<std::vector<std::pair<std::string, std::string>>> flat(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    flatten(runs[r].summary, "", flat[r]);
    for (const auto& [key, value] : flat[r])
      if (key != "status" && key != "error" && key != "case" && key != "name" &&
          std::find(summary_keys.begin(), summary_keys.end(), key) == summary_keys.end())
        summary_keys.push_back(key);
  }
  std::ofstream csv(fs::path(directory) / "sweep.csv");
  csv << "run";
  for (const SweepParameter& p : parameters) csv << ',' << csv_cell(p.key);
  csv << ",status,exit_code,wall_s,error";
  for (const std::string& h : o.histories) csv << ',' << csv_cell(h);
  for (const std::string& k : summary_keys) csv << ',' << csv_cell("summary." + k);
  csv << '\n';
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    csv << run.index;
    nlohmann::json overrides = nlohmann::json::object();
    for (const std::string& s : run.overrides) {
      const std::size_t eq = s.find('=');
      csv << ',' << csv_cell(s.substr(eq + 1));
      overrides[s.substr(0, eq)] = s.substr(eq + 1);
    }
    csv << ',' << csv_cell(run.status) << ',' << run.exit_code << ','
        << fmt::format("{:.3f}", run.wall_s) << ',' << csv_cell(run.error);
    nlohmann::json histories = nlohmann::json::object();
    for (std::size_t h = 0; h < o.histories.size(); ++h) {
      const std::string v = h < run.histories.size() ? run.histories[h] : std::string();
      csv << ',' << csv_cell(v);
      if (!v.empty()) histories[o.histories[h]] = std::strtod(v.c_str(), nullptr);
    }
    for (const std::string& k : summary_keys) {
      std::string v;
      for (const auto& [key, value] : flat[r])
        if (key == k) v = value;
      csv << ',' << csv_cell(v);
    }
    csv << '\n';
    rows.push_back({{"run", run.index},
                    {"directory", run.directory},
                    {"overrides", overrides},
                    {"status", run.status},
                    {"exit_code", run.exit_code},
                    {"wall_s", run.wall_s},
                    {"error", run.error},
                    {"histories", histories},
                    {"summary", run.summary}});
  }
  nlohmann::json keys = nlohmann::json::array();
  for (const SweepParameter& p : parameters) keys.push_back(p.key);
  const nlohmann::json sweep = {
      {"case", o.study.case_file}, {"parameters", keys}, {"fixed", o.study.fixed},
      {"samples", o.samples},      {"seed", o.seed},     {"runs", rows}};
  std::ofstream(fs::path(directory) / "sweep.json") << sweep.dump(2) << '\n';
}

}  // namespace

int sweep_command(const SweepOptions& o) {
  try {
    std::vector<SweepParameter> parameters;
    for (const std::string& text : o.parameters) parameters.push_back(parse_sweep_parameter(text));
    const std::vector<std::vector<std::string>> plan = sweep_runs(parameters, o.samples, o.seed);
    // The model of the first run must build (case, mesh, plugins and material parameters): a
    // misspelt key or a bad case fails every run, so it stops the sweep before any (exit 2,
    // fem check's message).
    const std::string case_output = check_study_case(o.study, plan.front());
    const std::string directory = o.output.empty() ? case_output + "_sweep" : o.output;

    std::vector<Run> runs(plan.size());
    const int width = static_cast<int>(std::to_string(plan.size() - 1).size());
    for (std::size_t r = 0; r < plan.size(); ++r) {
      runs[r].index = static_cast<int>(r);
      runs[r].overrides = plan[r];
      runs[r].directory =
          (fs::path(directory) / fmt::format("run_{:0{}}", r, std::max(width, 3))).string();
    }
    if (o.dry_run) {
      for (const Run& run : runs) fmt::print("{}\n", shell_line(child_arguments(o.study, run)));
      return kOk;
    }
    fs::create_directories(directory);
    const int jobs = std::min<int>(o.jobs, static_cast<int>(runs.size()));
    const int threads =
        jobs > 1 ? std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / jobs) : 0;
    fmt::print("fem sweep: {} runs of {}{} into {}\n", runs.size(), o.study.case_file,
               jobs > 1 ? fmt::format(", {} at once", jobs) : std::string(), directory);
    std::fflush(stdout);
    install_interrupt_handlers(false);

    std::map<std::string, bool> warned;
    std::size_t next = 0;
    int running = 0, first_failure = kOk;
    while (next < runs.size() || running > 0) {
      while (running < jobs && next < runs.size() && !interrupt_requested()) {
        Run& run = runs[next++];
        start_child(o.study, run, threads);
        if (run.pid >= 0) ++running;
      }
      if (running == 0) break;  // interrupted with nothing left running
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, 0);
      if (pid < 0) {
        if (errno == EINTR) continue;
        break;
      }
      --running;
      for (Run& run : runs) {
        if (run.pid != pid) continue;
        finish_child(run, status);
        std::ifstream summary(fs::path(run.directory) / "summary.json");
        if (summary) run.summary = nlohmann::json::parse(summary, nullptr, false);
        if (run.summary.is_discarded()) run.summary = nlohmann::json();
        run.histories.clear();
        for (const std::string& h : o.histories)
          run.histories.push_back(last_value(run.directory, h, run.exit_code == kOk, warned));
        if (run.exit_code != kOk && first_failure == kOk) first_failure = run.exit_code;
        std::string what;
        for (const std::string& s : run.overrides) what += (what.empty() ? "" : " ") + s;
        fmt::print("run {} ({}): {}{} in {:.2f} s\n", run.index, what, run.status,
                   run.error.empty() ? std::string() : ": " + run.error, run.wall_s);
        std::fflush(stdout);
      }
      write_tables(o, parameters, runs, directory);
    }
    write_tables(o, parameters, runs, directory);
    int failed = 0;
    for (const Run& run : runs) failed += run.exit_code != kOk;
    fmt::print("fem sweep: {} of {} runs completed; table: {}\n", runs.size() - failed, runs.size(),
               (fs::path(directory) / "sweep.csv").string());
    if (interrupt_requested()) return kInterrupted;
    return first_failure <= kInterrupted ? first_failure : kInternal;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
