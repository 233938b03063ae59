// `fem bench --peer calculix`: the case exported as an Abaqus deck with a static (NLGEOM) step,
// solved by CalculiX, and fem's displacement of the compared node set beside ccx's at every load
// level of the step.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>

#include <fem/export/abaqus_writer.hpp>
#include <fem/export/calculix_results.hpp>
#include <fem/solver/explicit_system.hpp>

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
    if (!o.sizes.empty()) {
      p.size = *std::min_element(o.sizes.begin(), o.sizes.end());
      for (const CaseOverride& s : size_overrides(base, p.size))
        co.sets.push_back(s.path + "=" + s.value);
    }
    const PreparedCase prepared = prepare_case(co);
    const Model& model = prepared.model;
    const CaseSpec& spec = model.spec;
    for (const HistorySpec& h : spec.output.histories)
      if (model.mesh.node_sets.at(h.set).size() == 1) {
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

    // fem: the whole run, the node's displacement interpolated between the steps around each
    // level's time.
    std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec.backend);
    const auto t1 = Clock::now();
    const ExplicitSetup setup = setup_explicit(model);
    std::unique_ptr<ExplicitProblem> problem =
        backend->create_explicit(setup.system, spec.precision);
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
    p.fem_backend = spec.backend;
    p.fem_precision = to_string(spec.precision);

    double scale = 0.0, diff = 0.0;
    for (std::size_t i = 0; i < p.times.size(); ++i) {
      double d = 0.0, n = 0.0;
      for (int c = 0; c < 3; ++c) {
        d += (p.fem_u[i][c] - p.peer_u[i][c]) * (p.fem_u[i][c] - p.peer_u[i][c]);
        n += p.peer_u[i][c] * p.peer_u[i][c];
      }
      diff = std::max(diff, std::sqrt(d));
      scale = std::max(scale, std::sqrt(n));
    }
    p.max_deviation = scale > 0 ? diff / scale : diff;
    p.agrees = p.max_deviation <= p.tolerance;
  } catch (const std::exception& e) {
    p.status = "failed";
    p.reason = e.what();
    p.agrees = false;
  }
  return p;
}

}  // namespace fem::cli
