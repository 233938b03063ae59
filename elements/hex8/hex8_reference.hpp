// The trilinear hexahedron's reference cell, shared by the hex8 and hex8r element plugins.
//
// Node order is VTK_HEXAHEDRON: the face zeta = -1 counter-clockwise seen from +zeta (0..3), then
// the face zeta = +1 (4..7). Tables are filled once, at first use, for a given quadrature rule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <fem/element.hpp>
#include <fem/mesh.hpp>

namespace fem::elements {

inline constexpr double kHexCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                            {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
inline constexpr std::int32_t kHexFaceOffsets[7] = {0, 4, 8, 12, 16, 20, 24};
inline constexpr std::int32_t kHexFaces[24] = {0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4,
                                               1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
inline constexpr int kVtkHexahedron = 12;

/// Shape-function tables of the trilinear hexahedron at the given quadrature points.
struct HexTables {
  std::vector<double> reference;  // 8 * 3
  std::vector<double> points;     // nq * 3
  std::vector<double> weights;    // nq
  std::vector<double> values;     // nq * 8
  std::vector<double> gradients;  // nq * 8 * 3
  std::vector<double> mass;       // 8
  std::vector<double> hourglass;  // 4 * 8: xi*eta, eta*zeta, zeta*xi, xi*eta*zeta sign vectors

  HexTables(const std::vector<std::array<double, 3>>& qp, const std::vector<double>& w)
      : weights(w), mass(8, 0.125) {
    for (const auto& c : kHexCorner) reference.insert(reference.end(), c, c + 3);
    for (const auto& p : qp) {
      points.insert(points.end(), p.begin(), p.end());
      for (const auto& c : kHexCorner) {
        const double a = 1 + c[0] * p[0], b = 1 + c[1] * p[1], d = 1 + c[2] * p[2];
        values.push_back(a * b * d / 8);
        gradients.push_back(c[0] * b * d / 8);
        gradients.push_back(a * c[1] * d / 8);
        gradients.push_back(a * b * c[2] / 8);
      }
    }
    const int pairs[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (const auto& pr : pairs)
      for (const auto& c : kHexCorner) hourglass.push_back(c[pr[0]] * c[pr[1]]);
    for (const auto& c : kHexCorner) hourglass.push_back(c[0] * c[1] * c[2]);
  }

  [[nodiscard]] ElementData describe(const char* name, const char* description, Family family,
                                     int num_hourglass_modes) const {
    return ElementData{sizeof(ElementData),
                       name,
                       description,
                       family,
                       static_cast<std::int32_t>(CellShape::Hex8),
                       8,
                       static_cast<std::int32_t>(weights.size()),
                       kVtkHexahedron,
                       reference.data(),
                       points.data(),
                       weights.data(),
                       values.data(),
                       gradients.data(),
                       mass.data(),
                       6,
                       kHexFaceOffsets,
                       kHexFaces,
                       num_hourglass_modes,
                       num_hourglass_modes ? hourglass.data() : nullptr,
                       nullptr,
                       1.0};  // V / A_max: the edge of a cube
  }
};

}  // namespace fem::elements
