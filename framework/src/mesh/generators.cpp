// generate_mesh: checks a MeshSpec, then builds hexahedra, splits and distorts them as asked.
#include "fem/mesh/generators.hpp"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>

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

/// Node and cell ids are 32-bit: refuse meshes that would overflow them instead of wrapping.
void require_addressable(const MeshSpec& spec, std::int64_t nodes, std::int64_t cells) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (nodes > kMax || cells > kMax / 8)
    throw InputError(spec.where,
                     "mesh would have " + std::to_string(nodes) + " nodes and " +
                         std::to_string(cells) + " cells, more than 32-bit ids can number",
                     "reduce the divisions");
}

void check(const MeshSpec& spec) {
  if (spec.cells != CellShape::Hex8 && spec.cells != CellShape::Tet4 &&
      spec.cells != CellShape::Tet10)
    throw InputError(
        spec.where,
        std::string("mesh generators make hex8, tet4 or tet10 cells, not ") + to_string(spec.cells),
        "set mesh.cells to hex8, tet4 or tet10");
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
    // Tet10 adds one node per edge: at most 7 edges per grid node in the split of a box.
    const std::int64_t corners = (nx + 1) * (ny + 1) * (nz + 1);
    require_addressable(spec, spec.cells == CellShape::Tet10 ? 8 * corners : corners,
                        nx * ny * nz * 6);
    return;
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
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(spec.origin[k]))
        throw InputError(spec.where,
                         std::string("mesh.origin.") + "xyz"[k] + " is not a finite number");
    const std::int64_t m = nc / 4, nr = spec.radial_divisions, na = spec.axial_divisions;
    const std::int64_t section_nodes = (m + 1) * (m + 1) + nr * nc;
    const std::int64_t section_cells = m * m + nr * nc;
    const std::int64_t corners = section_nodes * (na + 1);
    require_addressable(spec, spec.cells == CellShape::Tet10 ? 8 * corners : corners,
                        section_cells * na * 6);
    return;
  }

  const std::string known[] = {"box", "cylinder"};
  const std::string hint = did_you_mean(spec.generator, std::begin(known), std::end(known));
  throw InputError(spec.where, "unknown mesh generator '" + spec.generator + "'",
                   (hint.empty() ? "" : hint + " ") + "generators: box, cylinder");
}

}  // namespace

Mesh generate_mesh(const MeshSpec& spec) {
  if (spec.file_mesh) return *spec.file_mesh;
  check(spec);
  detail::HexGrid grid =
      spec.generator == "box" ? detail::box_hexes(spec) : detail::cylinder_hexes(spec);

  // Quadratic tetrahedra are the linear split plus mid-edge nodes, added after the distortion
  // (which moves and checks the corners) so that their edges stay straight.
  const bool tets = spec.cells == CellShape::Tet4 || spec.cells == CellShape::Tet10;
  CellRegion region;
  region.name = "domain";
  region.shape = tets ? CellShape::Tet4 : CellShape::Hex8;
  region.nodes_per_cell = nodes_per_cell(region.shape);
  region.connectivity = tets ? detail::split_hexes_into_tets(grid.hexes) : grid.hexes;

  if (spec.distortion > 0)
    detail::distort_interior_nodes(grid.coords, grid.on_boundary, grid.hexes, region,
                                   spec.distortion, spec.seed);
  if (spec.cells == CellShape::Tet10) {
    region.shape = CellShape::Tet10;
    region.nodes_per_cell = nodes_per_cell(CellShape::Tet10);
    region.connectivity = detail::add_mid_edge_nodes(grid.coords, region.connectivity);
  }

  Mesh mesh;
  mesh.coords = std::move(grid.coords);
  mesh.regions.push_back(std::move(region));
  return mesh;
}

}  // namespace fem
