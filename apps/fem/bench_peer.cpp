// `fem bench --peer calculix`: the case exported as an Abaqus deck with a static (NLGEOM) step,
// solved by CalculiX, and fem's displacement of the compared node set beside ccx's at every load
// level of the step. fem runs the case's own solver: explicit steps (dynamic relaxation too), or
// the implicit solve of a static or implicit dynamic case.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>

#include <fem/export/abaqus_writer.hpp>
#include <fem/export/calculix_results.hpp>
#include <fem/solver/explicit_system.hpp>
#include <fem/solver/follower_pressure_problem.hpp>
#include <fem/solver/implicit_solver.hpp>

#include "bench.hpp"
#include "commands.hpp"

namespace fem::cli {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The ccx program: FEM_CCX, else `ccx` on PATH; empty if neither exists.
std::string find_ccx() {
  if (const char* env = std::getenv("FEM_CCX"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', pos), dirs.size());
    const auto candidate = std::filesystem::path(dirs.substr(pos, end - pos)) / "ccx";
    if (!dirs.substr(pos, end - pos).empty() && std::filesystem::exists(candidate))
      return candidate.string();
    pos = end + 1;
  }
  return "";
}

/// fem's explicit run over the whole loading, the node's displacement interpolated between the
/// steps around each of the peer's times (p.times); fills p.fem_u, fem_wall_s and fem_steps.
void explicit_at_levels(const Model& model, Backend& backend, std::int32_t node, PeerResult& p) {
  const auto t1 = Clock::now();
  ExplicitSetup setup = setup_explicit(model);
  std::unique_ptr<ExplicitProblem> problem = create_explicit_problem(
      setup.system,
      [&](const System& system) { return backend.create_explicit(system, model.spec.precision); });
  const double dt = setup.system.time_step;
  std::int64_t step = 0;
  std::vector<double> u, u_prev;
  for (const double t : p.times) {
    const auto k = static_cast<std::int64_t>(std::floor(t / dt));
    const std::int64_t target = std::min(k + 1, setup.num_steps);
    if (target > step) {
      const AdvanceResult r = problem->advance(step, target - step);
      step += r.steps_done;
      if (r.status != AdvanceResult::Status::Ok)
        throw SolveError(fmt::format("fem's run failed at step {}", step));
    }
    problem->nodal_displacements({node}, u, u_prev);  // u_step, u_{step-1}
    const double w = std::clamp(t / dt - static_cast<double>(step - 1), 0.0, 1.0);
    p.fem_u.push_back({u_prev[0] + w * (u[0] - u_prev[0]), u_prev[1] + w * (u[1] - u_prev[1]),
                       u_prev[2] + w * (u[2] - u_prev[2])});
  }
  if (step < setup.num_steps) {
    const AdvanceResult r = problem->advance(step, setup.num_steps - step);
    step += r.steps_done;
  }
  p.fem_wall_s = seconds_since(t1);
  p.fem_steps = step;
}

/// fem's implicit solve (static or dynamic) to end_time without files, the node's displacement
/// recorded after every accepted increment and read at each of the peer's times: exactly where
/// an increment ends there (a static case runs in the peer's increments), else interpolated
/// linearly between the two increments around it.
void implicit_at_levels(const Model& model, Backend& backend, std::int32_t node, PeerResult& p) {
  using Point = std::array<double, 3>;
  std::vector<std::pair<double, Point>> path;  // (time, u of the node), from t = 0
  const auto at = [node](const std::vector<double>& u) {
    const auto i = 3 * static_cast<std::size_t>(node);
    return Point{u[i], u[i + 1], u[i + 2]};
  };
  ImplicitRunOptions options;
  options.write_files = false;
  options.increment_done = [&](std::int64_t, double t, const std::vector<double>& u) {
    path.emplace_back(t, at(u));
  };
  const auto t0 = Clock::now();
  ImplicitSolver solver(model, backend, model.spec.backend);
  path.emplace_back(0.0, at(solver.displacement()));
  const ImplicitRunReport r = solver.run(options);
  p.fem_wall_s = seconds_since(t0);
  p.fem_steps = r.increments;
  p.fem_newton_iterations = r.newton_iterations;
  p.fem_linear_iterations = r.linear_iterations;
  const double eps = 1e-9 * std::max(1.0, model.spec.solver.end_time);
  for (const double t : p.times) {
    // The first increment ending at or after t (the last one where the peer's time runs past).
    std::size_t k = 1;
    while (k + 1 < path.size() && path[k].first < t - eps) ++k;
    const auto& [t_a, u_a] = path[k - 1];
    const auto& [t_b, u_b] = path[k];
    const double w = std::abs(t_b - t) <= eps ? 1.0 : std::clamp((t - t_a) / (t_b - t_a), 0.0, 1.0);
    p.fem_u.push_back({u_a[0] + w * (u_b[0] - u_a[0]), u_a[1] + w * (u_b[1] - u_a[1]),
                       u_a[2] + w * (u_b[2] - u_a[2])});
  }
}

/// max over levels of |u_fem - u_peer| / max over levels of |u_peer| (vector lengths).
/// max over levels of |u_fem - u_peer| / max |u_peer|, over the components `use` selects.
double path_deviation(const std::vector<std::array<double, 3>>& fem,
                      const std::vector<std::array<double, 3>>& peer,
                      std::array<bool, 3> use = {true, true, true}) {
  double scale = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < peer.size(); ++i) {
    double d = 0.0, n = 0.0;
    for (int c = 0; c < 3; ++c) {
      if (!use[c]) continue;
      d += (fem[i][c] - peer[i][c]) * (fem[i][c] - peer[i][c]);
      n += peer[i][c] * peer[i][c];
    }
    diff = std::max(diff, std::sqrt(d));
    scale = std::max(scale, std::sqrt(n));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

PeerResult run_calculix_peer(const BenchOptions& o, const CaseSpec& base, const std::string& dir) {
  PeerResult p;
  p.tolerance = o.peer_tolerance;
  try {
    CaseOptions co;
    co.case_file = o.case_file;
    co.sets = o.sets;
    co.sets.push_back("precision=double");
    co.sets.push_back("backend=" + o.reference);
    co.sets.push_back("output.vtk=false");
    // A static solve is path independent: in the peer's increments, each of fem's increments
    // ends at one of ccx's load levels.
    if (base.solver.type == SolverType::Static)
      co.sets.push_back("solver.increments=" + std::to_string(o.peer_levels));
    if (!o.sizes.empty()) {
      p.size = *std::min_element(o.sizes.begin(), o.sizes.end());
      for (const CaseOverride& s : size_overrides(base, p.size))
        co.sets.push_back(s.path + "=" + s.value);
    }
    const PreparedCase prepared = prepare_case(co);
    const Model& model = prepared.model;
    const CaseSpec& spec = model.spec;
    for (const HistorySpec& h : spec.output.histories)
      if (!h.of_elements() && model.mesh.node_sets.at(h.set).size() == 1) {
        p.node_set = h.set;
        break;
      }
    if (p.node_set.empty())
      throw InputError(spec.output.where,
                       "the CalculiX comparison needs a history of a one-node set",
                       "add for example node_sets: {corner: {sphere: {center: [x, y, z], "
                       "radius: 1e-6}}} and output.histories: [{name: corner, set: corner}]");
    const std::int32_t node = model.mesh.node_sets.at(p.node_set).front();

    const std::string ccx = find_ccx();
    if (ccx.empty()) {
      p.status = "unavailable";
      p.reason =
          "CalculiX (ccx) not found on PATH or in FEM_CCX; install it with "
          "`apt install calculix-ccx` (scripts/install-dependencies.sh does)";
      return p;
    }

    // The deck.
    std::filesystem::create_directories(dir);
    const std::string job = spec.name + "_calculix";
    p.deck = (std::filesystem::path(dir) / (job + ".inp")).string();
    AbaqusExportOptions eo;
    eo.step = AbaqusExportOptions::Step::Static;
    eo.intervals = o.peer_levels;
    eo.source = "fem bench --peer calculix";
    {
      std::ofstream deck(p.deck);
      const AbaqusExportReport r = write_abaqus_deck(model, eo, deck);
      for (const std::string& n : r.notes) spdlog::info("calculix deck: {}", n);
    }
    spdlog::info("running CalculiX on {} ...", p.deck);
    const std::string cmd =
        fmt::format("cd '{}' && '{}' -i '{}' > '{}.log' 2>&1", dir, ccx, job, job);
    const auto t0 = Clock::now();
    const int status = std::system(cmd.c_str());
    p.peer_wall_s = seconds_since(t0);
    const std::string log = (std::filesystem::path(dir) / (job + ".log")).string();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error(fmt::format("ccx failed (exit status {}); see {}", WEXITSTATUS(status), log));
    std::vector<double> times;
    for (const CalculixNodeTable& t :
         read_calculix_dat((std::filesystem::path(dir) / (job + ".dat")).string())) {
      if (t.quantity != "displacements") continue;
      std::string set = p.node_set;
      for (char& c : set) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (t.set != set || t.values.count(node + 1) == 0) continue;
      p.times.push_back(t.time);
      p.peer_u.push_back(t.values.at(node + 1));
    }
    p.peer_increments = static_cast<std::int64_t>(p.times.size());
    if (p.times.empty())
      throw Error("ccx finished but its .dat has no displacements of set '" + p.node_set +
                  "'; see " + log);
    // A step ccx cut short (its increment limit, a failed increment) is no comparison.
    const double end = spec.solver.end_time;
    if (p.times.back() < end * (1.0 - 1e-6))
      throw Error(
          fmt::format("ccx stopped at t = {} before the end of the step (t = {}): its "
                      "run is truncated and not compared; see {}",
                      p.times.back(), end, log));
    for (const auto& bc : spec.boundary_conditions) {
      const auto& ids = model.mesh.node_sets.at(bc.set);
      if (std::binary_search(ids.begin(), ids.end(), node))
        for (int c = 0; c < 3; ++c) p.prescribed[c] = p.prescribed[c] || bc.constrained[c];
    }

    std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec);
    if (is_implicit(spec.solver.type))
      implicit_at_levels(model, *backend, node, p);
    else
      explicit_at_levels(model, *backend, node, p);
    p.fem_backend = spec.backend;
    p.fem_precision = to_string(spec.precision);
    p.fem_solver = to_string(spec.solver.type);
    p.max_deviation = path_deviation(p.fem_u, p.peer_u);
    const std::array<bool, 3> free = {!p.prescribed[0], !p.prescribed[1], !p.prescribed[2]};
    p.free_deviation = path_deviation(p.fem_u, p.peer_u, free);
    p.prescribed_deviation = path_deviation(p.fem_u, p.peer_u, p.prescribed);
    p.agrees = p.free_deviation <= p.tolerance && p.prescribed_deviation <= p.tolerance;
  } catch (const std::exception& e) {
    p.status = "failed";
    p.reason = e.what();
    p.agrees = false;
  }
  return p;
}

}  // namespace fem::cli
