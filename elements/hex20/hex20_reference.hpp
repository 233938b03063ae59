// The 20-node serendipity hexahedron's reference cell, shared by the hex20 (3x3x3 Gauss) and
// hex20r (2x2x2 Gauss) element plugins.
//
// Node order is VTK_QUADRATIC_HEXAHEDRON (cell type 25), which is also Abaqus C3D20's: the eight
// corners of hex8 (the face zeta = -1 counter-clockwise seen from +zeta, then zeta = +1), then
// the mid-edge nodes of the edges 0-1, 1-2, 2-3, 3-0, 4-5, 5-6, 6-7, 7-4, 0-4, 1-5, 2-6, 3-7.
// On [-1, 1]^3, with (xi_a, eta_a, zeta_a) the reference coordinates of node a:
//   corner:                    N_a = (1 + xi xi_a)(1 + eta eta_a)(1 + zeta zeta_a)
//                                    (xi xi_a + eta eta_a + zeta zeta_a - 2) / 8
//   mid-edge (here xi_a = 0):  N_a = (1 - xi^2)(1 + eta eta_a)(1 + zeta zeta_a) / 4
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fem/element.hpp>
#include <fem/mesh.hpp>

namespace fem::elements {

inline constexpr int kHex20Nodes = 20;
inline constexpr int kVtkQuadraticHexahedron = 25;
inline constexpr double kHex20Corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                              {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
/// The corners of the edge that mid-edge node 8 + m sits on.
inline constexpr int kHex20Edge[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                          {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
// Faces are 8-node quadrilaterals in VTK_QUADRATIC_QUAD order: hex8's outward faces (corners
// counter-clockwise seen from outside), then the mid-edge nodes of the edges c0-c1, c1-c2,
// c2-c3, c3-c0.
inline constexpr std::int32_t kHex20FaceOffsets[7] = {0, 8, 16, 24, 32, 40, 48};
inline constexpr std::int32_t kHex20Faces[48] = {
    0, 3, 2, 1, 11, 10, 9,  8,   //  zeta = -1
    4, 5, 6, 7, 12, 13, 14, 15,  //  zeta = +1
    0, 1, 5, 4, 8,  17, 12, 16,  //  eta = -1
    1, 2, 6, 5, 9,  18, 13, 17,  //  xi = +1
    2, 3, 7, 6, 10, 19, 14, 18,  //  eta = +1
    3, 0, 4, 7, 11, 16, 15, 19,  //  xi = -1
};

/// N_a (and dN_a/dxi_k in grad) of the serendipity hexahedron at reference point p.
inline void hex20_shape(const std::array<double, 3>& p, double* values, double* gradients) {
  for (int a = 0; a < kHex20Nodes; ++a) {
    double c[3];
    for (int k = 0; k < 3; ++k)
      c[k] = a < 8 ? kHex20Corner[a][k]
                   : 0.5 * (kHex20Corner[kHex20Edge[a - 8][0]][k] +
                            kHex20Corner[kHex20Edge[a - 8][1]][k]);
    double* g = gradients + 3 * a;
    if (a < 8) {
      const double f[3] = {1 + p[0] * c[0], 1 + p[1] * c[1], 1 + p[2] * c[2]};
      const double s = p[0] * c[0] + p[1] * c[1] + p[2] * c[2];
      values[a] = f[0] * f[1] * f[2] * (s - 2) / 8;
      for (int k = 0; k < 3; ++k)
        g[k] = c[k] * f[(k + 1) % 3] * f[(k + 2) % 3] * (s + p[k] * c[k] - 1) / 8;
      continue;
    }
    const int z = c[0] == 0 ? 0 : (c[1] == 0 ? 1 : 2);  // the axis along the node's edge
    const int i = (z + 1) % 3, j = (z + 2) % 3;
    const double bubble = 1 - p[z] * p[z], fi = 1 + p[i] * c[i], fj = 1 + p[j] * c[j];
    values[a] = bubble * fi * fj / 4;
    g[z] = -2 * p[z] * fi * fj / 4;
    g[i] = bubble * c[i] * fj / 4;
    g[j] = bubble * fi * c[j] / 4;
  }
}

/// Shape-function tables of the serendipity hexahedron for an n x n x n Gauss rule.
struct Hex20Tables {
  std::vector<double> reference;  // 20 * 3
  std::vector<double> points;     // nq * 3
  std::vector<double> weights;    // nq
  std::vector<double> values;     // nq * 20
  std::vector<double> gradients;  // nq * 20 * 3
  std::vector<double> mass;       // 20

  explicit Hex20Tables(int n) : mass(kHex20Nodes, 0.0) {
    for (int a = 0; a < kHex20Nodes; ++a)
      for (int k = 0; k < 3; ++k)
        reference.push_back(a < 8 ? kHex20Corner[a][k]
                                  : 0.5 * (kHex20Corner[kHex20Edge[a - 8][0]][k] +
                                           kHex20Corner[kHex20Edge[a - 8][1]][k]));
    for_gauss_points(n, [&](const std::array<double, 3>& p, double w) {
      points.insert(points.end(), p.begin(), p.end());
      weights.push_back(w);
      values.resize(values.size() + kHex20Nodes);
      gradients.resize(gradients.size() + 3 * kHex20Nodes);
      hex20_shape(p, values.data() + values.size() - kHex20Nodes,
                  gradients.data() + gradients.size() - 3 * kHex20Nodes);
    });
    // Lumped mass by HRZ (Hinton, Rock & Zienkiewicz 1976): the consistent diagonal int N_a^2 dV
    // (3x3x3 Gauss integrates it exactly), scaled to the element's mass. Corners get 7/248 each
    // and mid-edge nodes 2/31 of it (exact for parallelepipeds, which fem's generators make).
    // Row sums would give the corners negative masses (-1/8 each), which an explicit step cannot
    // use.
    double total = 0;
    for_gauss_points(3, [&](const std::array<double, 3>& p, double w) {
      double N[kHex20Nodes], dN[3 * kHex20Nodes];
      hex20_shape(p, N, dN);
      for (int a = 0; a < kHex20Nodes; ++a) {
        mass[a] += w * N[a] * N[a];
        total += w * N[a] * N[a];
      }
    });
    for (double& m : mass) m /= total;
  }

  /// Critical step: 2 / omega_max of one element with this lumping (Irons' bound, which holds
  /// for the assembled mesh) is at least 0.2502 V / (A_max c) for the cube (Poisson's ratio 0,
  /// the worst), and more for boxes of aspect ratio up to 3 and corners moved by up to 15 % of
  /// the size, for Poisson's ratio up to 0.49, with either rule (measured with these tables;
  /// tests/elements check it): length = 0.25 V / A_max, a quarter of hex8's.
  static constexpr double kLengthFactor = 0.25;

  [[nodiscard]] ElementData describe(const char* name, const char* description) const {
    return ElementData{sizeof(ElementData),
                       name,
                       description,
                       Family::Isoparametric,
                       static_cast<std::int32_t>(CellShape::Hex20),
                       kHex20Nodes,
                       static_cast<std::int32_t>(weights.size()),
                       kVtkQuadraticHexahedron,
                       reference.data(),
                       points.data(),
                       weights.data(),
                       values.data(),
                       gradients.data(),
                       mass.data(),
                       6,
                       kHex20FaceOffsets,
                       kHex20Faces,
                       0,
                       nullptr,
                       nullptr,  // element node order is VTK's
                       kLengthFactor};
  }

 private:
  /// Calls f(point, weight) for each point of the n x n x n Gauss-Legendre rule (n = 2 or 3).
  template <class F>
  static void for_gauss_points(int n, F&& f) {
    const double r3 = std::sqrt(0.6), r2 = 1 / std::sqrt(3.0);
    const std::vector<double> x =
        n == 3 ? std::vector<double>{-r3, 0.0, r3} : std::vector<double>{-r2, r2};
    const std::vector<double> w =
        n == 3 ? std::vector<double>{5.0 / 9, 8.0 / 9, 5.0 / 9} : std::vector<double>{1.0, 1.0};
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) f({x[i], x[j], x[k]}, w[i] * w[j] * w[k]);
  }
};

}  // namespace fem::elements
