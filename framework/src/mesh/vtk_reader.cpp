// VTK mesh reader: .vtu (XML) and legacy .vtk unstructured grids, through the VTK library.
//
// Conventions (docs/case-reference.md): a cell array `region:<name>` puts the cells where it is
// non-zero into region <name>; without such arrays, an integer cell array `region`, `block_id`
// (what fem writes) or `gmsh:physical` (what meshio writes) names each cell's region by its
// value; otherwise all cells form 'domain'. A point array `node_set:<name>` makes the points where
// it is non-zero a node set. A grid with no solid cells is a plane mesh: its triangles and quads
// are the cells, in regions by the same arrays; next to solids they are skipped (but for contact
// surfaces). Cells are numbered from 0 in messages, as VTK does.
#include <cstdint>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/mesh/readers.hpp"

#ifdef FEM_WITH_VTK

#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkUnstructuredGridReader.h>
#include <vtkXMLDataElement.h>
#include <vtkXMLDataParser.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <cmath>
#include <filesystem>

#include "../output/vtk_error_capture.hpp"
#include "../output/vtk_grid.hpp"
#include "mesh_builder.hpp"
#include "parsers.hpp"
#include "read_file.hpp"
#include "vtk_legacy_check.hpp"
#include "vtu_check.hpp"

