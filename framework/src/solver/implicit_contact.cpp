#include "implicit_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "fem/contact/rigid_surface.hpp"
#include "fem/operator_assembly.hpp"
#include "fem/solver/explicit_system.hpp"

namespace fem {
namespace {

using Vec3 = std::array<double, 3>;

Vec3 sub(const double* a, const double* b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
double dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// A target triangle of a deformable surface (quadrilateral faces split along a diagonal).
struct TargetTriangle {
  std::array<std::int32_t, 3> nodes;
};

}  // namespace

/// The contacts of the case, as the evaluation needs them.
struct ContactOperator::Contacts {
  struct Entry {
    std::string name;
    bool deformable = false;
    int surface = -1;  ///< rigid: index into System::surfaces
    bool augmented = false;
    double penalty = 0.0;    ///< Pa/m
    double tolerance = 0.0;  ///< m, augmented Lagrangian
    int max_augmentations = 20;
    std::vector<std::int32_t> nodes;  ///< constrained (slave) nodes, without prescribed ones
    std::vector<double> area;         ///< their tributary areas, m^2
    std::vector<double> multiplier, accepted, trial;  ///< Pa, per node
    std::vector<TargetTriangle> targets;              ///< deformable: the target surface
    std::vector<Vec3> nodal_normal;  ///< deformable: smoothed normals at the target's nodes
  };
  std::vector<Entry> entries;
  std::vector<contact::SurfaceView<double>> views;  ///< rigid surfaces (no copies of triangles)
  double search_radius = 0.0;                       ///< deformable pairs, m
};

ContactOperator::ContactOperator(NonlinearOperator& inner, const Model& model, const System& system)
    : OperatorDecorator(inner, system), system_(system), contacts_(std::make_unique<Contacts>()) {
  const CaseSpec& spec = model.spec;
  const std::vector<BoundaryFace> faces = boundary_faces(model);
  const auto X = [&](std::int32_t n) { return system.coordinates.data() + 3 * n; };
  std::vector<double> face_area(faces.size());
  double edge_sum = 0.0;
  std::int64_t edges = 0;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const BoundaryFace& face = faces[f];
    Vec3 vector_area = {0, 0, 0};
    for (int i = 1; i + 1 < face.corners; ++i) {
      const Vec3 c = cross(sub(X(face.nodes[i]), X(face.nodes[0])),
                           sub(X(face.nodes[i + 1]), X(face.nodes[0])));
      for (int k = 0; k < 3; ++k) vector_area[k] += 0.5 * c[k];
    }
    face_area[f] = std::sqrt(dot(vector_area, vector_area));
    for (int i = 0; i < face.corners; ++i) {
      const Vec3 e = sub(X(face.nodes[(i + 1) % face.corners]), X(face.nodes[i]));
      edge_sum += std::sqrt(dot(e, e));
      ++edges;
    }
  }
  // Tributary areas of a contact's nodes: the boundary faces whose corners are all contact
  // nodes, each shared equally by its corners (the consistent nodal share of a uniform pressure
  // on linear faces); the side faces that meet the contact surface at its rim do not count.
  const auto tributary_areas = [&](const std::vector<std::int32_t>& nodes) {
    std::vector<char> member(static_cast<std::size_t>(system.num_nodes), 0);
    for (const std::int32_t n : nodes) member[n] = 1;
    std::vector<double> area(static_cast<std::size_t>(system.num_nodes), 0.0);
    for (std::size_t f = 0; f < faces.size(); ++f) {
      bool all = true;
      for (int i = 0; i < faces[f].corners; ++i) all = all && member[faces[f].nodes[i]];
      if (all)
        for (int i = 0; i < faces[f].corners; ++i)
          area[faces[f].nodes[i]] += face_area[f] / faces[f].corners;
    }
    std::vector<double> out;
    for (const std::int32_t n : nodes) out.push_back(area[n]);
    return out;
  };
  const double edge = edges > 0 ? edge_sum / static_cast<double>(edges) : 1.0;
  contacts_->search_radius = edge;
  // The automatic penalty: ten times the stiffest material's P-wave modulus over the boundary
  // faces' mean edge, about ten times the stiffness of the element layer under a contact node.
  double modulus = 0.0;
  for (const ModelBlock& b : model.blocks)
    modulus = std::max(modulus, b.material->host.dilatational_modulus(b.params.data()));
  const auto fully_prescribed = [&](std::int32_t n) {
    for (int i = 0; i < 3; ++i)
      if (system.prescribed_amplitude[3 * static_cast<std::int64_t>(n) + i] < 0) return false;
    return true;
  };
  std::vector<std::int32_t> boundary;
  int rigid = 0;
  for (std::size_t s = 0; s < spec.contacts.size(); ++s) {
    const ContactSpec& c = spec.contacts[s];
    Contacts::Entry e;
    e.name = c.name;
    e.deformable = c.type == "deformable";
    e.augmented = c.method == "augmented_lagrangian";
    e.penalty = c.penalty > 0.0 ? c.penalty : 10.0 * modulus / edge;
    e.tolerance = c.penetration_tolerance > 0.0 ? c.penetration_tolerance : 0.01 * edge;
    e.max_augmentations = c.max_augmentations;
    if (e.deformable) {
      for (const std::int32_t n : model.mesh.node_sets.at(c.set))
        if (!fully_prescribed(n)) e.nodes.push_back(n);
      const auto& target_set = model.mesh.node_sets.at(c.surface);
      std::vector<bool> in_target(static_cast<std::size_t>(system.num_nodes), false);
      for (const std::int32_t n : target_set) in_target[n] = true;
      for (const BoundaryFace& f : faces) {
        bool all = true;
        for (int i = 0; i < f.corners; ++i) all = all && in_target[f.nodes[i]];
        if (!all) continue;
        e.targets.push_back({{f.nodes[0], f.nodes[1], f.nodes[2]}});
        if (f.corners == 4) e.targets.push_back({{f.nodes[0], f.nodes[2], f.nodes[3]}});
      }
      if (e.targets.empty())
        throw InputError(c.where,
                         "contact '" + c.name + "': no boundary face has all its nodes in set '" +
                             c.surface + "'",
                         "the surface set must contain the nodes of the boundary faces that form "
                         "the target surface (a plane or box selector around them, say)");
    } else {
      // The set, or the mesh boundary. A node with some prescribed components still touches
      // with the others (a node on a symmetry plane, say): only the prescribed dofs' rows and
      // columns are left out. The explicit solvers' projection skips such nodes altogether.
      e.surface = rigid++;
      if (!c.set.empty()) {
        e.nodes = model.mesh.node_sets.at(c.set);
      } else {
        if (boundary.empty()) boundary = boundary_nodes(model);
        e.nodes = boundary;
      }
      e.nodes.erase(std::remove_if(e.nodes.begin(), e.nodes.end(), fully_prescribed),
                    e.nodes.end());
    }
    e.area = tributary_areas(e.nodes);
    e.multiplier.assign(e.nodes.size(), 0.0);
    e.accepted = e.trial = e.multiplier;
    contacts_->entries.push_back(std::move(e));
    ContactState st;
    st.name = c.name;
    st.penalty = contacts_->entries.back().penalty;
    if (contacts_->entries.back().augmented) st.tolerance = contacts_->entries.back().tolerance;
    states_.push_back(st);
  }
  for (const RigidSurface& s : system.surfaces) {
    contact::SurfaceView<double> v{};
    v.kind = static_cast<int>(s.kind);
    for (int i = 0; i < 3; ++i) {
      v.point[i] = s.point[i];
      v.normal[i] = s.normal[i];
      v.translation[i] = s.translation[i];
    }
    v.radius = s.radius;
    v.side = s.side;
    v.amplitude = s.amplitude;
    if (s.kind == SurfaceKind::Triangles) {
      const TriangleMesh& m = s.mesh;
      v.mesh = {m.vertices.data(),
                m.triangles.data(),
                m.face_normals.data(),
                m.edge_normals.data(),
                m.vertex_normals.data(),
                {},
                m.cell_size,
                {},
                m.cell_offsets.data(),
                m.cell_triangles.data()};
      for (int i = 0; i < 3; ++i) {
        v.mesh.origin[i] = m.grid_origin[i];
        v.mesh.dims[i] = m.grid_dims[i];
      }
    }
    contacts_->views.push_back(v);
  }
  forces_.assign(static_cast<std::size_t>(3 * system.num_nodes), 0.0);
}

ContactOperator::~ContactOperator() = default;

bool ContactOperator::augmented() const {
  for (const auto& e : contacts_->entries)
    if (e.augmented) return true;
  return false;
}

void ContactOperator::evaluate(const Vector& u, bool tangent) {
  algebra().download(u, u_host_);
  std::fill(forces_.begin(), forces_.end(), 0.0);
  std::vector<TangentEntry> entries;
  const System& s = system_;
  const auto position = [&](std::int32_t n, Vec3& x) {
    for (int i = 0; i < 3; ++i)
      x[i] = s.coordinates[3 * static_cast<std::int64_t>(n) + i] +
             u_host_[3 * static_cast<std::int64_t>(n) + i];
  };
  // Adds stiffness * q q^T over the dofs of `nodes` (q: 3 entries per node), free dofs only.
  const auto add_outer = [&](const std::int32_t* nodes, const Vec3* q, int count, double k) {
    for (int a = 0; a < count; ++a)
      for (int i = 0; i < 3; ++i) {
        const std::int64_t row = 3 * static_cast<std::int64_t>(nodes[a]) + i;
        if (s.prescribed_amplitude[row] >= 0) continue;
        for (int b = 0; b < count; ++b)
          for (int j = 0; j < 3; ++j) {
            const std::int64_t col = 3 * static_cast<std::int64_t>(nodes[b]) + j;
            if (s.prescribed_amplitude[col] < 0)
              entries.push_back({row, col, k * q[a][i] * q[b][j]});
          }
      }
  };
  // The deformable pairs' target triangles in their current positions, bucketed.
  const double cell = 2.0 * contacts_->search_radius;
  for (std::size_t c = 0; c < contacts_->entries.size(); ++c) {
    Contacts::Entry& e = contacts_->entries[c];
    ContactState& st = states_[c];
    st.force = {0, 0, 0};
    st.active = 0;
    st.max_penetration = 0.0;
    std::unordered_map<std::int64_t, std::vector<std::int32_t>> grid;
    const auto key = [&](const Vec3& x, int dx, int dy, int dz) {
      const auto q = [&](double v, int d) {
        return static_cast<std::int64_t>(std::floor(v / cell)) + d;
      };
      return ((q(x[0], dx) * 73856093) ^ (q(x[1], dy) * 19349663) ^ (q(x[2], dz) * 83492791));
    };
    if (e.deformable) {
      // Nodal normals of the target, area-weighted means of its faces' normals: the contact
      // normal interpolates them, so that it turns continuously from face to face as a node
      // slides (faceted normals jump at the edges, and the residual stalls on the jumps).
      e.nodal_normal.assign(static_cast<std::size_t>(s.num_nodes), Vec3{0, 0, 0});
      for (const TargetTriangle& t : e.targets) {
        Vec3 a, b, cc;
        position(t.nodes[0], a);
        position(t.nodes[1], b);
        position(t.nodes[2], cc);
        const Vec3 w = cross(sub(b.data(), a.data()), sub(cc.data(), a.data()));
        for (const std::int32_t m : t.nodes)
          for (int i = 0; i < 3; ++i) e.nodal_normal[m][i] += w[i];
      }
      for (const TargetTriangle& t : e.targets)
        for (const std::int32_t m : t.nodes) {
          Vec3& v = e.nodal_normal[m];
          const double len = std::sqrt(dot(v, v));
          if (len > 0.0 && std::abs(len - 1.0) > 1e-12)
            for (double& component : v) component /= len;
        }
    }
    if (e.deformable)
      for (std::size_t t = 0; t < e.targets.size(); ++t) {
        // A triangle goes into every cell its bounding box (grown by the search radius) touches.
        Vec3 lo, hi;
        for (int i = 0; i < 3; ++i) {
          lo[i] = std::numeric_limits<double>::max();
          hi[i] = -lo[i];
        }
        for (const std::int32_t n : e.targets[t].nodes) {
          Vec3 x;
          position(n, x);
          for (int i = 0; i < 3; ++i) {
            lo[i] = std::min(lo[i], x[i] - contacts_->search_radius);
            hi[i] = std::max(hi[i], x[i] + contacts_->search_radius);
          }
        }
        for (double x = std::floor(lo[0] / cell) * cell; x <= hi[0]; x += cell)
          for (double y = std::floor(lo[1] / cell) * cell; y <= hi[1]; y += cell)
            for (double z = std::floor(lo[2] / cell) * cell; z <= hi[2]; z += cell)
              grid[key({x + 0.5 * cell, y + 0.5 * cell, z + 0.5 * cell}, 0, 0, 0)].push_back(
                  static_cast<std::int32_t>(t));
      }
    for (std::size_t k = 0; k < e.nodes.size(); ++k) {
      const std::int32_t n = e.nodes[k];
      const double stiffness = e.penalty * e.area[k];                         // N/m
      const double lambda = e.augmented ? e.multiplier[k] * e.area[k] : 0.0;  // N
      e.trial[k] = 0.0;
      Vec3 x;
      position(n, x);
      // The contact pressure: lambda - k g where positive (g the signed gap); lambda = 0 for
      // the penalty method. A node just outside keeps its augmented-Lagrangian pressure until
      // the gap exceeds lambda / k, so that the force does not jump as nodes come and go.
      const auto pressure = [&](double gap) { return std::max(0.0, lambda - stiffness * gap); };
      if (!e.deformable) {
        const contact::SurfaceView<double>& v =
            contacts_->views[static_cast<std::size_t>(e.surface)];
        const double amp = v.amplitude >= 0 ? fem::evaluate(s.amplitudes[v.amplitude], time_) : 0.0;
        Vec3 y, normal;
        for (int i = 0; i < 3; ++i) y[i] = x[i] - v.translation[i] * amp;
        double gap = 0.0;
        if (!contact::signed_gap(v, y.data(), gap, normal.data())) continue;
        const double fn = pressure(gap);
        if (!(fn > 0.0)) continue;
        for (int i = 0; i < 3; ++i) {
          forces_[3 * static_cast<std::int64_t>(n) + i] += fn * normal[i];
          st.force[i] += fn * normal[i];
        }
        e.trial[k] = fn / e.area[k];
        ++st.active;
        st.max_penetration = std::max(st.max_penetration, -gap);
        if (tangent) {
          add_outer(&n, &normal, 1, stiffness);
          if (v.kind == static_cast<int>(SurfaceKind::Sphere)) {
            // The normal turns with the node on a sphere: - side (fn / rho) (I - n n), the
            // curvature term that keeps Newton quadratic (positive for a body inside).
            Vec3 d;
            for (int i = 0; i < 3; ++i) d[i] = y[i] - v.point[i];
            const double curvature = -v.side * fn / std::sqrt(dot(d, d));
            for (int i = 0; i < 3; ++i) {
              const std::int64_t row = 3 * static_cast<std::int64_t>(n) + i;
              if (s.prescribed_amplitude[row] >= 0) continue;
              for (int j = 0; j < 3; ++j) {
                const std::int64_t col = 3 * static_cast<std::int64_t>(n) + j;
                if (s.prescribed_amplitude[col] < 0)
                  entries.push_back(
                      {row, col, curvature * ((i == j ? 1.0 : 0.0) - normal[i] * normal[j])});
              }
            }
          }
        }
        continue;
      }
      // Deformable: the closest target triangle within the search radius, gap along its normal.
      const auto it = grid.find(key(x, 0, 0, 0));
      if (it == grid.end()) continue;
      double best = contacts_->search_radius * contacts_->search_radius;
      int best_t = -1;
      Vec3 best_q{}, best_normal{};
      double best_gap = 0.0;
      for (const std::int32_t t : it->second) {
        const auto& tri = e.targets[static_cast<std::size_t>(t)].nodes;
        if (tri[0] == n || tri[1] == n || tri[2] == n) continue;
        Vec3 a, b, cc, q;
        position(tri[0], a);
        position(tri[1], b);
        position(tri[2], cc);
        int region = 6;
        contact::closest_on_triangle(x.data(), a.data(), b.data(), cc.data(), q.data(), region);
        const Vec3 dq = sub(x.data(), q.data());
        const double d2 = dot(dq, dq);
        if (d2 >= best) continue;
        Vec3 normal = cross(sub(b.data(), a.data()), sub(cc.data(), a.data()));
        const double len = std::sqrt(dot(normal, normal));
        if (!(len > 0.0)) continue;
        for (double& v : normal) v /= len;
        best = d2;
        best_t = t;
        best_q = q;
        best_normal = normal;
        best_gap = dot(dq, normal);
      }
      if (best_t < 0) continue;
      const auto& tri = e.targets[static_cast<std::size_t>(best_t)].nodes;
      // Barycentric weights of the closest point: the target nodes share the reaction.
      Vec3 a, b, cc;
      position(tri[0], a);
      position(tri[1], b);
      position(tri[2], cc);
      const Vec3 area_vector = cross(sub(b.data(), a.data()), sub(cc.data(), a.data()));
      const double twice_area = std::sqrt(dot(area_vector, area_vector));
      const auto weight = [&](const Vec3& p, const Vec3& q1, const Vec3& q2) {
        const Vec3 w = cross(sub(q1.data(), p.data()), sub(q2.data(), p.data()));
        return dot(w, best_normal) / twice_area;
      };
      const double N[3] = {weight(best_q, b, cc), weight(best_q, cc, a), weight(best_q, a, b)};
      // The smoothed normal at the closest point, and the gap along it.
      Vec3 smooth = {0, 0, 0};
      for (int m = 0; m < 3; ++m)
        for (int i = 0; i < 3; ++i) smooth[i] += N[m] * e.nodal_normal[tri[m]][i];
      const double smooth_len = std::sqrt(dot(smooth, smooth));
      if (smooth_len > 0.0) {
        for (double& component : smooth) component /= smooth_len;
        best_normal = smooth;
        best_gap = dot(sub(x.data(), best_q.data()), smooth);
      }
      const double fn = pressure(best_gap);
      if (!(fn > 0.0)) continue;
      const std::int32_t nodes[4] = {n, tri[0], tri[1], tri[2]};
      Vec3 q[4];
      q[0] = best_normal;
      for (int m = 0; m < 3; ++m)
        for (int i = 0; i < 3; ++i) q[m + 1][i] = -N[m] * best_normal[i];
      for (int m = 0; m < 4; ++m)
        for (int i = 0; i < 3; ++i)
          forces_[3 * static_cast<std::int64_t>(nodes[m]) + i] += fn * q[m][i];
      for (int i = 0; i < 3; ++i) st.force[i] += fn * best_normal[i];
      e.trial[k] = fn / e.area[k];
      ++st.active;
      st.max_penetration = std::max(st.max_penetration, -best_gap);
      if (tangent) add_outer(nodes, q, 4, stiffness);
    }
  }
  if (tangent) stiffness_.set(algebra(), 3 * s.num_nodes, std::move(entries));
}

ElementCheck ContactOperator::do_internal_forces(const Vector& u, Vector& f) {
  forward_settings();
  const ElementCheck check = inner_.internal_forces(u, f);
  if (!check.ok()) return check;
  evaluate(u, false);
  if (!scratch_) scratch_ = algebra().vector(size());
  algebra().upload(forces_, *scratch_);
  algebra().axpby(-1.0, *scratch_, 1.0, f);  // the contact springs act against the body's forces
  return check;
}

ElementCheck ContactOperator::do_linearize(const Vector& u) {
  forward_settings();
  const ElementCheck check = inner_.linearize(u);
  evaluate(u, true);
  return check;
}

void ContactOperator::do_apply(const Vector& v, Vector& y) {
  forward_settings();
  inner_.apply(v, y);
  stiffness_.add_apply(algebra(), v, y, shift_stiffness());
}

void ContactOperator::do_diagonal(Vector& d) {
  forward_settings();
  inner_.diagonal(d);
  stiffness_.add_diagonal(algebra(), d, shift_stiffness());
}

void ContactOperator::do_block_diagonal(Vector& blocks) {
  forward_settings();
  inner_.block_diagonal(blocks);
  stiffness_.add_block_diagonal(algebra(), blocks, shift_stiffness());
}

void ContactOperator::do_assemble(CsrMatrix& a) {
  forward_settings();
  inner_.assemble(a);
  stiffness_.add_assembled(a, shift_stiffness());
}

bool ContactOperator::augment(const Vector& u) {
  evaluate(u, false);
  bool again = false;
  for (std::size_t c = 0; c < contacts_->entries.size(); ++c) {
    Contacts::Entry& e = contacts_->entries[c];
    if (!e.augmented) continue;
    // Uzawa: the multiplier takes the contact pressure of the converged state.
    e.multiplier = e.trial;
    if (states_[c].max_penetration > e.tolerance) again = true;
  }
  return again;
}

int ContactOperator::max_augmentations() const {
  int m = 0;
  for (const auto& e : contacts_->entries)
    if (e.augmented) m = std::max(m, e.max_augmentations);
  return m;
}

void ContactOperator::restore_multipliers() {
  for (auto& e : contacts_->entries) e.multiplier = e.accepted;
}

void ContactOperator::accept_multipliers() {
  for (auto& e : contacts_->entries) e.accepted = e.multiplier;
}

std::vector<std::vector<double>> ContactOperator::multipliers() const {
  std::vector<std::vector<double>> m;
  for (const auto& e : contacts_->entries) m.push_back(e.accepted);
  return m;
}

void ContactOperator::set_multipliers(const std::vector<std::vector<double>>& multipliers) {
  bool sizes = multipliers.size() == contacts_->entries.size();
  for (std::size_t k = 0; sizes && k < multipliers.size(); ++k)
    sizes = multipliers[k].size() == contacts_->entries[k].multiplier.size();
  if (!sizes) throw Error("the contact multipliers do not have this model's sizes");
  for (std::size_t k = 0; k < multipliers.size(); ++k)
    contacts_->entries[k].multiplier = contacts_->entries[k].accepted = multipliers[k];
}

}  // namespace fem
