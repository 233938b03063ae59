// `fem bench`: one case on every backend x precision (x mesh size), timed, checked for agreement
// with a reference backend and reported as a table, JSON, CSV and PNG plots.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fem/case.hpp>

namespace fem::cli {

struct BenchOptions {
  std::string case_file;
  std::vector<std::string> backends = {"openmp", "kokkos", "cuda"};
  std::vector<std::string> precisions = {"single", "double"};
  std::string reference = "openmp";
  int device = -1;         ///< --device N (-1: not given)
  int repeats = 5;         ///< explicit: timed blocks of steps; implicit: whole solves (default 1)
  int warmup = 20;         ///< steps run before timing (explicit only)
  std::int64_t steps = 0;  ///< steps per repeat (0: from end_time, or 100)
  double end_time = 0.0;   ///< simulated time per repeat, s
  std::vector<int> sizes;  ///< mesh divisions to sweep (generated meshes)
  std::string output;      ///< default: <case name>_bench
  std::vector<std::string> sets;
  double tolerance_single = 1e-5;
  double tolerance_double = 1e-10;
  std::string peer;               ///< "calculix" or empty
  double peer_tolerance = 0.005;  ///< corner displacement relative to CalculiX's
  int peer_levels = 20;           ///< load levels compared with the peer
  bool plots = true;
  std::string command_line;  ///< recorded in the JSON
  // Which options were given on the command line (an implicit case refuses the explicit-only
  // ones, and takes one repeat unless --repeats was given).
  bool repeats_given = false, warmup_given = false;
  bool tolerance_single_given = false, tolerance_double_given = false;
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The implicit solve of one combination (static and implicit_dynamic cases): the whole solve to
/// solver.end_time, once per repeat.
struct ImplicitBench {
  std::string solver;          ///< static | implicit_dynamic
  std::string linear_solver;   ///< cg | direct
  std::string preconditioner;  ///< as the solver names it (direct: "direct")
  std::int64_t free_dofs = 0;
  std::int64_t increments = 0, cutbacks = 0;  ///< of the last repeat (the solves are the same)
  std::int64_t newton_iterations = 0, linear_iterations = 0;
  std::vector<double> solve_s;  ///< wall time of ImplicitSolver::run(), one per repeat
  double median_solve_s = kNaN, min_solve_s = kNaN, max_solve_s = kNaN;
  double s_per_newton = kNaN;            ///< median solve time / Newton iterations
  double cg_per_s = kNaN;                ///< linear iterations / median solve time
  double dof_cg_per_s = kNaN;            ///< free dofs x linear iterations / median solve time
  double tangent_apply_s = kNaN;         ///< of the last repeat: the CG's tangent actions
  double preconditioner_setup_s = kNaN;  ///< of the last repeat
  double final_residual = kNaN;          ///< relative, last Newton iteration
};

/// One backend x precision x size combination.
struct BenchRow {
  std::string label;  ///< backend name, "#2" appended when a backend is listed twice
  std::string backend;
  std::string precision;
  int size = 0;               ///< mesh divisions of the sweep (0: the case's own mesh)
  std::string status = "ok";  ///< ok | unavailable | failed
  std::string reason;
  std::string execution_space;
  std::int64_t elements = 0, nodes = 0;
  double time_step = 0.0;
  std::int64_t warmup_steps = 0, steps_per_repeat = 0, total_steps = 0;
  double setup_s = kNaN;
  std::vector<double> step_s;  ///< seconds per step, one per repeat
  double median_step_s = kNaN, min_step_s = kNaN, max_step_s = kNaN;
  double element_steps_per_s = kNaN;
  double bytes_per_element_step = kNaN;
  double effective_gb_per_s = kNaN;
  double speedup = kNaN;
  double host_peak_bytes = kNaN;
  double backend_memory_bytes = kNaN;
  double deviation = kNaN;  ///< max |u - u_ref| / max |u_ref| after the same steps
  double tolerance = kNaN;
  bool compared = false;
  bool agrees = true;
  bool is_reference = false;
  std::optional<ImplicitBench> implicit;  ///< set for the runs of an implicit case
  /// The seconds that the speed-up compares: median step (explicit) or median solve (implicit).
  [[nodiscard]] double timed_s() const {
    return implicit ? implicit->median_solve_s : median_step_s;
  }
};

/// fem's answer and time beside CalculiX's for the same case (corner node over the loading).
struct PeerResult {
  std::string name = "calculix";
  std::string status = "ok";  ///< ok | unavailable | failed
  std::string reason;
  std::string deck;      ///< the exported input deck
  std::string node_set;  ///< the set whose first node is compared
  int size = 0;  ///< with --sizes: the mesh size compared (the smallest); 0: the case's own mesh
  double peer_wall_s = kNaN;  ///< ccx wall time
  double fem_wall_s = kNaN;   ///< fem: setup + steps (or the implicit solve) of the whole run
  std::string fem_backend, fem_precision;
  std::string fem_solver = "explicit";  ///< explicit | dynamic_relaxation | static | ...
  std::int64_t fem_steps = 0;           ///< implicit: increments
  std::int64_t fem_newton_iterations = 0, fem_linear_iterations = 0;  ///< implicit only
  std::int64_t peer_increments = 0;
  std::vector<double> times;  ///< compared load levels (step times)
  std::vector<std::array<double, 3>> fem_u, peer_u;
  double max_deviation =
      kNaN;  ///< max over levels of |u_fem - u_peer| / |u_peer| (final-level norm)
  /// The same over the components the case leaves free (what is computed; relative to their
  /// largest value) and over the prescribed ones (which both codes must meet; relative to theirs).
  /// agrees: both within the tolerance.
  double free_deviation = kNaN, prescribed_deviation = kNaN;
  std::array<bool, 3> prescribed = {false, false, false};  ///< components of the compared node
  double tolerance = kNaN;
  bool agrees = true;
};

struct BenchReport {
  BenchOptions options;
  std::string case_name;
  std::string solver = "explicit";  ///< the case's solver.type
  [[nodiscard]] bool implicit() const { return solver == "static" || solver == "implicit_dynamic"; }
  std::string date_utc;
  std::string machine;
  std::vector<BenchRow> rows;
  std::vector<PeerResult> peers;
  [[nodiscard]] bool all_agree() const;
};

/// Writes bench.json and bench.csv into `dir` and returns their paths.
std::vector<std::string> write_bench_files(const BenchReport& report, const std::string& dir);
/// The table printed on the terminal.
std::string bench_table(const BenchReport& report);
/// Runs the plotting script on bench.json; returns the PNG files made, or explains why none.
std::vector<std::string> make_bench_plots(const std::string& json_path, const std::string& dir,
                                          std::string& why_not);

/// The overrides that set the mesh size of a generated mesh to n divisions (box: divisions;
/// cylinder: radial n, circumferential 4n, axial n). Throws InputError for a mesh file.
std::vector<CaseOverride> size_overrides(const CaseSpec& spec, int n);

/// max |u - u_ref| / max |u_ref| (max |u - u_ref| where u_ref is 0). Throws when the sizes differ.
double max_relative_deviation(const std::vector<double>& u, const std::vector<double>& u_ref);

/// CalculiX beside fem (bench_peer.cpp): on the case's mesh, or with --sizes on the smallest size
/// (a static implicit solve grows much faster with the mesh than fem's explicit one). `base`: the
/// case as the bench loaded it, with the options' overrides. fem's side runs the case's own
/// solver: explicit steps, or (static, implicit_dynamic) the implicit solve, a static one in
/// --peer-levels increments so that its increments are ccx's.
PeerResult run_calculix_peer(const BenchOptions& options, const CaseSpec& base,
                             const std::string& dir);

int bench_command(const BenchOptions& options);

}  // namespace fem::cli

namespace CLI {
class App;
}
namespace fem::cli {
void add_bench_options(CLI::App& cmd, BenchOptions& options);

}  // namespace fem::cli
