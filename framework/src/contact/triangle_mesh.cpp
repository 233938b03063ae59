#include "fem/contact/triangle_mesh.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "fem/error.hpp"

namespace fem {
namespace {

using Vec3 = Eigen::Vector3d;

/// The largest coordinate of a surface (after scaling), in either direction.
constexpr double kMaxSurfaceCoordinate = 1e100;

Vec3 vec(const std::vector<double>& a, std::int64_t i) {
  return {a[3 * i], a[3 * i + 1], a[3 * i + 2]};
}

/// Binary STL: 80-byte header, uint32 count, 50 bytes per triangle. An ASCII file starts with
/// "solid" but so do some binary ones; the size decides.
bool is_binary_stl(const std::string& bytes) {
  if (bytes.size() < 84) return false;
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
  return bytes.size() == 84 + 50 * static_cast<std::size_t>(count);
}

std::vector<double> read_binary(const std::string& bytes, double scale) {
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
  std::vector<double> soup(9 * static_cast<std::size_t>(count));
  for (std::size_t t = 0; t < count; ++t)
    for (int k = 0; k < 9; ++k) {
      float x = 0;
      std::memcpy(&x, bytes.data() + 84 + 50 * t + 12 + 4 * k, 4);
      soup[9 * t + k] = scale * static_cast<double>(x);
    }
  return soup;
}

std::vector<double> read_ascii(const std::string& bytes, const std::string& path, double scale) {
  std::istringstream in(bytes);
  std::string line;
  int line_no = 0, in_facet = 0;
  std::vector<double> soup;
  const auto fail = [&](const std::string& what) {
    throw InputError({path, line_no, 0}, "malformed STL file: " + what,
                     "an ASCII STL is 'solid', then per triangle 'facet normal', 'outer loop', "
                     "three 'vertex x y z' lines, 'endloop', 'endfacet'; then 'endsolid'");
  };
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word == "vertex") {
      if (!in_facet) fail("'vertex' outside a facet");
      double x[3];
      for (double& v : x)
        if (!(words >> v) || !std::isfinite(v)) fail("a vertex needs three finite numbers");
      for (const double v : x) soup.push_back(scale * v);
      ++in_facet;
    } else if (word == "facet") {
      if (in_facet) fail("'facet' inside a facet");
      in_facet = 1;
    } else if (word == "endfacet") {
      if (in_facet != 4) fail("a facet must have exactly three vertices");
      in_facet = 0;
    } else if (word != "solid" && word != "outer" && word != "endloop" && word != "endsolid") {
      fail("unexpected '" + word + "'");
    }
  }
  if (in_facet) fail("the file ends inside a facet");
  return soup;
}

}  // namespace

TriangleMesh read_stl(const std::string& path, double scale) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError({path, 0, 0}, "cannot open STL file '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return read_stl_bytes(buffer.str(), path, scale);
}

TriangleMesh read_stl_bytes(const std::string& bytes, const std::string& path, double scale) {
  const bool binary = is_binary_stl(bytes);
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  const bool ascii = first != std::string::npos && bytes.compare(first, 5, "solid") == 0;
  if (!binary && !ascii)
    throw InputError({path, 0, 0},
                     "'" + path +
                         "' is neither an ASCII STL file (starting with 'solid') nor a "
                         "binary one (its size is not 84 + 50 x the triangle count)",
                     "export the surface as STL (ASCII or binary)");
  const std::vector<double> soup =
      binary ? read_binary(bytes, scale) : read_ascii(bytes, path, scale);
  return triangle_mesh_from_soup(soup, path);
}

