// What a .vtu file announces, checked before VTK's XML reader trusts it (framework/src/mesh/
// only, not installed).
//
// VTK 9.1's vtkXMLUnstructuredGridReader sizes its arrays from the XML attributes before it reads
// any data, and does not check them: a negative NumberOfComponents throws std::length_error out
// of VTK (abort), a blank one leaves an int uninitialised (a hang or a huge allocation, as ASLR
// decides), NumberOfCells="-1" writes past an array, 2e9 points or cells exhaust memory or time,
// and two cell arrays of one name make it dereference a null array (docs/fuzzing.md). fem reads
// the parsed XML tree (VTK's parser, which is safe) and refuses such files with the element's
// line before the reader allocates anything.
#pragma once

#include <cstdint>
#include <string>

class vtkXMLDataElement;

namespace fem::detail {

/// Throws InputError, at the offending element's line and column of `path`, when a Piece's
/// NumberOfPoints or NumberOfCells is not a non-negative integer, exceeds fem's 32-bit ids or
/// more values than the file's `file_bytes` can hold (times the largest zlib ratio when the file
/// names a compressor), when a DataArray's NumberOfComponents is not a positive integer or its
/// values would exceed that, or when a piece names two point or two cell arrays alike.
void check_vtu_tree(vtkXMLDataElement* root, const std::string& path, std::uintmax_t file_bytes);

/// Whether a piece has cell data but no point data (see with_empty_point_data()), in a .vtu or
/// a .vti (VTK image data).
bool needs_empty_point_data(vtkXMLDataElement* root);

/// `text` (the file's bytes) with an empty <PointData/> in each piece that has cell data but no
/// point data, or "" when no piece needs one. VTK 9.1's XML readers name the piece's PointData
/// element in their message for a cell array they cannot read, and dereference null when there
/// is none (fuzz/known/vtk_xml_cell_array_without_point_data.vtu, and .vti); with an empty one
/// they report.
std::string with_empty_point_data(vtkXMLDataElement* root, const std::string& text);

}  // namespace fem::detail
