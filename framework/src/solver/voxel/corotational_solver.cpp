#include "fem/solver/corotational_solver.hpp"

#include <spdlog/spdlog.h>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "fem/amplitude.hpp"
#include "fem/error.hpp"
#include "fem/kernels/voxel_kernels.hpp"
#include "fem/solver/restart.hpp"
#include "fem/solver/run_output.hpp"
#include "fem/solver/system_fingerprint.hpp"
#include "fem/solver/wave_setup.hpp"
#include "fem/voxel/voxel_pieces.hpp"
#include "model_hexahedra.hpp"
#include "voxel_cycle.hpp"

namespace fem {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The model's voxels, block after block, and each one's block.
struct ModelVoxels {
  std::vector<std::int32_t> cells;
  std::vector<std::uint8_t> block;
};

bool same_scales(const VoxelStepScales& a, const VoxelStepScales& b) {
  return a.mass_shift == b.mass_shift && a.velocity_scale == b.velocity_scale &&
         a.gravity == b.gravity && a.time_step == b.time_step;
}

ModelVoxels model_voxels(const Model& model) {
  if (model.blocks.size() > 255)
    throw InputError(model.spec.solver.where,
                     "solver type corotational takes at most 255 blocks, the case has " +
                         std::to_string(model.blocks.size()),
                     "merge blocks of the same material");
  voxel::ModelHexahedra h = voxel::model_hexahedra(model);
  if (h.other_block >= 0) {
    const ModelBlock& mb = model.blocks[static_cast<std::size_t>(h.other_block)];
    throw InputError(mb.spec->where,
                     "block '" + mb.spec->name + "' has " + to_string(mb.region->shape) +
                         " cells, and solver type corotational runs voxels (hex8 cubes)",
                     "mesh the body with voxels (mesh: {generator: voxels} or an image) and "
                     "element hex8");
  }
  return {std::move(h.cells), std::vector<std::uint8_t>(h.block.begin(), h.block.end())};
}

}  // namespace

std::vector<double> voxel_stiffness(const std::array<double, 81>& a, double edge) {
  using kernels::voxel::corner_offset;
  constexpr int n = kernels::voxel::kElementDofs;
  std::vector<double> k(static_cast<std::size_t>(n * n), 0.0);
  const double g = 0.5 / std::sqrt(3.0);
  const double weight = edge * edge * edge / 8.0;
  for (int q = 0; q < 8; ++q) {
    const double xi[3] = {0.5 + (corner_offset(q, 0) ? g : -g),
                          0.5 + (corner_offset(q, 1) ? g : -g),
                          0.5 + (corner_offset(q, 2) ? g : -g)};
    double grad[8][3];
    for (int p = 0; p < 8; ++p) {
      double phi[3], dphi[3];
      for (int j = 0; j < 3; ++j) {
        phi[j] = corner_offset(p, j) ? xi[j] : 1.0 - xi[j];
        dphi[j] = (corner_offset(p, j) ? 1.0 : -1.0) / edge;
      }
      grad[p][0] = dphi[0] * phi[1] * phi[2];
      grad[p][1] = phi[0] * dphi[1] * phi[2];
      grad[p][2] = phi[0] * phi[1] * dphi[2];
    }
    for (int p = 0; p < 8; ++p)
      for (int i = 0; i < 3; ++i)
        for (int r = 0; r < 8; ++r)
          for (int kk = 0; kk < 3; ++kk) {
            double s = 0.0;
            for (int J = 0; J < 3; ++J)
              for (int L = 0; L < 3; ++L)
                s += grad[p][J] * a[9 * (3 * i + J) + 3 * kk + L] * grad[r][L];
            k[(3 * p + i) * n + 3 * r + kk] += weight * s;
          }
  }
  return k;
}

double CorotationalStep::reduction_per_cycle(int cycles) const {
  if (initial_residual <= 0.0 || final_residual < 0.0 || cycles <= 0) return -1.0;
  return std::pow(final_residual / initial_residual, 1.0 / cycles);
}

