// Consistent nodal forces of a pressure on faces: every face shape gives -p A n in total, with
// the shares of the textbook consistent loads (a 6-node triangle's corners carry nothing, an
// 8-node quadrilateral's corners pull back), and a follower pressure moves with the face.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fem/pressure_surface.hpp>

namespace fem::test {
namespace {

/// A face of n nodes on a tilted rectangle (or triangle) of the plane through the origin spanned
/// by e1 = (2, 0, 0) and e2 = (0, 1.5, 1.5): area 2 * 1.5 sqrt(2) for quadrilaterals, half of it
/// for triangles, outward normal (0, -1, 1) / sqrt(2) (the corners counter-clockwise around it).
struct TiltedFace {
  PressureSurface surface;
  std::vector<double> coordinates;
  double area = 0.0;
  std::array<double, 3> normal = {0, -1 / std::sqrt(2.0), 1 / std::sqrt(2.0)};

  explicit TiltedFace(int n) {
    // Reference positions (s, t) in [0, 1]^2 of the corners, then the mid-edge nodes.
    std::vector<std::array<double, 2>> st;
    if (n == 3 || n == 6) {
      st = {{0, 0}, {1, 0}, {0, 1}};
      if (n == 6) st.insert(st.end(), {{0.5, 0}, {0.5, 0.5}, {0, 0.5}});
      area = 0.5 * 2 * 1.5 * std::sqrt(2.0);
    } else {
      st = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      if (n == 8) st.insert(st.end(), {{0.5, 0}, {1, 0.5}, {0.5, 1}, {0, 0.5}});
      area = 2 * 1.5 * std::sqrt(2.0);
    }
    PressureFace face;
    face.num_nodes = n;
    for (int a = 0; a < n; ++a) {
      face.nodes[a] = a;
      coordinates.insert(coordinates.end(), {2 * st[a][0], 1.5 * st[a][1], 1.5 * st[a][1]});
    }
    surface.faces = {face};
  }
};

TEST(PressureSurface, EveryFaceShapeCarriesPressureTimesArea) {
  const double p = 3.0e4;
  for (const int n : {3, 4, 6, 8}) {
    SCOPED_TRACE(n);
    TiltedFace f(n);
    EXPECT_NEAR(pressure_surface_area(f.surface, f.coordinates, nullptr), f.area, 1e-12 * f.area);
    std::vector<double> forces(f.coordinates.size(), 0.0);
    add_pressure_forces(f.surface, p, f.coordinates, nullptr, forces);
    std::array<double, 3> total = {0, 0, 0};
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < 3; ++k) total[k] += forces[3 * a + k];
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(total[k], -p * f.area * f.normal[k], 1e-9 * p * f.area);
    // The shares of the total at each node: 1/3 (tri3), 1/4 (quad4), 0 and 1/3 (tri6),
    // -1/12 and 1/3 (quad8), each along -n.
    const auto share = [&](int a) {
      const double along = forces[3 * a + 1] * f.normal[1] + forces[3 * a + 2] * f.normal[2];
      return along / (-p * f.area);
    };
    for (int a = 0; a < n; ++a) {
      double expected = 0.0;
      if (n == 3) expected = 1.0 / 3.0;
      if (n == 4) expected = 0.25;
      if (n == 6) expected = a < 3 ? 0.0 : 1.0 / 3.0;
      if (n == 8) expected = a < 4 ? -1.0 / 12.0 : 1.0 / 3.0;
      EXPECT_NEAR(share(a), expected, 1e-12) << "node " << a;
    }
  }
}

TEST(PressureSurface, AnEdgeOfAPlaneCellCarriesPressureTimesLength) {
  // Edge from (0, 0) to (3, 4) with the cell on its left: outward normal (0.8, -0.6), length 5.
  PressureSurface s;
  PressureFace e;
  e.num_nodes = 2;
  e.nodes = {0, 1};
  s.faces = {e};
  const std::vector<double> x = {0, 0, 0, 3, 4, 0};
  std::vector<double> f(6, 0.0);
  add_pressure_forces(s, 10.0, x, nullptr, f);
  const double expected[6] = {-20, 15, 0, -20, 15, 0};  // -p L n / 2 at each end
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(f[i], expected[i], 1e-12) << i;
  EXPECT_NEAR(pressure_surface_area(s, x, nullptr), 5.0, 1e-12);
}

// A surface of many faces takes the threaded path (its faces' forces on every core, then added
// in face order): a flat 40 x 40 grid of unit quadrilaterals under 2 Pa gives each interior node
// -2 n, each edge node half and each corner a quarter, and the same bits as the faces one by one.
TEST(PressureSurface, ManyFacesGiveTheSameForcesAsOneFaceAtATime) {
  const int n = 40;
  PressureSurface grid;
  std::vector<double> coordinates;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) coordinates.insert(coordinates.end(), {1.0 * i, 1.0 * j, 0.0});
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      PressureFace face;
      face.num_nodes = 4;
      const int a = i + (n + 1) * j;
      face.nodes = {a, a + 1, a + n + 2, a + n + 1};
      grid.faces.push_back(face);
    }
  std::vector<double> forces(coordinates.size(), 0.0), one_by_one(coordinates.size(), 0.0);
  add_pressure_forces(grid, 2.0, coordinates, nullptr, forces);
  for (const PressureFace& face : grid.faces) {
    PressureSurface single;
    single.faces = {face};
    add_pressure_forces(single, 2.0, coordinates, nullptr, one_by_one);
  }
  EXPECT_EQ(forces, one_by_one);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const int edges = (i == 0 || i == n) + (j == 0 || j == n);
      const double share = edges == 0 ? 1.0 : edges == 1 ? 0.5 : 0.25;
      const std::size_t d = 3 * static_cast<std::size_t>(i + (n + 1) * j);
      EXPECT_NEAR(forces[d + 2], -2.0 * share, 1e-13) << i << ", " << j;
      EXPECT_EQ(forces[d], 0.0);
    }
}

