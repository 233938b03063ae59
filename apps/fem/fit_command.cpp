// `fem fit` (fit.hpp): each evaluation of the residuals is a `fem run` process of the case with
// the trial parameters (child_run.hpp); Levenberg-Marquardt (least_squares.hpp) moves them.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <fem/error.hpp>

#include "commands.hpp"
#include "fit.hpp"
#include "interrupt.hpp"
#include "least_squares.hpp"

namespace fem::cli {

namespace fs = std::filesystem;

void add_fit_options(CLI::App& cmd, FitOptions& o) {
  add_study_case_options(cmd, o.study);
  cmd.add_option("--param", o.parameters,
                 "a parameter to fit and its start value (> 0): "
                 "--param materials.soft.shear_modulus=1500 (repeat for more)")
      ->type_name("KEY.PATH=START")
      ->required();
  cmd.add_option("--data", o.data, "the measured curve: a CSV file of x and y")->required();
  cmd.add_option("--x", o.x, "the run's history column the data's x is, e.g. top.displacement_z")
      ->type_name("TABLE.COLUMN")
      ->required();
  cmd.add_option("--y", o.y,
                 "the run's history column to match to the data's y, e.g. "
                 "top.reaction_force_z")
      ->type_name("TABLE.COLUMN")
      ->required();
  cmd.add_option("--max-runs", o.max_runs, "the most fem runs the fit may take (default 100)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--output", o.output,
                 "folder of the fit: run_000/, ... and fit.csv, fit.json (default: the case's "
                 "output folder + _fit)");
}

namespace {

struct Parameter {
  std::string key;
  double start = 0.0;
};

Parameter parse_parameter(const std::string& text) {
  const std::size_t eq = text.find('=');
  char* end = nullptr;
  const double start = eq == std::string::npos ? 0.0 : std::strtod(text.c_str() + eq + 1, &end);
  if (eq == std::string::npos || eq == 0 || end == text.c_str() + eq + 1 || *end != '\0' ||
      !(start > 0.0) || !std::isfinite(start))
    throw InputError({"<command line>", 0, 0},
                     "--param '" + text + "' is not of the form key.path=start with start > 0",
                     "for example --param materials.soft.shear_modulus=1500 (the fit works on "
                     "log(value): parameters must be positive)");
  return {text.substr(0, eq), start};
}

/// "table.column" -> the two parts, or InputError naming the option.
HistoryColumn table_column(const std::string& text, const char* option) {
  const std::size_t dot = text.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text.size())
    throw InputError({"<command line>", 0, 0},
                     std::string(option) + " '" + text + "' is not of the form table.column",
                     "for example top.reaction_force_z: column reaction_force_z of top.csv");
  return split_history_column(text);
}

/// The values of a column of a finished run's history, or why there are none.
std::string history_column(const std::string& directory, const std::string& spec,
                           std::vector<double>& values) {
  const auto [table, column] = table_column(spec, "--x/--y");
  const CsvTable t = read_history_table(directory, table);
  if (t.columns.empty()) return "the run wrote no " + table + ".csv";
  const int c = t.column(column);
  if (c < 0)
    return table + ".csv has no column '" + column + "' (its columns: " + t.column_list() + ")";
  values.clear();
  for (const auto& row : t.rows)
    values.push_back(static_cast<std::size_t>(c) < row.size() ? std::strtod(row[c].c_str(), nullptr)
                                                              : std::nan(""));
  return {};
}

struct Evaluation {
  int run = 0;
  std::vector<double> parameters;
  double rms = std::nan("");
  std::string status, error;
};

void write_tables(const FitOptions& o, const std::vector<Parameter>& parameters,
                  const std::vector<Evaluation>& evaluations, const LeastSquaresResult* result,
                  const std::string& directory) {
  std::ofstream csv(fs::path(directory) / "fit.csv");
  csv << "run";
  for (const Parameter& p : parameters) csv << ',' << p.key;
  csv << ",rms,status\n";
  nlohmann::json runs = nlohmann::json::array();
  for (const Evaluation& e : evaluations) {
    csv << e.run;
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      csv << ',' << fmt::format("{}", e.parameters[i]);
      values[parameters[i].key] = e.parameters[i];
    }
    csv << ',' << fmt::format("{}", e.rms) << ',' << e.status << '\n';
    runs.push_back({{"run", e.run},
                    {"parameters", values},
                    {"rms", std::isfinite(e.rms) ? nlohmann::json(e.rms) : nlohmann::json()},
                    {"status", e.status},
                    {"error", e.error}});
  }
  nlohmann::json fitted = nlohmann::json::object();
  if (result != nullptr)
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const double v = result->parameters[i], s = result->log_standard_errors[i];
      nlohmann::json entry = {{"start", parameters[i].start}, {"value", v}};
      if (std::isfinite(s)) {
        entry["standard_error"] = result->standard_errors[i];
        entry["interval_95"] = {v * std::exp(-1.96 * s), v * std::exp(1.96 * s)};
      }
      fitted[parameters[i].key] = entry;
    }
  nlohmann::json fit = {{"case", o.study.case_file}, {"data", o.data}, {"x", o.x}, {"y", o.y},
                        {"parameters", fitted},      {"runs", runs}};
  if (result != nullptr) {
    fit["rms"] = result->rms;
    fit["converged"] = result->converged;
    fit["stop_reason"] = result->stop_reason;
    fit["evaluations"] = result->evaluations;
  }
  std::ofstream(fs::path(directory) / "fit.json") << fit.dump(2) << '\n';
}

}  // namespace

