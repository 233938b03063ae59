#include "multigrid_hierarchy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "fem/error.hpp"
#include "fem/mesh/generators.hpp"

namespace fem::multigrid {
namespace {

/// Grid points of nodes at undistorted box coordinates.
std::vector<GridPoint> grid_points(const MeshSpec& box, const std::vector<double>& coords) {
  std::vector<GridPoint> points(coords.size() / 3);
  for (std::size_t n = 0; n < points.size(); ++n)
    for (int k = 0; k < 3; ++k) {
      const double half_cells =
          2.0 * box.divisions[k] * (coords[3 * n + k] - box.origin[k]) / box.size[k];
      const double nearest = std::round(half_cells);
      if (!(std::abs(half_cells - nearest) < 1e-6))
        throw Error("multigrid: node " + std::to_string(n) +
                    " is not on the box grid (solver bug)");
      points[n][k] = static_cast<std::int32_t>(nearest);
    }
  return points;
}

using Coordinates = std::array<double, 3>;
Coordinates coordinates(const std::vector<double>& coords, std::int64_t node) {
  return {coords[3 * node], coords[3 * node + 1], coords[3 * node + 2]};
}

/// The undistorted coordinates of the nodes of a model whose box mesh is distorted. The
/// generator numbers the nodes alike with and without distortion, and the model's mesh is the
/// distorted one, perhaps renumbered: each node is found among the generator's distorted nodes by
/// its coordinates (bit for bit: the generator is deterministic), which gives its number there.
std::vector<double> undistorted_coordinates(const Model& model) {
  const Mesh distorted = generate_mesh(model.spec.mesh);
  MeshSpec straight_spec = model.spec.mesh;
  straight_spec.distortion = 0.0;
  const Mesh straight = generate_mesh(straight_spec);
  std::vector<std::int32_t> by_coordinates(static_cast<std::size_t>(distorted.num_nodes()));
  std::iota(by_coordinates.begin(), by_coordinates.end(), 0);
  std::sort(by_coordinates.begin(), by_coordinates.end(), [&](std::int32_t a, std::int32_t b) {
    return coordinates(distorted.coords, a) < coordinates(distorted.coords, b);
  });
  std::vector<double> out(model.mesh.coords.size());
  for (std::int64_t n = 0; n < model.mesh.num_nodes(); ++n) {
    const Coordinates x = coordinates(model.mesh.coords, n);
    const auto it = std::lower_bound(
        by_coordinates.begin(), by_coordinates.end(), x,
        [&](std::int32_t a, const Coordinates& y) { return coordinates(distorted.coords, a) < y; });
    if (it == by_coordinates.end() || coordinates(distorted.coords, *it) != x)
      throw Error("multigrid: node " + std::to_string(n) +
                  " is not where the box generator puts it (solver bug)");
    for (int k = 0; k < 3; ++k) out[3 * n + k] = straight.coords[3 * *it + k];
  }
  return out;
}

/// The coarse grid points whose values interpolate at a fine grid point, with their weights:
/// the coarse element's own interpolation. Fine half cells are quarter coarse cells.
void interpolation(CellShape cells, const GridPoint& fine, const std::array<int, 3>& divisions,
                   std::vector<std::pair<GridPoint, double>>& out) {
  out.clear();
  // The coarse cell that holds the point, and the point's place in it, in [0, 1]^3.
  std::array<std::int32_t, 3> cell{};
  std::array<double, 3> t{};
  for (int k = 0; k < 3; ++k) {
    cell[k] = std::min(fine[k] / 4, divisions[k] - 1);
    t[k] = (fine[k] - 4 * cell[k]) / 4.0;
  }
  // Grid points (coarse half cells) of a corner of the cell, and of the middle of two corners.
  const auto corner = [&](const std::array<int, 3>& offset) {
    return GridPoint{2 * (cell[0] + offset[0]), 2 * (cell[1] + offset[1]),
                     2 * (cell[2] + offset[2])};
  };
  const auto middle = [&](const std::array<int, 3>& a, const std::array<int, 3>& b) {
    return GridPoint{2 * cell[0] + a[0] + b[0], 2 * cell[1] + a[1] + b[1],
                     2 * cell[2] + a[2] + b[2]};
  };
  const auto add = [&](const GridPoint& p, double weight) {
    if (weight != 0.0) out.emplace_back(p, weight);
  };

  if (cells == CellShape::Hex8) {
    for (int c = 0; c < 8; ++c) {
      const std::array<int, 3> offset = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
      double weight = 1.0;
      for (int k = 0; k < 3; ++k) weight *= offset[k] != 0 ? t[k] : 1.0 - t[k];
      add(corner(offset), weight);
    }
    return;
  }
  if (cells == CellShape::Hex20) {
    // Serendipity functions at xi = 2 t - 1: corners (1 + xi_k c_k ...)(sum xi_k c_k - 2) / 8,
    // mid-edge nodes (1 - xi_z^2) prod_k(1 + xi_k c_k) / 4 over the other two axes.
    std::array<double, 3> xi{};
    for (int k = 0; k < 3; ++k) xi[k] = 2.0 * t[k] - 1.0;
    for (int c = 0; c < 8; ++c) {
      const std::array<int, 3> offset = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
      double product = 1.0, sum = -2.0;
      for (int k = 0; k < 3; ++k) {
        const double sign = 2.0 * offset[k] - 1.0;
        product *= 1.0 + xi[k] * sign;
        sum += xi[k] * sign;
      }
      add(corner(offset), product * sum / 8.0);
    }
    for (int z = 0; z < 3; ++z)  // the edges along axis z
      for (int e = 0; e < 4; ++e) {
        std::array<int, 3> a{}, b{};
        const int i = (z + 1) % 3, j = (z + 2) % 3;
        a[i] = b[i] = e & 1;
        a[j] = b[j] = (e >> 1) & 1;
        b[z] = 1;
        const double weight = (1.0 - xi[z] * xi[z]) * (1.0 + xi[i] * (2.0 * a[i] - 1.0)) *
                              (1.0 + xi[j] * (2.0 * a[j] - 1.0)) / 4.0;
        add(middle(a, b), weight);
      }
    return;
  }
  if (cells != CellShape::Tet4 && cells != CellShape::Tet10)
    throw Error(std::string("multigrid: no interpolation for ") + to_string(cells) + " cells");
  // The generator cuts every cube into the six Kuhn tetrahedra around its main diagonal
  // (mesh/tet_split.cpp). The one that holds t, with t_a >= t_b >= t_c, has the vertices 0,
  // e_a, e_a + e_b and (1, 1, 1), and t the barycentric coordinates below.
  std::array<int, 3> axis = {0, 1, 2};
  std::stable_sort(axis.begin(), axis.end(), [&](int a, int b) { return t[a] > t[b]; });
  std::array<std::array<int, 3>, 4> vertex{};
  vertex[1][axis[0]] = 1;
  vertex[2] = vertex[1];
  vertex[2][axis[1]] = 1;
  vertex[3] = {1, 1, 1};
  const std::array<double, 4> lambda = {1.0 - t[axis[0]], t[axis[0]] - t[axis[1]],
                                        t[axis[1]] - t[axis[2]], t[axis[2]]};
  if (cells == CellShape::Tet4) {
    for (int i = 0; i < 4; ++i) add(corner(vertex[i]), lambda[i]);
    return;
  }
  for (int i = 0; i < 4; ++i) add(corner(vertex[i]), lambda[i] * (2.0 * lambda[i] - 1.0));
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) add(middle(vertex[i], vertex[j]), 4.0 * lambda[i] * lambda[j]);
}

}  // namespace

