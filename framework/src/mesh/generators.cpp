// generate_mesh: checks a MeshSpec, then builds hexahedra, splits and distorts them as asked.
#include "fem/mesh/generators.hpp"

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "fem/memory.hpp"
#include "fem/mesh/voxels.hpp"
#include "generator_parts.hpp"

namespace fem {

namespace {

std::string num(double v) {
  std::string s = std::to_string(v);
  // std::to_string prints 6 decimals; drop the trailing zeros so messages echo the input.
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

void require_positive(const MeshSpec& spec, const std::string& what, double v) {
  if (!(v > 0) || !std::isfinite(v))
    throw InputError(spec.where, "mesh." + what + " must be a positive length, got " + num(v),
                     "lengths are in metres and must be greater than zero");
}

void require_divisions(const MeshSpec& spec, const std::string& what, int v) {
  if (v < 1)
    throw InputError(spec.where, "mesh." + what + " must be at least 1, got " + std::to_string(v),
                     "divisions count cells along a direction");
}

/// The size of a generated mesh, known before it is built.
struct GeneratedSize {
  std::int64_t nodes = 0;
  std::int64_t cells = 0;  ///< of the shape asked for: a hexahedron is 1 hex8 or 6 tetrahedra
  /// What the mesh itself takes (coordinates and connectivity); building it takes more.
  [[nodiscard]] double bytes(CellShape shape) const {
    return 24.0 * static_cast<double>(nodes) +
           4.0 * static_cast<double>(cells) * nodes_per_cell(shape);
  }
};

/// `hexes` hexahedra with `corners` grid nodes, as cells of the shape asked for.
GeneratedSize generated_size(const MeshSpec& spec, std::int64_t corners, std::int64_t hexes) {
  // Quadratic cells add one node per edge: at most 7 edges per grid node in the split of a box,
  // 3 in its hexahedra.
  if (spec.cells == CellShape::Tet10) return {8 * corners, 6 * hexes};
  if (spec.cells == CellShape::Hex20) return {4 * corners, hexes};
  if (spec.cells == CellShape::Tet4) return {corners, 6 * hexes};
  return {corners, hexes};
}

/// Node and cell ids are 32-bit, and so are positions in a cell list (cell x nodes per cell):
/// refuse meshes that would overflow them instead of wrapping.
void require_addressable(const MeshSpec& spec, const GeneratedSize& size) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  const std::int64_t references = size.cells * nodes_per_cell(spec.cells);
  if (size.nodes > kMax || references > kMax)
    throw InputError(spec.where,
                     "mesh would have " + std::to_string(size.nodes) + " nodes and " +
                         std::to_string(size.cells) + " " + to_string(spec.cells) + " cells (" +
                         std::to_string(references) +
                         " cell-node references), more than 32-bit ids can number",
                     "reduce the divisions");
}

void require_finite_origin(const MeshSpec& spec) {
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(spec.origin[k]))
      throw InputError(spec.where,
                       std::string("mesh.origin.") + "xyz"[k] + " is not a finite number");
}

/// The voxels generator's lattice; which voxels the shape fills is known once it is built.
GeneratedSize check_voxels(const MeshSpec& spec) {
  const std::vector<std::string>& shapes = voxel_shape_names();
  if (std::find(shapes.begin(), shapes.end(), spec.shape) == shapes.end())
    throw InputError(spec.where, "unknown voxel shape '" + spec.shape + "'",
                     "shapes: sphere, torus, blob, box; or read a segmented image (mesh.image)");
  // The lattice is the point: a structured solver finds it again from the nodes.
  if (spec.cells != CellShape::Hex8)
    throw InputError(
        spec.where,
        std::string("the voxels generator makes hex8 cells, not ") + to_string(spec.cells),
        "remove mesh.cells; for tetrahedra use the box generator or a mesh file");
  if (spec.distortion != 0.0)
    throw InputError(spec.where, "mesh.distortion does not apply to the voxels generator",
                     "voxel nodes stay on their lattice; remove distortion");
  double voxels = 1;
  for (int k = 0; k < 3; ++k) {
    const std::string axis(1, "xyz"[k]);
    require_positive(spec, "size." + axis, spec.size[k]);
    require_divisions(spec, "divisions." + axis, spec.divisions[k]);
    voxels *= spec.divisions[k];
  }
  require_finite_origin(spec);
  // The lattice holds a 32-bit label per voxel, filled or not.
  if (voxels > std::numeric_limits<std::int32_t>::max())
    throw InputError(spec.where,
                     "a lattice of " + num(voxels) + " voxels is more than fem numbers (2^31 - 1)",
                     "reduce the divisions");
  const std::int64_t nx = spec.divisions[0], ny = spec.divisions[1], nz = spec.divisions[2];
  return {(nx + 1) * (ny + 1) * (nz + 1), nx * ny * nz};  // at most: the shape fills a part
}

/// The hexahedra of the voxels whose centres the shape holds, in one region 'domain'.
Mesh voxel_shape_mesh(const MeshSpec& spec) {
  const VoxelLattice lattice = shape_lattice(spec.shape, spec.size, spec.origin, spec.divisions);
  std::int64_t filled = 0;
  for (const auto& [label, n] : label_counts(lattice)) filled += n;
  if (filled == 0)
    throw InputError(spec.where,
                     "no voxel centre lies inside the " + spec.shape + " at divisions [" +
                         std::to_string(spec.divisions[0]) + ", " +
                         std::to_string(spec.divisions[1]) + ", " +
                         std::to_string(spec.divisions[2]) + "]",
                     "increase mesh.divisions");
  require_addressable(spec, {0, filled});
  Mesh mesh = voxel_mesh(lattice);
  mesh.regions.front().name = "domain";
  return mesh;
}

GeneratedSize check(const MeshSpec& spec) {
  if (spec.generator == "rectangle") {
    if (spec.cells != CellShape::Tri3 && spec.cells != CellShape::Quad4)
      throw InputError(spec.where,
                       std::string("the rectangle generator makes tri3 or quad4 cells, not ") +
                           to_string(spec.cells),
                       "set mesh.cells to tri3 or quad4");
    if (spec.distortion != 0.0)
      throw InputError(spec.where, "mesh.distortion applies to the box and cylinder generators",
                       "remove distortion, or read a distorted plane mesh from a file");
    for (int k = 0; k < 2; ++k) {
      const std::string axis(1, "xy"[k]);
      require_positive(spec, "size." + axis, spec.size[k]);
      require_divisions(spec, "divisions." + axis, spec.divisions[k]);
    }
    require_finite_origin(spec);
    const std::int64_t nx = spec.divisions[0], ny = spec.divisions[1];
    const GeneratedSize size{(nx + 1) * (ny + 1),
                             nx * ny * (spec.cells == CellShape::Tri3 ? 2 : 1)};
    require_addressable(spec, size);
    return size;
  }
  if (spec.cells != CellShape::Hex8 && spec.cells != CellShape::Hex20 &&
      spec.cells != CellShape::Tet4 && spec.cells != CellShape::Tet10)
    throw InputError(spec.where,
                     std::string("mesh generators make hex8, hex20, tet4 or tet10 cells, not ") +
                         to_string(spec.cells),
                     "set mesh.cells to hex8, hex20, tet4 or tet10");
  if (!(spec.distortion >= 0 && spec.distortion < 0.3))
    throw InputError(spec.where, "mesh.distortion must be in [0, 0.3), got " + num(spec.distortion),
                     "it is a fraction of the local cell size; larger moves can invert cells");

  if (spec.generator == "box") {
    for (int k = 0; k < 3; ++k) {
      const std::string axis(1, "xyz"[k]);
      require_positive(spec, "size." + axis, spec.size[k]);
      require_divisions(spec, "divisions." + axis, spec.divisions[k]);
      if (!std::isfinite(spec.origin[k]))
        throw InputError(spec.where, "mesh.origin." + axis + " is not a finite number");
    }
    const std::int64_t nx = spec.divisions[0], ny = spec.divisions[1], nz = spec.divisions[2];
    const GeneratedSize size = generated_size(spec, (nx + 1) * (ny + 1) * (nz + 1), nx * ny * nz);
    require_addressable(spec, size);
    return size;
  }

  if (spec.generator == "cylinder") {
    require_positive(spec, "radius", spec.radius);
    require_positive(spec, "height", spec.height);
    require_divisions(spec, "radial_divisions", spec.radial_divisions);
    require_divisions(spec, "axial_divisions", spec.axial_divisions);
    const int nc = spec.circumferential_divisions;
    if (nc < 4 || nc % 4 != 0)
      throw InputError(spec.where,
                       "mesh.circumferential_divisions must be a positive multiple of 4, got " +
                           std::to_string(nc),
                       "the O-grid's core is a square of (circumferential_divisions / 4)^2 "
                       "cells; try " +
                           std::to_string(nc < 4 ? 4 : (nc + 3) / 4 * 4));
    require_finite_origin(spec);
    const std::int64_t m = nc / 4, nr = spec.radial_divisions, na = spec.axial_divisions;
    const std::int64_t section_nodes = (m + 1) * (m + 1) + nr * nc;
    const std::int64_t section_cells = m * m + nr * nc;
    const GeneratedSize size = generated_size(spec, section_nodes * (na + 1), section_cells * na);
    require_addressable(spec, size);
    return size;
  }

  if (spec.generator == "voxels") return check_voxels(spec);

  const std::string known[] = {"box", "cylinder", "rectangle", "voxels"};
  const std::string hint = did_you_mean(spec.generator, std::begin(known), std::end(known));
  throw InputError(
      spec.where, "unknown mesh generator '" + spec.generator + "'",
      (hint.empty() ? "" : hint + " ") + "generators: box, cylinder, rectangle, voxels");
}

/// The mesh of a checked spec: hexahedra, split and distorted as asked.
Mesh build_mesh(const MeshSpec& spec) {
  if (spec.generator == "rectangle") return detail::rectangle_mesh(spec);
  if (spec.generator == "voxels") return voxel_shape_mesh(spec);
  detail::HexGrid grid =
      spec.generator == "box" ? detail::box_hexes(spec) : detail::cylinder_hexes(spec);

  // Quadratic cells are the linear ones plus mid-edge nodes, added after the distortion (which
  // moves and checks the corners) so that their edges stay straight.
  const bool tets = spec.cells == CellShape::Tet4 || spec.cells == CellShape::Tet10;
  CellRegion region;
  region.name = "domain";
  region.shape = tets ? CellShape::Tet4 : CellShape::Hex8;
  region.nodes_per_cell = nodes_per_cell(region.shape);
  if (tets)
    region.connectivity = detail::split_hexes_into_tets(grid.hexes);
  else
    region.connectivity = std::move(grid.hexes);
  const std::vector<std::int32_t>& hexes = tets ? grid.hexes : region.connectivity;

  if (spec.distortion > 0)
    detail::distort_interior_nodes(grid.coords, grid.on_boundary, hexes, region, spec.distortion,
                                   spec.seed);
  if (spec.cells == CellShape::Tet10 || spec.cells == CellShape::Hex20) {
    region.shape = spec.cells;
    region.nodes_per_cell = nodes_per_cell(spec.cells);
    region.connectivity = detail::add_mid_edge_nodes(grid.coords, region.connectivity, spec.cells);
  }

  Mesh mesh;
  mesh.coords = std::move(grid.coords);
  mesh.regions.push_back(std::move(region));
  return mesh;
}

}  // namespace

Mesh generate_mesh(const MeshSpec& spec) {
  if (spec.file_mesh) return *spec.file_mesh;
  const GeneratedSize size = check(spec);
  const std::string cells = std::to_string(size.nodes) + " nodes and " +
                            std::to_string(size.cells) + " " + to_string(spec.cells) + " cells";
  const char* hint =
      "reduce the divisions, or run where more memory is available (the solver needs several "
      "times the mesh's memory)";
  require_memory(size.bytes(spec.cells), "the generated mesh of " + cells, spec.where, hint);
  try {
    return build_mesh(spec);
  } catch (const std::bad_alloc&) {
    // The mesh's memory is released by now, so the message can be built.
    throw InputError(spec.where,
                     "out of memory generating the mesh: its " + cells + " take at least " +
                         gib(size.bytes(spec.cells)),
                     hint);
  }
}

}  // namespace fem
