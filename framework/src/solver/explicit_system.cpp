#include "fem/solver/explicit_system.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../core/host_loops.hpp"
#include "fem/kernels/element_kernels.hpp"
#include "wall_clock.hpp"

namespace fem {
namespace {

using Mat3d = Eigen::Matrix3d;
/// An element's node coordinates (rows) or its per-node values: sized at run time, held on the
/// stack (no allocation per element while every core walks the elements).
using NodeRows =
    Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::ColMajor, kernels::kMaxNodesPerElement, 3>;

/// Area of a planar or warped polygon face (vector area of its fan triangulation). Quadratic
/// faces (6-node triangles, 8-node quadrilaterals) list their corners first: their corner polygon.
double face_area(const Mesh& mesh, const std::int32_t* conn, const ElementData& el, int f) {
  Eigen::Vector3d area = Eigen::Vector3d::Zero();
  const int begin = el.face_offsets[f], count = el.face_offsets[f + 1] - begin;
  const int end = begin + (count == 6 || count == 8 ? count / 2 : count);
  const auto p = [&](int i) {
    const auto x = mesh.node(conn[el.face_nodes[i]]);
    return Eigen::Vector3d(x[0], x[1], x[2]);
  };
  // A plane cell's faces are its edges, of unit thickness.
  if (count == 2) return (p(begin + 1) - p(begin)).norm();
  for (int i = begin + 1; i + 1 < end; ++i) area += (p(i) - p(begin)).cross(p(i + 1) - p(begin));
  return 0.5 * area.norm();
}

/// A cell whose reference Jacobian is not positive enough to compute with, named as the user
/// knows it (the mesh file's element id, line and node ids). det J is printed in scientific
/// notation: a small cell's det J is far below what fixed notation shows.
[[noreturn]] void throw_bad_cell(const Model& model, const ModelBlock& b, std::int64_t e,
                                 double det_j, const std::string& where_in_cell) {
  throw InputError(element_location(model, b, e),
                   element_label(model, b, e) + (det_j <= 0.0 ? " is inverted" : " is degenerate") +
                       fmt::format(": det J = {:.3e} ", det_j) + where_in_cell,
                   "check the mesh: nodes must follow VTK ordering and cells must have "
                   "positive volume");
}

struct HexMeanGradients {
  Eigen::Matrix<double, 8, 3> gradients;  // (1/V) int dN_a/dX_k dV
  double volume = 0.0;
  double min_det_j = 0.0;  // smallest det J at the 2x2x2 Gauss points
};

/// Mean shape-function gradients and volume of a trilinear hexahedron, integrated exactly with
/// the 2x2x2 Gauss rule (the integrand grad N det J is polynomial of low enough degree).
HexMeanGradients hex_mean_gradients(const ElementData& el, const NodeRows& X) {
  HexMeanGradients r;
  r.gradients.setZero();
  r.min_det_j = std::numeric_limits<double>::max();
  const double g = 1.0 / std::sqrt(3.0);
  for (int q = 0; q < 8; ++q) {
    const double p[3] = {(q & 1) ? g : -g, (q & 2) ? g : -g, (q & 4) ? g : -g};
    Eigen::Matrix<double, 8, 3> dxi;
    for (int a = 0; a < 8; ++a) {
      const double* c = el.reference_coords + 3 * a;
      const double s0 = 1 + c[0] * p[0], s1 = 1 + c[1] * p[1], s2 = 1 + c[2] * p[2];
      dxi(a, 0) = c[0] * s1 * s2 / 8;
      dxi(a, 1) = s0 * c[1] * s2 / 8;
      dxi(a, 2) = s0 * s1 * c[2] / 8;
    }
    const Mat3d J = X.transpose() * dxi;
    const double det_j = J.determinant();
    r.min_det_j = std::min(r.min_det_j, det_j);
    r.gradients += det_j * (dxi * J.inverse());
    r.volume += det_j;
  }
  r.gradients /= r.volume;
  return r;
}

struct BlockGeometry {
  double volume = 0.0;
  double min_dt = std::numeric_limits<double>::max();
  std::int64_t min_dt_element = -1;
  HostArray<double> element_volume, element_dt;  ///< per element, for the masses
};

/// Reference-configuration data of one block: dN/dX and w det J per quadrature point, hourglass
/// vectors and stiffness, each element's volume and critical time step, and the block's.
BlockGeometry precompute_block(const Model& model, const ModelBlock& b, BlockSystem& out) {
  const ElementData& el = *b.element;
  const int npe = el.num_nodes, nqp = el.num_quadrature_points;
  const std::int64_t ne = b.num_elements();
  BlockGeometry g;
  if (npe > kernels::kMaxNodesPerElement)
    throw InputError(
        b.spec->where,
        "block '" + b.spec->name + "': element '" + b.spec->element + "' has " +
            std::to_string(npe) + " nodes; fem's kernels take at most " +
            std::to_string(kernels::kMaxNodesPerElement),
        "use an element of at most " + std::to_string(kernels::kMaxNodesPerElement) + " nodes");
  const double modulus = b.material->host.dilatational_modulus(b.params.data());
  const double wave_speed = std::sqrt(modulus / b.material_spec->density);
  const bool hourglass = el.family == Family::Hex8Hourglass;
  const bool plane = cell_dimension(static_cast<CellShape>(el.cell_shape)) == 2;

  out.shape_gradients.resize(static_cast<std::size_t>(ne * nqp * npe * 3));
  out.quadrature_volumes.resize(static_cast<std::size_t>(ne * nqp));
  if (hourglass) {
    out.hourglass_vectors.resize(static_cast<std::size_t>(ne * 12));
    out.hourglass_base.assign(el.hourglass_base_vectors, el.hourglass_base_vectors + 32);
    out.hourglass_stiffness.resize(static_cast<std::size_t>(ne));
  }
  // Each element's geometry in parallel (every element writes only its own entries, and its
  // arithmetic does not depend on the thread); the sums over elements after it, in element
  // order, and the masses by a per-node gather (lump_masses), so that the system has the same
  // bits on any thread count.
  HostArray<double>& element_volume = g.element_volume;
  HostArray<double>& element_dt = g.element_dt;
  element_volume.resize(static_cast<std::size_t>(ne));
  element_dt.resize(static_cast<std::size_t>(ne));
  struct BadCell {
    std::int64_t element;
    double det_j;
    std::string where;
  };
  std::optional<BadCell> bad;  // the first bad element, reported as a serial pass would
  const auto record_bad = [&bad](std::int64_t e, double det_j, std::string where) {
#pragma omp critical(fem_precompute_bad_cell)
    if (!bad || e < bad->element) bad = BadCell{e, det_j, std::move(where)};
  };
#pragma omp parallel for schedule(dynamic, 4096) if (ne >= 16384)
  for (std::int64_t e = 0; e < ne; ++e) {
    const std::int32_t* conn = b.connectivity.data() + e * npe;
    NodeRows X(npe, 3);
    for (int a = 0; a < npe; ++a)
      for (int k = 0; k < 3; ++k) X(a, k) = model.mesh.coords[3 * conn[a] + k];
    const double size = (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm();
    double volume = 0.0;
    if (hourglass) {
      // Flanagan-Belytschko uniform strain: the mean gradients (1/V) int grad N_a dV and the
      // exact volume replace the centroid values. They coincide for parallelepipeds; on
      // distorted hexahedra only the mean gradients pass the patch test.
      const HexMeanGradients mean = hex_mean_gradients(el, X);
      if (!(mean.min_det_j > 1e-12 * size * size * size)) {
        record_bad(e, mean.min_det_j, "at its worst 2x2x2 Gauss point");
        continue;
      }
      volume = mean.volume;
      for (int a = 0; a < 8; ++a)
        for (int k = 0; k < 3; ++k) out.shape_gradients[(e * 8 + a) * 3 + k] = mean.gradients(a, k);
      out.quadrature_volumes[e] = volume;
      // gamma = (h - (h . X_j) b_j) / 8 is orthogonal to every linear field, so the hourglass
      // force vanishes for all deformations the one-point rule sees. The kernels rebuild it from
      // the 12 projections h . X_j stored here and the gradients.
      // Summed node by node in order (a product of fixed-size Eigen types may sum in vector
      // lanes, which changes the last bits and every result downstream).
      for (int m = 0; m < 4; ++m)
        for (int j = 0; j < 3; ++j) {
          double projection = 0.0;
          for (int a = 0; a < 8; ++a) projection += el.hourglass_base_vectors[8 * m + a] * X(a, j);
          out.hourglass_vectors[e * 12 + 3 * m + j] = projection;
        }
      out.hourglass_stiffness[e] =
          b.spec->hourglass_coefficient * modulus * volume * mean.gradients.squaredNorm() / 3.0;
    } else {
      bool good = true;
      for (int q = 0; q < nqp && good; ++q) {
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>> dxi(
            el.shape_gradients + q * npe * 3, npe, 3);
        Mat3d J = X.transpose() * dxi;  // J_ij = dX_i / dxi_j
        // A plane cell (per unit thickness) has no z extent: its third reference axis is z
        // itself, so det J is the area's and dN/dZ = 0 (plane strain: F_zz = 1).
        if (plane) J.col(2) = Eigen::Vector3d::UnitZ();
        const double detJ = J.determinant();
        if (!(detJ > 1e-12 * size * size * (plane ? 1.0 : size))) {
          record_bad(e, detJ, "at quadrature point " + std::to_string(q));
          good = false;
          break;
        }
        const NodeRows dX = dxi * J.inverse();  // dN_a/dX_k
        for (int a = 0; a < npe; ++a)
          for (int k = 0; k < 3; ++k)
            out.shape_gradients[((e * nqp + q) * npe + a) * 3 + k] = dX(a, k);
        const double v = el.quadrature_weights[q] * detJ;
        out.quadrature_volumes[e * nqp + q] = v;
        volume += v;
      }
      if (!good) continue;
    }
    double max_area = 0.0;
    for (int f = 0; f < el.num_faces; ++f)
      max_area = std::max(max_area, face_area(model.mesh, conn, el, f));
    const double length = el.length_factor * volume / max_area;
    element_volume[static_cast<std::size_t>(e)] = volume;
    element_dt[static_cast<std::size_t>(e)] = length / wave_speed;
  }
  if (bad) throw_bad_cell(model, b, bad->element, bad->det_j, bad->where);
  for (std::int64_t e = 0; e < ne; ++e) {
    const double volume = element_volume[static_cast<std::size_t>(e)];
    const double dt = element_dt[static_cast<std::size_t>(e)];
    if (dt < g.min_dt) {
      g.min_dt = dt;
      g.min_dt_element = b.first_element + e;
    }
    g.volume += volume;
  }
  return g;
}

/// Lumped masses, and with `relaxation_step` > 0 (dynamic relaxation) the fictitious iteration
/// masses that make every element's critical step equal to that step. Each node gathers its
/// element slots in slot order (the force incidence), which adds the same terms in the same
/// order as a pass over the elements would: the same bits on any number of threads.
void lump_masses(const Model& model, const std::vector<BlockGeometry>& geometry,
                 double relaxation_step, System& sys) {
  const std::int64_t nn = sys.num_nodes;
  sys.lumped_mass.assign(static_cast<std::size_t>(nn), 0.0);
  if (relaxation_step > 0.0) sys.iteration_mass.assign(static_cast<std::size_t>(nn), 0.0);
  std::vector<std::int64_t> block_ends;  // the slot after each block's last
  for (const BlockSystem& b : sys.blocks)
    block_ends.push_back(b.force_offset + b.num_elements * b.nodes_per_element);
#pragma omp parallel for schedule( \
    static, 4096) if (sys.num_force_slots >= detail::kParallelHostLoopMinimum)
  for (std::int64_t n = 0; n < nn; ++n) {
    double mass = 0.0, iteration_mass = 0.0;
    std::size_t k = 0;  // the block of the slot; slots ascend, so it only moves forward
    for (std::int64_t i = sys.incidence_offsets[n]; i < sys.incidence_offsets[n + 1]; ++i) {
      const std::int64_t slot = sys.incidence_slots[static_cast<std::size_t>(i)];
      while (slot >= block_ends[k]) ++k;
      const BlockSystem& b = sys.blocks[k];
      const std::int64_t e = (slot - b.force_offset) / b.nodes_per_element;
      const std::int64_t a = slot - b.force_offset - e * b.nodes_per_element;
      const double density = model.blocks[k].material_spec->density;
      const double weight = model.blocks[k].element->lumped_mass_weights[a];
      const double volume = geometry[k].element_volume[static_cast<std::size_t>(e)];
      mass += density * volume * weight;
      if (relaxation_step <= 0.0) continue;
      // The critical step scales with sqrt(mass): mass * (h / dt)^2 has critical step h.
      const double dt = geometry[k].element_dt[static_cast<std::size_t>(e)];
      const double scale = (relaxation_step / dt) * (relaxation_step / dt);
      if (scale > 0.0) iteration_mass += scale * density * volume * weight;
    }
    sys.lumped_mass[static_cast<std::size_t>(n)] = mass;
    if (relaxation_step > 0.0) sys.iteration_mass[static_cast<std::size_t>(n)] = iteration_mass;
  }
}

}  // namespace

void add_dof_load(const Model& model, System& sys, std::int64_t dof, std::int32_t amplitude,
                  double value, const SourceLocation& where) {
  const auto d = static_cast<std::size_t>(dof);
  if (sys.load_amplitude[d] >= 0 && sys.load_amplitude[d] != amplitude)
    throw InputError(where,
                     "node " +
                         std::to_string(model.mesh.node_label(static_cast<std::int32_t>(dof / 3))) +
                         " already carries a load with another amplitude",
                     "give the loads on shared nodes one amplitude (one entry per amplitude)");
  sys.load_amplitude[d] = amplitude;
  sys.load_value[d] += value;
}

void build_force_incidence(System& sys) {
  const std::int64_t nn = sys.num_nodes;
  std::vector<std::int64_t>& offsets = sys.incidence_offsets;
  offsets.assign(static_cast<std::size_t>(nn + 1), 0);
  const bool parallel = sys.num_force_slots >= detail::kParallelHostLoopMinimum;
  const auto slot_count = [](const BlockSystem& b) {
    return static_cast<std::int64_t>(b.connectivity.size());
  };
  for (const BlockSystem& b : sys.blocks) {
#pragma omp parallel for if (parallel)
    for (std::int64_t s = 0; s < slot_count(b); ++s)
      std::atomic_ref<std::int64_t>(offsets[static_cast<std::size_t>(b.connectivity[s]) + 1])
          .fetch_add(1, std::memory_order_relaxed);
  }
  for (std::int64_t n = 0; n < nn; ++n) offsets[n + 1] += offsets[n];
  sys.incidence_slots.resize(static_cast<std::size_t>(sys.num_force_slots));
  std::vector<std::int64_t> fill(offsets.begin(), offsets.end() - 1);
  for (const BlockSystem& b : sys.blocks) {
#pragma omp parallel for if (parallel)
    for (std::int64_t s = 0; s < slot_count(b); ++s) {
      const std::int64_t at = std::atomic_ref<std::int64_t>(fill[b.connectivity[s]])
                                  .fetch_add(1, std::memory_order_relaxed);
      sys.incidence_slots[static_cast<std::size_t>(at)] = b.force_offset + s;
    }
  }
  // Threads fill a node's list in any order; the gathers sum in slot order, so sort each list.
#pragma omp parallel for schedule(static, 4096) if (parallel)
  for (std::int64_t n = 0; n < nn; ++n)
    std::sort(sys.incidence_slots.begin() + offsets[n],
              sys.incidence_slots.begin() + offsets[n + 1]);
}

// The improved ANP of seed 003 takes the nodal pressure constant over the nodal volume: every ANP
// element around a node counts, whatever its block's material.
void build_pressure_incidence(System& sys) {
  std::int64_t count = 0;
  for (BlockSystem& b : sys.blocks)
    if (b.family == Family::AveragedNodalPressureTet) {
      b.pressure_offset = count;
      count += b.num_elements;
    }
  if (count == 0) return;
  if (count > std::numeric_limits<std::int32_t>::max())
    throw Error("more than 2^31 averaged-nodal-pressure elements are not supported");
  const std::int64_t nn = sys.num_nodes;
  sys.num_pressure_elements = count;
  sys.pressure_incidence_offsets.assign(nn + 1, 0);
  std::vector<double> volume(nn, 0.0);
  for (const BlockSystem& b : sys.blocks) {
    if (b.pressure_offset < 0) continue;
    for (std::int64_t e = 0; e < b.num_elements; ++e)
      for (int a = 0; a < 4; ++a) {
        const std::int32_t n = b.connectivity[4 * e + a];
        ++sys.pressure_incidence_offsets[n + 1];
        volume[n] += b.quadrature_volumes[e];
      }
  }
  for (std::int64_t n = 0; n < nn; ++n)
    sys.pressure_incidence_offsets[n + 1] += sys.pressure_incidence_offsets[n];
  sys.pressure_incidence_elements.resize(
      static_cast<std::size_t>(sys.pressure_incidence_offsets[nn]));
  std::vector<std::int64_t> fill(sys.pressure_incidence_offsets.begin(),
                                 sys.pressure_incidence_offsets.end() - 1);
  for (const BlockSystem& b : sys.blocks) {
    if (b.pressure_offset < 0) continue;
    for (std::int64_t e = 0; e < b.num_elements; ++e)
      for (int a = 0; a < 4; ++a)
        sys.pressure_incidence_elements[fill[b.connectivity[4 * e + a]]++] =
            static_cast<std::int32_t>(b.pressure_offset + e);
  }
  sys.pressure_inverse_volume.resize(nn);
  for (std::int64_t n = 0; n < nn; ++n)
    sys.pressure_inverse_volume[n] = volume[n] > 0.0 ? 1.0 / volume[n] : 0.0;
}

double relaxation_damping(double lambda_min, double h) {
  // The lowest mode critically damped: (1 + beta - alpha lambda_min)^2 = 4 beta with
  // alpha = h^2 (1 + beta) / 2 gives rho = sqrt(beta) = (1 - sqrt(x (2 - x))) / (1 - x),
  // x = h^2 lambda_min / 2; then c h = 2 (1 - beta) / (1 + beta) (c = 2 sqrt(lambda_min) as h ->
  // 0).
  const double x = std::clamp(0.5 * h * h * lambda_min, 1e-300, 0.999);
  const double rho = (1.0 - std::sqrt(x * (2.0 - x))) / (1.0 - x);
  const double beta = rho * rho;
  return 2.0 * (1.0 - beta) / ((1.0 + beta) * h);
}

double relaxation_rate(double damping, double h) {
  const double ch = damping * h;
  return std::sqrt(std::max(0.0, (2.0 - ch) / (2.0 + ch)));
}

ExplicitSetup setup_explicit(const Model& model) {
  PhaseLog phases("explicit setup");
  ExplicitSetup setup;
  System& sys = setup.system;
  const CaseSpec& spec = model.spec;
  const std::int64_t nn = model.mesh.num_nodes();
  sys.num_nodes = nn;
  const bool relaxation = spec.solver.type == SolverType::DynamicRelaxation;
  // Dynamic relaxation iterates with the fictitious step h = 1 (time counts iterations) and a
  // mass that puts every element's critical step at h / safety_factor (seed 003, 3.7-3.8).
  const double relaxation_step = relaxation ? 1.0 / spec.solver.safety_factor : 0.0;

  double critical = std::numeric_limits<double>::max();
  std::int64_t slots = 0;
  std::vector<BlockGeometry> geometry;
  for (const ModelBlock& b : model.blocks) {
    BlockSystem bs;
    bs.name = b.spec->name;
    bs.family = b.element->family;
    bs.nodes_per_element = b.element->num_nodes;
    bs.quadrature_points = b.element->num_quadrature_points;
    bs.num_elements = b.num_elements();
    detail::copy_in_parallel(b.connectivity, bs.connectivity);
    bs.material = b.material;
    bs.material_params = b.params;
    bs.force_offset = slots;
    slots += bs.num_elements * bs.nodes_per_element;
    geometry.push_back(precompute_block(model, b, bs));
    const BlockGeometry& g = geometry.back();
    setup.total_volume += g.volume;
    if (g.min_dt < critical) {
      critical = g.min_dt;
      setup.critical_element = g.min_dt_element;
    }
    sys.blocks.push_back(std::move(bs));
  }
  sys.num_force_slots = slots;
  phases.done("element geometry");
  build_force_incidence(sys);
  build_pressure_incidence(sys);
  phases.done("incidence");
  lump_masses(model, geometry, relaxation_step, sys);
  geometry.clear();
  for (std::int64_t n = 0; n < nn; ++n) {
    setup.total_mass += sys.lumped_mass[n];
    if (!(sys.lumped_mass[n] > 0.0))
      throw InputError(spec.mesh.where, "node " + std::to_string(n) + " belongs to no element",
                       "remove unused nodes from the mesh or assign their cells to a block");
  }

  phases.done("masses");
  // Rate-dependent laws see no time in a static solve or dynamic relaxation (their step is
  // +infinity, set below and in the implicit solver): say what such a run computes.
  if (relaxation || has_static_steps(spec.solver))
    for (const BlockSystem& b : sys.blocks)
      if (b.material->host.rate_dependent)
        setup.warnings.push_back(
            "block '" + b.name + "' has a rate-dependent material: " +
            std::string(relaxation                               ? "dynamic relaxation"
                        : spec.solver.type == SolverType::Static ? "a static solve"
                                                                 : "a static step") +
            " gives its long-term (fully relaxed) response; use solver.type implicit_dynamic or "
            "explicit for its response in time");

  // Time step: the critical estimate of seed 000 (eq. 15) scaled by the safety factor, then
  // shortened so that a whole number of steps ends exactly at end_time.
  setup.critical_time_step = critical;
  double dt =
      spec.solver.time_step > 0.0 ? spec.solver.time_step : spec.solver.safety_factor * critical;
  if (spec.solver.time_step > critical && spec.solver.type == SolverType::Explicit)
    setup.warnings.push_back("solver.time_step " + std::to_string(spec.solver.time_step) +
                             " s exceeds the critical estimate " + std::to_string(critical) +
                             " s: the run may become unstable");
  setup.num_steps = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(spec.solver.end_time / dt - 1e-9)));
  sys.time_step = spec.solver.end_time / static_cast<double>(setup.num_steps);
  sys.material_time_step = sys.time_step;
  sys.mass_damping = spec.solver.mass_damping;
  sys.deterministic = spec.solver.assembly != "atomic";
  if (relaxation) {
    sys.time_step = 1.0;
    // The pseudo step is no time: rate-dependent laws give their long-term (relaxed) response,
    // the equilibrium dynamic relaxation looks for (docs/case-reference.md, viscoelastic).
    sys.material_time_step = std::numeric_limits<double>::infinity();
    setup.num_steps = spec.solver.max_iterations;
    // Every element's largest eigenvalue of M^-1 K is 4 / (critical step)^2 = 4 s^2 / h^2; the
    // global one is bounded by the largest element one. The lowest is learnt while iterating;
    // the first guess is that of a bar n elements long, n the cube root of the element count:
    // lambda_min / lambda_max ~ (pi / (4 n))^2.
    setup.lambda_max = 4.0 * spec.solver.safety_factor * spec.solver.safety_factor;
    const double n = std::cbrt(static_cast<double>(model.num_elements()));
    setup.lambda_min = setup.lambda_max * std::pow(std::numbers::pi / (4.0 * n), 2);
    sys.mass_damping = relaxation_damping(setup.lambda_min, sys.time_step);
  }

  // Amplitudes by index; an open end means the end of the run. Dynamic relaxation looks for the
  // static equilibrium under the final loads: every curve is replaced by its final value times
  // one load ramp over load_iterations iterations (seed 003, section 4: "a parameter specifying
  // the percentage of the load that should be applied in the next step").
  std::map<std::string, std::int32_t> amp_index;
  std::map<std::string, double> amp_scale;
  if (relaxation) {
    Amplitude ramp;
    if (spec.solver.load_iterations > 0) {
      ramp.kind = AmplitudeKind::SmoothStep;
      ramp.start = 0.0;
      ramp.end = static_cast<double>(spec.solver.load_iterations);
    }
    sys.amplitudes.push_back(ramp);
    setup.amplitude_tables.emplace_back();
  }
  for (const auto& [name, a] : spec.amplitudes) {
    // Long sampled signals are evaluated on the host, which only the wave solver does.
    if (a.table && a.table->time.size() > static_cast<std::size_t>(kMaxAmplitudePoints) &&
        spec.solver.type != SolverType::Elastodynamic)
      throw InputError(a.where,
                       "amplitude '" + name + "' holds " + std::to_string(a.table->time.size()) +
                           " samples from '" + a.table->file + "', and solver type " +
                           to_string(spec.solver.type) + " evaluates at most " +
                           std::to_string(kMaxAmplitudePoints) + " points (in its kernels)",
                       "resample the signal to at most " + std::to_string(kMaxAmplitudePoints) +
                           " points, or use it with solver type elastodynamic");
    Amplitude curve = a.curve;
    if (curve.end < 0.0) curve.end = spec.solver.end_time;
    if (relaxation) {
      amp_index[name] = 0;
      amp_scale[name] = evaluate(curve, std::numeric_limits<double>::max());
      continue;
    }
    amp_index[name] = static_cast<std::int32_t>(sys.amplitudes.size());
    amp_scale[name] = 1.0;
    sys.amplitudes.push_back(curve);
    setup.amplitude_tables.push_back(a.table);
  }
  const auto amplitude = [&](const std::string& name, const SourceLocation& where) {
    const auto it = amp_index.find(name);
    if (it == amp_index.end()) throw InputError(where, "undefined amplitude '" + name + "'");
    return it->second;
  };

  // The per-dof arrays are first written here by every core (HostArray: resize does not write);
  // at 73 M tetrahedra one thread zeroing them took over a second.
  const std::int64_t ndof = 3 * nn;
  sys.prescribed_amplitude.resize(static_cast<std::size_t>(ndof));
  sys.prescribed_value.resize(static_cast<std::size_t>(ndof));
  sys.load_amplitude.resize(static_cast<std::size_t>(ndof));
  sys.load_value.resize(static_cast<std::size_t>(ndof));
