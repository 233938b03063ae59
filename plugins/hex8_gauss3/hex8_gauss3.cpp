// The SDK's example element: a trilinear hexahedron with a 3x3x3 Gauss rule, family
// Isoparametric, so that the backends' runtime-sized kernels run it and only data lives here.
// fem's own hex8 integrates with 2x2x2 points, exact for the stiffness of a parallelepiped; the
// 27 points also integrate a distorted cell's or a nonlinear law's integrand more closely.
//
// Node order is VTK_HEXAHEDRON (cell type 12): the face zeta = -1 counter-clockwise seen from
// +zeta (nodes 0-3), then the face zeta = +1 (4-7), on the reference cube [-1, 1]^3:
//   N_a = (1 + xi xi_a)(1 + eta eta_a)(1 + zeta zeta_a) / 8
#include <cmath>
#include <cstdint>

#include <fem/element.hpp>
#include <fem/mesh.hpp>
#include <fem/plugin.hpp>

namespace {

constexpr int kNodes = 8, kPoints = 27, kVtkHexahedron = 12;
constexpr double kCorner[kNodes][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                       {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// Faces: corners counter-clockwise seen from outside.
constexpr std::int32_t kFaceOffsets[7] = {0, 4, 8, 12, 16, 20, 24};
constexpr std::int32_t kFaces[24] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4,
                                     1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};

struct Tables {
  double reference[kNodes * 3] = {};
  double points[kPoints * 3] = {};
  double weights[kPoints] = {};
  double values[kPoints * kNodes] = {};
  double gradients[kPoints * kNodes * 3] = {};
  // Lumped mass: the row sums of the consistent mass, 1/8 per node (all positive for a linear
  // cell; quadratic ones need another lumping, see docs/plugins.md).
  double mass[kNodes] = {0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125};

  Tables() {
    for (int a = 0; a < kNodes; ++a)
      for (int k = 0; k < 3; ++k) reference[3 * a + k] = kCorner[a][k];
    // 3-point Gauss-Legendre per axis: +-sqrt(3/5) with weight 5/9, 0 with weight 8/9.
    const double x[3] = {-std::sqrt(0.6), 0.0, std::sqrt(0.6)}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    for (int q = 0; q < kPoints; ++q) {
      const double p[3] = {x[q % 3], x[q / 3 % 3], x[q / 9]};
      for (int k = 0; k < 3; ++k) points[3 * q + k] = p[k];
      weights[q] = w[q % 3] * w[q / 3 % 3] * w[q / 9];
      for (int a = 0; a < kNodes; ++a) {
        const double f[3] = {1 + p[0] * kCorner[a][0], 1 + p[1] * kCorner[a][1],
                             1 + p[2] * kCorner[a][2]};
        values[q * kNodes + a] = f[0] * f[1] * f[2] / 8;
        for (int k = 0; k < 3; ++k)
          gradients[(q * kNodes + a) * 3 + k] = kCorner[a][k] * f[(k + 1) % 3] * f[(k + 2) % 3] / 8;
      }
    }
  }
};

const fem::ElementData* data() {
  static const Tables t;
  static const fem::ElementData d = {
      sizeof(fem::ElementData),
      "hex8_gauss3",
      "trilinear hexahedron, 3x3x3 Gauss integration",
      fem::Family::Isoparametric,
      static_cast<std::int32_t>(fem::CellShape::Hex8),  // mesh: {cells: hex8}
      kNodes,
      kPoints,
      kVtkHexahedron,
      t.reference,
      t.points,
      t.weights,
      t.values,
      t.gradients,
      t.mass,
      6,
      kFaceOffsets,
      kFaces,
      0,
      nullptr,
      nullptr,  // element node order is VTK's
      // Critical step: length = V / A_max, the edge of a cube, as for fem's hex8 (the lumped
      // mass and the stiffness of a cube hardly depend on the rule).
      1.0,
  };
  return &d;
}

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "hex8_gauss3", FEM_PLUGIN_VERSION, "", data())