CorotationalSimulation::CorotationalSimulation(const Model& model, Backend& backend)
    : model_(model), dt_(model.spec.solver.time_step) {
  const CaseSpec& spec = model.spec;
  const ModelVoxels voxels = model_voxels(model);
  try {
    hierarchy_ = voxel::build_voxel_hierarchy(model.mesh, voxels.cells,
                                              spec.solver.multigrid.coarsest_vertices);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(spec.mesh.where, e.what(),
                     "solver type corotational needs a mesh of equal axis-aligned cubes: "
                     "mesh: {generator: voxels} or a segmented image");
  }
  VoxelMaterials materials;
  materials.element_material = voxels.block;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const std::array<double, 81> tangent = elastic_tangent(backend, model, b);
    const std::vector<double> k = voxel_stiffness(tangent, hierarchy_.edge);
    materials.stiffness.insert(materials.stiffness.end(), k.begin(), k.end());
    materials.tangent.insert(materials.tangent.end(), tangent.begin(), tangent.end());
    block_voxels_.push_back(model.blocks[b].num_elements());
  }
  // Lumped mass: an eighth of each voxel's mass at each corner.
  const double volume = hierarchy_.edge * hierarchy_.edge * hierarchy_.edge;
  mass_.assign(static_cast<std::size_t>(hierarchy_.levels[0].vertices), 0.0);
  for (std::int64_t e = 0; e < hierarchy_.elements; ++e) {
    const double m = model.blocks[voxels.block[e]].material_spec->density * volume / 8.0;
    total_mass_ += 8.0 * m;
    for (int p = 0; p < 8; ++p) mass_[hierarchy_.element_vertices[8 * e + p]] += m;
  }
  materials.mass = mass_;
  // The voxels' materials follow from block_voxels_ (blocks after one another), which
  // fingerprint() adds; only the per-material stiffness is hashed here, while it is at hand.
  Fingerprint stiffness_hash;
  stiffness_hash.add(materials.stiffness);
  stiffness_hash_ = stiffness_hash.value();
  operator_ = backend.create_voxel_operator(hierarchy_, materials, spec.precision);

  // The case's conditions, by fine vertex.
  for (const auto& [name, a] : spec.amplitudes) amplitudes_.push_back(&a.curve);
  const auto amplitude_index = [&](const std::string& name) {
    return static_cast<std::int32_t>(
        std::distance(spec.amplitudes.begin(), spec.amplitudes.find(name)));
  };
  for (const BoundaryConditionSpec& bc : spec.boundary_conditions)
    for (const std::int32_t node : model.mesh.node_sets.at(bc.set)) {
      const int v = hierarchy_.node_vertex[node];
      if (v < 0) continue;
      Prescribed& p = case_prescribed_[v];
      for (int c = 0; c < 3; ++c)
        if (bc.constrained[c]) {
          p.components = static_cast<std::uint8_t>(p.components | (1u << c));
          p.value[c] = bc.value[c];
          p.amplitude[c] = amplitude_index(bc.amplitude);
        }
    }
  for (const NodalLoadSpec& l : spec.loads)
    for (const std::int32_t node : model.mesh.node_sets.at(l.set)) {
      const int v = hierarchy_.node_vertex[node];
      if (v >= 0) case_loads_[v].push_back({l.force, amplitude_index(l.amplitude)});
    }
  if (spec.gravity) {
    gravity_ = spec.gravity->acceleration;
    gravity_amplitude_ = &spec.amplitudes.at(spec.gravity->amplitude).curve;
  }
  // The initial state: at rest, or the case's initial velocities.
  const std::size_t n = 3 * static_cast<std::size_t>(hierarchy_.levels[0].vertices);
  std::vector<double> u(n, 0.0), v(n, 0.0), a(n, 0.0);
  for (const InitialVelocitySpec& iv : spec.initial_velocities)
    for (const std::int32_t node : model.mesh.node_sets.at(iv.set)) {
      const int x = hierarchy_.node_vertex[node];
      if (x >= 0)
        for (int c = 0; c < 3; ++c) v[3 * x + c] = iv.velocity[c];
    }
  operator_->set_state(u, v, a);
  update_masks();
  update_conditions(0.0);
  // Pieces of the object with no prescribed dof float freely: solvable in dynamics (the mass
  // term), but in an image usually a speck or an organ the user did not mean to keep.
  std::vector<std::uint8_t> fixed(mass_.size(), 0);
  for (const auto& [x, p] : case_prescribed_) fixed[x] |= p.components;
  for (const std::string& line :
       voxel::loose_piece_warnings(voxel::voxel_pieces(hierarchy_, fixed), [&](std::int32_t x) {
         return std::int64_t{model.mesh.input_node_id(hierarchy_.vertex_node[x])};
       }))
    spdlog::warn("{}", line);
}

