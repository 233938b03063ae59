// Histories written as CalculiX prints *NODE PRINT and *EL PRINT tables in its .dat file
// (output.calculix_dat), so that a deck's results from fem and from CalculiX compare table by
// table, and tools that read CalculiX's .dat read fem's.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fem {

/// Appends tables in CalculiX's .dat layout to a file: a blank line, the heading, a blank line,
/// then a row per node (its number, three components) or per element integration point (the
/// element's number, the point's, the values), or one row of sums:
///
///      displacements (vx,vy,vz) for set CORNER and time  0.5000000E-02
///
///             63  1.185764E-03 -4.568807E-05 -2.768541E-04
///
///      total force (fx,fy,fz) for set TOP and time  0.2500000E+00
///
///            -2.500000E+00  1.215108E-10 -1.736958E+02
///
///      internal energy density (elem, integ.pnt.,energy) for set EALL and time  0.5000000E+00
///
///              1   1  1.188296E+00
///
/// Each table is flushed as it is written, so a run that stops keeps what it printed.
class CalculixDat {
 public:
  /// Opens `path` afresh; with `resume_time` (a restart) it keeps the tables of times up to
  /// that one (as printed, 7 digits) and appends after them. Throws fem::Error if it cannot.
  explicit CalculixDat(std::string path, std::optional<double> resume_time = {});
  /// A table of a node quantity (`heading`: "displacements (vx,vy,vz)") of `set` at `time`:
  /// (node number, three components) per node, printed in the order of the numbers.
  void nodes(const std::string& heading, const std::string& set, double time,
             std::vector<std::pair<std::int64_t, std::array<double, 3>>> rows);
  /// A table of an element quantity (`heading`: "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,
  /// sxz,syz)") of `set` at `time`: (element number, its values) per element of one integration
  /// point, printed as point 1 in the order of the numbers.
  void elements(const std::string& heading, const std::string& set, double time,
                std::vector<std::pair<std::int64_t, std::vector<double>>> rows);
  /// A table of one row of sums (`heading`: "total force (fx,fy,fz)").
  void total(const std::string& heading, const std::string& set, double time,
             const std::array<double, 3>& sum);
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void heading(const std::string& heading, const std::string& set, double time);
  std::string path_;
  std::ofstream out_;
};

/// x as Fortran's E14.7 edit descriptor writes it (CalculiX's times): " 0.5000000E-02".
std::string fortran_e14_7(double x);

}  // namespace fem