namespace fem {

namespace {

const char* const kSupported =
    "fem reads VTK_TETRA (10), VTK_HEXAHEDRON (12), VTK_VOXEL (11), VTK_QUADRATIC_TETRA (24) "
    "and VTK_QUADRATIC_HEXAHEDRON (25) cells, and in a grid without them (a plane mesh) "
    "VTK_TRIANGLE (5) and VTK_QUAD (9); "
    "vertices, lines and polygons are skipped, and so are triangles and quads next to solids";

const std::string kRegionFlag = detail::kRegionPrefix;
const std::string kNodeSetFlag = detail::kNodeSetPrefix;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// The integer value of a one-component array entry, or an error if it is not one.
std::int64_t integer_value(const Field& f, std::int64_t cell, const std::string& path) {
  const double v = f.values[static_cast<std::size_t>(cell)];
  // Integers a double holds exactly (and an int64 too).
  if (!(std::isfinite(v) && v == std::floor(v) && std::abs(v) <= 9007199254740992.0))
    throw InputError({path, 0, 0},
                     "cell array '" + f.name + "' holds " + std::to_string(v) + " for cell " +
                         std::to_string(cell) + ", not an integer",
                     "region ids are integers");
  return static_cast<std::int64_t>(v);
}

/// An array fem reads must have a value per cell (point): VTK's readers take a CELL_DATA or
/// POINT_DATA count that differs from the grid's as it stands.
void require_values(const Field& f, std::int64_t count, const char* what, const std::string& path) {
  if (static_cast<std::int64_t>(f.values.size()) != count * f.components)
    throw InputError({path, 0, 0},
                     std::string(what) + " array '" + f.name + "' has " +
                         std::to_string(f.values.size() / static_cast<std::size_t>(f.components)) +
                         " values, but the grid has " + std::to_string(count) + " " + what + "s",
                     "the CELL_DATA / POINT_DATA count (NumberOfTuples) must match the grid");
}

vtkSmartPointer<vtkUnstructuredGrid> load_grid(const std::string& path, bool xml) {
  vtkNew<detail::VtkErrorCapture> errors;
  vtkSmartPointer<vtkUnstructuredGrid> grid;
  bool failed = false;
  if (xml) {
    vtkNew<vtkXMLUnstructuredGridReader> reader;
    errors->watch(reader);
    reader->SetParserErrorObserver(errors);
    reader->SetFileName(path.c_str());
    // Parse the XML first, and check what it announces before the reader sizes arrays by it.
    reader->UpdateInformation();
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    vtkXMLDataElement* root =
        reader->GetXMLParser() != nullptr ? reader->GetXMLParser()->GetRootElement() : nullptr;
    if (errors->empty() && root != nullptr && !ec) detail::check_vtu_tree(root, path, bytes);
    // A piece with cell data and no point data is read from a copy given an empty PointData
    // (with_empty_point_data() says why).
    const std::string patched =
        errors->empty() && detail::needs_empty_point_data(root)
            ? detail::with_empty_point_data(root, detail::read_mesh_file_bytes(path))
            : std::string();
    vtkNew<vtkXMLUnstructuredGridReader> from_text;
    if (!patched.empty()) {
      errors->watch(from_text);
      from_text->SetParserErrorObserver(errors);
      from_text->ReadFromInputStringOn();
      from_text->SetInputString(patched);
    }
    vtkXMLUnstructuredGridReader* source = patched.empty() ? reader.Get() : from_text.Get();
    if (errors->empty()) source->Update();
    grid = source->GetOutput();
    failed = source->GetErrorCode() != 0;
  } else {
    vtkNew<vtkUnstructuredGridReader> reader;
    errors->watch(reader);
    reader->SetFileName(path.c_str());
    // By default the legacy reader keeps only the first array of each kind.
    reader->ReadAllScalarsOn();
    reader->ReadAllFieldsOn();
    if (!reader->IsFileUnstructuredGrid())
      throw InputError({path, 0, 0}, "not a legacy VTK unstructured grid",
                       "fem reads DATASET UNSTRUCTURED_GRID files; convert others in ParaView");
    // VTK's legacy reader writes past its arrays when a section's data disagrees with its header.
    detail::check_legacy_vtk(path, detail::read_mesh_file_bytes(path));
    reader->Update();
    grid = reader->GetOutput();
    failed = reader->GetErrorCode() != 0;
  }
  if (!errors->empty() || failed || grid == nullptr)
    throw InputError({path, 0, 0},
                     std::string("not a readable VTK unstructured grid: ") +
                         (errors->empty() ? "VTK reported an error" : errors->text()),
                     "the file is damaged or truncated; write it again");
  return grid;
}

}  // namespace

detail::MeshBuilder detail::parse_vtk(const std::string& path) {
  // A missing file gets the same message as with the other formats.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) detail::read_mesh_file_bytes(path);
  // VTK reads the file whole, and builds the grid beside it.
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec) detail::require_mesh_file_fits(path, bytes);
  const vtkSmartPointer<vtkUnstructuredGrid> grid =
      load_grid(path, detail::lower_extension(path) == ".vtu");
  OutputMesh m;
  try {
    m = detail::extract_mesh(grid);
  } catch (const Error& e) {
    throw InputError({path, 0, 0}, e.what(), kSupported);
  }
  const std::vector<Field> cell_fields = detail::extract_fields(grid->GetCellData());
  const std::vector<Field> point_fields = detail::extract_fields(grid->GetPointData());

  detail::MeshBuilder b(path);
  for (std::int64_t p = 0; p < static_cast<std::int64_t>(m.points.size() / 3); ++p)
    b.add_node(p, m.points[3 * p], m.points[3 * p + 1], m.points[3 * p + 2], 0);

  // Which field names the regions: flag arrays first, else one integer array.
  std::vector<const Field*> flags;
  const Field* ids = nullptr;
  for (const Field& f : cell_fields)
    if (starts_with(f.name, kRegionFlag) && f.components == 1) flags.push_back(&f);
  if (flags.empty())
    for (const char* name : {"region", "block_id", "gmsh:physical"})
      for (const Field& f : cell_fields)
        if (ids == nullptr && f.name == name && f.components == 1) ids = &f;
  for (const Field* f : flags) require_values(*f, m.num_cells(), "cell", path);
  if (ids != nullptr) require_values(*ids, m.num_cells(), "cell", path);

