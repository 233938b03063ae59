// Linear tetrahedron with averaged nodal pressure: the improved ANP element of seed 003 (after
// Bonet & Burton 1998), free of the volumetric locking of tet4 for nearly incompressible
// materials. Same reference data as tet4; the family does the rest.
#include <fem/plugin.hpp>

#include "tet4_reference.hpp"

namespace {

constexpr fem::ElementData kTet4Anp = fem::tet4::element_data(
    "tet4_anp",
    "linear tetrahedron with averaged nodal pressure (improved ANP: nearly incompressible)",
    fem::Family::AveragedNodalPressureTet);

}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "tet4_anp", FEM_PLUGIN_VERSION, "", &kTet4Anp)
