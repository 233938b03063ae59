// The elastodynamic solver (fem/solver/wave_solver.hpp): setup, the stepping loop over the
// backend's wave verbs, receivers, frames and the summary.
#include "fem/solver/wave_solver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "../wall_clock.hpp"
#include "fem/error.hpp"
#include "fem/output/receiver_traces.hpp"
#include "fem/parallel/output_piece.hpp"
#include "fem/solver/run_output.hpp"
#include "wave_partition.hpp"

namespace fem {

namespace {

/// The element (block, element) with node n, for messages.
std::string element_at_node(const Model& model, std::int32_t n) {
  for (const ModelBlock& b : model.blocks) {
    const int npe = b.element->num_nodes;
    for (std::int64_t e = 0; e < b.num_elements(); ++e)
      for (int a = 0; a < npe; ++a)
        if (b.connectivity[e * npe + a] == n) return element_label(model, b, e);
  }
  return "node " + std::to_string(model.mesh.input_node_id(n));
}

void refuse_families(const Model& model) {
  for (const ModelBlock& b : model.blocks)
    if (b.element->family != Family::Isoparametric)
      throw InputError(b.spec->where,
                       "block '" + b.spec->name + "' uses element '" + b.spec->element + "' (" +
                           to_string(b.element->family) +
                           "), and solver type elastodynamic integrates the element stiffness "
                           "exactly: isoparametric elements only",
                       "use element hex8 (full integration) or tet4");
}

/// A receiver resolved to nodes.
struct ReceiverNodes {
  std::vector<std::int32_t> nodes;
};

ReceiverNodes receiver_nodes(const Model& model, const ReceiverSpec& r) {
  ReceiverNodes out;
  if (!r.set.empty()) {
    const auto it = model.mesh.node_sets.find(r.set);
    if (it == model.mesh.node_sets.end() || it->second.empty())
      throw InputError(
          r.where,
          "receiver '" + r.name + "': node set '" + r.set + "' matches no node of the mesh",
          "check the set's selector against the mesh's extent (fem check prints "
          "the bounding box)");
    out.nodes = it->second;
    return out;
  }
  // The node nearest the point; a point outside the mesh's box (1 % of its diagonal of slack)
  // is a mistake, not a request for the nearest corner.
  const std::array<double, 3> p = *r.point;
  const auto box = model.mesh.bounds();
  const double slack =
      0.01 * std::hypot(box[1][0] - box[0][0], box[1][1] - box[0][1], box[1][2] - box[0][2]);
  for (int i = 0; i < 3; ++i)
    if (p[i] < box[0][i] - slack || p[i] > box[1][i] + slack)
      throw InputError(r.where,
                       fmt::format("receiver '{}': point [{}, {}, {}] lies outside the mesh, "
                                   "whose box is [{}, {}, {}] to [{}, {}, {}]",
                                   r.name, p[0], p[1], p[2], box[0][0], box[0][1], box[0][2],
                                   box[1][0], box[1][1], box[1][2]),
                       "give a point inside the body (its nearest node is recorded)");
  double best = std::numeric_limits<double>::max();
  std::int32_t node = 0;
  for (std::int64_t n = 0; n < model.mesh.num_nodes(); ++n) {
    const auto q = model.mesh.node(n);
    const double d = std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    if (d < best) {
      best = d;
      node = static_cast<std::int32_t>(n);
    }
  }
  out.nodes = {node};
  return out;
}

/// Groups of `dim` components (x, y on a plane model) widened in place to x, y, z (z = 0), the
/// layout of frames, receiver files and reports.
void to_three_components(std::vector<double>& v, int dim) {
  if (dim == 3) return;
  const std::size_t groups = v.size() / static_cast<std::size_t>(dim);
  v.resize(3 * groups);
  for (std::size_t g = groups; g-- > 0;) {
    v[3 * g + 2] = 0.0;
    for (int i = dim; i-- > 0;)
      v[3 * g + static_cast<std::size_t>(i)] = v[dim * g + static_cast<std::size_t>(i)];
  }
}

bool wants_cell_fields(const CaseSpec& spec) {
  for (const std::string& f : spec.output.fields)
    if (f != "displacement" && f != "velocity") return true;
  return false;
}

}  // namespace

double wave_step_bytes(const BlockCsrMatrix& m, int value_bytes) {
  const double bs = m.block_size;
  const double blocks = static_cast<double>(m.blocks());
  const double rows = static_cast<double>(m.rows);
  return blocks * (bs * bs * value_bytes + 4.0) + (rows + 1.0) * 8.0 +
         rows * bs * value_bytes * 4.0 + rows * value_bytes;
}

WaveSetup setup_waves(const Model& model, Backend& backend) {
  const Clock::time_point start = Clock::now();
  const CaseSpec& spec = model.spec;
  refuse_families(model);
  WaveSetup w;
  PhaseLog phases("elastodynamic setup");
  w.explicit_setup = setup_explicit(model);
  phases.done("geometry and conditions");
  const System& sys = w.explicit_setup.system;
  const std::int64_t nn = sys.num_nodes;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    w.tangents.push_back(elastic_tangent(backend, model, b));
    w.wave_speeds.push_back(
        largest_wave_speed(w.tangents.back(), model.blocks[b].material_spec->density));
  }
  phases.done("material tangents");
  const NodeGraph graph = tangent_graph(sys);
  const AbsorbingProfile layers = absorbing_profile(model, graph);
  w.matrix = assemble_wave_stiffness(sys, w.tangents, graph, layers.stiffness_scale);
  // The reference geometry (gradients at every quadrature point: 1.5 kB a hexahedron) is not
  // needed again unless frames ask for stress or strain: the largest models need the memory.
  if (!wants_cell_fields(spec))
    for (BlockSystem& b : w.explicit_setup.system.blocks) {
      HostArray<double>().swap(b.shape_gradients);
      HostArray<double>().swap(b.quadrature_volumes);
    }
  phases.done("stiffness");