CorotationalSimulation::~CorotationalSimulation() = default;

int CorotationalSimulation::node_vertex(std::int32_t node) const {
  if (node < 0 || node >= static_cast<std::int32_t>(hierarchy_.node_vertex.size()) ||
      hierarchy_.node_vertex[node] < 0)
    throw Error("node " + std::to_string(node) + " is not a vertex of the voxel model");
  return hierarchy_.node_vertex[node];
}

void CorotationalSimulation::set_force(std::int32_t node, const std::array<double, 3>& force) {
  user_forces_[node_vertex(node)] = force;
}

void CorotationalSimulation::fix(std::int32_t node, const std::array<double, 3>& u,
                                 const std::array<bool, 3>& components) {
  Prescribed p;
  for (int c = 0; c < 3; ++c)
    if (components[c]) p.components = static_cast<std::uint8_t>(p.components | (1u << c));
  p.value = u;
  const int v = node_vertex(node);
  const auto it = user_fixed_.find(v);
  if (it == user_fixed_.end() || it->second.components != p.components) masks_dirty_ = true;
  user_fixed_[v] = p;
}

void CorotationalSimulation::release(std::int32_t node) {
  if (user_fixed_.erase(node_vertex(node)) > 0) masks_dirty_ = true;
}

void CorotationalSimulation::update_masks() {
  std::vector<std::uint8_t> fixed(static_cast<std::size_t>(hierarchy_.levels[0].vertices), 0);
  for (const auto& [v, p] : case_prescribed_) fixed[v] |= p.components;
  for (const auto& [v, p] : user_fixed_) fixed[v] |= p.components;
  operator_->set_masks(voxel::level_masks(hierarchy_, fixed),
                       std::vector<double>(3 * fixed.size(), 0.0));
  uploaded_.prescribed_at.clear();  // the prescribed values went back to zero
  uploaded_.prescribed.clear();
  masks_dirty_ = false;
}

void CorotationalSimulation::update_conditions(double t) {
  if (masks_dirty_) update_masks();
  // Prescribed values: the case's, then the user's over them (a second scatter).
  Uploads next;
  for (const auto& [v, p] : case_prescribed_) {
    next.prescribed_at.push_back(v);
    for (int c = 0; c < 3; ++c)
      next.prescribed.push_back(
          (p.components >> c) & 1 ? p.value[c] * evaluate(*amplitudes_[p.amplitude[c]], t) : 0.0);
  }
  for (const auto& [v, p] : user_fixed_) {
    next.prescribed_at.push_back(v);
    next.prescribed.insert(next.prescribed.end(), p.value.begin(), p.value.end());
  }
  // Forces: the case's loads plus the user's.
  for (const auto& [v, loads] : case_loads_) {
    std::array<double, 3> f{};
    if (const auto it = user_forces_.find(v); it != user_forces_.end()) f = it->second;
    for (const Load& l : loads)
      for (int c = 0; c < 3; ++c) f[c] += l.force[c] * evaluate(*amplitudes_[l.amplitude], t);
    next.forces_at.push_back(v);
    next.forces.insert(next.forces.end(), f.begin(), f.end());
  }
  for (const auto& [v, f] : user_forces_)
    if (case_loads_.count(v) == 0) {
      next.forces_at.push_back(v);
      next.forces.insert(next.forces.end(), f.begin(), f.end());
    }
  // Only what changed goes to the backend (constant loads and fixations: nothing after the
  // first step).
  if (next.prescribed_at != uploaded_.prescribed_at || next.prescribed != uploaded_.prescribed)
    operator_->set_prescribed(next.prescribed_at, next.prescribed);
  if (next.forces_at != uploaded_.forces_at || next.forces != uploaded_.forces)
    operator_->set_forces(next.forces_at, next.forces);
  uploaded_ = std::move(next);
}

