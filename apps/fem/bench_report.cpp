// `fem bench` output: the terminal table, bench.json, bench.csv and the PNG plots.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "bench.hpp"

#ifndef FEM_PLOT_SCRIPT
#define FEM_PLOT_SCRIPT ""
#endif

namespace fem::cli {
namespace {

using nlohmann::json;

/// NaN (not measured, not applicable) is null in JSON and empty in CSV.
json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}
std::string csv_number(double v) {
  return std::isfinite(v) ? fmt::format("{:.6g}", v) : "";
}
std::string cell(double v, const char* spec) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "-";
}

std::string agreement(const BenchRow& r) {
  if (r.status != "ok") return r.status;
  if (r.is_reference) return "reference";
  if (!r.compared) return "no reference";
  return r.agrees ? "ok" : "DISAGREES";
}

json row_json(const BenchRow& r) {
  json j{{"label", r.label},
         {"backend", r.backend},
         {"precision", r.precision},
         {"size", r.size},
         {"status", r.status},
         {"reason", r.reason},
         {"execution_space", r.execution_space},
         {"elements", r.elements},
         {"nodes", r.nodes},
         {"setup_s", number(r.setup_s)},
         {"speedup", number(r.speedup)},
         {"host_peak_bytes", number(r.host_peak_bytes)},
         {"backend_memory_bytes", number(r.backend_memory_bytes)},
         {"reference", r.is_reference},
         {"max_deviation", number(r.deviation)},
         {"tolerance", number(r.tolerance)},
         {"agreement", agreement(r)}};
  if (r.implicit) {
    const ImplicitBench& b = *r.implicit;
    j.update(json{{"solver", b.solver},
                  {"linear_solver", b.linear_solver},
                  {"preconditioner", b.preconditioner},
                  {"free_dofs", b.free_dofs},
                  {"increments", b.increments},
                  {"cutbacks", b.cutbacks},
                  {"newton_iterations", b.newton_iterations},
                  {"linear_iterations", b.linear_iterations},
                  {"solve_s", b.solve_s},
                  {"median_solve_s", number(b.median_solve_s)},
                  {"min_solve_s", number(b.min_solve_s)},
                  {"max_solve_s", number(b.max_solve_s)},
                  {"s_per_newton_iteration", number(b.s_per_newton)},
                  {"cg_iterations_per_s", number(b.cg_per_s)},
                  {"dof_cg_iterations_per_s", number(b.dof_cg_per_s)},
                  {"tangent_apply_s", number(b.tangent_apply_s)},
                  {"preconditioner_setup_s", number(b.preconditioner_setup_s)},
                  {"final_residual", number(b.final_residual)}});
    return j;
  }
  j.update(json{{"time_step_s", number(r.time_step)},
                {"warmup_steps", r.warmup_steps},
                {"steps_per_repeat", r.steps_per_repeat},
                {"total_steps", r.total_steps},
                {"step_s", r.step_s},
                {"median_step_s", number(r.median_step_s)},
                {"min_step_s", number(r.min_step_s)},
                {"max_step_s", number(r.max_step_s)},
                {"element_steps_per_s", number(r.element_steps_per_s)},
                {"bytes_per_element_step", number(r.bytes_per_element_step)},
                {"effective_gb_per_s", number(r.effective_gb_per_s)}});
  return j;
}

json peer_json(const PeerResult& p) {
  json levels = json::array();
  // A failed peer may have read ccx's levels without fem's beside them.
  const std::size_t compared = std::min({p.times.size(), p.fem_u.size(), p.peer_u.size()});
  for (std::size_t i = 0; i < compared; ++i)
    levels.push_back({{"time_s", p.times[i]}, {"fem", p.fem_u[i]}, {"peer", p.peer_u[i]}});
  json j{{"name", p.name},
         {"status", p.status},
         {"reason", p.reason},
         {"deck", p.deck},
         {"node_set", p.node_set},
         {"size", p.size},
         {"peer_wall_s", number(p.peer_wall_s)},
         {"peer_increments", p.peer_increments},
         {"fem_wall_s", number(p.fem_wall_s)},
         {"fem_backend", p.fem_backend},
         {"fem_precision", p.fem_precision},
         {"fem_steps", p.fem_steps},
         {"max_deviation", number(p.max_deviation)},
         {"free_deviation", number(p.free_deviation)},
         {"prescribed_deviation", number(p.prescribed_deviation)},
         {"prescribed_components", p.prescribed},
         {"tolerance", number(p.tolerance)},
         {"agrees", p.agrees},
         {"levels", levels}};
  if (p.fem_solver == "static" || p.fem_solver == "implicit_dynamic")
    j.update(json{{"fem_solver", p.fem_solver},
                  {"fem_increments", p.fem_steps},
                  {"fem_newton_iterations", p.fem_newton_iterations},
                  {"fem_linear_iterations", p.fem_linear_iterations}});
  return j;
}

