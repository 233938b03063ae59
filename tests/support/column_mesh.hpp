// A small structured column written as an Abaqus deck, hexahedra and/or tetrahedra in two
// element sets: the mixed and multi-block models of the averaged-nodal-pressure tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>

namespace fem::test {

/// A column as an Abaqus deck: n x n x 2n cubes of size h, the lower half hexahedra (or
/// tetrahedra: lower_hex false) in ELSET lower, the upper half each cube split into 6
/// tetrahedra along its main diagonal in ELSET upper, both in ELSET all. Returns the path.
inline std::string write_column(int n, double h, bool lower_hex) {
  const std::string path = ::testing::TempDir() + "anp_column_" + std::to_string(::getpid()) +
                           (lower_hex ? "_mixed" : "_tets") + ".inp";
  std::FILE* f = std::fopen(path.c_str(), "w");
  const int nz = 2 * n;
  const auto id = [&](int i, int j, int k) { return 1 + i + (n + 1) * (j + (n + 1) * k); };
  std::fprintf(f, "*NODE\n");
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        std::fprintf(f, "%d, %g, %g, %g\n", id(i, j, k), i * h, j * h, k * h);
  int element = 1;
  std::fprintf(f, "*ELEMENT, TYPE=C3D8R, ELSET=lower\n");
  for (int k = 0; k < (lower_hex ? n : 0); ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        std::fprintf(f, "%d, %d, %d, %d, %d, %d, %d, %d, %d\n", element++, id(i, j, k),
                     id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k), id(i, j, k + 1),
                     id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1));
  const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = lower_hex ? n : 0; k < nz; ++k) {
    if (k == 0) std::fprintf(f, "*ELEMENT, TYPE=C3D4, ELSET=lower\n");
    if (k == n) std::fprintf(f, "*ELEMENT, TYPE=C3D4, ELSET=upper\n");
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (const auto& ax : axes) {
          // Path from corner (0,0,0) to (1,1,1) along the axes in this order (Kuhn split).
          int c[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}};
          c[1][ax[0]] = 1;
          c[2][ax[0]] = c[2][ax[1]] = 1;
          int v[4];
          for (int a = 0; a < 4; ++a) v[a] = id(i + c[a][0], j + c[a][1], k + c[a][2]);
          // Positive volume: odd permutations of the axes are mirrored; swap two nodes.
          const bool odd = (ax[0] == 0 && ax[1] == 2) || (ax[0] == 1 && ax[1] == 0) ||
                           (ax[0] == 2 && ax[1] == 1);
          if (odd) std::swap(v[1], v[2]);
          std::fprintf(f, "%d, %d, %d, %d, %d\n", element++, v[0], v[1], v[2], v[3]);
        }
  }
  std::fprintf(f, "*ELSET, ELSET=all\nlower, upper\n");
  std::fclose(f);
  return path;
}

}  // namespace fem::test