BoxGrid::BoxGrid(const std::array<int, 3>& divisions, std::vector<GridPoint> points)
    : divisions_(divisions), points_(std::move(points)) {
  nodes_.reserve(points_.size());
  for (std::size_t n = 0; n < points_.size(); ++n)
    if (!nodes_.emplace(key(points_[n]), static_cast<std::int32_t>(n)).second)
      throw Error("multigrid: two nodes at one point of the box grid (solver bug)");
}

std::int64_t BoxGrid::key(const GridPoint& p) const {
  const std::int64_t nx = 2 * divisions_[0] + 1, ny = 2 * divisions_[1] + 1;
  return p[0] + nx * (p[1] + ny * static_cast<std::int64_t>(p[2]));
}

std::int32_t BoxGrid::node_at(const GridPoint& p) const {
  for (int k = 0; k < 3; ++k)
    if (p[k] < 0 || p[k] > 2 * divisions_[k]) return -1;
  const auto it = nodes_.find(key(p));
  return it == nodes_.end() ? -1 : it->second;
}

BoxGrid box_grid(const Model& model) {
  const MeshSpec& box = model.spec.mesh;
  return {box.divisions, grid_points(box, box.distortion > 0.0 ? undistorted_coordinates(model)
                                                               : model.mesh.coords)};
}

