// Ten-node quadratic tetrahedron, 4-point Gauss rule (exact for quadratic integrands), family
// Isoparametric: the backends' runtime-sized kernels run it; only data lives here.
//
// Node order is VTK_QUADRATIC_TETRA (cell type 24): corners 0-3 of the reference tetrahedron
// (0,0,0) (1,0,0) (0,1,0) (0,0,1), then the mid-edge nodes of edges 0-1, 1-2, 2-0, 0-3, 1-3, 2-3.
// With barycentric L0 = 1 - xi - eta - zeta, L1 = xi, L2 = eta, L3 = zeta:
//   corner a:         N_a = L_a (2 L_a - 1)
//   mid-edge of i-j:  N   = 4 L_i L_j
#include <array>
#include <cstdint>

#include <fem/element.hpp>
#include <fem/mesh.hpp>
#include <fem/plugin.hpp>

namespace {

constexpr int kNodes = 10, kPoints = 4, kVtkQuadraticTetra = 24;
constexpr int kEdge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
constexpr double kDL[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // dL_a / dxi_k

// Faces are 6-node triangles in VTK_QUADRATIC_TRIANGLE order (corners counter-clockwise seen
// from outside, then the mid-edge nodes of edges c0-c1, c1-c2, c2-c0): tet4's faces plus mids.
constexpr std::int32_t kFaceOffsets[5] = {0, 6, 12, 18, 24};
constexpr std::int32_t kFaces[24] = {0, 2, 1, 6, 5, 4, 0, 1, 3, 4, 8, 7,
                                     1, 2, 3, 5, 9, 8, 0, 3, 2, 7, 9, 6};

// Lumped mass: HRZ (Hinton-Rock-Zienkiewicz) diagonal scaling, M_aa proportional to the
// consistent diagonal int N_a^2 dV = V/70 (corner), 8V/105 (mid-edge), scaled to the total mass:
// corners 1/36, mid-edge nodes 4/27. The row-sum lumping would give corners -1/20 (negative
// masses; an explicit step cannot use them). Exact for straight-edged elements, which is what
// fem's generators make.
constexpr double kCornerMass = 1.0 / 36.0, kMidMass = 4.0 / 27.0;

struct Tables {
  double reference[kNodes * 3] = {};
  double points[kPoints * 3] = {};
  double weights[kPoints] = {};
  double values[kPoints * kNodes] = {};
  double gradients[kPoints * kNodes * 3] = {};
  double mass[kNodes] = {};

  Tables() {
    const double corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) reference[3 * a + k] = corners[a][k];
    for (int m = 0; m < 6; ++m)
      for (int k = 0; k < 3; ++k)
        reference[3 * (4 + m) + k] = 0.5 * (corners[kEdge[m][0]][k] + corners[kEdge[m][1]][k]);
    // 4-point rule: barycentric (a, b, b, b) and permutations, weight 1/24 (volume 1/6).
    const double a = 0.5854101966249685, b = 0.1381966011250105;
    const double bary[kPoints][4] = {{a, b, b, b}, {b, a, b, b}, {b, b, a, b}, {b, b, b, a}};
    for (int q = 0; q < kPoints; ++q) {
      const double* L = bary[q];
      for (int k = 0; k < 3; ++k) points[3 * q + k] = L[k + 1];
      weights[q] = 1.0 / 24.0;
      double* N = values + q * kNodes;
      double* G = gradients + q * kNodes * 3;
      for (int c = 0; c < 4; ++c) {
        N[c] = L[c] * (2 * L[c] - 1);
        for (int k = 0; k < 3; ++k) G[3 * c + k] = (4 * L[c] - 1) * kDL[c][k];
      }
      for (int m = 0; m < 6; ++m) {
        const int i = kEdge[m][0], j = kEdge[m][1];
        N[4 + m] = 4 * L[i] * L[j];
        for (int k = 0; k < 3; ++k) G[3 * (4 + m) + k] = 4 * (kDL[i][k] * L[j] + L[i] * kDL[j][k]);
      }
    }
    for (int n = 0; n < kNodes; ++n) mass[n] = n < 4 ? kCornerMass : kMidMass;
  }
};

const fem::ElementData* data() {
  static const Tables t;
  static const fem::ElementData d = {
      sizeof(fem::ElementData),
      "tet10",
      "quadratic tetrahedron, 4-point rule",
      fem::Family::Isoparametric,
      static_cast<std::int32_t>(fem::CellShape::Tet10),
      kNodes,
      kPoints,
      kVtkQuadraticTetra,
      t.reference,
      t.points,
      t.weights,
      t.values,
      t.gradients,
      t.mass,
      4,
      kFaceOffsets,
      kFaces,
      0,
      nullptr,
      nullptr,  // element node order is VTK's
      // Critical step: 2 / omega_max of one element with this lumping (Irons' bound, which
      // holds for the assembled mesh) is at least 0.82 V / (A_max c) over random shapes for
      // Poisson's ratio up to 0.49 (tet4's smallest altitude is 3 V / A_max): use 0.8.
      0.8,
  };
  return &d;
}

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "tet10", FEM_PLUGIN_VERSION, "", data())
