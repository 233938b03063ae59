// Test helper: the mesh part of an Abaqus deck for a box of nx x ny x nz cells of C3D8, C3D20
// (serendipity hexahedra), C3D4 (each cube split into 6 tetrahedra round its 0-6 diagonal, which
// conforms between neighbours) or C3D10, with node sets of the faces.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fem::test {

struct AbaqusBox {
  std::string type = "C3D8";  ///< C3D8, C3D8R, C3D20, C3D20R, C3D4 or C3D10
  int nx = 2, ny = 2, nz = 2;
  double lx = 1, ly = 1, lz = 1;
  std::string elset = "EALL";
  /// Node sets: name -> which lattice points (x, y, z in metres) belong.
  std::map<std::string, std::function<bool(double, double, double)>> node_sets;

  /// *NODE, *ELEMENT, *NSET lines.
  [[nodiscard]] std::string text() const {
    // Nodes live on a lattice of half cells; a node's id comes from its lattice point.
    const int X = 2 * nx + 1, Y = 2 * ny + 1;
    auto id = [&](std::array<int, 3> p) { return 1 + p[0] + X * (p[1] + Y * p[2]); };
    std::vector<std::vector<std::array<int, 3>>> cells;
    const std::array<std::array<int, 3>, 8> corner = {
        {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2}}};
    const int hex_edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                  {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    const int tets[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                            {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
    const int tet_edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    auto mid = [](std::array<int, 3> a, std::array<int, 3> b) {
      return std::array<int, 3>{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2};
    };
    const bool hex = type.rfind("C3D8", 0) == 0 || type.rfind("C3D20", 0) == 0;
    const bool quadratic = type.rfind("C3D20", 0) == 0 || type == "C3D10";
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          std::array<std::array<int, 3>, 8> c;
          for (int a = 0; a < 8; ++a)
            c[a] = {2 * i + corner[a][0], 2 * j + corner[a][1], 2 * k + corner[a][2]};
          if (hex) {
            std::vector<std::array<int, 3>> cell(c.begin(), c.end());
            if (quadratic)
              for (const auto& e : hex_edges) cell.push_back(mid(c[e[0]], c[e[1]]));
            cells.push_back(cell);
            continue;
          }
          for (const auto& t : tets) {
            std::vector<std::array<int, 3>> cell = {c[t[0]], c[t[1]], c[t[2]], c[t[3]]};
            // Positive volume: (1 - 0) x (2 - 0) . (3 - 0) > 0, else swap nodes 1 and 2.
            auto d = [&](int a) {
              return std::array<int, 3>{cell[a][0] - cell[0][0], cell[a][1] - cell[0][1],
                                        cell[a][2] - cell[0][2]};
            };
            const auto a = d(1), b = d(2), e = d(3);
            const int vol = (a[1] * b[2] - a[2] * b[1]) * e[0] +
                            (a[2] * b[0] - a[0] * b[2]) * e[1] + (a[0] * b[1] - a[1] * b[0]) * e[2];
            if (vol < 0) std::swap(cell[1], cell[2]);
            if (quadratic)
              for (const auto& ed : tet_edges) cell.push_back(mid(cell[ed[0]], cell[ed[1]]));
            cells.push_back(cell);
          }
        }
    std::map<int, std::array<int, 3>> used;
    for (const auto& cell : cells)
      for (const auto& p : cell) used[id(p)] = p;
    auto x = [&](const std::array<int, 3>& p) {
      return std::array<double, 3>{lx * p[0] / (2.0 * nx), ly * p[1] / (2.0 * ny),
                                   lz * p[2] / (2.0 * nz)};
    };
    std::string s = "*NODE, NSET=NALL\n";
    for (const auto& [n, p] : used) {
      const auto c = x(p);
      s += fmt::format("{}, {:.17g}, {:.17g}, {:.17g}\n", n, c[0], c[1], c[2]);
    }
    s += fmt::format("*ELEMENT, TYPE={}, ELSET={}\n", type, elset);
    for (std::size_t e = 0; e < cells.size(); ++e) {
      std::string line = std::to_string(e + 1);
      for (std::size_t a = 0; a < cells[e].size(); ++a) {
        line += ", " + std::to_string(id(cells[e][a]));
        if (a == 14 && a + 1 < cells[e].size()) {  // at most 16 fields on a line
          s += line + ",\n";
          line.clear();
        }
      }
      s += (line.rfind(", ", 0) == 0 ? line.substr(2) : line) + "\n";
    }
    for (const auto& [name, pick] : node_sets) {
      s += "*NSET, NSET=" + name + "\n";
      int count = 0;
      for (const auto& [n, p] : used) {
        const auto c = x(p);
        if (!pick(c[0], c[1], c[2])) continue;
        s += std::to_string(n) + (++count % 16 == 0 ? ",\n" : ", ");
      }
      s += "\n";
    }
    return s;
  }

  /// The node id at lattice corner (i, j, k) of the cell grid (cell corners, 0..nx etc.).
  [[nodiscard]] int corner_node(int i, int j, int k) const {
    return 1 + 2 * i + (2 * nx + 1) * (2 * j + (2 * ny + 1) * 2 * k);
  }
};

}  // namespace fem::test