TriangleMesh triangle_mesh_from_soup(const std::vector<double>& soup, const std::string& source) {
  TriangleMesh m;
  const std::size_t nt = soup.size() / 9;
  if (nt == 0) throw InputError({source, 0, 0}, "the surface '" + source + "' has no triangles");
  // Areas, normals and the search grid square and multiply coordinates: beyond this they would
  // overflow (and NaN or infinity would make the grid's cell indices meaningless).
  for (std::size_t k = 0; k < 9 * nt; ++k)
    if (!(std::abs(soup[k]) <= kMaxSurfaceCoordinate)) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", soup[k]);
      throw InputError({source, 0, 0},
                       "vertex " + std::to_string(k / 3 % 3 + 1) + " of triangle " +
                           std::to_string(k / 9 + 1) + " of '" + source + "' has the coordinate " +
                           value + ", which is not a finite number of at most 1e100 in size",
                       "the file is damaged, or its coordinates are in other units than the "
                       "surface's 'scale' assumes");
    }
  std::map<std::array<double, 3>, std::int32_t> index;
  for (std::size_t k = 0; k < 3 * nt; ++k) {
    const std::array<double, 3> p = {soup[3 * k], soup[3 * k + 1], soup[3 * k + 2]};
    const auto [it, inserted] = index.try_emplace(p, static_cast<std::int32_t>(index.size()));
    if (inserted) m.vertices.insert(m.vertices.end(), p.begin(), p.end());
    m.triangles.push_back(it->second);
  }
  // Drop degenerate triangles (two equal vertices or zero area): they have no normal.
  std::vector<std::int32_t> kept;
  for (std::size_t t = 0; t < nt; ++t) {
    const std::int32_t* v = &m.triangles[3 * t];
    const Vec3 n = (vec(m.vertices, v[1]) - vec(m.vertices, v[0]))
                       .cross(vec(m.vertices, v[2]) - vec(m.vertices, v[0]));
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || !(n.norm() > 0.0)) continue;
    kept.insert(kept.end(), v, v + 3);
  }
  if (kept.empty())
    throw InputError({source, 0, 0}, "every triangle of '" + source + "' is degenerate");
  m.triangles = std::move(kept);
  const std::size_t count = m.triangles.size() / 3;
  const std::size_t nv = m.vertices.size() / 3;
  // Outward normals: face normals from the vertex order (counter-clockwise seen from outside,
  // as STL specifies), angle-weighted vertex normals and edge normals (sum of the two faces)
  // -- the pseudo-normals that give the right inside/outside sign wherever the closest point is.
  m.face_normals.resize(3 * count);
  m.edge_normals.assign(9 * count, 0.0);
  m.vertex_normals.assign(3 * nv, 0.0);
  std::map<std::pair<std::int32_t, std::int32_t>, Vec3> edge_sum;
  for (std::size_t t = 0; t < count; ++t) {
    const std::int32_t* v = &m.triangles[3 * t];
    const Vec3 p[3] = {vec(m.vertices, v[0]), vec(m.vertices, v[1]), vec(m.vertices, v[2])};
    const Vec3 n = (p[1] - p[0]).cross(p[2] - p[0]).normalized();
    for (int i = 0; i < 3; ++i) m.face_normals[3 * t + i] = n[i];
    for (int k = 0; k < 3; ++k) {
      const Vec3 e1 = (p[(k + 1) % 3] - p[k]).normalized(),
                 e2 = (p[(k + 2) % 3] - p[k]).normalized();
      const double angle = std::acos(std::clamp(e1.dot(e2), -1.0, 1.0));
      for (int i = 0; i < 3; ++i) m.vertex_normals[3 * v[k] + i] += angle * n[i];
      const auto key = std::minmax(v[k], v[(k + 1) % 3]);
      // (Eigen vectors are not zeroed by default construction.)
      edge_sum.try_emplace({key.first, key.second}, Vec3::Zero()).first->second += n;
    }
  }
  for (std::size_t t = 0; t < count; ++t)
    for (int k = 0; k < 3; ++k) {
      const auto key = std::minmax(m.triangles[3 * t + k], m.triangles[3 * t + (k + 1) % 3]);
      const Vec3 n = edge_sum[{key.first, key.second}].normalized();
      for (int i = 0; i < 3; ++i) m.edge_normals[9 * t + 3 * k + i] = n[i];
    }
  for (std::size_t v = 0; v < nv; ++v) {
    const Vec3 n = vec(m.vertex_normals, static_cast<std::int64_t>(v));
    const double len = n.norm();
    for (int i = 0; i < 3; ++i) m.vertex_normals[3 * v + i] = len > 0 ? n[i] / len : 0.0;
  }
  build_search_grid(m);
  return m;
}

