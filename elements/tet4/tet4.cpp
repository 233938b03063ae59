// Linear four-node tetrahedron, one quadrature point (constant strain).
#include <fem/plugin.hpp>

#include "tet4_reference.hpp"

namespace {

constexpr fem::ElementData kTet4 = fem::tet4::element_data(
    "tet4", "linear tetrahedron, 1-point (constant strain)", fem::Family::Isoparametric);

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "tet4", FEM_PLUGIN_VERSION, "", &kTet4)