  // A plane-strain model moves in x and y: its z dofs are held (plane strain), left out of the
  // stability limit and of the step's vectors.
  const int dim = model.mesh.dimension();
  w.dofs_per_node = dim;
  std::vector<bool> free_dof(static_cast<std::size_t>(3 * nn));
  for (std::int64_t d = 0; d < 3 * nn; ++d) {
    free_dof[d] = sys.prescribed_amplitude[d] < 0 && d % 3 < dim;
    w.free_dofs += free_dof[d] ? 1 : 0;
  }
  // Position of 3-component dof d in the step's vectors (dim components a node).
  const auto packed = [dim](std::int64_t d) { return dim * (d / 3) + d % 3; };
  w.limit = stability_limit(w.matrix, sys.lumped_mass, free_dof);
  phases.done(fmt::format("stability limit ({} Lanczos iterations)", w.limit.iterations));
  const double critical = w.limit.critical_time_step;
  double dt =
      spec.solver.time_step > 0.0 ? spec.solver.time_step : spec.solver.safety_factor * critical;
  if (spec.solver.time_step > 0.0 && critical > 0.0 && spec.solver.time_step > critical)
    throw InputError(
        spec.solver.where,
        fmt::format("solver.time_step {:.6g} s exceeds the stability limit {:.6g} s of this mesh "
                    "(2 / sqrt(largest eigenvalue of M^-1 K), set around {})",
                    spec.solver.time_step, critical, element_at_node(model, w.limit.node)),
        fmt::format("use time_step: auto (safety_factor x the limit) or at most {:.6g} s",
                    critical));
  if (!(dt > 0.0)) dt = spec.solver.end_time;  // nothing moves: one step
  w.num_steps = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(spec.solver.end_time / dt - 1e-9)));
  w.time_step = spec.solver.end_time / static_cast<double>(w.num_steps);
  dt = w.time_step;

  // Per node: damping d, a = 2 dt^2 / (m (2 + d dt)), b = (2 - d dt) / (2 + d dt); K rows
  // scaled by -a, the rows of prescribed dofs zero (they move only by their sources).
  w.damping = layers.damping;
  for (double& d : w.damping) d += spec.solver.mass_damping;
  std::vector<double> a(static_cast<std::size_t>(nn));
  w.b.resize(static_cast<std::size_t>(nn));
  for (std::int64_t n = 0; n < nn; ++n) {
    const double dd = w.damping[n] * dt;
    a[n] = 2.0 * dt * dt / (sys.lumped_mass[n] * (2.0 + dd));
    w.b[n] = (2.0 - dd) / (2.0 + dd);
  }
  // The step's matrix: -a K without the diagonal blocks (the rows of K sum to zero:
  // fem/kernels/wave_step.hpp), rows of prescribed dofs zero.
  // On a plane model the blocks keep their x-y part (u_z = 0).
  const BlockCsrMatrix full = std::move(w.matrix);
  BlockCsrMatrix& k = w.matrix;
  const int bs2 = dim * dim;
  k.block_size = dim;
  k.rows = nn;
  k.offsets.assign(static_cast<std::size_t>(nn + 1), 0);
  for (std::int64_t n = 0; n < nn; ++n)
    k.offsets[n + 1] = k.offsets[n] + (full.offsets[n + 1] - full.offsets[n]) - 1;
  k.columns.resize(static_cast<std::size_t>(k.offsets[nn]));
  k.values.resize(bs2 * k.columns.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t n = 0; n < nn; ++n) {
    std::int64_t p = k.offsets[n];
    for (std::int64_t j = full.offsets[n]; j < full.offsets[n + 1]; ++j) {
      if (full.columns[j] == n) continue;
      k.columns[p] = full.columns[j];
      for (int i = 0; i < dim; ++i)
        for (int c = 0; c < dim; ++c)
          k.values[bs2 * p + dim * i + c] =
              free_dof[3 * n + i] ? -a[n] * full.values[9 * j + 3 * i + c] : 0.0;
      ++p;
    }
  }

  std::map<std::pair<int, std::int32_t>, WaveSource> sources;
  for (std::int64_t d = 0; d < 3 * nn; ++d) {
    if (sys.load_amplitude[d] >= 0 && sys.load_value[d] != 0.0 && free_dof[d]) {
      WaveSource& s = sources[{0, sys.load_amplitude[d]}];
      s.mode = SourceMode::Force;
      s.amplitude = sys.load_amplitude[d];
      s.dofs.push_back(packed(d));
      s.weights.push_back(a[d / 3] * sys.load_value[d]);
    }
    if (sys.prescribed_amplitude[d] >= 0 && sys.prescribed_value[d] != 0.0 && d % 3 < dim) {
      WaveSource& s = sources[{1, sys.prescribed_amplitude[d]}];
      s.mode = SourceMode::Displacement;
      s.amplitude = sys.prescribed_amplitude[d];
      s.dofs.push_back(packed(d));
      s.weights.push_back(sys.prescribed_value[d]);
    }
  }
  for (auto& [key, s] : sources) w.sources.push_back(std::move(s));
  phases.done("step matrix, damping and sources");

  // The explicit setup's u_{-1} = u_0 - dt_explicit v_0: the increment scales with the step.
  w.initial_displacement.assign(static_cast<std::size_t>(dim * nn), 0.0);
  w.initial_increment.assign(static_cast<std::size_t>(dim * nn), 0.0);
  for (std::int64_t d = 0; d < 3 * nn; ++d) {
    if (d % 3 >= dim) continue;
    w.initial_displacement[packed(d)] = sys.initial_displacement[d];
    w.initial_increment[packed(d)] =
        free_dof[d] ? (sys.initial_displacement[d] - sys.initial_previous_displacement[d]) * dt /
                          sys.time_step
                    : 0.0;
  }
  w.setup_s = seconds_since(start);
  return w;
}