double mib(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

}  // namespace

std::vector<std::string> write_bench_files(const BenchReport& report, const std::string& dir) {
  const BenchOptions& o = report.options;
  json j{{"case", o.case_file},
         {"name", report.case_name},
         {"command", o.command_line},
         {"date_utc", report.date_utc},
         {"machine", report.machine},
         {"settings",
          {{"repeats", o.repeats},
           {"warmup_steps", o.warmup},
           {"reference", o.reference},
           {"tolerance_single", o.tolerance_single},
           {"tolerance_double", o.tolerance_double},
           {"sizes", o.sizes},
           {"overrides", o.sets}}},
         {"agree", report.all_agree()}};
  if (report.implicit()) j["solver"] = report.solver;
  j["runs"] = json::array();
  for (const BenchRow& r : report.rows) j["runs"].push_back(row_json(r));
  j["peers"] = json::array();
  for (const PeerResult& p : report.peers) j["peers"].push_back(peer_json(p));
  const std::string json_path = (std::filesystem::path(dir) / "bench.json").string();
  std::ofstream(json_path) << j.dump(2) << "\n";

  const std::string csv_path = (std::filesystem::path(dir) / "bench.csv").string();
  std::ofstream csv(csv_path);
  csv << (report.implicit()
              ? "size,backend,label,precision,status,elements,nodes,free_dofs,setup_s,"
                "median_solve_s,min_solve_s,max_solve_s,increments,newton_iterations,"
                "linear_iterations,s_per_newton_iteration,cg_iterations_per_s,"
                "dof_cg_iterations_per_s,preconditioner,speedup,host_peak_bytes,max_deviation,"
                "tolerance,agreement,reason\n"
              : "size,backend,label,precision,status,elements,nodes,setup_s,median_step_s,"
                "min_step_s,max_step_s,element_steps_per_s,bytes_per_element_step,"
                "effective_gb_per_s,speedup,host_peak_bytes,backend_memory_bytes,max_deviation,"
                "tolerance,agreement,reason\n");
  for (const BenchRow& r : report.rows) {
    std::string reason = r.reason;
    for (char& c : reason)
      if (c == ',' || c == '"') c = ';';
    csv << fmt::format("{},{},{},{},{},{},{},", r.size, r.backend, r.label, r.precision, r.status,
                       r.elements, r.nodes);
    if (r.implicit) {
      const ImplicitBench& b = *r.implicit;
      const bool ran = std::isfinite(b.median_solve_s);  // blank counts where it did not run
      const auto count = [ran](std::int64_t n) { return ran ? std::to_string(n) : ""; };
      csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", count(b.free_dofs),
                         csv_number(r.setup_s), csv_number(b.median_solve_s),
                         csv_number(b.min_solve_s), csv_number(b.max_solve_s), count(b.increments),
                         count(b.newton_iterations), count(b.linear_iterations),
                         csv_number(b.s_per_newton), csv_number(b.cg_per_s),
                         csv_number(b.dof_cg_per_s), b.preconditioner, csv_number(r.speedup),
                         csv_number(r.host_peak_bytes), csv_number(r.deviation));
    } else {
      csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},", csv_number(r.setup_s),
                         csv_number(r.median_step_s), csv_number(r.min_step_s),
                         csv_number(r.max_step_s), csv_number(r.element_steps_per_s),
                         csv_number(r.bytes_per_element_step), csv_number(r.effective_gb_per_s),
                         csv_number(r.speedup), csv_number(r.host_peak_bytes),
                         csv_number(r.backend_memory_bytes), csv_number(r.deviation));
    }
    csv << fmt::format("{},{},{}\n", csv_number(r.tolerance), agreement(r), reason);
  }
  return {json_path, csv_path};
}

