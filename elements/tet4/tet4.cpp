// Linear four-node tetrahedron, one quadrature point (constant strain).
#include <fem/element.hpp>
#include <fem/mesh.hpp>
#include <fem/plugin.hpp>

namespace {

// Reference tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1), VTK_TETRA node order.
constexpr double kRef[4 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
constexpr double kQuadPoint[3] = {0.25, 0.25, 0.25};
constexpr double kQuadWeight[1] = {1.0 / 6.0};
constexpr double kShape[4] = {0.25, 0.25, 0.25, 0.25};
// N0 = 1 - xi - eta - zeta, N1 = xi, N2 = eta, N3 = zeta.
constexpr double kGrad[4 * 3] = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
constexpr double kMass[4] = {0.25, 0.25, 0.25, 0.25};
constexpr std::int32_t kFaceOffsets[5] = {0, 3, 6, 9, 12};
constexpr std::int32_t kFaces[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
constexpr int kVtkTetra = 10;

const fem::ElementData kTet4 = {
    sizeof(fem::ElementData),
    "tet4",
    "linear tetrahedron, 1-point (constant strain)",
    fem::Family::Isoparametric,
    static_cast<std::int32_t>(fem::CellShape::Tet4),
    4,
    1,
    kVtkTetra,
    kRef,
    kQuadPoint,
    kQuadWeight,
    kShape,
    kGrad,
    kMass,
    4,
    kFaceOffsets,
    kFaces,
    0,
    nullptr,
    nullptr,
    3.0,  // smallest altitude = 3 V / A_max
};

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "tet4", FEM_PLUGIN_VERSION, "", &kTet4)