CoarseModel coarsen(const Model& fine, const BoxGrid& fine_grid) {
  auto model = std::make_unique<Model>();
  model->spec = fine.spec;
  CaseSpec& spec = model->spec;
  for (int k = 0; k < 3; ++k) spec.mesh.divisions[k] = fine_grid.divisions()[k] / 2;
  spec.mesh.distortion = 0.0;  // the coarse nodes take the fine nodes' places below
  spec.contacts.clear();
  spec.loads.clear();
  spec.pressure_loads.clear();
  spec.gravity.reset();
  spec.initial_velocities.clear();
  model->mesh = generate_mesh(spec.mesh);
  Mesh& mesh = model->mesh;
  BoxGrid grid(spec.mesh.divisions, grid_points(spec.mesh, mesh.coords));

  std::vector<std::int32_t> fine_node(static_cast<std::size_t>(mesh.num_nodes()));
  for (std::int64_t c = 0; c < mesh.num_nodes(); ++c) {
    const GridPoint& p = grid.point(c);
    fine_node[c] = fine_grid.node_at({2 * p[0], 2 * p[1], 2 * p[2]});
    if (fine_node[c] < 0)
      throw Error("multigrid: a coarse node has no fine node at its place (solver bug)");
    for (int k = 0; k < 3; ++k) mesh.coords[3 * c + k] = fine.mesh.coords[3 * fine_node[c] + k];
  }

  std::vector<std::uint8_t> in_set(static_cast<std::size_t>(fine.mesh.num_nodes()));
  for (const auto& [name, nodes] : fine.mesh.node_sets) {
    std::fill(in_set.begin(), in_set.end(), std::uint8_t{0});
    for (const std::int32_t n : nodes) in_set[n] = 1;
    std::vector<std::int32_t>& coarse_set = mesh.node_sets[name];
    for (std::int64_t c = 0; c < mesh.num_nodes(); ++c)
      if (in_set[fine_node[c]] != 0) coarse_set.push_back(static_cast<std::int32_t>(c));
  }

  std::int64_t first = 0;
  for (const ModelBlock& fine_block : fine.blocks) {
    ModelBlock b;
    b.spec = &spec.blocks[static_cast<std::size_t>(fine_block.spec - fine.spec.blocks.data())];
    b.material_spec = &spec.materials.at(b.spec->material);
    b.element = fine_block.element;
    b.material = fine_block.material;
    b.params = fine_block.params;
    const auto region = std::find_if(mesh.regions.begin(), mesh.regions.end(),
                                     [&](const CellRegion& r) { return r.name == b.spec->region; });
    if (region == mesh.regions.end())
      throw Error("multigrid: the coarse box has no region '" + b.spec->region + "' (solver bug)");
    b.connectivity = to_element_order(*region, *b.element);
    b.first_element = first;
    first += b.num_elements();
    model->blocks.push_back(std::move(b));
  }
  return {std::move(model), std::move(grid), std::move(fine_node)};
}

CsrMatrix prolongation(CellShape cells, const BoxGrid& fine, const System& fine_system,
                       const BoxGrid& coarse, const System& coarse_system) {
  CsrMatrix p;
  p.rows = 3 * fine.num_nodes();
  p.cols = 3 * coarse.num_nodes();
  p.offsets.reserve(static_cast<std::size_t>(p.rows + 1));
  p.offsets.push_back(0);
  std::vector<std::pair<GridPoint, double>> weights;
  std::vector<std::pair<std::int64_t, double>> row;
  for (std::int64_t f = 0; f < fine.num_nodes(); ++f) {
    interpolation(cells, fine.point(f), coarse.divisions(), weights);
    for (int k = 0; k < 3; ++k) {
      row.clear();
      if (fine_system.prescribed_amplitude[3 * f + k] < 0)
        for (const auto& [point, weight] : weights) {
          const std::int32_t c = coarse.node_at(point);
          if (c < 0)
            throw Error("multigrid: no coarse node where the interpolation needs one (solver bug)");
          const std::int64_t column = 3 * static_cast<std::int64_t>(c) + k;
          if (coarse_system.prescribed_amplitude[column] < 0) row.emplace_back(column, weight);
        }
      std::sort(row.begin(), row.end());
      for (const auto& [column, weight] : row) {
        p.columns.push_back(column);
        p.values.push_back(weight);
      }
      p.offsets.push_back(static_cast<std::int64_t>(p.columns.size()));
    }
  }
  return p;
}

CsrMatrix injection(const std::vector<std::int32_t>& fine_node, std::int64_t fine_nodes) {
  CsrMatrix a;
  a.rows = 3 * static_cast<std::int64_t>(fine_node.size());
  a.cols = 3 * fine_nodes;
  a.offsets.resize(static_cast<std::size_t>(a.rows + 1));
  std::iota(a.offsets.begin(), a.offsets.end(), std::int64_t{0});
  a.columns.resize(static_cast<std::size_t>(a.rows));
  for (std::size_t c = 0; c < fine_node.size(); ++c)
    for (int k = 0; k < 3; ++k)
      a.columns[3 * c + k] = 3 * static_cast<std::int64_t>(fine_node[c]) + k;
  a.values.assign(a.columns.size(), 1.0);
  return a;
}

CsrMatrix transpose(const CsrMatrix& a) {
  CsrMatrix t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.offsets.assign(static_cast<std::size_t>(t.rows + 1), 0);
  for (const std::int64_t c : a.columns) ++t.offsets[c + 1];
  std::partial_sum(t.offsets.begin(), t.offsets.end(), t.offsets.begin());
  t.columns.resize(a.columns.size());
  t.values.resize(a.values.size());
  std::vector<std::int64_t> next(t.offsets.begin(), t.offsets.end() - 1);
  // Rows of a in order: the columns of every row of t come out sorted.
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (std::int64_t j = a.offsets[r]; j < a.offsets[r + 1]; ++j) {
      const std::int64_t slot = next[a.columns[j]]++;
      t.columns[slot] = r;
      t.values[slot] = a.values[j];
    }
  return t;
}

}  // namespace fem::multigrid