/// Runs a verb; with timing on, waits for the backend and adds the wall time to `slot`.
template <class F>
decltype(auto) timed(VoxelOperator& op, bool on, double& slot, F&& verb) {
  struct Stop {
    VoxelOperator& op;
    bool on;
    double& slot;
    Clock::time_point start;
    ~Stop() {
      if (!on) return;
      op.synchronize();
      slot += seconds_since(start);
    }
  } stop{op, on, slot, Clock::now()};
  return verb();
}

double CorotationalSimulation::coarsest_tolerance() const {
  return model_.spec.solver.multigrid.coarsest_tolerance.value_or(
      default_coarsest_tolerance(static_cast<int>(hierarchy_.levels.size())));
}

void CorotationalSimulation::v_cycle(CorotationalStep& out) {
  const VoxelMultigridSpec& mg = model_.spec.solver.multigrid;
  VoxelOperator& op = *operator_;
  // How the coarsest solve went is read only in steps that measure the residual: reading it is
  // a round trip to a device.
  const bool report = out.initial_residual >= 0.0;
  const int iterations =
      voxel::v_cycle(op, 0, mg.pre_sweeps, mg.post_sweeps, mg.coarsest_iterations,
                     coarsest_tolerance(), report, [&](voxel::CycleVerb verb, const auto& run) {
                       double& slot = verb == voxel::CycleVerb::Smooth     ? phases_.smooth
                                      : verb == voxel::CycleVerb::Transfer ? phases_.transfer
                                                                           : phases_.coarsest;
                       timed(op, timing_, slot, run);
                     });
  if (report) out.coarsest_iterations = iterations;
}

CorotationalStep CorotationalSimulation::step() {
  const SolverSpec& solver = model_.spec.solver;
  VoxelOperator& op = *operator_;
  const double t = time_ + dt_;
  CorotationalStep out;
  out.step = step_ + 1;
  out.time = t;
  timed(op, timing_, phases_.conditions, [&] { update_conditions(t); });
  const auto [element, det] = timed(op, timing_, phases_.rotate, [&] { return op.rotate(); });
  if (element >= 0) {
    const std::int32_t node = hierarchy_.vertex_node[hierarchy_.element_vertices[8 * element]];
    throw SolveError(fmt::format(
        "voxel {} (the one with corner node {}) is inverted (det F = {:.4g}) at step {} "
        "(t = {:.6g} s)\n  hint: the loads or prescribed motions deform it beyond what "
        "co-rotated linear elasticity takes; reduce them, refine the voxels, or use solver type "
        "implicit_dynamic with a hyperelastic material",
        element, model_.mesh.input_node_id(node), det, out.step, t));
  }
  const double alpha = solver.mass_damping;
  VoxelStepScales scales;
  scales.mass_shift = 4.0 / (dt_ * dt_) + 2.0 * alpha / dt_;
  scales.velocity_scale = 4.0 / dt_ + alpha;
  scales.time_step = dt_;
  const double g = gravity_amplitude_ ? evaluate(*gravity_amplitude_, t) : 0.0;
  for (int c = 0; c < 3; ++c) scales.gravity[c] = gravity_[c] * g;
  const bool measure =
      solver.multigrid.residual_every > 0 && out.step % solver.multigrid.residual_every == 0;
  const auto relative_residual = [&] {
    const auto [r, b] = timed(op, timing_, phases_.residual, [&] { return op.residual_norms(0); });
    return b > 0.0 ? r / b : 0.0;
  };
  const auto solve = [&] {
    if (timing_) {  // each verb alone, so that its time is its own
      timed(op, timing_, phases_.assemble, [&] { op.assemble(scales); });
      timed(op, timing_, phases_.coarsen, [&] {
        for (int l = 1; l < op.levels(); ++l) op.coarsen(l);
      });
    } else {
      op.assemble_levels(scales);  // the coarse levels alongside the fine one where they can
    }
    if (measure) out.initial_residual = relative_residual();
    for (int c = 0; c < solver.multigrid.cycles; ++c) v_cycle(out);
    if (measure) {
      out.final_residual = relative_residual();
      if (!std::isfinite(out.final_residual))
        throw SolveError(fmt::format(
            "the V-cycles' solution is not finite at step {} (t = {:.6g} s)", out.step, t));
    }
    timed(op, timing_, phases_.newmark, [&] { op.newmark(dt_); });
  };
  // A step that neither measures nor times, with the scalars of the last one, is the same
  // sequence of kernels: recorded once (CUDA: a graph) and replayed with one launch.
  const bool same = !measure && !timing_ && same_scales(scales, last_scales_);
  if (!same) recorded_ = false;
  if (same && !recorded_) recorded_ = op.record(solve);
  if (same && recorded_)
    op.replay();
  else
    solve();
  last_scales_ = scales;
  time_ = t;
  ++step_;
  return out;
}