#pragma omp parallel for schedule(static) if (ndof >= detail::kParallelHostLoopMinimum)
  for (std::int64_t d = 0; d < ndof; ++d) {
    sys.prescribed_amplitude[static_cast<std::size_t>(d)] = -1;
    sys.prescribed_value[static_cast<std::size_t>(d)] = 0.0;
    sys.load_amplitude[static_cast<std::size_t>(d)] = -1;
    sys.load_value[static_cast<std::size_t>(d)] = 0.0;
  }
  for (const BoundaryConditionSpec& bc : spec.boundary_conditions) {
    const std::int32_t amp = amplitude(bc.amplitude, bc.where);
    const double scale = amp_scale.at(bc.amplitude);
    for (const std::int32_t n : model.mesh.node_sets.at(bc.set))
      for (int k = 0; k < 3; ++k) {
        if (!bc.constrained[k]) continue;
        const std::int64_t d = 3 * n + k;
        const double value = bc.value[k] * scale;
        if (sys.prescribed_amplitude[d] >= 0 &&
            (sys.prescribed_value[d] != value ||
             (value != 0.0 && sys.prescribed_amplitude[d] != amp)))
          throw InputError(bc.where,
                           "node " + std::to_string(n) + " component " + "xyz"[k] +
                               " is already prescribed differently by an earlier boundary "
                               "condition",
                           "node sets of conflicting boundary conditions must not overlap");
        sys.prescribed_amplitude[d] = amp;
        sys.prescribed_value[d] = value;
      }
  }
  if (model.mesh.dimension() == 2) {
    // Plane strain: no node moves in z. Held as a prescribed zero so that every solver sees the
    // x-y problem: the z rows of an implicit tangent are otherwise the anti-plane shear problem,
    // singular without a z support, and an anisotropic law could couple z into explicit steps.
    const std::int32_t constant = amplitude("constant", spec.solver.where);
    for (std::int64_t n = 0; n < nn; ++n)
      if (sys.prescribed_amplitude[3 * n + 2] < 0) sys.prescribed_amplitude[3 * n + 2] = constant;
  }
  for (const NodalLoadSpec& load : spec.loads) {
    const std::int32_t amp = amplitude(load.amplitude, load.where);
    for (const std::int32_t n : model.mesh.node_sets.at(load.set))
      for (int k = 0; k < 3; ++k)
        if (load.force[k] != 0.0)
          add_dof_load(model, sys, 3 * std::int64_t{n} + k, amp,
                       load.force[k] * amp_scale.at(load.amplitude), load.where);
  }
  if (spec.gravity) {
    sys.gravity = spec.gravity->acceleration;
    for (double& g : sys.gravity) g *= amp_scale.at(spec.gravity->amplitude);
    sys.gravity_amplitude = amplitude(spec.gravity->amplitude, spec.gravity->where);
  }
  // u_{-1} = -dt v_0 at free dofs (a later set's velocity replaces an earlier one's); -dt * 0,
  // a negative zero, where no initial velocity is given.
  sys.initial_displacement.assign(static_cast<std::size_t>(ndof), 0.0);
  sys.initial_previous_displacement.assign(static_cast<std::size_t>(ndof), -sys.time_step * 0.0);
  for (const InitialVelocitySpec& iv : spec.initial_velocities)
    for (const std::int32_t n : model.mesh.node_sets.at(iv.set))
      for (int k = 0; k < 3; ++k)
        sys.initial_previous_displacement[3 * n + k] = -sys.time_step * iv.velocity[k];
#pragma omp parallel for schedule(static) if (ndof >= detail::kParallelHostLoopMinimum)
  for (std::int64_t d = 0; d < ndof; ++d) {
    const std::int32_t amp = sys.prescribed_amplitude[static_cast<std::size_t>(d)];
    if (amp < 0) continue;
    const double value = sys.prescribed_value[static_cast<std::size_t>(d)];
    sys.initial_displacement[d] = value * evaluate(sys.amplitudes[amp], 0.0);
    sys.initial_previous_displacement[d] = value * evaluate(sys.amplitudes[amp], -sys.time_step);
  }
  detail::copy_in_parallel(model.mesh.coords, sys.coordinates);
  const AmplitudeResolver resolve = [&](const std::string& name, const SourceLocation& where) {
    return std::make_pair(amplitude(name, where), amp_scale.at(name));
  };
  setup_pressures(model, sys, resolve);
  setup_contact(model, sys, resolve);
  phases.done("time step, amplitudes and conditions");
  return setup;
}

}  // namespace fem
