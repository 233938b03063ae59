// Conversions between fem's output structures and VTK data objects
// (framework/src/output/ only, not installed; include only where FEM_WITH_VTK is defined).
#pragma once

#include <vtkDataSetAttributes.h>
#include <vtkIdTypeArray.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem::detail {

/// Names of the global-id arrays (OutputMesh::point_ids / cell_ids): those of VTK's Exodus
/// reader, which ParaView's filters and users already know.
inline constexpr const char* kPointGlobalIds = "GlobalNodeId";
inline constexpr const char* kCellGlobalIds = "GlobalElementId";

/// Points and cells of `mesh` as a grid without any arrays. Throws fem::Error if the mesh is
/// inconsistent (offsets not matching the connectivity, node ids out of range, global ids not
/// one per point or cell...).
vtkSmartPointer<vtkUnstructuredGrid> make_grid(const OutputMesh& mesh);

/// `ids` as a global-id array named `name`; nullptr where `ids` is empty.
vtkSmartPointer<vtkIdTypeArray> make_global_ids(const std::vector<std::int64_t>& ids,
                                                const char* name);

/// Marks `ids` (if not null) as `data`'s global ids. Throws fem::Error if a field already has
/// its name: VTK would silently replace one with the other.
void attach_global_ids(vtkDataSetAttributes* data, vtkIdTypeArray* ids);

/// The values of `data`'s global-id array (empty if it has none), removed from `fields`, where
/// extract_fields() put it.
std::vector<std::int64_t> take_global_ids(vtkDataSetAttributes* data, std::vector<Field>& fields);

/// Prefixes of the named-set arrays (OutputMesh::point_sets / cell_sets): those fem's VTK mesh
/// reader reads as node sets and regions, so that a result file is a mesh file too.
inline constexpr const char* kNodeSetPrefix = "node_set:";
inline constexpr const char* kRegionPrefix = "region:";

/// `sets` as unsigned char arrays named `prefix` + name, made once and added to every frame.
/// Throws fem::Error for a set without one flag per item (`count` of them, `kind` in messages).
std::vector<vtkSmartPointer<vtkUnsignedCharArray>> make_set_arrays(
    const std::vector<NamedFlags>& sets, std::size_t count, const char* prefix, const char* kind);

/// Adds `fields` to `data` as vtkDoubleArrays that point into the fields' own storage (no copy:
/// a frame can be hundreds of MB). The caller must remove them (data->Initialize()) before the
/// fields go away. `tuples` is the number of points or cells; `kind` ("point" / "cell") names them
/// in errors. Throws fem::Error for a field of the wrong size, no components or a repeated name.
void attach_fields(vtkDataSetAttributes* data, const std::vector<Field>& fields, vtkIdType tuples,
                   const char* kind);

/// Every numeric array of `data` converted to double; non-numeric arrays are skipped.
std::vector<Field> extract_fields(vtkDataSetAttributes* data);

/// Points, cell types and connectivity of `grid`. Throws fem::Error for polyhedral cells, whose
/// face lists OutputMesh cannot hold.
OutputMesh extract_mesh(vtkUnstructuredGrid* grid);

}  // namespace fem::detail