std::vector<std::int32_t> CorotationalSimulation::vertices_of(
    const std::vector<std::int32_t>& nodes) const {
  std::vector<std::int32_t> vertices;
  vertices.reserve(nodes.size());
  for (const std::int32_t n : nodes) vertices.push_back(node_vertex(n));
  return vertices;
}

void CorotationalSimulation::displacements(const std::vector<std::int32_t>& nodes,
                                           std::vector<double>& u) const {
  operator_->displacements(vertices_of(nodes), u);
}

void CorotationalSimulation::velocities(const std::vector<std::int32_t>& nodes,
                                        std::vector<double>& v) const {
  operator_->velocities(vertices_of(nodes), v);
}

void CorotationalSimulation::reaction_forces(const std::vector<std::int32_t>& nodes,
                                             std::vector<double>& f) const {
  // The gravity and forces of the last step (set for its end time, time_).
  const double g = gravity_amplitude_ ? evaluate(*gravity_amplitude_, time_) : 0.0;
  operator_->support_forces(vertices_of(nodes), model_.spec.solver.mass_damping,
                            {gravity_[0] * g, gravity_[1] * g, gravity_[2] * g}, f);
}

std::vector<BlockResults> CorotationalSimulation::element_results() const {
  std::vector<double> values;
  operator_->element_results(values);
  constexpr int n = kernels::voxel::kResultValues;
  std::vector<BlockResults> results(block_voxels_.size());
  std::size_t e = 0;  // the hierarchy's voxels are the blocks' cells, block after block
  for (std::size_t b = 0; b < results.size(); ++b) {
    BlockResults& r = results[b];
    for (std::int64_t i = 0; i < block_voxels_[b]; ++i, ++e) {
      const double* x = &values[n * e];
      r.cauchy_stress.insert(r.cauchy_stress.end(), x, x + 6);
      r.green_lagrange.insert(r.green_lagrange.end(), x + 6, x + 12);
      r.strain_energy.push_back(x[12]);
      r.min_jacobian.push_back(x[13]);
    }
  }
  return results;
}

void CorotationalSimulation::state(std::vector<double>& u, std::vector<double>& v,
                                   std::vector<double>* a) const {
  std::vector<double> uv, vv, av;
  operator_->state(uv, vv, av);
  const std::size_t n = static_cast<std::size_t>(model_.mesh.num_nodes());
  for (auto [to, from] : {std::pair{&u, &uv}, {&v, &vv}, {a, &av}}) {
    if (!to) continue;
    to->assign(3 * n, 0.0);
    for (std::size_t node = 0; node < n; ++node) {
      const std::int32_t x = hierarchy_.node_vertex[node];
      if (x >= 0)
        for (int c = 0; c < 3; ++c)
          (*to)[3 * node + c] = (*from)[3 * static_cast<std::size_t>(x) + c];
    }
  }
}

void CorotationalSimulation::restore(std::int64_t step, double time, const std::vector<double>& u,
                                     const std::vector<double>& v, const std::vector<double>& a) {
  const std::size_t n = 3 * static_cast<std::size_t>(hierarchy_.levels[0].vertices);
  std::vector<double> uv(n, 0.0), vv(n, 0.0), av(n, 0.0);
  for (auto [to, from] : {std::pair{&uv, &u}, {&vv, &v}, {&av, &a}})
    for (std::size_t node = 0; node < hierarchy_.node_vertex.size(); ++node) {
      const std::int32_t x = hierarchy_.node_vertex[node];
      if (x >= 0)
        for (int c = 0; c < 3; ++c)
          (*to)[3 * static_cast<std::size_t>(x) + c] = (*from)[3 * node + c];
    }
  operator_->set_state(uv, vv, av);
  step_ = step;
  time_ = time;
  recorded_ = false;
}

