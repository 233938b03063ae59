// Reads the tables CalculiX writes to its .dat file for *NODE PRINT and *EL PRINT requests.
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

/// One *EL PRINT block: "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz) for set EALL and
/// time 0.25", a row per element and integration point.
struct CalculixElementTable {
  /// The heading's words before the parenthesis: "stresses", "strains", "internal energy
  /// density"
  std::string quantity;
  std::string set;  ///< as CalculiX prints it (upper case)
  double time = 0.0;
  /// Per row: element id, integration point (1-based) and its values: the six components in
  /// CalculiX's order xx yy zz xy xz yz of a tensor, or one (an energy density).
  struct Row {
    int element = 0;
    int point = 0;
    std::array<double, 6> values{};
    int count = 0;  ///< values given
  };
  std::vector<Row> rows;
};

/// Every node table of a .dat file, in file order. Throws fem::Error if the file cannot be read.
std::vector<CalculixNodeTable> read_calculix_dat(const std::string& path);
/// Every element table (six components a row) of a .dat file, in file order.
std::vector<CalculixElementTable> read_calculix_element_tables(const std::string& path);

}  // namespace fem
