#include "fem/export/abaqus_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "../mesh/abaqus_deck.hpp"
#include "fem/error.hpp"
#include "fem/solver/explicit_system.hpp"

namespace fem {
namespace {

/// Abaqus element type of an element plugin (node orders of these cells are the same as VTK's).
std::string element_type(const ModelBlock& b) {
  const std::string name = b.element->name;
  if (name == "hex8r") return "C3D8R";
  if (name == "hex8") return "C3D8";
  if (name == "tet4") return "C3D4";
  if (name == "tet10") return "C3D10";
  if (name == "hex20") return "C3D20";
  if (name == "hex20r") return "C3D20R";
  throw InputError(b.spec->where,
                   "element '" + name + "' of block '" + b.spec->name +
                       "' has no Abaqus equivalent in the exporter",
                   "the Abaqus export knows hex8r (C3D8R), hex8 (C3D8), tet4 (C3D4), tet10 "
                   "(C3D10), hex20 (C3D20) and hex20r (C3D20R)");
}

std::string real(double v) {
  return fmt::format("{:.12g}", v);
}

/// D_i from the stored 1/D_i (0: no term).
double inverse_or_zero(double v) {
  return v == 0.0 ? 0.0 : 1.0 / v;
}

/// Up to 16 integers per line, as Abaqus wants.
void write_ids(std::ostream& out, const std::vector<std::int32_t>& ids, int offset = 1) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    fmt::print(out, "{}{}", ids[i] + offset,
               (i + 1) % 16 == 0 || i + 1 == ids.size() ? "\n" : ", ");
}

void write_material(std::ostream& out, const ModelBlock& b) {
  const MaterialSpec& m = *b.material_spec;
  fmt::print(out, "*MATERIAL, NAME={}\n*DENSITY\n{}\n", m.name, real(m.density));
  const std::vector<double>& p = b.params;
  if (m.type == "neo_hookean") {
    // fem: mu/2 (J^-2/3 I1 - 3) + K/2 (J - 1)^2; Abaqus: C10 (I1bar - 3) + (J - 1)^2 / D1.
    fmt::print(out, "** neo_hookean: shear modulus {} Pa, bulk modulus {} Pa\n", real(p[0]),
               real(p[1]));
    fmt::print(out, "*HYPERELASTIC, NEO HOOKE\n{}, {}\n", real(p[0] / 2.0), real(2.0 / p[1]));
  } else if (m.type == "mooney_rivlin") {
    // Stored as c10, c01, 1/D1: the Abaqus form itself.
    fmt::print(out, "*HYPERELASTIC, MOONEY-RIVLIN\n{}, {}, {}\n", real(p[0]), real(p[1]),
               real(inverse_or_zero(p[2])));
  } else if (m.type == "reduced_polynomial" || m.type == "ogden") {
    // reduced_polynomial: c10, c20, c30, 1/D1..1/D3; ogden: (mu_i, alpha_i) x 3, 1/D1..1/D3.
    // N is the last term given; an absent D_i is written 0 (ccx then takes a default of its own).
    const bool ogden = m.type == "ogden";
    const int per_term = ogden ? 2 : 1;
    int n = 1;
    for (int i = 0; i < 3; ++i)
      if (p[static_cast<std::size_t>(per_term * i)] != 0.0) n = i + 1;
    fmt::print(out, "*HYPERELASTIC, {}, N={}\n", ogden ? "OGDEN" : "REDUCED POLYNOMIAL", n);
    std::vector<double> values(p.begin(), p.begin() + per_term * n);
    for (int i = 0; i < n; ++i)
      values.push_back(inverse_or_zero(p[static_cast<std::size_t>(3 * per_term + i)]));
    for (std::size_t i = 0; i < values.size(); ++i)
      fmt::print(out, "{}{}", real(values[i]),
                 (i + 1) % 8 == 0 || i + 1 == values.size() ? "\n" : ", ");
  } else if (m.type == "linear_elastic") {
    const double lambda = p[0], mu = p[1];
    const double e = mu * (3.0 * lambda + 2.0 * mu) / (lambda + mu);
    const double nu = lambda / (2.0 * (lambda + mu));
    fmt::print(out, "*ELASTIC\n{}, {}\n", real(e), real(nu));
  } else {
    throw InputError(m.where,
                     "material '" + m.name + "' of type '" + m.type +
                         "' has no Abaqus equivalent in the exporter",
                     "the Abaqus export knows neo_hookean (*HYPERELASTIC, NEO HOOKE), "
                     "mooney_rivlin, ogden, reduced_polynomial and linear_elastic (*ELASTIC)");
  }
}

/// `total_time`: a deck of several steps, whose conditions follow the curves in total time.
void write_amplitude(std::ostream& out, const std::string& name, const Amplitude& a,
                     double end_time, int points, bool total_time) {
  fmt::print(out, "*AMPLITUDE, NAME={}{}\n", name, total_time ? ", TIME=TOTAL TIME" : "");
  std::vector<std::pair<double, double>> tv;
  switch (a.kind) {
    case AmplitudeKind::Constant:
      tv = {{0.0, 1.0}, {end_time, 1.0}};
      break;
    case AmplitudeKind::Linear:
      tv = {{0.0, 0.0}, {a.start, 0.0}, {a.end, 1.0}};
      break;
    case AmplitudeKind::SmoothStep:
      fmt::print(out, "** smooth step from {} s to {} s, sampled at {} points\n", real(a.start),
                 real(a.end), points);
      if (a.start > 0) tv.emplace_back(0.0, 0.0);
      for (int i = 0; i < points; ++i) {
        const double t = a.start + (a.end - a.start) * i / (points - 1);
        tv.emplace_back(t, evaluate(a, t));
      }
      break;
    case AmplitudeKind::Tabular:
      // A time given twice (a jump): CalculiX takes the second value at that time, fem the
      // first, so the second point moves just past it.
      for (int i = 0; i < a.num_points; ++i)
        tv.emplace_back(i > 0 && a.time[i] == a.time[i - 1]
                            ? a.time[i] + 1e-9 * std::max(end_time, std::abs(a.time[i]))
                            : a.time[i],
                        a.value[i]);
      break;
    case AmplitudeKind::ToneBurst:
    case AmplitudeKind::Gaussian:
    case AmplitudeKind::Ricker: {
      // Wave signals: sampled over where they are not negligible, 40 points per period (or per
      // Gaussian width), zero outside.
      double from = 0.0, to = end_time, spacing = 0.0;
      if (a.kind == AmplitudeKind::ToneBurst) {
        from = a.start;
        to = a.start + a.cycles / a.frequency;
        spacing = 1.0 / (40.0 * a.frequency);
      } else if (a.kind == AmplitudeKind::Gaussian) {
        from = a.start - 6.0 * a.width;
        to = a.start + 6.0 * a.width;
        spacing = a.width / 10.0;
      } else {
        from = a.start - 2.0 / a.frequency;
        to = a.start + 2.0 / a.frequency;
        spacing = 1.0 / (40.0 * a.frequency);
      }
      from = std::max(0.0, from);
      to = std::min(end_time, to);
      fmt::print(out, "** {} signal sampled every {} s from {} s to {} s\n",
                 a.kind == AmplitudeKind::ToneBurst  ? "tone burst"
                 : a.kind == AmplitudeKind::Gaussian ? "Gaussian"
                                                     : "Ricker",
                 real(spacing), real(from), real(to));
      if (from > 0.0) tv.emplace_back(0.0, 0.0);
      const int count = std::max(2, static_cast<int>(std::ceil((to - from) / spacing)) + 1);
      for (int i = 0; i < count; ++i) {
        const double t = from + (to - from) * i / (count - 1);
        tv.emplace_back(t, evaluate(a, t));
      }
      if (to < end_time) tv.emplace_back(end_time, 0.0);
      break;
    }
  }
  // Abaqus wants increasing times; drop repeated ones (a ramp starting at 0).
  std::vector<std::pair<double, double>> clean;
  for (const auto& p : tv)
    if (clean.empty() || p.first > clean.back().first) clean.push_back(p);
  for (std::size_t i = 0; i < clean.size(); ++i)
    fmt::print(out, "{}, {}{}", real(clean[i].first), real(clean[i].second),
               (i + 1) % 4 == 0 || i + 1 == clean.size() ? "\n" : ", ");
}

/// Rigid-body motions that no prescribed displacement holds, as mode vectors
/// (tx, ty, tz, rx, ry, rz about `centre`, rotations scaled by `length`).
std::vector<Eigen::Matrix<double, 6, 1>> free_rigid_modes(const Model& model,
                                                          const std::vector<bool>& prescribed,
                                                          const Eigen::Vector3d& centre,
                                                          double length) {
  Eigen::Matrix<double, 6, 6> g = Eigen::Matrix<double, 6, 6>::Zero();
  const std::int64_t n = model.mesh.num_nodes();
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = model.mesh.node(i);
    const Eigen::Vector3d r = (Eigen::Vector3d(x[0], x[1], x[2]) - centre) / length;
    for (int k = 0; k < 3; ++k) {
      if (!prescribed[3 * i + k]) continue;
      Eigen::Matrix<double, 6, 1> row = Eigen::Matrix<double, 6, 1>::Zero();
      row[k] = 1.0;
      // u_k = t_k + (w x r)_k = t_k + eps_kjl w_j r_l
      const Eigen::Vector3d e = Eigen::Vector3d::Unit(k);
      const Eigen::Vector3d dw = r.cross(e);  // d(w x r)_k / dw = r x e_k
      row.tail<3>() = dw;
      g += row * row.transpose();
    }
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> eig(g);
  const double scale = std::max(1.0, eig.eigenvalues().maxCoeff());
  std::vector<Eigen::Matrix<double, 6, 1>> modes;
  for (int j = 0; j < 6; ++j)
    if (eig.eigenvalues()[j] < 1e-9 * scale) modes.push_back(eig.eigenvectors().col(j));
  return modes;
}

const char* kModeNames[6] = {"translation x",    "translation y",    "translation z",
                             "rotation about x", "rotation about y", "rotation about z"};

/// A step's conditions: prescribed displacements, loads, pressures and gravity, each with its
/// amplitude.
void write_step_conditions(std::ostream& out, const CaseSpec& spec, const Model& model,
                           const std::vector<BoundaryFace>& boundary, bool nlgeom,
                           AbaqusExportReport& report) {
  for (const auto& bc : spec.boundary_conditions) {
    fmt::print(out, "*BOUNDARY, AMPLITUDE={}\n", bc.amplitude);
    for (int k = 0; k < 3; ++k)
      if (bc.constrained[k])
        fmt::print(out, "{}, {}, {}, {}\n", bc.set, k + 1, k + 1, real(bc.value[k]));
  }
  for (const auto& l : spec.loads) {
    fmt::print(out, "*CLOAD, AMPLITUDE={}\n", l.amplitude);
    for (int k = 0; k < 3; ++k)
      if (l.force[k] != 0.0) fmt::print(out, "{}, {}, {}\n", l.set, k + 1, real(l.force[k]));
  }
  for (const PressureLoadSpec& p : spec.pressure_loads) {
    // Abaqus and CalculiX apply *DLOAD P on the deformed faces in an NLGEOM step and on the
    // reference ones without: where fem's choice differs, the deck says so.
    if (p.follower != nlgeom) {
      const std::string note = fmt::format(
          "the pressure on set '{}' acts on the {} surface in fem and on the {} one in the deck's "
          "{}step",
          p.set, p.follower ? "deformed" : "reference", nlgeom ? "deformed" : "reference",
          nlgeom ? "NLGEOM " : "geometrically linear ");
      fmt::print(out, "** {}\n", note);
      report.notes.push_back(note);
    }
    fmt::print(out, "*DLOAD, AMPLITUDE={}\n", p.amplitude);
    for (const FaceInSet& in_set :
         boundary_faces_in_set(model, boundary, model.mesh.node_sets.at(p.set))) {
      const BoundaryFace& f = in_set.boundary;
      const ModelBlock& b = model.blocks[static_cast<std::size_t>(f.block)];
      const std::int32_t* conn = b.connectivity.data() + f.element * b.element->num_nodes;
      // The Abaqus face with the same corners.
      std::vector<std::int32_t> ours(f.nodes.begin(), f.nodes.begin() + f.corners);
      std::sort(ours.begin(), ours.end());
      const auto& faces = detail::abaqus_faces(static_cast<CellShape>(b.element->cell_shape));
      for (std::size_t k = 0; k < faces.size(); ++k) {
        std::vector<std::int32_t> theirs;
        for (const int i : faces[k]) theirs.push_back(conn[i]);
        std::sort(theirs.begin(), theirs.end());
        if (theirs == ours)
          fmt::print(out, "{}, P{}, {}\n", b.first_element + f.element + 1, k + 1,
                     real(p.pressure));
      }
    }
  }
  if (spec.gravity) {
    const auto& g = spec.gravity->acceleration;
    const double mag = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (mag > 0) {
      fmt::print(out, "*DLOAD, AMPLITUDE={}\n", spec.gravity->amplitude);
      for (const ModelBlock& b : model.blocks)
        fmt::print(out, "{}, GRAV, {}, {}, {}, {}\n", b.spec->name, real(mag), real(g[0] / mag),
                   real(g[1] / mag), real(g[2] / mag));
    }
  }
}

/// The print requests (in the first step: CalculiX keeps them in the later ones).
void write_print_requests(std::ostream& out, const CaseSpec& spec, const Model& model) {
  // Outputs: every history set's displacements (and reaction totals), stress and strain of the
  // elements around the set's first node, and those of every region history's blocks.
  for (const HistorySpec& h : spec.output.histories) {
    if (h.of_elements()) {
      for (const ModelBlock& b : model.blocks)
        if (b.spec->region == h.region)
          fmt::print(out, "*EL PRINT, ELSET={}\nS, E\n", b.spec->name);
      continue;
    }
    const auto& ids = model.mesh.node_sets.at(h.set);
    if (ids.empty()) continue;
    fmt::print(out, "*NODE PRINT, NSET={}\nU\n", h.set);
    if (std::find(h.quantities.begin(), h.quantities.end(), "reaction_force") != h.quantities.end())
      fmt::print(out, "*NODE PRINT, NSET={}, TOTALS=ONLY\nRF\n", h.set);
  }
  for (const HistorySpec& h : spec.output.histories)
    if (!h.of_elements() && model.mesh.node_sets.at(h.set).size() == 1)
      fmt::print(out, "*EL PRINT, ELSET={}_ELEMENTS\nS, E\n", h.set);
}

}  // namespace