std::uint64_t CorotationalSimulation::fingerprint() const {
  if (fingerprint_) return *fingerprint_;
  Fingerprint h;
  h.add(stiffness_hash_);
  h.add(block_voxels_);
  h.add(hierarchy_.edge);
  for (const double x : hierarchy_.origin) h.add(x);
  h.add(hierarchy_.element_vertices);
  h.add(hierarchy_.vertex_node);
  h.add(mass_);
  h.add<std::uint64_t>(case_prescribed_.size());
  for (const auto& [x, p] : case_prescribed_) {
    h.add(x);
    h.add(p.components);
    for (int c = 0; c < 3; ++c)
      if ((p.components >> c) & 1) {
        h.add(p.value[c]);
        h.add(p.amplitude[c]);
      }
  }
  h.add<std::uint64_t>(case_loads_.size());
  for (const auto& [x, loads] : case_loads_)
    for (const Load& l : loads) {
      h.add(x);
      for (const double f : l.force) h.add(f);
      h.add(l.amplitude);
    }
  for (const double g : gravity_) h.add(g);
  if (gravity_amplitude_) add_amplitude(h, *gravity_amplitude_);
  h.add<std::uint64_t>(amplitudes_.size());
  for (const Amplitude* a : amplitudes_) add_amplitude(h, *a);
  fingerprint_ = h.value();
  return *fingerprint_;
}