namespace {

/// The columns of a row that depend on the solver: explicit steps or the implicit solve.
std::string explicit_header() {
  return fmt::format("{:>26} {:>11} {:>7}", "us/step median [min-max]", "elem-st/s", "GB/s");
}
std::string explicit_cells(const BenchRow& r) {
  const std::string times = std::isfinite(r.median_step_s)
                                ? fmt::format("{:.4g} [{:.4g}-{:.4g}]", 1e6 * r.median_step_s,
                                              1e6 * r.min_step_s, 1e6 * r.max_step_s)
                                : "-";
  return fmt::format("{:>26} {:>11} {:>7}", times, cell(r.element_steps_per_s, "{:.3g}"),
                     cell(r.effective_gb_per_s, "{:.3g}"));
}
std::string implicit_header() {
  return fmt::format("{:>9} {:>24} {:>5} {:>6} {:>7} {:>9} {:>9} {:>9} {:<12}", "free dofs",
                     "solve s median [min-max]", "incr", "Newton", "CG", "ms/Newton", "CG/s",
                     "dof-CG/s", "precond");
}
std::string implicit_cells(const BenchRow& r) {
  const ImplicitBench& b = *r.implicit;
  const bool ran = std::isfinite(b.median_solve_s);
  const std::string times =
      ran ? fmt::format("{:.4g} [{:.4g}-{:.4g}]", b.median_solve_s, b.min_solve_s, b.max_solve_s)
          : "-";
  const auto count = [ran](std::int64_t n) { return ran ? std::to_string(n) : "-"; };
  return fmt::format("{:>9} {:>24} {:>5} {:>6} {:>7} {:>9} {:>9} {:>9} {:<12}", count(b.free_dofs),
                     times, count(b.increments), count(b.newton_iterations),
                     count(b.linear_iterations), cell(1e3 * b.s_per_newton, "{:.3g}"),
                     cell(b.cg_per_s, "{:.3g}"), cell(b.dof_cg_per_s, "{:.3g}"),
                     b.preconditioner.empty() ? "-" : b.preconditioner);
}

}  // namespace

