// The .pvd time series index: a small VTKFile "Collection" listing one .vtu per time
// (framework/src/output/ only, not installed).
#pragma once

#include <string>
#include <vector>

namespace fem::detail {

struct PvdEntry {
  double time = 0.0;
  std::string file;  ///< relative to the .pvd's directory, so the series can be moved as a whole
};

/// The complete XML document for `entries`, in order.
std::string format_pvd(const std::vector<PvdEntry>& entries);

}  // namespace fem::detail
