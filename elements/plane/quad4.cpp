// Bilinear four-node quadrilateral, 2x2 Gauss integration, plane strain per unit thickness. The
// isoparametric family runs it unchanged (see tri3.cpp).
#include <fem/element.hpp>
#include <fem/mesh.hpp>
#include <fem/plugin.hpp>

namespace {

// Reference square [-1, 1]^2 in VTK_QUAD order; N_a = (1 + xi_a xi)(1 + eta_a eta) / 4.
constexpr double kRef[4 * 3] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
constexpr double kG = 0.57735026918962576451;  // 1 / sqrt(3)
constexpr double kQuadPoints[4 * 3] = {-kG, -kG, 0, kG, -kG, 0, kG, kG, 0, -kG, kG, 0};
constexpr double kQuadWeights[4] = {1, 1, 1, 1};

constexpr double shape(int a, int q) {
  return (1 + kRef[3 * a] * kQuadPoints[3 * q]) * (1 + kRef[3 * a + 1] * kQuadPoints[3 * q + 1]) /
         4;
}
constexpr double gradient(int a, int q, int k) {
  const double xi = kQuadPoints[3 * q], eta = kQuadPoints[3 * q + 1];
  const double xa = kRef[3 * a], ea = kRef[3 * a + 1];
  return k == 0 ? xa * (1 + ea * eta) / 4 : k == 1 ? ea * (1 + xa * xi) / 4 : 0.0;
}

struct Tables {
  double shape[4 * 4] = {};         // [q][a]
  double gradient[4 * 4 * 3] = {};  // [q][a][k]
  constexpr Tables() {
    for (int q = 0; q < 4; ++q)
      for (int a = 0; a < 4; ++a) {
        shape[4 * q + a] = ::shape(a, q);
        for (int k = 0; k < 3; ++k) gradient[(4 * q + a) * 3 + k] = ::gradient(a, q, k);
      }
  }
};
constexpr Tables kTables;

constexpr double kMass[4] = {0.25, 0.25, 0.25, 0.25};
constexpr std::int32_t kEdgeOffsets[5] = {0, 2, 4, 6, 8};
constexpr std::int32_t kEdges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
constexpr int kVtkQuad = 9;

constexpr fem::ElementData kQuad4{
    sizeof(fem::ElementData),
    "quad4",
    "bilinear quadrilateral, 2x2 Gauss integration, plane strain",
    fem::Family::Isoparametric,
    static_cast<std::int32_t>(fem::CellShape::Quad4),
    4,
    4,
    kVtkQuad,
    kRef,
    kQuadPoints,
    kQuadWeights,
    kTables.shape,
    kTables.gradient,
    kMass,
    4,
    kEdgeOffsets,
    kEdges,
    0,
    nullptr,
    nullptr,
    1.0,  // area / longest edge: the edge of a square
};

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "quad4", FEM_PLUGIN_VERSION, "", &kQuad4)
