// Linear three-node triangle, one quadrature point (constant strain), plane strain per unit
// thickness. The isoparametric family runs it unchanged: its gradients have no z part, so
// F_zz = 1 and the strain in z is zero (docs/waves.md, "Plane strain").
#include <fem/element.hpp>
#include <fem/mesh.hpp>
#include <fem/plugin.hpp>

namespace {

// Reference triangle (0,0) (1,0) (0,1) in VTK_TRIANGLE order: N0 = 1 - xi - eta, N1 = xi,
// N2 = eta.
constexpr double kRef[3 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
constexpr double kQuadPoint[3] = {1.0 / 3.0, 1.0 / 3.0, 0};
constexpr double kQuadWeight[1] = {0.5};
constexpr double kShape[3] = {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0};
constexpr double kGrad[3 * 3] = {-1, -1, 0, 1, 0, 0, 0, 1, 0};
constexpr double kMass[3] = {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0};
// The edges, each with the cell on its left (counter-clockwise cell).
constexpr std::int32_t kEdgeOffsets[4] = {0, 2, 4, 6};
constexpr std::int32_t kEdges[6] = {0, 1, 1, 2, 2, 0};
constexpr int kVtkTriangle = 5;

constexpr fem::ElementData kTri3{
    sizeof(fem::ElementData),
    "tri3",
    "linear triangle, 1-point (constant strain), plane strain",
    fem::Family::Isoparametric,
    static_cast<std::int32_t>(fem::CellShape::Tri3),
    3,
    1,
    kVtkTriangle,
    kRef,
    kQuadPoint,
    kQuadWeight,
    kShape,
    kGrad,
    kMass,
    3,
    kEdgeOffsets,
    kEdges,
    0,
    nullptr,
    nullptr,
    2.0,  // smallest altitude = 2 A / L_max
};

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "tri3", FEM_PLUGIN_VERSION, "", &kTri3)