int fit_command(const FitOptions& o) {
  try {
    std::vector<Parameter> parameters;
    for (const std::string& text : o.parameters) parameters.push_back(parse_parameter(text));
    (void)table_column(o.x, "--x");
    (void)table_column(o.y, "--y");
    const Curve data = read_curve(o.data);
    if (data.x.size() < parameters.size() + 1)
      throw InputError({o.data, 0, 0},
                       fmt::format("{} data points cannot determine {} parameters", data.x.size(),
                                   parameters.size()),
                       "give more points than parameters");
    // The model with the start values must build (as fem check would) before any run.
    std::vector<std::string> start_values;
    for (const Parameter& p : parameters)
      start_values.push_back(fmt::format("{}={}", p.key, p.start));
    const std::string case_output = check_study_case(o.study, start_values);
    const std::string directory = o.output.empty() ? case_output + "_fit" : o.output;
    fs::create_directories(directory);
    // VTK frames are not needed to fit (a --fix output.vtk=true after it wins).
    StudyCase study = o.study;
    study.fixed.insert(study.fixed.begin(), "output.vtk=false");
    install_interrupt_handlers(false);
    fmt::print("fem fit: {} parameter(s) to {} data points of {}, at most {} runs, into {}\n",
               parameters.size(), data.x.size(), o.data, o.max_runs, directory);
    std::fflush(stdout);

    std::vector<Evaluation> evaluations;
    // A run that fails at the start stops the fit with its exit code; later failures are
    // points the fit steps back from.
    int start_failure = kOk;
    std::string start_error;
    const ResidualFunction residuals = [&](const std::vector<double>& p, std::vector<double>& r) {
      if (interrupt_requested() || start_failure != kOk) return false;
      Evaluation e;
      e.run = static_cast<int>(evaluations.size());
      e.parameters = p;
      ChildRun run;
      for (std::size_t i = 0; i < p.size(); ++i)
        run.overrides.push_back(fmt::format("{}={}", parameters[i].key, p[i]));
      run.directory = (fs::path(directory) / fmt::format("run_{:03}", e.run)).string();
      run_child(study, run);
      e.status = run.status;
      e.error = run.error;
      std::vector<double> x, y, simulated;
      std::string why;
      if (run.exit_code == kOk) why = history_column(run.directory, o.x, x);
      if (run.exit_code == kOk && why.empty()) why = history_column(run.directory, o.y, y);
      if (run.exit_code == kOk && why.empty()) why = interpolate(x, y, data.x, simulated);
      if (run.exit_code == kOk && !why.empty()) {
        e.status = "no curve";
        e.error = why;
      }
      const bool ok = run.exit_code == kOk && why.empty();
      if (ok) {
        double ssr = 0.0;
        for (std::size_t k = 0; k < data.x.size(); ++k) {
          r[k] = simulated[k] - data.y[k];
          ssr += r[k] * r[k];
        }
        e.rms = std::sqrt(ssr / static_cast<double>(data.x.size()));
      } else if (e.run == 0) {
        start_failure = run.exit_code == kOk ? kBadInput : run.exit_code;
        start_error = e.error;
      }
      std::string values;
      for (std::size_t i = 0; i < p.size(); ++i)
        values += (i ? " " : "") + fmt::format("{}={:.6g}", parameters[i].key, p[i]);
      fmt::print("run {}: {} -> {}\n", e.run, values,
                 ok ? fmt::format("rms {:.6g}", e.rms) : e.status + ": " + e.error);
      std::fflush(stdout);
      evaluations.push_back(std::move(e));
      write_tables(o, parameters, evaluations, nullptr, directory);
      return ok;
    };
    std::vector<double> start;
    for (const Parameter& p : parameters) start.push_back(p.start);
    const LeastSquaresResult result =
        fit_positive_parameters(residuals, start, data.x.size(), o.max_runs);
    if (start_failure != kOk)
      throw InputError({(fs::path(directory) / "run_000" / "log.txt").string(), 0, 0},
                       "the run with the start values failed: " + start_error,
                       "fix the case or the start values; fem run with the same --set shows why");
    write_tables(o, parameters, evaluations, &result, directory);
    fmt::print("fem fit: {} after {} runs ({}); rms residual {:.6g}\n",
               result.converged ? "converged" : "stopped", result.evaluations, result.stop_reason,
               result.rms);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const double v = result.parameters[i], s = result.log_standard_errors[i];
      fmt::print("  {} = {:.6g}", parameters[i].key, v);
      if (std::isfinite(s))
        fmt::print(" (standard error {:.3g}; 95 % interval {:.6g} .. {:.6g}{})",
                   result.standard_errors[i], v * std::exp(-1.96 * s), v * std::exp(1.96 * s),
                   result.converged ? "" : ", meaningful only for a converged fit");
      else
        fmt::print(" (not determined by this curve: the parameters are not independent in it)");
      fmt::print(", start {:.6g}\n", parameters[i].start);
    }
    fmt::print("  table: {}\n", (fs::path(directory) / "fit.json").string());
    if (interrupt_requested()) return kInterrupted;
    return result.converged ? kOk : kSolveFailed;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
