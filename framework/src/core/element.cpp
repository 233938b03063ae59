#include "fem/element.hpp"

namespace fem {

const char* to_string(Family f) {
  switch (f) {
    case Family::Isoparametric:
      return "isoparametric";
    case Family::Hex8Hourglass:
      return "hex8 one-point with hourglass control";
    case Family::AveragedNodalPressureTet:
      return "tet4 with averaged nodal pressure";
  }
  return "?";
}

}  // namespace fem