CorotationalRunReport run_corotational(const Model& model, Backend& backend,
                                       const std::string& backend_name,
                                       const CorotationalRunOptions& options) {
  const CaseSpec& spec = model.spec;
  const Clock::time_point start = Clock::now();
  CorotationalRunReport report;
  report.backend = backend_name;
  report.execution_space = backend.execution_space();
  report.precision = to_string(spec.precision);
  report.nodes = model.mesh.num_nodes();
  report.elements = model.num_elements();
  CorotationalSimulation sim(model, backend);
  sim.set_timing(options.time_verbs);
  for (const voxel::VoxelLevel& l : sim.hierarchy().levels)
    report.level_vertices.push_back(l.real_vertices);
  report.time_step = sim.time_step();
  const std::int64_t steps =
      options.steps > 0
          ? options.steps
          : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(
                                          spec.solver.end_time / spec.solver.time_step)));
  const bool files = !options.output_directory.empty();
  const std::string& dir = options.output_directory;
  if (files) std::filesystem::create_directories(dir);
  // Checkpoints (output.checkpoint, and where a run is interrupted) hold the state of every mesh
  // node, as the other solvers' do, and a restart continues from one.
  const auto checkpointed = [&] {
    return CheckpointedRun{spec,
                           model.mesh.num_nodes(),
                           {},
                           model.num_elements(),
                           sim.fingerprint(),
                           sim.time_step(),
                           backend_name,
                           options.case_text};
  };
  std::optional<Checkpoint> restart;
  if (!options.restart_file.empty()) {
    const std::string& path = options.restart_file;
    restart = read_checkpoint(path);
    check_checkpoint(*restart, path, checkpointed());
    const auto has = [&](const char* name) {
      const auto it = restart->vectors.find(name);
      return it != restart->vectors.end() && it->second.size() == restart->displacement.size();
    };
    if (!has("velocity") || !has("acceleration"))
      throw CheckpointError("cannot restart from '" + path +
                            "': it lacks the velocity and acceleration of the corotational solver");
    if (restart->step >= steps)
      throw CheckpointError(fmt::format(
          "cannot restart from '{}': it is at step {} (t = {}) and this run ends at step {}: "
          "nothing is left to run (raise solver.end_time, e.g. with --end-time, to continue "
          "past it)",
          path, restart->step, restart->time, steps));
    sim.restore(restart->step, restart->time, restart->displacement,
                restart->vectors.at("velocity"), restart->vectors.at("acceleration"));
    spdlog::info("continuing from step {} (t = {}) of '{}'", restart->step, restart->time, path);
  }
  const Checkpoint* resume = restart ? &*restart : nullptr;
  std::unique_ptr<FrameSeries> series;
  if (files) {
    series = open_frame_series(model, dir, nullptr, {}, &backend);
    if (restart && series) resume_series(*series, *restart, dir);
  }
  const std::int64_t frame_every =
      output_cadence(spec.output.every_steps, spec.output.every_time, sim.time_step(),
                     std::max<std::int64_t>(1, steps / 20));
  // Histories: the mean displacement and velocity of node sets, and the sum of their reaction
  // forces where asked (one more small kernel and transfer).
  std::vector<HistoryRecorder> histories;
  for (const HistorySpec& h : spec.output.histories)
    histories.emplace_back(
        model, h, output_cadence(h.every_steps, h.every_time, sim.time_step(), frame_every),
        files ? dir : std::string(),
        resume_bytes(resume, (std::filesystem::path(dir) / (h.name + ".csv")).string()));
  const std::unique_ptr<CalculixDat> calculix_dat =
      open_calculix_dat(model, files ? dir : std::string(), histories,
                        restart ? std::optional<double>(restart->time) : std::nullopt);
  const std::int64_t checkpoint_every =
      spec.output.checkpoint && files
          ? output_cadence(spec.output.checkpoint->every_steps, spec.output.checkpoint->every_time,
                           sim.time_step(), 1)
          : 0;
  const auto write_checkpoint = [&](std::int64_t step) {
    const Clock::time_point t0 = Clock::now();
    Checkpoint c = checkpoint_header(checkpointed(), step, sim.time());
    sim.state(c.displacement, c.vectors["velocity"], &c.vectors["acceleration"]);
    report.checkpoint = write_run_checkpoint(c, spec, dir, step, series.get(), {}, histories);
    report.output_s += seconds_since(t0);
  };
  // The voxels' results (a pass over every voxel and a copy of 14 values each) once a step, for
  // the frame and every region's history that sample it.
  std::int64_t results_step = -1;
  std::vector<BlockResults> results;
  const auto results_at = [&](std::int64_t step) -> const std::vector<BlockResults>& {
    if (results_step != step) {
      results = sim.element_results();
      results_step = step;
    }
    return results;
  };
  std::vector<double> hu, hv, hf;
  const double voxel_volume = std::pow(sim.hierarchy().edge, 3);
  const auto sample = [&](std::int64_t step, bool last) {
    for (HistoryRecorder& h : histories) {
      if (step % h.every() != 0 && !last) continue;
      if (h.of_elements()) {
        h.record_elements(sim.time(), step, voxel_volume, results_at(step));
        continue;
      }
      sim.displacements(h.nodes(), hu);
      sim.velocities(h.nodes(), hv);
      std::array<double, 3> reaction{};
      const std::vector<std::string>& q = h.spec().quantities;
      if (std::find(q.begin(), q.end(), "reaction_force") != q.end()) {
        sim.reaction_forces(h.nodes(), hf);
        for (std::size_t i = 0; i < hf.size(); ++i) reaction[i % 3] += hf[i];
      }
      h.record(sim.time(), step, hu, hv, reaction);
    }
  };
  std::vector<double> u, v;
  // Element fields (stress, strain, block) only where a frame shows them.
  const std::vector<std::string>& fields = spec.output.fields;
  const bool element_fields = std::any_of(fields.begin(), fields.end(), [](const std::string& f) {
    return f != "displacement" && f != "velocity";
  });
  const std::vector<BlockResults> no_results;
  const auto frame = [&](std::int64_t step) {
    if (!series) return;
    const Clock::time_point t0 = Clock::now();
    sim.state(u, v);
    series->write(
        make_frame(spec, step, sim.time(), u, &v, element_fields ? results_at(step) : no_results));
    report.output_s += seconds_since(t0);
  };
  report.setup_s = seconds_since(start);
  const std::int64_t first = restart ? restart->step : 0;
  report.steps = first;
  report.first_step = first;
  if (!restart) {
    frame(0);
    sample(0, false);
  }
  double log_reduction = 0.0, coarsest = 0.0;
  std::int64_t measured = 0;
  const Clock::time_point loop = Clock::now();
  std::string status = "completed";
  std::string message;
  try {
    for (std::int64_t s = first + 1; s <= steps; ++s) {
      const CorotationalStep st = sim.step();
      const double rho = st.reduction_per_cycle(spec.solver.multigrid.cycles);
      if (rho > 0.0) {
        coarsest += st.coarsest_iterations;
        log_reduction += std::log(rho);
        report.worst_reduction = std::max(report.worst_reduction, rho);
        ++measured;
      }
      report.steps = s;
      if (s % frame_every == 0 || s == steps) frame(s);
      sample(s, s == steps);
      if (options.progress && (s % std::max<std::int64_t>(1, steps / 10) == 0 || s == steps))
        options.progress(s, steps, sim.time());
      if (checkpoint_every > 0 && s % checkpoint_every == 0 && s != steps) write_checkpoint(s);
      if (options.stop_requested && options.stop_requested() && s != steps) {
        // The checkpoint first: it records the output without the frame written next where the
        // cadence skipped this step (a restart replaces it).
        if (files && report.checkpoint != checkpoint_path(dir, spec.name, s)) write_checkpoint(s);
        if (s % frame_every != 0) frame(s);
        report.interrupted = true;
        status = "interrupted";
        break;
      }
    }
  } catch (const SolveError& e) {
    status = "failed";
    message = e.what();
    report.step_s = seconds_since(loop) - report.output_s;
    if (files) {
      if (series) series->flush();  // the .pvd/.xdmf list every frame before the summary
      RunSummary s = summary_header(spec, status, message,
                                    {report.backend, report.execution_space, report.precision,
                                     report.nodes, report.elements, sim.total_mass(), 0.0});
      s.set("time.steps", report.steps);
      write_summary_file(s, {}, options.output_directory);
    }
    throw;
  }
  sim.grid().synchronize();
  report.step_s = seconds_since(loop) - report.output_s;
  if (measured > 0) report.mean_reduction = std::exp(log_reduction / static_cast<double>(measured));
  report.mean_coarsest_iterations = measured > 0 ? coarsest / static_cast<double>(measured) : -1.0;
  report.phases = sim.phases();
  sim.state(u, v);
  report.final_displacement = u;
  for (std::size_t i = 0; i + 2 < u.size(); i += 3)
    report.max_displacement =
        std::max(report.max_displacement,
                 std::sqrt(u[i] * u[i] + u[i + 1] * u[i + 1] + u[i + 2] * u[i + 2]));
  report.total_s = seconds_since(start);
  if (files) {
    if (series) series->flush();  // the .pvd/.xdmf list every frame before the summary
    const double volume = static_cast<double>(report.elements) * std::pow(sim.hierarchy().edge, 3);
    RunSummary s = summary_header(spec, status, message,
                                  {report.backend, report.execution_space, report.precision,
                                   report.nodes, report.elements, sim.total_mass(), volume});
    s.set("time.end_time_s", sim.time());
    s.set("time.time_step_s", report.time_step);
    s.set("time.steps", report.steps);
    s.set("multigrid.levels", static_cast<std::int64_t>(report.level_vertices.size()));
    for (std::size_t l = 0; l < report.level_vertices.size(); ++l)
      s.set("multigrid.vertices_level_" + std::to_string(l), report.level_vertices[l]);
    s.set("multigrid.voxel_edge_m", sim.hierarchy().edge);
    s.set("multigrid.cycles_per_step", spec.solver.multigrid.cycles);
    s.set("multigrid.mean_residual_reduction_per_cycle", report.mean_reduction);
    s.set("multigrid.worst_residual_reduction_per_cycle", report.worst_reduction);
    s.set("multigrid.mean_coarsest_cg_iterations", report.mean_coarsest_iterations);
    s.set("multigrid.device_bytes", static_cast<std::int64_t>(sim.grid().memory_bytes()));
    s.set("timing.setup_s", report.setup_s);
    s.set("timing.step_s", report.step_s);
    s.set("timing.output_s", report.output_s);
    s.set("timing.total_s", report.total_s);
    if (options.time_verbs) {
      const CorotationalPhases& p = report.phases;
      for (const auto& [name, value] : {std::pair{"conditions", p.conditions},
                                        {"rotate", p.rotate},
                                        {"assemble", p.assemble},
                                        {"coarsen", p.coarsen},
                                        {"smooth", p.smooth},
                                        {"transfer", p.transfer},
                                        {"coarsest", p.coarsest},
                                        {"residual", p.residual},
                                        {"newmark", p.newmark}})
        s.set(std::string("timing.verbs.") + name + "_s", value);
    }
    s.set("throughput.steps_per_s", report.steps_per_second());
    s.set("result.max_displacement_m", report.max_displacement);
    report.files.push_back(write_summary_file(s, {}, options.output_directory));
  }
  return report;
}

}  // namespace fem
