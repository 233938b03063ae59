// Consistent nodal forces of a pressure on faces (fem/pressure_surface.hpp).
#include "fem/pressure_surface.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace fem {
namespace {

/// Below this many faces the forces stay on one thread (a team costs more than it saves).
constexpr std::int64_t kParallelFaceMinimum = 256;

/// A quadrature point of a face's reference domain: (xi, eta) and weight.
struct FacePoint {
  double xi, eta, weight;
};

// Each face shape takes the fewest points that integrate its loads and load stiffness exactly
// (the shape functions times the area element, and their derivatives): a 3-node triangle's area
// vector is constant (1 point), a 4-node quadrilateral's forces are of degree 2 in each direction
// (2 x 2 Gauss points), and quadratic faces need degree 4 and 5.
// Triangles on (0,0) (1,0) (0,1): the centroid for 3 nodes; Dunavant's 7-point rule, exact to
// degree 5, for 6 (its shape functions times its quadratic area element are degree 4). Weights
// sum to 1/2.
constexpr FacePoint kTriangleCentroid[1] = {{1.0 / 3.0, 1.0 / 3.0, 0.5}};
constexpr double kA1 = 0.059715871789770, kB1 = 0.470142064105115, kW1 = 0.132394152788506 / 2;
constexpr double kA2 = 0.797426985353087, kB2 = 0.101286507323456, kW2 = 0.125939180544827 / 2;
constexpr FacePoint kTrianglePoints[7] = {{1.0 / 3.0, 1.0 / 3.0, 0.225 / 2},
                                          {kB1, kB1, kW1},
                                          {kA1, kB1, kW1},
                                          {kB1, kA1, kW1},
                                          {kB2, kB2, kW2},
                                          {kA2, kB2, kW2},
                                          {kB2, kA2, kW2}};
// Quadrilaterals on [-1, 1]^2: 2 x 2 Gauss points for 4 nodes (exact to degree 3 in each
// direction), 3 x 3 for 8 (degree 5).
constexpr double kH = 0.577350269189625765;  // 1 / sqrt(3)
constexpr FacePoint kQuadPoints2[4] = {{-kH, -kH, 1}, {kH, -kH, 1}, {-kH, kH, 1}, {kH, kH, 1}};
constexpr double kG = 0.774596669241483377;  // sqrt(3/5)
constexpr double kWe = 5.0 / 9.0, kWc = 8.0 / 9.0;
constexpr FacePoint kQuadPoints3[9] = {
    {-kG, -kG, kWe* kWe}, {0, -kG, kWc* kWe}, {kG, -kG, kWe* kWe},
    {-kG, 0, kWe* kWc},   {0, 0, kWc* kWc},   {kG, 0, kWe* kWc},
    {-kG, kG, kWe* kWe},  {0, kG, kWc* kWe},  {kG, kG, kWe* kWe}};
// Edges on [0, 1]: 2 Gauss points.
constexpr double kE = 0.211324865405187118;  // (1 - 1/sqrt(3)) / 2
constexpr FacePoint kEdgePoints[2] = {{kE, 0, 0.5}, {1 - kE, 0, 0.5}};

/// Shape functions and their derivatives in xi and eta at (xi, eta) of a face of n nodes.
void face_shape(int n, double xi, double eta, double* N, double (*dN)[2]) {
  switch (n) {
    case 2:
      N[0] = 1 - xi, N[1] = xi;
      dN[0][0] = -1, dN[1][0] = 1;
      dN[0][1] = dN[1][1] = 0;
      return;
    case 3:
      N[0] = 1 - xi - eta, N[1] = xi, N[2] = eta;
      dN[0][0] = -1, dN[0][1] = -1, dN[1][0] = 1, dN[1][1] = 0, dN[2][0] = 0, dN[2][1] = 1;
      return;
    case 6: {
      const double l[3] = {1 - xi - eta, xi, eta};
      const double dl[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
      for (int a = 0; a < 3; ++a) {
        N[a] = l[a] * (2 * l[a] - 1);
        for (int k = 0; k < 2; ++k) dN[a][k] = (4 * l[a] - 1) * dl[a][k];
        const int b = (a + 1) % 3;  // mid-edge node a + 3 sits between corners a and b
        N[a + 3] = 4 * l[a] * l[b];
        for (int k = 0; k < 2; ++k) dN[a + 3][k] = 4 * (dl[a][k] * l[b] + l[a] * dl[b][k]);
      }
      return;
    }
    case 4:
    case 8: {
      constexpr double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (int a = 0; a < 4; ++a) {
        const double s = corner[a][0], t = corner[a][1];
        const double p = 1 + s * xi, q = 1 + t * eta;
        if (n == 4) {
          N[a] = p * q / 4;
          dN[a][0] = s * q / 4, dN[a][1] = t * p / 4;
        } else {
          const double r = s * xi + t * eta - 1;
          N[a] = p * q * r / 4;
          dN[a][0] = s * q * (r + p) / 4, dN[a][1] = t * p * (r + q) / 4;
        }
      }
      if (n == 8) {
        // Mid-edge nodes of edges 0-1, 1-2, 2-3, 3-0: (0,-1), (1,0), (0,1), (-1,0).
        constexpr double mid[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
        for (int m = 0; m < 4; ++m) {
          const double s = mid[m][0], t = mid[m][1];
          double* dn = dN[4 + m];
          if (s == 0) {
            N[4 + m] = (1 - xi * xi) * (1 + t * eta) / 2;
            dn[0] = -xi * (1 + t * eta), dn[1] = t * (1 - xi * xi) / 2;
          } else {
            N[4 + m] = (1 + s * xi) * (1 - eta * eta) / 2;
            dn[0] = s * (1 - eta * eta) / 2, dn[1] = -eta * (1 + s * xi);
          }
        }
      }
      return;
    }
    default:
      return;
  }
}

std::span<const FacePoint> face_points(int n) {
  switch (n) {
    case 2:
      return kEdgePoints;
    case 3:
      return kTriangleCentroid;
    case 6:
      return kTrianglePoints;
    case 4:
      return kQuadPoints2;
    default:
      return kQuadPoints3;
  }
}

/// A face shape's rule with its shape functions and derivatives at the points, tabulated once
/// (the faces of a surface share them; a follower pressure integrates every step).
struct FaceRule {
  int points = 0;
  double weight[9] = {};
  double N[9][8] = {};
  double dN[9][8][2] = {};
};

const FaceRule& face_rule(int n) {
  static const std::array<FaceRule, 9> rules = [] {
    std::array<FaceRule, 9> r{};
    for (const int nodes : {2, 3, 4, 6, 8}) {
      FaceRule& rule = r[static_cast<std::size_t>(nodes)];
      for (const FacePoint& p : face_points(nodes)) {
        face_shape(nodes, p.xi, p.eta, rule.N[rule.points], rule.dN[rule.points]);
        rule.weight[rule.points++] = p.weight;
      }
    }
    return r;
  }();
  return rules[static_cast<std::size_t>(n)];
}

/// Calls visit(N, area_vector * weight, dN, g, weight) at every quadrature point of the face: the
/// area vector x_xi x x_eta (outward, |.| the area element; for an edge (t_y, -t_x, 0)), the shape
/// derivatives and the tangents g[0] = x_xi, g[1] = x_eta.
template <typename Visit>
void integrate_face(const PressureFace& face, const std::vector<double>& coordinates,
                    const double* displacement, Visit&& visit) {
  const int n = face.num_nodes;
  double x[8][3];
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < 3; ++k) {
      const std::size_t d = 3 * static_cast<std::size_t>(face.nodes[a]) + k;
      x[a][k] = coordinates[d] + (displacement ? displacement[d] : 0.0);
    }
  const FaceRule& rule = face_rule(n);
  for (int q = 0; q < rule.points; ++q) {
    const double* N = rule.N[q];
    const double(*dN)[2] = rule.dN[q];
    double g[2][3] = {};
    for (int a = 0; a < n; ++a)
      for (int k = 0; k < 3; ++k) {
        g[0][k] += dN[a][0] * x[a][k];
        g[1][k] += dN[a][1] * x[a][k];
      }
    double area[3];
    if (n == 2) {
      area[0] = g[0][1], area[1] = -g[0][0], area[2] = 0;
    } else {
      area[0] = g[0][1] * g[1][2] - g[0][2] * g[1][1];
      area[1] = g[0][2] * g[1][0] - g[0][0] * g[1][2];
      area[2] = g[0][0] * g[1][1] - g[0][1] * g[1][0];
    }
    for (double& v : area) v *= rule.weight[q];
    visit(N, area, dN, g, rule.weight[q]);
  }
}

}  // namespace

void add_pressure_forces(const PressureSurface& surface, double pressure,
                         const std::vector<double>& coordinates, const double* displacement,
                         std::vector<double>& forces) {
  // Each face's forces on every core, then added into the nodes face after face: the same sums
  // on any number of threads.
  thread_local std::vector<std::array<double, 24>> scratch;  // the caller's, reused
  const auto count = static_cast<std::int64_t>(surface.faces.size());
  scratch.resize(surface.faces.size());
  std::array<double, 24>* const face_forces = scratch.data();  // the same for every thread
#pragma omp parallel for schedule(static) if (count >= kParallelFaceMinimum)
  for (std::int64_t f = 0; f < count; ++f) {
    const PressureFace& face = surface.faces[static_cast<std::size_t>(f)];
    std::array<double, 24>& out = face_forces[f];
    out.fill(0.0);
    integrate_face(face, coordinates, displacement,
                   [&](const double* N, const double* area, auto&&...) {
                     for (int a = 0; a < face.num_nodes; ++a)
                       for (int k = 0; k < 3; ++k) out[3 * a + k] -= pressure * N[a] * area[k];
                   });
  }
  for (std::int64_t f = 0; f < count; ++f) {
    const PressureFace& face = surface.faces[static_cast<std::size_t>(f)];
    const std::array<double, 24>& out = face_forces[f];
    for (int a = 0; a < face.num_nodes; ++a)
      for (int k = 0; k < 3; ++k)
        forces[3 * static_cast<std::size_t>(face.nodes[a]) + k] += out[3 * a + k];
  }
}

void add_pressure_stiffness(const PressureSurface& surface, double pressure,
                            const std::vector<double>& coordinates, const double* displacement,
                            const std::function<void(std::int64_t, std::int64_t, double)>& add) {
  for (const PressureFace& face : surface.faces)
    integrate_face(face, coordinates, displacement,
                   [&](const double* N, const double*, const double(*dN)[2], const double(*g)[3],
                       double weight) {
                     const int n = face.num_nodes;
                     for (int b = 0; b < n; ++b) {
                       // d(area vector)/dx_b, a 3 x 3 matrix: -dN_b/dxi [x_eta]x + dN_b/deta
                       // [x_xi]x ([v]x w = v x w); for an edge dN_b/dxi (e_x e_y^T - e_y e_x^T).
                       double d[3][3] = {};
                       if (n == 2) {
                         d[0][1] = dN[b][0];
                         d[1][0] = -dN[b][0];
                       } else {
                         const auto cross = [&](const double* v, double s) {
                           d[0][1] -= s * v[2], d[0][2] += s * v[1];
                           d[1][0] += s * v[2], d[1][2] -= s * v[0];
                           d[2][0] -= s * v[1], d[2][1] += s * v[0];
                         };
                         cross(g[1], -dN[b][0]);
                         cross(g[0], dN[b][1]);
                       }
                       for (int a = 0; a < n; ++a)
                         for (int i = 0; i < 3; ++i)
                           for (int j = 0; j < 3; ++j)
                             if (d[i][j] != 0.0)
                               add(3 * static_cast<std::int64_t>(face.nodes[a]) + i,
                                   3 * static_cast<std::int64_t>(face.nodes[b]) + j,
                                   pressure * weight * N[a] * d[i][j]);
                     }
                   });
}

double pressure_surface_area(const PressureSurface& surface, const std::vector<double>& coordinates,
                             const double* displacement) {
  double total = 0.0;
  for (const PressureFace& face : surface.faces)
    integrate_face(face, coordinates, displacement,
                   [&](const double*, const double* area, auto&&...) {
                     total += std::sqrt(area[0] * area[0] + area[1] * area[1] + area[2] * area[2]);
                   });
  return total;
}

}  // namespace fem