std::string bench_table(const BenchReport& report) {
  std::string out =
      fmt::format("fem bench {}: {}, {}\n", report.case_name, report.machine, report.date_utc);
  const bool sweep = !report.options.sizes.empty();
  // Implicit rows have no backend memory figure (the implicit verbs do not report one).
  const bool implicit = report.implicit();
  out += fmt::format("{}{:<10} {:<6} {:>9} {:>8} {} {:>7} {:>9}{} {:>9}  {}\n",
                     sweep ? "size " : "", "backend", "prec", "elements", "setup s",
                     implicit ? implicit_header() : explicit_header(), "speedup", "host MiB",
                     implicit ? "" : fmt::format(" {:>9}", "bknd MiB"), "deviation", "agreement");
  for (const BenchRow& r : report.rows) {
    if (sweep) out += fmt::format("{:>4} ", r.size);
    if (r.status == "unavailable") {
      out += fmt::format("{:<10} {:<6} unavailable: {}\n", r.label, r.precision, r.reason);
      continue;
    }
    out += fmt::format(
        "{:<10} {:<6} {:>9} {:>8} {} {:>7} {:>9}{} {:>9}  {}", r.label, r.precision, r.elements,
        cell(r.setup_s, "{:.3f}"), r.implicit ? implicit_cells(r) : explicit_cells(r),
        cell(r.speedup, "{:.2f}"), cell(mib(r.host_peak_bytes), "{:.1f}"),
        r.implicit ? "" : fmt::format(" {:>9}", cell(mib(r.backend_memory_bytes), "{:.1f}")),
        cell(r.deviation, "{:.2e}"), agreement(r));
    if (r.status == "failed") out += ": " + r.reason;
    if (r.compared && !r.agrees) out += fmt::format(" (tolerance {:.0e})", r.tolerance);
    out += "\n";
  }
  for (const PeerResult& p : report.peers) {
    out += fmt::format("peer {}: ", p.name);
    if (p.status != "ok") {
      out += p.status + ": " + p.reason + "\n";
      continue;
    }
    const bool implicit_fem = p.fem_solver == "static" || p.fem_solver == "implicit_dynamic";
    const std::string fem_run =
        implicit_fem
            ? fmt::format(
                  "{}: {} increments, {} Newton and {} CG iterations in {:.3f} s "
                  "(setup and solve)",
                  p.fem_solver, p.fem_steps, p.fem_newton_iterations, p.fem_linear_iterations,
                  p.fem_wall_s)
            : fmt::format("{} steps in {:.3f} s (setup and steps)", p.fem_steps, p.fem_wall_s);
    // Percent to 3 decimals; below 0.001 % (an implicit solve against ccx) in 2 digits.
    const auto percent_text = [](double fraction) {
      const double percent = 100.0 * fraction;
      return std::isnan(percent)
                 ? std::string("-")
                 : fmt::format(fmt::runtime(percent >= 1e-3 || percent == 0 ? "{:.3f}" : "{:.2g}"),
                               percent);
    };
    std::string prescribed;
    for (int c = 0; c < 3; ++c)
      if (p.prescribed[c]) prescribed += "xyz"[c];
    out += fmt::format(
        "corner node ({}{}) over {} load levels: free components deviate {} %, prescribed ({}) "
        "{} % (tolerance {:.2g} %) {}\n"
        "  fem  ({} {}): {}\n"
        "  ccx  (static, NLGEOM): {} increments in {:.3f} s (wall, whole process)\n"
        "  final corner displacement: fem ({:.6e}, {:.6e}, {:.6e}), ccx ({:.6e}, {:.6e}, "
        "{:.6e})\n",
        p.node_set, p.size > 0 ? fmt::format(", size {}", p.size) : "", p.times.size(),
        percent_text(p.free_deviation), prescribed.empty() ? "none" : prescribed,
        percent_text(p.prescribed_deviation), 100.0 * p.tolerance, p.agrees ? "ok" : "DISAGREES",
        p.fem_backend, p.fem_precision, fem_run, p.peer_increments, p.peer_wall_s,
        p.fem_u.back()[0], p.fem_u.back()[1], p.fem_u.back()[2], p.peer_u.back()[0],
        p.peer_u.back()[1], p.peer_u.back()[2]);
  }
  return out;
}

namespace {

int run_quiet(const std::string& cmd) {
  const int status = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The plotting script: installed beside the program (<prefix>/share/fem), else the source tree.
std::string plot_script() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "fem" / "plot-bench.py";
    if (std::filesystem::exists(installed)) return installed.string();
  }
  if (std::filesystem::exists(FEM_PLOT_SCRIPT)) return FEM_PLOT_SCRIPT;
  return "";
}

}  // namespace

std::vector<std::string> make_bench_plots(const std::string& json_path, const std::string& dir,
                                          std::string& why_not) {
  const std::string script = plot_script();
  if (script.empty()) {
    why_not = "the plotting script plot-bench.py is not installed";
    return {};
  }
  // FEM_PYTHON first, then python3 on PATH, then Debian's (python3-matplotlib lives there).
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("FEM_PYTHON"); env && *env) candidates.push_back(env);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  std::string python;
  for (const std::string& c : candidates)
    if (run_quiet(quote(c) + " -c 'import matplotlib'") == 0) {
      python = c;
      break;
    }
  if (python.empty()) {
    why_not =
        "no python3 with matplotlib found (tried FEM_PYTHON, python3, /usr/bin/python3; "
        "install with `apt install python3-matplotlib`)";
    return {};
  }
  const std::string cmd = quote(python) + " " + quote(script) + " " + quote(json_path) +
                          " --output " + quote(dir) + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::vector<std::string> files;
  std::string text;
  char buf[1024];
  while (pipe && fgets(buf, sizeof buf, pipe)) text += buf;
  const int status = pipe ? pclose(pipe) : -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why_not = "plot-bench.py failed: " + text;
    return {};
  }
  // The script prints the path of every file it wrote, one per line.
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    if (line.size() > 4 && line.substr(line.size() - 4) == ".png") files.push_back(line);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (files.empty()) why_not = "plot-bench.py wrote no PNG: " + text;
  return files;
}

}  // namespace fem::cli