TEST(PressureSurface, AFollowerPressureTurnsAndStretchesWithTheFace) {
  TiltedFace f(4);
  // Rotate the face by 90 degrees about x and stretch it by 2 along x: the forces turn with the
  // normal and double with the area.
  std::vector<double> u(f.coordinates.size());
  for (std::size_t a = 0; 3 * a < u.size(); ++a) {
    const double x = f.coordinates[3 * a], y = f.coordinates[3 * a + 1],
                 z = f.coordinates[3 * a + 2];
    u[3 * a] = x;  // x -> 2x
    u[3 * a + 1] = -z - y;
    u[3 * a + 2] = y - z;
  }
  std::vector<double> forces(u.size(), 0.0);
  add_pressure_forces(f.surface, 1.0, f.coordinates, u.data(), forces);
  std::array<double, 3> total = {0, 0, 0};
  for (std::size_t i = 0; i < forces.size(); ++i) total[i % 3] += forces[i];
  // The rotated normal: (0, -1, 1) -> (0, -1, -1) / sqrt(2).
  const double a = 2 * f.area;
  EXPECT_NEAR(total[0], 0.0, 1e-12);
  EXPECT_NEAR(total[1], a / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(total[2], a / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(pressure_surface_area(f.surface, f.coordinates, u.data()), a, 1e-12);
}

TEST(PressureSurface, TheLoadStiffnessIsTheDerivativeOfTheForces) {
  for (const int n : {3, 4, 6, 8}) {
    SCOPED_TRACE(n);
    TiltedFace f(n);
    // A deformed state: each node moved by a different amount.
    std::vector<double> u(f.coordinates.size());
    for (std::size_t d = 0; d < u.size(); ++d) u[d] = 0.05 * std::sin(1.7 * d + 0.3);
    const std::size_t size = u.size();
    std::vector<double> K(size * size, 0.0);
    add_pressure_stiffness(f.surface, 2.0, f.coordinates, u.data(),
                           [&](std::int64_t r, std::int64_t c, double v) { K[r * size + c] += v; });
    const double h = 1e-6;
    double worst = 0.0, largest = 0.0;
    for (std::size_t c = 0; c < size; ++c) {
      std::vector<double> up = u, down = u, fp(size, 0.0), fm(size, 0.0);
      up[c] += h;
      down[c] -= h;
      add_pressure_forces(f.surface, 2.0, f.coordinates, up.data(), fp);
      add_pressure_forces(f.surface, 2.0, f.coordinates, down.data(), fm);
      for (std::size_t r = 0; r < size; ++r) {
        const double fd = -(fp[r] - fm[r]) / (2 * h);  // K_p = -d(forces)/du
        worst = std::max(worst, std::abs(K[r * size + c] - fd));
        largest = std::max(largest, std::abs(fd));
      }
    }
    EXPECT_GT(largest, 0.1);
    EXPECT_LT(worst, 1e-7 * largest);
  }
}

}  // namespace
}  // namespace fem::test
