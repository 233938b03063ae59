// `fem bench`: runs one case on every backend x precision (x mesh size) and compares them.
//
// Explicit cases: timing covers only the backend's advance() calls (which return when the work is
// done), with a steady host clock: plugin loading, model building, setup and output are outside
// it. Setup (geometry precompute and upload) is reported on its own. Static and implicit dynamic
// cases: each repeat is the whole implicit solve without files (ImplicitSolver::run()), its setup
// (the solver's construction) timed on its own.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fem/parallel/communicator.hpp>
#include <fem/parallel/partitioned_problem.hpp>
#include <fem/solver/byte_model.hpp>
#include <fem/solver/corotational_solver.hpp>
#include <fem/solver/explicit_system.hpp>
#include <fem/solver/follower_pressure_problem.hpp>
#include <fem/solver/implicit_solver.hpp>
#include <fem/solver/wave_solver.hpp>

#include "bench.hpp"
#include "commands.hpp"

namespace fem::cli {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Peak resident memory of this process since the last reset_peak_rss(), in bytes (Linux
/// VmHWM; getrusage's lifetime peak where the reset is not available).
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}
double peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return 1024.0 * std::stod(line.substr(6));  // kB
  return kNaN;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string machine_description() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return fmt::format("{}, {} hardware threads", model, std::thread::hardware_concurrency());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

/// Test hook (documented in docs/benchmarks.md, read by nothing but `fem bench`):
/// FEM_BENCH_TEST_PERTURB=<label>=<eps> adds eps * max|u| to every displacement the bench reads
/// back from that run, so that a test can prove the agreement check fails. The solve itself is
/// untouched.
struct Perturbation {
  std::string label;
  double eps = 0.0;
};
Perturbation test_perturbation() {
  const char* env = std::getenv("FEM_BENCH_TEST_PERTURB");
  if (env == nullptr || *env == 0) return {};
  const std::string s(env);
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError({"FEM_BENCH_TEST_PERTURB", 0, 0}, "'" + s + "' is not of the form label=eps",
                     "for example FEM_BENCH_TEST_PERTURB=kokkos=1e-3 (a test hook)");
  return {s.substr(0, eq), std::stod(s.substr(eq + 1))};
}

struct Combination {
  std::string label, backend;
  Precision precision;
  int size;
};

/// Adds eps * max|u| to every entry of u (the FEM_BENCH_TEST_PERTURB hook).
void shift(std::vector<double>& u, double eps) {
  double m = 0.0;
  for (const double x : u) m = std::max(m, std::abs(x));
  for (double& x : u) x += eps * m;
}

/// Median, min and max of the repeats' times.
struct Spread {
  double median, min, max;
};
Spread spread(const std::vector<double>& v) {
  return {median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

/// The median, min and max step time of a row's repeats, and the element-steps and bytes per
/// second at the median.
void set_step_rates(BenchRow& row) {
  const Spread s = spread(row.step_s);
  row.median_step_s = s.median;
  row.min_step_s = s.min;
  row.max_step_s = s.max;
  row.element_steps_per_s = static_cast<double>(row.elements) / row.median_step_s;
  row.effective_gb_per_s = row.bytes_per_element_step * row.element_steps_per_s * 1e-9;
}

class Bench {
 public:
  Bench(const BenchOptions& o, const CaseSpec& base, PluginRegistry& plugins)
      : o_(o),
        base_(base),
        plugins_(plugins),
        perturb_(test_perturbation()),
        implicit_(is_implicit(base.solver.type)),
        waves_(base.solver.type == SolverType::Elastodynamic),
        voxels_(base.solver.type == SolverType::Corotational) {
    if (!perturb_.label.empty())
      spdlog::warn(
          "test hook FEM_BENCH_TEST_PERTURB: the displacements read back from '{}' are "
          "shifted by {:g} x max|u| before the agreement check",
          perturb_.label, perturb_.eps);
  }

  /// One combination: the row, and in u_out the final displacement (compared with reference_u
  /// when that is given).
  BenchRow run(const Combination& c, const std::vector<double>* reference_u,
               std::vector<double>& u_out) {
    BenchRow row;
    row.label = c.label;
    row.backend = c.backend;
    row.precision = to_string(c.precision);
    row.size = c.size;
    row.tolerance = c.precision == Precision::Single ? o_.tolerance_single : o_.tolerance_double;
    if (implicit_) row.implicit.emplace();
    Backend* backend = this->backend(c.backend, row.reason);
    if (backend == nullptr) {
      row.status = "unavailable";
      return row;
    }
    row.execution_space = backend->execution_space();
    try {
      const CaseSpec spec = load_case(o_.case_file, overrides(c));
      Model model = build_model(spec, plugins_);
      row.elements = model.num_elements();
      row.nodes = model.mesh.num_nodes();

      const bool rss_reset = reset_peak_rss();
      if (implicit_)
        time_implicit(model, *backend, row, u_out);
      else if (waves_)
        time_waves(model, *backend, row, u_out);
      else if (voxels_)
        time_voxels(model, *backend, row, u_out);
      else
        time_explicit(model, *backend, row, u_out);
      if (!perturb_.label.empty() && perturb_.label == c.label) shift(u_out, perturb_.eps);
      row.host_peak_bytes = rss_reset ? peak_rss_bytes() : kNaN;
      if (reference_u != nullptr) {
        row.deviation = max_relative_deviation(u_out, *reference_u);
        row.compared = true;
        row.agrees = row.deviation <= row.tolerance;
      }
    } catch (const std::exception& e) {
      row.status = "failed";
      row.reason = first_line(e.what());
      row.agrees = false;
    }
    return row;
  }

 private:
  /// The case of one combination: the options' overrides, no VTK (implicit: no histories), the
  /// backend, precision and mesh size.
  std::vector<CaseOverride> overrides(const Combination& c) const {
    CaseOptions co;
    co.case_file = o_.case_file;
    co.device = o_.device;
    co.sets = o_.sets;
    std::vector<CaseOverride> v = co.overrides();
    v.push_back({"output.vtk", "false"});
    // The implicit solve records histories in memory even without files: none, so that the
    // timed solve does only the solve.
    if (implicit_) v.push_back({"output.histories", "[]"});
    if (waves_) v.push_back({"output.receivers", "[]"});
    // Co-rotational steps: the V-cycles alone, without the residual measurements' round trips.
    if (voxels_) v.push_back({"solver.multigrid.residual_every", "0"});
    v.push_back({"backend", c.backend});
    v.push_back({"precision", to_string(c.precision)});
    if (c.size > 0)
      for (const CaseOverride& s : size_overrides(base_, c.size)) v.push_back(s);
    return v;
  }

  /// Explicit steps: --warmup untimed, then --repeats timed blocks of --steps (or --end-time).
  void time_explicit(const Model& model, Backend& backend, BenchRow& row,
                     std::vector<double>& u_out) const {
    const CaseSpec& spec = model.spec;
    const auto t0 = Clock::now();
    ExplicitSetup setup = setup_explicit(model);
    // Under mpirun every rank times its part of the same steps (the exchanges included).
    parallel::Communicator& world = parallel::world();
    std::unique_ptr<ExplicitProblem> problem = create_explicit_problem(
        setup.system, [&](const System& system) -> std::unique_ptr<ExplicitProblem> {
          if (world.size() > 1)
            return std::make_unique<parallel::PartitionedProblem>(system, backend, spec.precision,
                                                                  world);
          return backend.create_explicit(system, spec.precision);
        });
    row.setup_s = seconds_since(t0);
    row.time_step = setup.system.time_step;
    row.bytes_per_element_step =
        minimal_step_bytes(setup.system, spec.precision).per_element_step();
    row.warmup_steps = o_.warmup;
    row.steps_per_repeat =
        o_.steps > 0 ? o_.steps
        : o_.end_time > 0
            ? std::max<std::int64_t>(1, std::llround(o_.end_time / setup.system.time_step))
            : 100;

    std::int64_t step = 0;
    const auto advance = [&](std::int64_t n) {
      const auto start = Clock::now();
      const AdvanceResult r = problem->advance(step, n);
      const double s = seconds_since(start);
      step += r.steps_done;
      if (r.status != AdvanceResult::Status::Ok)
        throw SolveError(fmt::format("step {}: element {} of block {} {}", step, r.element, r.block,
                                     r.status == AdvanceResult::Status::InvertedElement
                                         ? "inverted"
                                         : "has non-finite values"));
      return s;
    };
    if (o_.warmup > 0) advance(o_.warmup);
    for (int k = 0; k < o_.repeats; ++k)
      row.step_s.push_back(advance(row.steps_per_repeat) /
                           static_cast<double>(row.steps_per_repeat));
    row.total_steps = step;
    set_step_rates(row);
    row.backend_memory_bytes = static_cast<double>(problem->memory_bytes());
    if (row.backend_memory_bytes <= 0) row.backend_memory_bytes = kNaN;
    problem->displacement(u_out);
  }

  /// Elastodynamic steps: the setup (stiffness, stability limit) once, then one run of --warmup
  /// + --repeats x --steps steps with a lap after each block; bytes per step as docs/waves.md
  /// counts them.
  void time_waves(const Model& model, Backend& backend, BenchRow& row,
                  std::vector<double>& u_out) const {
    const auto t0 = Clock::now();
    WaveSolver solver(model, backend, model.spec.backend, &parallel::world());
    row.setup_s = seconds_since(t0);
    const WaveSetup& w = solver.setup();
    row.time_step = w.time_step;
    const double bytes =
        wave_step_bytes(w.matrix, model.spec.precision == Precision::Single ? 4 : 8);
    row.bytes_per_element_step = bytes / static_cast<double>(row.elements);
    row.warmup_steps = o_.warmup;
    row.steps_per_repeat = o_.steps > 0 ? o_.steps
                           : o_.end_time > 0
                               ? std::max<std::int64_t>(1, std::llround(o_.end_time / w.time_step))
                               : 100;
    WaveRunOptions run;
    for (int k = 0; k <= o_.repeats; ++k)
      if (k > 0 || o_.warmup > 0) run.lap_steps.push_back(o_.warmup + k * row.steps_per_repeat);
    run.steps = o_.warmup + o_.repeats * row.steps_per_repeat;
    const WaveRunReport r = solver.run(run);
    double previous = o_.warmup > 0 ? r.lap_seconds.front() : 0.0;
    for (std::size_t k = o_.warmup > 0 ? 1 : 0; k < r.lap_seconds.size(); ++k) {
      row.step_s.push_back((r.lap_seconds[k] - previous) /
                           static_cast<double>(row.steps_per_repeat));
      previous = r.lap_seconds[k];
    }
    row.total_steps = r.steps;
    const Spread s = spread(row.step_s);
    row.median_step_s = s.median;
    row.min_step_s = s.min;
    row.max_step_s = s.max;
    row.element_steps_per_s = static_cast<double>(row.elements) / row.median_step_s;
    row.effective_gb_per_s = bytes / row.median_step_s * 1e-9;
    row.backend_memory_bytes = kNaN;
    u_out = r.final_displacement;
  }

  /// Co-rotational steps (seed 004): the hierarchy and uploads once, then --warmup steps and
  /// --repeats blocks of --steps; bytes per voxel and step by the seed's count (Table 3: 28,000
  /// in single, 54,000 in double), as the seed reports its bandwidth.
  void time_voxels(const Model& model, Backend& backend, BenchRow& row,
                   std::vector<double>& u_out) const {
    const auto t0 = Clock::now();
    CorotationalSimulation sim(model, backend);
    sim.grid().synchronize();
    row.setup_s = seconds_since(t0);
    row.time_step = sim.time_step();
    row.bytes_per_element_step = model.spec.precision == Precision::Single ? 28000.0 : 54000.0;
    row.warmup_steps = o_.warmup;
    row.steps_per_repeat =
        o_.steps > 0      ? o_.steps
        : o_.end_time > 0 ? std::max<std::int64_t>(1, std::llround(o_.end_time / row.time_step))
                          : 20;
    const auto advance = [&](std::int64_t n) {
      const auto start = Clock::now();
      for (std::int64_t k = 0; k < n; ++k) sim.step();
      sim.grid().synchronize();
      return seconds_since(start);
    };
    if (o_.warmup > 0) advance(o_.warmup);
    for (int k = 0; k < o_.repeats; ++k)
      row.step_s.push_back(advance(row.steps_per_repeat) /
                           static_cast<double>(row.steps_per_repeat));
    row.total_steps = sim.steps_done();
    set_step_rates(row);
    row.backend_memory_bytes = static_cast<double>(sim.grid().memory_bytes());
    std::vector<double> v;
    sim.state(u_out, v);
  }

  /// The whole implicit solve to solver.end_time, no files, once per repeat (each with its own
  /// solver, so each pays the same setup): setup = the solver's construction (explicit setup,
  /// the backend's algebra and operator), solve = the wall time of ImplicitSolver::run().
  void time_implicit(const Model& model, Backend& backend, BenchRow& row,
                     std::vector<double>& u_out) const {
    ImplicitBench& b = *row.implicit;
    const CaseSpec& spec = model.spec;
    b.solver = to_string(spec.solver.type);
    b.linear_solver = spec.solver.linear.solver;
    ImplicitRunOptions options;
    options.write_files = false;
    std::vector<double> setup_s;
    ImplicitRunReport r;
    for (int k = 0; k < o_.repeats; ++k) {
      const auto t0 = Clock::now();
      ImplicitSolver solver(model, backend, spec.backend);
      setup_s.push_back(seconds_since(t0));
      const auto t1 = Clock::now();
      r = solver.run(options);
      b.solve_s.push_back(seconds_since(t1));
      if (k + 1 == o_.repeats) u_out = solver.displacement();
    }
    row.setup_s = median(setup_s);
    const Spread s = spread(b.solve_s);
    b.median_solve_s = s.median;
    b.min_solve_s = s.min;
    b.max_solve_s = s.max;
    b.preconditioner = r.preconditioner;
    b.free_dofs = r.free_dofs;
    b.increments = r.increments;
    b.cutbacks = r.cutbacks;
    b.newton_iterations = r.newton_iterations;
    b.linear_iterations = r.linear_iterations;
    const auto newton = static_cast<double>(r.newton_iterations);
    const auto linear = static_cast<double>(r.linear_iterations);
    if (newton > 0) b.s_per_newton = s.median / newton;
    b.cg_per_s = linear / s.median;
    b.dof_cg_per_s = static_cast<double>(r.free_dofs) * linear / s.median;
    b.tangent_apply_s = r.verbs.apply.seconds;
    b.preconditioner_setup_s = r.preconditioner_setup_s;
    b.final_residual = r.final_residual;
  }

  /// The backend, created once per name; nullptr with the reason when it is not built or
  /// cannot run here.
  Backend* backend(const std::string& name, std::string& why) {
    if (const auto it = backends_.find(name); it != backends_.end()) {
      why = reasons_[name];
      return it->second.get();
    }
    std::unique_ptr<Backend>& b = backends_[name];
    if (plugins_.find("backend", name) == nullptr) {
      std::string dirs;
      for (const std::string& d : plugins_.search_path()) dirs += (dirs.empty() ? "" : ":") + d;
      reasons_[name] = "not built: no backend plugin '" + name + "' in " + dirs;
    } else {
      try {
        b = plugins_.create_backend(name, base_.device, {}, base_.device_where);
      } catch (const std::exception& e) {
        std::string msg = first_line(e.what());
        const std::string prefix = "backend '" + name + "' cannot run on this machine: ";
        if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
        reasons_[name] = "cannot run here: " + msg;
      }
    }
    why = reasons_[name];
    return b.get();
  }

  const BenchOptions& o_;
  const CaseSpec& base_;
  PluginRegistry& plugins_;
  Perturbation perturb_;
  bool implicit_;
  bool waves_;
  bool voxels_;
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::map<std::string, std::string> reasons_;
};

/// Static and implicit dynamic cases run the whole solve: the options that shape explicit
/// timing blocks mean nothing there and are refused when given.
void check_implicit_options(BenchOptions& o, const CaseSpec& base) {
  const std::string type = to_string(base.solver.type);
  const auto refuse = [&](const std::string& option, const std::string& hint) {
    throw InputError({"<command line>", 0, 0},
                     option + " applies to explicit cases only: the case's solver is " + type +
                         ", and fem bench times its whole implicit solve to solver.end_time",
                     hint);
  };
  if (o.steps > 0)
    refuse("--steps", "drop --steps; shorten the solve with --set solver.end_time=... instead");
  if (o.end_time > 0)
    refuse("--end-time", "drop --end-time; to solve less, use --set solver.end_time=...");
  if (o.warmup_given)
    refuse("--warmup",
           "drop --warmup: every repeat is a whole solve with its own setup (--repeats N)");
  if (!o.repeats_given) o.repeats = 1;
  o.warmup = 0;
  // Backends that sum their dot products in other orders end Newton at other points inside its
  // tolerance, not at round-off from each other: CUDA was 8e-10 (double) from OpenMP on a cube
  // at the default residual tolerance 1e-8, where the explicit default 1e-10 calls them
  // different; Kokkos' suite bounds single precision by 1e-4.
  if (!o.tolerance_double_given) o.tolerance_double = 1e-7;
  if (!o.tolerance_single_given) o.tolerance_single = 1e-4;
}

}  // namespace

std::vector<CaseOverride> size_overrides(const CaseSpec& spec, int n) {
  const std::string v = std::to_string(n);
  if (spec.mesh.generator == "box" || spec.mesh.generator == "rectangle" ||
      spec.mesh.generator == "voxels")
    return {{"mesh.divisions", v}};
  if (spec.mesh.generator == "cylinder")
    return {{"mesh.radial_divisions", v},
            {"mesh.circumferential_divisions", std::to_string(4 * n)},
            {"mesh.axial_divisions", v}};
  throw InputError(
      {spec.file, 0, 0},
      "--sizes needs a generated mesh, but the case's mesh comes from '" + spec.mesh.generator +
          "'",
      "drop --sizes, or use a case with mesh.generator box, rectangle, voxels or cylinder");
}

double max_relative_deviation(const std::vector<double>& u, const std::vector<double>& u_ref) {
  if (u_ref.size() != u.size())
    throw Error("the reference run has a different number of displacements");
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    diff = std::max(diff, std::abs(u[i] - u_ref[i]));
    scale = std::max(scale, std::abs(u_ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

bool BenchReport::all_agree() const {
  for (const BenchRow& r : rows)
    if (r.status == "failed" || !r.agrees) return false;
  for (const PeerResult& p : peers)
    if (p.status == "failed" || !p.agrees) return false;
  return true;
}

int bench_command(const BenchOptions& options) {
  try {
    BenchOptions o = options;
    CaseOptions co;
    co.case_file = o.case_file;
    co.device = o.device;
    co.sets = o.sets;
    const CaseSpec base = load_case(o.case_file, co.overrides());
    if (!o.sizes.empty()) (void)size_overrides(base, o.sizes.front());  // fails early if not
    if (is_implicit(base.solver.type)) check_implicit_options(o, base);
    const std::string dir = o.output.empty() ? base.name + "_bench" : o.output;
    PluginRegistry plugins(base.plugin_paths);

    // The reference runs first in each precision; a backend listed twice runs twice (a
    // reproducibility check), the second time labelled "<name>#2".
    std::vector<std::pair<std::string, std::string>> labelled;  // label, backend
    {
      std::map<std::string, int> seen;
      if (std::find(o.backends.begin(), o.backends.end(), o.reference) == o.backends.end())
        o.backends.insert(o.backends.begin(), o.reference);
      std::stable_partition(o.backends.begin(), o.backends.end(),
                            [&](const std::string& b) { return b == o.reference; });
      for (const std::string& b : o.backends) {
        const int n = ++seen[b];
        labelled.emplace_back(n == 1 ? b : b + "#" + std::to_string(n), b);
      }
    }

    BenchReport report;
    report.options = o;
    report.case_name = base.name;
    report.solver = to_string(base.solver.type);
    report.date_utc = utc_now();
    report.machine = machine_description();
    if (parallel::world().size() > 1) {
      if (is_implicit(base.solver.type) || base.solver.type == SolverType::Corotational)
        throw InputError(base.solver.where,
                         fmt::format("fem bench of a {} case runs on one process, and this run "
                                     "has {}",
                                     to_string(base.solver.type), parallel::world().description()),
                         "run it without mpirun");
      report.machine += ", " + parallel::world().description();
    }
    Bench bench(o, base, plugins);
    const std::vector<int> sizes = o.sizes.empty() ? std::vector<int>{0} : o.sizes;
    for (const int size : sizes)
      for (const std::string& p : o.precisions) {
        const Precision precision = p == "single" ? Precision::Single : Precision::Double;
        std::vector<double> reference_u, u;
        std::optional<std::size_t> reference;  // index in report.rows
        const std::size_t first = report.rows.size();
        for (const auto& [label, backend] : labelled) {
          const bool is_ref = label == o.reference;
          spdlog::info("{}{} {} ...", size > 0 ? fmt::format("size {}: ", size) : "", label, p);
          BenchRow row = bench.run({label, backend, precision, size},
                                   is_ref || !reference ? nullptr : &reference_u, u);
          row.is_reference = is_ref;
          report.rows.push_back(std::move(row));
          if (is_ref && report.rows.back().status == "ok") {
            reference_u = u;
            reference = report.rows.size() - 1;
          }
        }
        if (reference)
          for (std::size_t i = first; i < report.rows.size(); ++i)
            if (report.rows[i].status == "ok")
              report.rows[i].speedup = report.rows[*reference].timed_s() / report.rows[i].timed_s();
      }

    // Rank 0 of an MPI run runs the peer and writes and prints for every rank.
    parallel::Communicator& world = parallel::world();
    if (world.rank() != 0) return report.all_agree() ? kOk : kDisagreement;
    if (o.peer == "calculix") report.peers.push_back(run_calculix_peer(o, base, dir));

    std::filesystem::create_directories(dir);
    std::vector<std::string> files = write_bench_files(report, dir);
    fmt::print("{}", bench_table(report));
    if (o.plots && report.implicit()) {
      fmt::print(
          "plots: not made: plot-bench.py draws explicit element-steps/s, and this case's solver "
          "is {} (its numbers are in the table, the JSON and the CSV)\n",
          report.solver);
    } else if (o.plots) {
      std::string why;
      const std::vector<std::string> pngs = make_bench_plots(files.front(), dir, why);
      if (pngs.empty())
        fmt::print(
            "plots: not made: {}\n  (the JSON and CSV are written; plot them later with "
            "scripts/plot-bench.py {})\n",
            why, files.front());
      files.insert(files.end(), pngs.begin(), pngs.end());
    }
    fmt::print("written: {}\n", fmt::join(files, ", "));
    if (!report.all_agree()) {
      fmt::print(stderr,
                 "error: the runs do not all agree (or some failed): see the table above\n");
      return kDisagreement;
    }
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