void build_search_grid(TriangleMesh& m, double cell_size) {
  const std::size_t count = m.triangles.size() / 3;
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::max()), hi = -lo;
  double edges = 0.0;
  for (std::size_t t = 0; t < count; ++t)
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = vec(m.vertices, m.triangles[3 * t + k]);
      lo = lo.cwiseMin(p);
      hi = hi.cwiseMax(p);
      edges += (vec(m.vertices, m.triangles[3 * t + (k + 1) % 3]) - p).norm();
    }
  if (cell_size <= 0.0) cell_size = 0.5 * edges / static_cast<double>(3 * count);
  // At most 128 cells along the longest side of the grid: enough for any rigid surface here.
  const double longest = (hi - lo).maxCoeff();
  cell_size = std::max(cell_size, longest / 124.0);
  m.cell_size = cell_size;
  std::int64_t cells = 1;
  for (int i = 0; i < 3; ++i) {
    m.grid_origin[i] = lo[i] - 2.0 * cell_size;
    m.grid_dims[i] = static_cast<std::int32_t>(std::ceil((hi[i] - lo[i]) / cell_size)) + 4;
    cells *= m.grid_dims[i];
  }
  // Counting pass then fill (CSR): triangle bounding box grown by one cell.
  std::vector<std::array<std::int32_t, 6>> range(count);
  m.cell_offsets.assign(static_cast<std::size_t>(cells) + 1, 0);
  for (std::size_t t = 0; t < count; ++t) {
    Vec3 tlo = Vec3::Constant(std::numeric_limits<double>::max()), thi = -tlo;
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = vec(m.vertices, m.triangles[3 * t + k]);
      tlo = tlo.cwiseMin(p);
      thi = thi.cwiseMax(p);
    }
    for (int i = 0; i < 3; ++i) {
      range[t][i] = std::max(0, static_cast<std::int32_t>(std::floor(
                                    (tlo[i] - cell_size - m.grid_origin[i]) / cell_size)));
      range[t][3 + i] = std::min(
          m.grid_dims[i] - 1, static_cast<std::int32_t>(
                                  std::floor((thi[i] + cell_size - m.grid_origin[i]) / cell_size)));
    }
  }
  const auto for_cells = [&](std::size_t t, auto&& f) {
    for (std::int32_t z = range[t][2]; z <= range[t][5]; ++z)
      for (std::int32_t y = range[t][1]; y <= range[t][4]; ++y)
        for (std::int32_t x = range[t][0]; x <= range[t][3]; ++x)
          f((static_cast<std::int64_t>(z) * m.grid_dims[1] + y) * m.grid_dims[0] + x);
  };
  for (std::size_t t = 0; t < count; ++t)
    for_cells(t, [&](std::int64_t c) { ++m.cell_offsets[c + 1]; });
  for (std::int64_t c = 0; c < cells; ++c) m.cell_offsets[c + 1] += m.cell_offsets[c];
  m.cell_triangles.resize(static_cast<std::size_t>(m.cell_offsets[cells]));
  std::vector<std::int32_t> fill(m.cell_offsets.begin(), m.cell_offsets.end() - 1);
  for (std::size_t t = 0; t < count; ++t)
    for_cells(t,
              [&](std::int64_t c) { m.cell_triangles[fill[c]++] = static_cast<std::int32_t>(t); });
}

}  // namespace fem