AbaqusExportOptions::Step parse_abaqus_step(const std::string& name) {
  if (name == "static") return AbaqusExportOptions::Step::Static;
  if (name == "dynamic") return AbaqusExportOptions::Step::Dynamic;
  if (name == "explicit") return AbaqusExportOptions::Step::Explicit;
  throw InputError({"<command line>", 0, 0}, "unknown step '" + name + "'",
                   "use static, dynamic or explicit");
}

AbaqusExportReport write_abaqus_deck(const Model& model, const AbaqusExportOptions& options,
                                     std::ostream& out) {
  using Step = AbaqusExportOptions::Step;
  const CaseSpec& spec = model.spec;
  AbaqusExportReport report;
  for (const ModelBlock& b : model.blocks) element_type(b);  // refuse before writing anything

  fmt::print(out, "*HEADING\nfem case {} ({})\n", spec.name, spec.file);
  fmt::print(out, "** written by {}\n** units: SI (m, kg, s, N, Pa)\n",
             options.source.empty() ? "fem export" : options.source);
  fmt::print(out, "*NODE, NSET=NALL\n");
  for (std::int64_t i = 0; i < model.mesh.num_nodes(); ++i) {
    const auto x = model.mesh.node(i);
    fmt::print(out, "{}, {}, {}, {}\n", i + 1, real(x[0]), real(x[1]), real(x[2]));
  }
  for (const ModelBlock& b : model.blocks) {
    const int npe = b.element->num_nodes;
    fmt::print(out, "*ELEMENT, TYPE={}, ELSET={}\n", element_type(b), b.spec->name);
    for (std::int64_t e = 0; e < b.num_elements(); ++e) {
      // At most 16 entries on a line (ccx refuses more): a C3D20's 21 continue on the next.
      fmt::print(out, "{}", b.first_element + e + 1);
      for (int a = 0; a < npe; ++a)
        fmt::print(out, "{}{}", a == 15 ? ",\n" : ", ", b.connectivity[e * npe + a] + 1);
      fmt::print(out, "\n");
    }
    if (b.element->name == std::string("hex8r"))
      fmt::print(out,
                 "** fem's hourglass control (coefficient {}) is Flanagan-Belytschko; the "
                 "target code uses its own\n",
                 real(b.spec->hourglass_coefficient));
  }
  for (const auto& [name, ids] : model.mesh.node_sets) {
    if (ids.empty()) continue;
    fmt::print(out, "*NSET, NSET={}\n", name);
    write_ids(out, ids);
  }
  // Elements around each single-node history set (for *EL PRINT).
  for (const HistorySpec& h : spec.output.histories) {
    if (h.of_elements()) continue;
    const auto& ids = model.mesh.node_sets.at(h.set);
    if (ids.size() != 1) continue;
    std::vector<std::int32_t> elements;
    for (const ModelBlock& b : model.blocks) {
      const int npe = b.element->num_nodes;
      for (std::int64_t e = 0; e < b.num_elements(); ++e)
        for (int a = 0; a < npe; ++a)
          if (b.connectivity[e * npe + a] == ids.front())
            elements.push_back(static_cast<std::int32_t>(b.first_element + e));
    }
    fmt::print(out, "*ELSET, ELSET={}_ELEMENTS\n", h.set);
    write_ids(out, elements);
  }
  std::set<std::string> materials_written;
  for (const ModelBlock& b : model.blocks) {
    if (materials_written.insert(b.material_spec->name).second) write_material(out, b);
    fmt::print(out, "*SOLID SECTION, ELSET={}, MATERIAL={}\n", b.spec->name, b.material_spec->name);
  }

  const double end = spec.solver.end_time;
  std::set<std::string> amplitudes;
  for (const auto& bc : spec.boundary_conditions) amplitudes.insert(bc.amplitude);
  for (const auto& l : spec.loads) amplitudes.insert(l.amplitude);
  for (const auto& p : spec.pressure_loads) amplitudes.insert(p.amplitude);
  if (spec.gravity) amplitudes.insert(spec.gravity->amplitude);
  // The case's steps (solver.steps), each a *STEP of the deck; one where it has none.
  std::vector<std::pair<double, double>> steps;
  std::vector<bool> static_steps;  // a dynamic case's static steps stay *STATIC in a dynamic deck
  for (const SolverStepSpec& s : spec.solver.steps) {
    steps.emplace_back(steps.empty() ? 0.0 : steps.back().second, s.end_time);
    static_steps.push_back(s.type == SolverType::Static);
  }
  if (steps.empty()) {
    steps.emplace_back(0.0, end);
    static_steps.push_back(false);
  }
  for (const std::string& a : amplitudes)
    write_amplitude(out, a, spec.amplitudes.at(a).curve, end, options.amplitude_points,
                    steps.size() > 1);

  if (!spec.initial_velocities.empty()) {
    fmt::print(out, "*INITIAL CONDITIONS, TYPE=VELOCITY\n");
    for (const auto& v : spec.initial_velocities)
      for (int k = 0; k < 3; ++k)
        if (v.velocity[k] != 0.0)
          fmt::print(out, "{}, {}, {}\n", v.set, k + 1, real(v.velocity[k]));
  }

  // Prescribed dofs, for the rigid-body check of a static step.
  std::vector<bool> prescribed(static_cast<std::size_t>(3 * model.mesh.num_nodes()), false);
  for (const auto& bc : spec.boundary_conditions)
    for (const std::int32_t node : model.mesh.node_sets.at(bc.set))
      for (int k = 0; k < 3; ++k)
        if (bc.constrained[k]) prescribed[3 * node + k] = true;
  if (options.step == Step::Static) {
    const auto box = model.mesh.bounds();
    const Eigen::Vector3d lo(box[0][0], box[0][1], box[0][2]), hi(box[1][0], box[1][1], box[1][2]);
    const Eigen::Vector3d centre = 0.5 * (lo + hi);
    const double length = std::max(1e-30, (hi - lo).norm());
    const auto modes = free_rigid_modes(model, prescribed, centre, length);
    if (!modes.empty()) {
      // Hold each free motion the way fem's explicit solution keeps it: no net force or moment
      // acts along it, so the mass-weighted mean of the motion stays zero. One *EQUATION per
      // mode over all nodes, reduced so that each equation's first (eliminated) term appears in
      // no other equation.
      const std::vector<double> mass = setup_explicit(model).system.lumped_mass;
      const std::int64_t n = model.mesh.num_nodes();
      std::vector<std::vector<double>> rows;
      for (const auto& c : modes) {
        std::vector<double> row(static_cast<std::size_t>(3 * n), 0.0);
        for (std::int64_t i = 0; i < n; ++i) {
          const auto x = model.mesh.node(i);
          const Eigen::Vector3d r = (Eigen::Vector3d(x[0], x[1], x[2]) - centre) / length;
          const Eigen::Vector3d u = c.head<3>() + c.tail<3>().cross(r);
          for (int k = 0; k < 3; ++k)
            if (!prescribed[3 * i + k]) row[3 * i + k] = mass[i] * u[k];
        }
        rows.push_back(std::move(row));
      }
      std::vector<std::size_t> pivots;
      for (std::size_t j = 0; j < rows.size(); ++j) {
        std::size_t p = 0;
        for (std::size_t d = 0; d < rows[j].size(); ++d)
          if (std::abs(rows[j][d]) > std::abs(rows[j][p])) p = d;
        for (std::size_t r = 0; r < rows.size(); ++r) {
          if (r == j || rows[r][p] == 0.0) continue;
          const double f = rows[r][p] / rows[j][p];
          for (std::size_t d = 0; d < rows[r].size(); ++d) rows[r][d] -= f * rows[j][d];
          rows[r][p] = 0.0;
        }
        pivots.push_back(p);
      }
      std::string names;
      for (const auto& c : modes) {
        int k = 0;
        c.cwiseAbs().maxCoeff(&k);
        names += (names.empty() ? "" : ", ") + std::string(kModeNames[k]);
      }
      fmt::print(out,
                 "** The case leaves {} rigid-body motion(s) free ({}), which a static solve "
                 "cannot: each is\n** held by an equation setting its mass-weighted mean to "
                 "zero, as in fem's explicit run.\n",
                 modes.size(), names);
      report.notes.push_back(fmt::format(
          "static step: {} free rigid-body motion(s) ({}) held by mass-weighted *EQUATION "
          "constraints",
          modes.size(), names));
      report.held_rigid_body_modes = static_cast<int>(modes.size());
      for (std::size_t j = 0; j < rows.size(); ++j) {
        std::vector<std::size_t> terms{pivots[j]};
        const double big = std::abs(rows[j][pivots[j]]);
        for (std::size_t d = 0; d < rows[j].size(); ++d)
          if (d != pivots[j] && std::abs(rows[j][d]) > 1e-12 * big) terms.push_back(d);
        fmt::print(out, "*EQUATION\n{}\n", terms.size());
        for (std::size_t t = 0; t < terms.size(); ++t)
          fmt::print(out, "{}, {}, {}{}", terms[t] / 3 + 1, terms[t] % 3 + 1,
                     real(rows[j][terms[t]] / big),
                     (t + 1) % 4 == 0 || t + 1 == terms.size() ? "\n" : ", ");
      }
    }
  }

  // The step.
  const bool nlgeom =
      std::any_of(model.blocks.begin(), model.blocks.end(),
                  [](const ModelBlock& b) { return !b.material->host.small_strain; });
  // The increment limit must let the step finish: an explicit step takes end / (stable step)
  // increments (the seed-000 cube at 6 per edge about 11,000), so allow ten times fem's count.
  std::int64_t max_increments = 100 * options.intervals;
  if (options.step == Step::Explicit) {
    const double critical = setup_explicit(model).critical_time_step;
    if (critical > 0)
      max_increments =
          std::max(max_increments, static_cast<std::int64_t>(std::ceil(10.0 * end / critical)));
  }
  if (spec.solver.mass_damping > 0)
    fmt::print(out, "** fem's mass-proportional damping ({} 1/s) is not exported\n",
               real(spec.solver.mass_damping));
  const std::vector<BoundaryFace> boundary =
      spec.pressure_loads.empty() ? std::vector<BoundaryFace>() : boundary_faces(model);
  std::ostringstream conditions_text;  // the same in every step: the faces are matched once
  write_step_conditions(conditions_text, spec, model, boundary, nlgeom, report);
  const std::string conditions = conditions_text.str();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    // The intervals over the whole run, shared among the steps by their lengths.
    const double length = steps[k].second - steps[k].first;
    const double inc = length / std::max(1.0, std::round(options.intervals * length / end));
    fmt::print(out, "**\n*STEP{}, INC={}\n", nlgeom ? ", NLGEOM" : "", max_increments);
    switch (options.step == Step::Dynamic && static_steps[k] ? Step::Static : options.step) {
      case Step::Static:
        fmt::print(out, "*STATIC, DIRECT\n{}, {}\n", real(inc), real(length));
        break;
      case Step::Dynamic:
        fmt::print(out, "*DYNAMIC, DIRECT\n{}, {}\n", real(inc), real(length));
        break;
      case Step::Explicit:
        fmt::print(out, "*DYNAMIC, EXPLICIT\n{}, {}\n", real(inc), real(length));
        break;
    }
    // Every step restates every condition with its amplitude: a step that leaves a condition
    // out holds it at the value the previous step ended with (CalculiX, measured).
    out << conditions;
    if (k == 0) write_print_requests(out, spec, model);
    // CalculiX refuses a deck whose first step is static and a later one dynamic unless the
    // first step asks for energy output ("energy output must be selected in the first step"):
    // the first block's strain energy (a history in fem).
    if (k == 0 && options.step == Step::Dynamic && static_steps[0] &&
        std::find(static_steps.begin(), static_steps.end(), false) != static_steps.end())
      fmt::print(out, "*EL PRINT, ELSET={}\nENER\n", model.blocks.front().spec->name);
    fmt::print(out, "*END STEP\n");
  }
  return report;
}

}  // namespace fem
