// Voxel objects and models for the co-rotational solver's tests: a box of voxels from the box
// generator (cubes when size / divisions agree), cut to an irregular object where a test needs
// partially filled coarse cells.
#pragma once

#include <fmt/format.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/mesh/generators.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/corotational_solver.hpp>

#include "support/model_run.hpp"

namespace fem::test {

/// The small-strain tangent of an isotropic material, a[9 (3 i + J) + 3 k + L].
inline std::array<double, 81> isotropic_tangent(double young, double poisson) {
  const double mu = young / (2.0 * (1.0 + poisson));
  const double lambda = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  std::array<double, 81> a{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
          a[9 * (3 * i + j) + 3 * k + l] =
              lambda * (i == j) * (k == l) + mu * ((i == k) * (j == l) + (i == l) * (j == k));
  return a;
}

/// A mesh of n^3 unit-spaced voxels (edge `edge`) and the cells of those kept by `keep(i, j, k)`.
struct VoxelObject {
  Mesh mesh;
  std::vector<std::int32_t> cells;
};

template <class Keep>
VoxelObject voxel_object(std::array<int, 3> n, double edge, const Keep& keep) {
  MeshSpec spec;
  spec.generator = "box";
  spec.cells = CellShape::Hex8;
  spec.divisions = n;
  spec.size = {n[0] * edge, n[1] * edge, n[2] * edge};
  VoxelObject o;
  o.mesh = generate_mesh(spec);
  const CellRegion& r = o.mesh.regions.front();
  for (std::int64_t c = 0; c < r.num_cells(); ++c) {
    // The generator numbers cells x fastest.
    const int i = static_cast<int>(c % n[0]), j = static_cast<int>((c / n[0]) % n[1]),
              k = static_cast<int>(c / (static_cast<std::int64_t>(n[0]) * n[1]));
    if (!keep(i, j, k)) continue;
    o.cells.insert(o.cells.end(), r.connectivity.begin() + 8 * c,
                   r.connectivity.begin() + 8 * (c + 1));
  }
  return o;
}

/// A case of solver type corotational on a box of voxels: `extra` adds top-level YAML (node
/// sets, conditions, loads); the box is `n` voxels of edge `edge`.
struct VoxelCase {
  std::array<int, 3> n = {8, 8, 8};
  double edge = 2.8e-3;
  double young = 1.0e6, poisson = 0.3, density = 1.0e5;
  std::string solver = "{type: corotational, end_time: 0.5, time_step: 0.05}";
  std::string extra;
  std::string precision = "double";
  std::string backend = "openmp";
  [[nodiscard]] std::string yaml() const {
    return fmt::format(R"(
name: voxels
backend: {}
precision: {}
mesh: {{generator: box, cells: hex8, size: [{}, {}, {}], divisions: [{}, {}, {}]}}
materials:
  soft: {{type: linear_elastic, density: {}, youngs_modulus: {}, poisson_ratio: {}}}
blocks:
  - {{name: body, element: hex8, material: soft}}
solver: {}
output: {{vtk: false}}
{}
)",
                       backend, precision, n[0] * edge, n[1] * edge, n[2] * edge, n[0], n[1], n[2],
                       density, young, poisson, solver, extra);
  }
};

using VoxelRun = ModelRun;

inline VoxelRun voxel_model(const std::string& yaml) {
  return model_run(yaml);
}

}  // namespace fem::test
