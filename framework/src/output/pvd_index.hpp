// The .pvd time series index: a small VTKFile "Collection" listing one .vtu per time
// (framework/src/output/ only, not installed).
#pragma once

#include <string>
#include <vector>

#include "fem/output/vtk_series.hpp"

namespace fem::detail {

using PvdEntry = SeriesFrame;

/// The complete XML document for `entries`, in order.
std::string format_pvd(const std::vector<PvdEntry>& entries);

}  // namespace fem::detail