WaveSolver::WaveSolver(const Model& model, Backend& backend, std::string backend_name,
                       parallel::Communicator* comm)
    : WaveSolver(model, backend, std::move(backend_name), setup_waves(model, backend), comm) {}

WaveSolver::WaveSolver(const Model& model, Backend& backend, std::string backend_name,
                       WaveSetup setup, parallel::Communicator* comm)
    : model_(model),
      backend_(backend),
      backend_name_(std::move(backend_name)),
      setup_(std::move(setup)),
      comm_(comm != nullptr && comm->size() > 1 ? comm : nullptr) {}

WaveRunReport WaveSolver::run(const WaveRunOptions& options) {
  const Clock::time_point start = Clock::now();
  const CaseSpec& spec = model_.spec;
  const System& sys = setup_.explicit_setup.system;
  const std::int64_t global_nodes = sys.num_nodes;
  const double dt = setup_.time_step;
  const std::int64_t steps = options.steps > 0 ? options.steps : setup_.num_steps;
  WaveRunReport report;
  report.time_step = dt;
  report.critical_time_step = setup_.limit.critical_time_step;
  report.end_time = static_cast<double>(steps) * dt;
  report.num_nodes = global_nodes;
  report.num_elements = model_.num_elements();
  const int dim = setup_.dofs_per_node;
  report.dofs = dim * global_nodes;
  report.matrix_blocks = setup_.matrix.blocks();
  report.backend = backend_name_;
  report.execution_space = backend_.execution_space();
  report.precision = to_string(spec.precision);
  report.bytes_per_step =
      wave_step_bytes(setup_.matrix, spec.precision == Precision::Single ? 4 : 8);

  if (setup_.matrix.rows != global_nodes)
    throw Error("WaveSolver::run: a solver runs once (its host matrix went to the backend)");
  // On several ranks this rank steps its part: the owned nodes' rows, the ghosts' values from
  // their owners after every step (wave_partition.hpp). `nn` counts the nodes this rank holds.
  std::optional<WavePart> share;
  if (comm_) {
    share = partition_waves(setup_, *comm_);
    const parallel::MeshPartition& p = share->partition;
    spdlog::info("mesh split over {} ranks (METIS): imbalance {:.3f}, edge cut {}, shared nodes {}",
                 p.parts, p.imbalance, p.edge_cut, p.shared_nodes);
  }
  const bool speaks = !comm_ || comm_->rank() == 0;
  BlockCsrMatrix& step_matrix = share ? share->matrix : setup_.matrix;
  const std::int64_t nn = step_matrix.rows;
  // This rank's position of global node g where it owns it, -1 elsewhere.
  std::vector<std::int32_t> owned_position;
  if (share) {
    owned_position.assign(static_cast<std::size_t>(global_nodes), -1);
    for (std::size_t i = 0; i < share->part.nodes.size(); ++i)
      if (!share->part.ghost[i])
        owned_position[share->part.nodes[i]] = static_cast<std::int32_t>(i);
  }
  const auto position_of = [&](std::int32_t g) { return share ? owned_position[g] : g; };

  std::unique_ptr<LinearAlgebra> la = backend_.create_linear_algebra(spec.precision);
  la->set_timing(false);
  const std::unique_ptr<Matrix> k = la->block_matrix(step_matrix);
  // The largest models need the host's memory back (the matrix is the bulk of a run's bytes).
  step_matrix = BlockCsrMatrix{};
  auto b = la->vector(nn), u = la->vector(dim * nn), v = la->vector(dim * nn),
       u_next = la->vector(dim * nn);
  la->upload(share ? share->b : setup_.b, *b);
  la->upload(share ? share->initial_displacement : setup_.initial_displacement, *u);
  la->upload(share ? share->initial_increment : setup_.initial_increment, *v);
  std::unique_ptr<WaveHalo> halo;
  // The largest part's nodes, ghosts and halo bytes a step (summary.json).
  std::int64_t part_sizes[3] = {0, 0, 0};
  if (share) {
    halo = std::make_unique<WaveHalo>(share->part, dim, *la, *comm_);
    const auto ghosts = std::count(share->part.ghost.begin(), share->part.ghost.end(), 1);
    part_sizes[0] = nn;
    part_sizes[1] = static_cast<std::int64_t>(ghosts);
    part_sizes[2] = halo->send_bytes(spec.precision == Precision::Single ? 4 : 8);
    comm_->all_reduce(part_sizes, 3, parallel::Reduction::Max);
  }
  struct DeviceSource {
    const WaveSource* source;
    std::unique_ptr<Indices> at;
    std::unique_ptr<Vector> weights;
  };
  std::vector<DeviceSource> sources;
  for (const WaveSource& s : share ? share->sources : setup_.sources) {
    DeviceSource d{&s, la->indices(s.dofs),
                   la->vector(static_cast<std::int64_t>(s.weights.size()))};
    la->upload(s.weights, *d.weights);
    sources.push_back(std::move(d));
  }

  // Receivers: dofs on the device, samples gathered into a device buffer, flushed when full.
  const bool files = !options.output_directory.empty();
  if (files) std::filesystem::create_directories(options.output_directory);
  std::vector<std::string> formats = spec.output.receiver_formats;
  if (formats.empty()) formats = {hdf5_output_available() ? "hdf5" : "csv"};
  std::unique_ptr<ReceiverTraces> writer;  // rank 0 writes every receiver
  if (files && speaks && !spec.output.receivers.empty())
    writer = std::make_unique<ReceiverTraces>(options.output_directory, formats);
  // Receivers of one cadence (every_steps) are sampled together: one gather per quantity for
  // all of them (the step's per-sample launches, not the receivers, cost time on small models),
  // into a device buffer of rows [displacement dofs..., velocity dofs...], flushed when full.
  // On several ranks each samples the dofs it owns, and a flush puts the rows together.
  struct Cadence {
    struct Member {
      std::size_t receiver = 0;
      std::int64_t dofs = 0;
      std::int64_t offset[2] = {-1, -1};  ///< into the displacement / velocity part of a row
      int index = -1;                     ///< the writer's
    };
    std::int64_t every = 1, row = 0, capacity = 0, count = 0;
    std::vector<std::int64_t> dofs[2];         ///< a row's, gathered from u / from v (global dofs)
    std::vector<std::int64_t> mine[2];         ///< the positions of those this rank owns
    std::vector<std::int64_t> places;          ///< where in a row each of this rank's samples goes
    std::vector<std::int64_t> all_places;      ///< every rank's places, in rank order
    std::vector<std::size_t> places_per_rank;  ///< several ranks: their counts
    std::unique_ptr<Indices> at[2];
    std::unique_ptr<Vector> buffer;
    std::vector<double> times;
    std::vector<std::int64_t> steps;
    std::vector<Member> members;
    /// Where the displacement (part 0) or velocity (part 1) samples begin in a row.
    [[nodiscard]] std::int64_t start(int part) const {
      return part == 1 ? static_cast<std::int64_t>(dofs[0].size()) : 0;
    }
  };
  std::vector<Cadence> cadences;
  for (std::size_t r = 0; r < spec.output.receivers.size(); ++r) {
    const ReceiverSpec& rs = spec.output.receivers[r];
    const ReceiverNodes nodes = receiver_nodes(model_, rs);
    auto c = std::find_if(cadences.begin(), cadences.end(),
                          [&](const Cadence& x) { return x.every == rs.every_steps; });
    if (c == cadences.end()) {
      cadences.emplace_back();
      c = cadences.end() - 1;
      c->every = rs.every_steps;
    }
    Cadence::Member m;
    m.receiver = r;
    m.dofs = dim * static_cast<std::int64_t>(nodes.nodes.size());
    std::vector<std::int32_t> ids;
    std::vector<double> coords;
    for (const std::int32_t n : nodes.nodes) {
      ids.push_back(model_.mesh.input_node_id(n));
      const auto x = model_.mesh.node(n);
      coords.insert(coords.end(), x.begin(), x.end());
    }
    for (const std::string& q : rs.quantities) {
      const int part = q == "velocity" ? 1 : 0;
      m.offset[part] = static_cast<std::int64_t>(c->dofs[part].size());
      for (const std::int32_t n : nodes.nodes)
        for (int i = 0; i < dim; ++i)
          c->dofs[part].push_back(dim * static_cast<std::int64_t>(n) + i);
    }
    if (writer) m.index = writer->add(rs.name, ids, coords, rs.quantities);
    c->members.push_back(m);
  }
  for (Cadence& c : cadences) {
    c.row = static_cast<std::int64_t>(c.dofs[0].size() + c.dofs[1].size());
    for (int q = 0; q < 2; ++q)
      for (std::size_t i = 0; i < c.dofs[q].size(); ++i) {
        const std::int64_t d = c.dofs[q][i];
        const std::int32_t at = position_of(static_cast<std::int32_t>(d / dim));
        if (at < 0) continue;
        c.mine[q].push_back(dim * static_cast<std::int64_t>(at) + d % dim);
        c.places.push_back(c.start(q) + static_cast<std::int64_t>(i));
      }
    if (comm_) c.all_places = comm_->all_gather(c.places, &c.places_per_rank);
    // Up to 1024 samples or 32 MiB a flush (the same on every rank: the flushes are collective).
    c.capacity = std::clamp<std::int64_t>((std::int64_t{32} << 20) / (8 * c.row), 1, 1024);
    for (int q = 0; q < 2; ++q)
      if (!c.mine[q].empty()) c.at[q] = la->indices(c.mine[q]);
    if (!c.places.empty())
      c.buffer = la->vector(c.capacity * static_cast<std::int64_t>(c.places.size()));
  }
  report.traces.resize(spec.output.receivers.size());
  report.trace_times.resize(spec.output.receivers.size());
  std::vector<double> host, mine, values;
  const auto flush = [&](Cadence& c) {
    if (c.count == 0) return;
    const auto own = static_cast<std::int64_t>(c.places.size());
    mine.clear();
    if (c.buffer) la->download(*c.buffer, mine);
    mine.resize(static_cast<std::size_t>(c.count * own));
    if (!comm_) {
      host.swap(mine);  // one process: its places are the row
    } else {
      std::vector<std::size_t> counts;
      const std::vector<double> all = comm_->all_gather(mine, &counts);
      host.assign(static_cast<std::size_t>(c.count * c.row), 0.0);
      std::size_t from = 0, first_place = 0;
      for (const std::size_t places : c.places_per_rank) {
        for (std::int64_t s = 0; s < c.count; ++s)
          for (std::size_t j = 0; j < places; ++j)
            host[s * c.row + c.all_places[first_place + j]] = all[from++];
        first_place += places;
      }
    }
    for (const Cadence::Member& m : c.members) {
      const std::vector<std::string>& quantities = spec.output.receivers[m.receiver].quantities;
      // values[sample][quantity][node][dim], velocities as the step's mean (v / dt)
      values.clear();
      for (std::int64_t s = 0; s < c.count; ++s)
        for (const std::string& q : quantities) {
          const int part = q == "velocity" ? 1 : 0;
          const double scale = part == 1 ? 1.0 / dt : 1.0;
          const double* from = host.data() + s * c.row + c.start(part) + m.offset[part];
          for (std::int64_t i = 0; i < m.dofs; ++i) values.push_back(scale * from[i]);
        }
      to_three_components(values, dim);
      if (writer) writer->append(m.index, c.times, c.steps, values);
      if (options.keep_traces) {
        std::vector<double>& trace = report.traces[m.receiver];
        trace.insert(trace.end(), values.begin(), values.end());
        std::vector<double>& times = report.trace_times[m.receiver];
        times.insert(times.end(), c.times.begin(), c.times.end());
      }
    }
    c.count = 0;
    c.times.clear();
    c.steps.clear();
  };
  const auto flush_all = [&] {
    for (Cadence& c : cadences) flush(c);
  };
  const auto sample = [&](std::int64_t step) {
    for (Cadence& c : cadences) {
      if (step % c.every != 0) continue;
      const auto own = static_cast<std::int64_t>(c.places.size());
      for (int q = 0; q < 2; ++q)
        if (c.at[q])
          la->gather(q == 1 ? *v : *u, *c.at[q], *c.buffer,
                     c.count * own + (q == 1 ? static_cast<std::int64_t>(c.mine[0].size()) : 0));
      c.times.push_back(static_cast<double>(step) * dt);
      c.steps.push_back(step);
      if (++c.count == c.capacity) flush(c);
    }
  };

  // Frames: displacement and the step's mean velocity; element results when asked for. On
  // several ranks each writes the piece of the cells it owns (a .pvtu series).
  std::unique_ptr<FrameSeries> series;
  std::optional<parallel::OutputPiece> piece;
  if (files && share) {
    const OutputMesh mesh = output_mesh(model_);
    piece = parallel::output_piece(mesh, share->partition.element_part, comm_->rank());
    const OutputMesh piece_mesh = parallel::piece_mesh(mesh, *piece);
    series = open_frame_series(model_, options.output_directory, &piece_mesh, SeriesPiece{comm_},
                               &backend_);
  } else if (files) {
    series = open_frame_series(model_, options.output_directory, nullptr, {}, &backend_);
  }
  // Values of the part's nodes (3 per node) placed in a vector of every node's, zero elsewhere.
  const auto in_global_numbering = [&](std::vector<double>& x) {
    if (!share) return;
    std::vector<double> all(static_cast<std::size_t>(3 * global_nodes), 0.0);
    for (std::size_t i = 0; i < share->part.nodes.size(); ++i)
      std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(3 * i), 3,
                  all.begin() + 3 * static_cast<std::ptrdiff_t>(share->part.nodes[i]));
    x.swap(all);
  };
  // Element results (stress, strain) for frames that ask for them: on several ranks from the
  // part's System (its elements, owned and ghost), the owned ones placed in whole-block arrays.
  std::unique_ptr<LinearAlgebra> results_algebra;
  std::optional<System> part_system;
  std::unique_ptr<NonlinearOperator> results_operator;
  const auto element_results = [&](const std::vector<double>& u_part) {
    if (!results_operator) {
      results_algebra = backend_.create_linear_algebra(spec.precision);
      if (share) part_system.emplace(parallel::restrict_system(sys, share->part));
      results_operator = backend_.create_operator(share ? *part_system : sys, *results_algebra);
    }
    std::vector<BlockResults> results;
    results_operator->element_results(u_part, results);
    if (!share) return results;
    std::vector<BlockResults> whole(results.size());
    for (std::size_t block = 0; block < results.size(); ++block) {
      const auto elements = static_cast<std::size_t>(sys.blocks[block].num_elements);
      const auto place = [&](const std::vector<double>& part_values, std::vector<double>& out) {
        if (part_values.empty()) return;
        const std::size_t per = part_values.size() / share->part.elements[block].size();
        out.assign(elements * per, 0.0);
        for (const std::int64_t owned : share->part.owned_elements[block])
          std::copy_n(
              part_values.begin() + static_cast<std::ptrdiff_t>(per * owned), per,
              out.begin() + static_cast<std::ptrdiff_t>(per * share->part.elements[block][owned]));
      };
      place(results[block].cauchy_stress, whole[block].cauchy_stress);
      place(results[block].green_lagrange, whole[block].green_lagrange);
      place(results[block].strain_energy, whole[block].strain_energy);
      place(results[block].hourglass_energy, whole[block].hourglass_energy);
      place(results[block].min_jacobian, whole[block].min_jacobian);
    }
    return whole;
  };
  const std::int64_t frame_every = output_cadence(spec.output.every_steps, spec.output.every_time,
                                                  dt, std::max<std::int64_t>(1, steps / 20));
  double output_s = 0.0;
  std::vector<double> hu, hv;
  const auto frame = [&](std::int64_t step) {
    const Clock::time_point t0 = Clock::now();
    la->download(*u, hu);
    to_three_components(hu, dim);
    bool finite = std::all_of(hu.begin(), hu.end(), [](double x) { return std::isfinite(x); });
    if (comm_)  // every rank stops, and rank 0 says why
      finite = comm_->all_reduce(std::int64_t{finite ? 1 : 0}, parallel::Reduction::Min) != 0;
    if (!finite)
      throw SolveError(fmt::format(
          "the wave solution is not finite at step {} (t = {:.6g} s): time step {:.6g} s, "
          "stability limit {:.6g} s\n  hint: report this with the case: a step below the limit "
          "should not diverge",
          step, static_cast<double>(step) * dt, dt, setup_.limit.critical_time_step));
    if (series) {
      la->download(*v, hv);
      if (halo) halo->exchange(hv);  // a ghost's increment is its owner's, to the bit
      to_three_components(hv, dim);
      for (double& x : hv) x /= dt;
      std::vector<BlockResults> results;
      if (wants_cell_fields(spec)) results = element_results(hu);
      in_global_numbering(hu);
      in_global_numbering(hv);
      OutputFrame f = make_frame(spec, step, static_cast<double>(step) * dt, hu, &hv, results);
      series->write(piece ? parallel::piece_frame(f, *piece) : std::move(f));
    }
    output_s += seconds_since(t0);
  };

  report.setup_s = setup_.setup_s + seconds_since(start);
  frame(0);
  sample(0);
  const Clock::time_point loop = Clock::now();
  double excluded = 0.0;  // frames and flushes inside the loop
  std::int64_t step = 0;
  std::size_t lap = 0;
  const std::int64_t progress_every = std::max<std::int64_t>(1, steps / 10);
  for (; step < steps; ++step) {
    const double t = static_cast<double>(step) * dt;
    la->wave_step(*k, *b, *u, *v, *u_next);
    for (const DeviceSource& s : sources) {
      const std::size_t index = static_cast<std::size_t>(s.source->amplitude);
      // A force acts at t_n (eq. 2 of seed 002); a prescribed displacement is u(t_{n+1}).
      const double at = s.source->mode == SourceMode::Force ? t : t + dt;
      // Sampled signals from files are evaluated here, on the host, at any length.
      const SignalTable* table = setup_.explicit_setup.amplitude_tables[index].get();
      const double value = table ? table->at(at) : evaluate(sys.amplitudes[index], at);
      // A force of zero adds nothing: after a burst no launch a step (small models feel each).
      if (value == 0.0 && s.source->mode == SourceMode::Force) continue;
      la->wave_source(*s.at, *s.weights, value, s.source->mode, *u, *v, *u_next);
    }
    std::swap(u, u_next);
    if (halo) halo->exchange(*u_next, *v, *u);  // u_next holds the state before the step
    const std::int64_t done = step + 1;
    sample(done);
    if (done % frame_every == 0 || done == steps) {
      la->synchronize();
      const Clock::time_point t0 = Clock::now();
      try {
        frame(done);
      } catch (const SolveError&) {
        // Bad input loses nothing: the receivers' samples up to here reach their files (the
        // last ones may already hold the growing solution), then the run stops.
        flush_all();
        throw;
      }
      excluded += seconds_since(t0);
    }
    if (lap < options.lap_steps.size() && done == options.lap_steps[lap]) {
      la->synchronize();
      report.lap_seconds.push_back(seconds_since(loop) - excluded);
      ++lap;
    }
    if (options.progress && done % progress_every == 0)
      options.progress(done, steps, static_cast<double>(done) * dt);
    if (options.stop_requested && done % 256 == 0) {
      bool stop = options.stop_requested();
      if (comm_)  // a signal to any rank stops all at the same step
        stop = comm_->all_reduce(std::int64_t{stop ? 1 : 0}, parallel::Reduction::Max) != 0;
      if (stop) {
        report.interrupted = true;
        ++step;
        break;
      }
    }
  }
  la->synchronize();
  report.step_s = seconds_since(loop) - excluded;
  report.steps = step;
  const Clock::time_point t0 = Clock::now();
  flush_all();
  output_s += seconds_since(t0);
  if (report.interrupted) frame(step);
  la->download(*u, report.final_displacement);
  if (share) {  // every node's, from its owner
    std::vector<std::int32_t> ids;
    std::vector<double> owned_values;
    for (std::size_t i = 0; i < share->part.nodes.size(); ++i) {
      if (share->part.ghost[i]) continue;
      ids.push_back(share->part.nodes[i]);
      for (int c = 0; c < dim; ++c) owned_values.push_back(report.final_displacement[dim * i + c]);
    }
    const std::vector<std::int32_t> all_ids = comm_->all_gather(ids);
    const std::vector<double> all_values = comm_->all_gather(owned_values);
    report.final_displacement.assign(static_cast<std::size_t>(dim * global_nodes), 0.0);
    for (std::size_t j = 0; j < all_ids.size(); ++j)
      std::copy_n(
          all_values.begin() + static_cast<std::ptrdiff_t>(dim * j), dim,
          report.final_displacement.begin() + dim * static_cast<std::ptrdiff_t>(all_ids[j]));
  }
  to_three_components(report.final_displacement, dim);
  for (const double x : report.final_displacement)
    report.max_displacement = std::max(report.max_displacement, std::abs(x));
  report.output_s = output_s;
  if (writer) report.files = writer->files();
  report.total_s = seconds_since(start) + setup_.setup_s;
  report.ranks = comm_ ? comm_->size() : 1;
  report.exchange_s = halo ? halo->seconds() : 0.0;

  if (series) series->flush();  // the .pvd/.xdmf list every frame before the summary
  if (files && speaks) {
    RunSummary s =
        summary_header(spec, report.interrupted ? "interrupted" : "completed", "",
                       {report.backend, report.execution_space, report.precision, report.num_nodes,
                        report.num_elements, setup_.explicit_setup.total_mass,
                        setup_.explicit_setup.total_volume});
    s.set("time.end_time_s", report.end_time);
    s.set("time.time_step_s", dt);
    s.set("time.critical_time_step_s", report.critical_time_step);
    s.set("time.critical_node", model_.mesh.input_node_id(setup_.limit.node));
    s.set("time.steps", report.steps);
    s.set("waves.dofs", report.dofs);
    s.set("waves.matrix_blocks", report.matrix_blocks);
    s.set("waves.lambda_max", setup_.limit.lambda_max);
    s.set("waves.lanczos_iterations", setup_.limit.iterations);
    for (std::size_t bl = 0; bl < model_.blocks.size(); ++bl)
      s.set("waves.p_wave_speed_m_per_s." + model_.blocks[bl].spec->name, setup_.wave_speeds[bl]);
    s.set("waves.bytes_per_step", report.bytes_per_step);
    s.set("timing.setup_s", report.setup_s);
    s.set("timing.step_s", report.step_s);
    s.set("timing.output_s", report.output_s);
    s.set("timing.total_s", report.total_s);
    s.set("throughput.dof_updates_per_s", report.dof_updates_per_second());
    s.set("throughput.effective_bandwidth_gb_per_s", report.effective_bandwidth() / 1e9);
    s.set("result.max_displacement_m", report.max_displacement);
    if (share) {
      const parallel::MeshPartition& p = share->partition;
      s.set("parallel.ranks", report.ranks);
      s.set("parallel.imbalance", p.imbalance);
      s.set("parallel.edge_cut", p.edge_cut);
      s.set("parallel.shared_nodes", p.shared_nodes);
      s.set("parallel.max_part_nodes", part_sizes[0]);
      s.set("parallel.max_ghost_nodes", part_sizes[1]);
      s.set("parallel.max_halo_bytes_per_step", part_sizes[2]);
      s.set("parallel.halo_exchange_s", report.exchange_s);
      s.set("parallel.halo_path", "host");
    }
    report.files.push_back(write_summary_file(s, {}, options.output_directory));
  }
  return report;
}

}  // namespace fem
