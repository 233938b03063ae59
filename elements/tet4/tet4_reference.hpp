// The linear four-node tetrahedron's reference data, shared by the element plugins that use it
// (tet4: isoparametric; tet4_anp: averaged nodal pressure). One point, constant strain.
#pragma once

#include <fem/element.hpp>
#include <fem/mesh.hpp>

namespace fem::tet4 {

// Reference tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1), VTK_TETRA node order.
inline constexpr double kRef[4 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
inline constexpr double kQuadPoint[3] = {0.25, 0.25, 0.25};
inline constexpr double kQuadWeight[1] = {1.0 / 6.0};
inline constexpr double kShape[4] = {0.25, 0.25, 0.25, 0.25};
// N0 = 1 - xi - eta - zeta, N1 = xi, N2 = eta, N3 = zeta.
inline constexpr double kGrad[4 * 3] = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
inline constexpr double kMass[4] = {0.25, 0.25, 0.25, 0.25};
inline constexpr std::int32_t kFaceOffsets[5] = {0, 3, 6, 9, 12};
inline constexpr std::int32_t kFaces[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
inline constexpr int kVtkTetra = 10;

/// The element data of a linear tetrahedron computed by `family`.
constexpr ElementData element_data(const char* name, const char* description, Family family) {
  return ElementData{
      sizeof(ElementData),
      name,
      description,
      family,
      static_cast<std::int32_t>(CellShape::Tet4),
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
}

}  // namespace fem::tet4
