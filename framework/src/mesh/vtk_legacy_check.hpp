// What a legacy .vtk unstructured grid announces, checked against the data that follows before
// VTK's legacy reader trusts it (framework/src/mesh/ only, not installed).
//
// VTK 9.1's vtkUnstructuredGridReader sizes its arrays from each section's header (POINTS n,
// CELLS n size, CELL_TYPES n, SCALARS, FIELD arrays, ...) and then reads values into them: a
// header that announces more or fewer values than follow, or cells whose counts and node ids do
// not add up, make it write past its arrays (heap corruption, a crash at some later free;
// fuzz/known/vtk_legacy_cells_count.vtk). fem walks the file first, ASCII or BINARY (big-endian),
// section by section, and refuses such a file at the section's line.
#pragma once

#include <string>

namespace fem::detail {

/// Throws InputError, at the offending section's line of `path`, unless `bytes` (the whole file)
/// is a legacy VTK unstructured grid whose every section holds exactly the values its header
/// announces, whose cells name existing points with consistent counts (CELLS, or OFFSETS and
/// CONNECTIVITY from version 5), and whose CELL_TYPES count matches the cells. Files that are not
/// unstructured grids are left to the reader's own message.
void check_legacy_vtk(const std::string& path, const std::string& bytes);

}  // namespace fem::detail