  std::vector<std::int64_t> nodes;
  for (std::int64_t c = 0; c < m.num_cells(); ++c) {
    const int type = m.cell_types[c];
    nodes.assign(m.connectivity.begin() + m.offsets[c], m.connectivity.begin() + m.offsets[c + 1]);
    CellShape shape;
    if (type == VTK_TETRA && nodes.size() == 4) {
      shape = CellShape::Tet4;
    } else if (type == VTK_HEXAHEDRON && nodes.size() == 8) {
      shape = CellShape::Hex8;
    } else if (type == VTK_VOXEL && nodes.size() == 8) {
      // A voxel numbers its nodes x fastest; a hexahedron goes round each face.
      std::swap(nodes[2], nodes[3]);
      std::swap(nodes[6], nodes[7]);
      shape = CellShape::Hex8;
    } else if (type == VTK_QUADRATIC_TETRA && nodes.size() == 10) {
      shape = CellShape::Tet10;
    } else if (type == VTK_QUADRATIC_HEXAHEDRON && nodes.size() == 20) {
      shape = CellShape::Hex20;
    } else if ((type == VTK_TRIANGLE && nodes.size() == 3) ||
               (type == VTK_QUAD && nodes.size() == 4)) {
      shape = type == VTK_TRIANGLE ? CellShape::Tri3 : CellShape::Quad4;
      // Also the surface 'surface', and those of their region arrays, for contact surfaces.
      b.add_surface_face("surface", nodes.data(), static_cast<int>(nodes.size()), 0);
      for (const Field* f : flags)
        if (f->values[static_cast<std::size_t>(c)] != 0.0)
          b.add_surface_face(f->name.substr(kRegionFlag.size()), nodes.data(),
                             static_cast<int>(nodes.size()), 0);
    } else if (type == VTK_VERTEX || type == VTK_POLY_VERTEX || type == VTK_LINE ||
               type == VTK_POLY_LINE || type == VTK_POLYGON || type == VTK_TRIANGLE_STRIP) {
      b.add_other_element(c, 0);
      continue;
    } else {
      throw InputError({path, 0, 0},
                       "cell " + std::to_string(c) + " has VTK cell type " + std::to_string(type) +
                           ", which fem does not support",
                       kSupported);
    }
    const std::int64_t cell = b.add_cell(c, shape, nodes.data(), 0);
    for (const Field* f : flags)
      if (f->values[static_cast<std::size_t>(c)] != 0.0)
        b.add_to_region(cell, f->name.substr(kRegionFlag.size()));
    if (ids != nullptr) b.add_to_region(cell, std::to_string(integer_value(*ids, c, path)));
  }

  for (const Field& f : point_fields) {
    if (!starts_with(f.name, kNodeSetFlag) || f.components != 1) continue;
    require_values(f, static_cast<std::int64_t>(m.points.size() / 3), "point", path);
    std::vector<std::int64_t> members;
    for (std::size_t p = 0; p < f.values.size(); ++p)
      if (f.values[p] != 0.0) members.push_back(static_cast<std::int64_t>(p));
    b.add_to_node_set(f.name.substr(kNodeSetFlag.size()), members.data(),
                      static_cast<int>(members.size()), 0);
  }
  return b;
}

Mesh read_vtk_mesh(const std::string& path) {
  return detail::parse_vtk(path).finish();
}

}  // namespace fem

#else  // FEM_WITH_VTK

#include "parsers.hpp"

namespace fem {

Mesh read_vtk_mesh(const std::string& path) {
  return detail::parse_vtk(path).finish();
}

detail::MeshBuilder detail::parse_vtk(const std::string& path) {
  throw InputError({path, 0, 0},
                   "fem was built without VTK (FEM_WITH_VTK=OFF): .vtu and .vtk mesh files "
                   "cannot be read",
                   "rebuild with VTK (the Debian package libvtk9-dev), or convert the mesh to "
                   "Gmsh .msh or Abaqus .inp");
}

}  // namespace fem

#endif  // FEM_WITH_VTK
