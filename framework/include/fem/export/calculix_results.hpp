// Reads the nodal tables CalculiX writes to its .dat file for *NODE PRINT requests.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

namespace fem {

/// One *NODE PRINT block: "displacements (vx,vy,vz) for set CORNER and time 0.25".
struct CalculixNodeTable {
  /// First word of the heading: "displacements", "forces", ...; "total force" for the sums
  /// of TOTALS=ONLY, kept under node 0.
  std::string quantity;
  std::string set;  ///< as CalculiX prints it (upper case)
  double time = 0.0;
  std::map<int, std::array<double, 3>> values;  ///< node id (1-based) -> three components
};

/// Every node table of a .dat file, in file order. Throws fem::Error if the file cannot be read.
std::vector<CalculixNodeTable> read_calculix_dat(const std::string& path);

}  // namespace fem
