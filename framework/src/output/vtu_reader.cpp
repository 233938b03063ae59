#ifdef FEM_WITH_VTK

#include <vtkCellData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <filesystem>
#include <system_error>

#include "fem/error.hpp"
#include "fem/output/vtk_series.hpp"
#include "vtk_error_capture.hpp"
#include "vtk_grid.hpp"

namespace fem {

namespace {

/// The grid `reader` reads from `path`, which keeps it alive; `kind` (".vtu") names the format.
template <class Reader>
vtkUnstructuredGrid* read_grid(Reader* reader, const std::string& path, const char* kind,
                               const SourceLocation& where) {
  // The reader reports bad structure itself and bad XML through its parser; catch both.
  vtkNew<detail::VtkErrorCapture> errors;
  errors->watch(reader);
  reader->SetParserErrorObserver(errors);
  reader->SetFileName(path.c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  if (!errors->empty() || reader->GetErrorCode() != 0 || grid == nullptr) {
    throw InputError(where,
                     std::string("not a readable VTK unstructured grid (") + kind + "): " +
                         (errors->empty() ? std::string("VTK reported an error") : errors->text()));
  }
  return grid;
}

/// The fields named `prefix` + name, moved out of `fields` as named sets (OutputMesh).
std::vector<NamedFlags> take_sets(std::vector<Field>& fields, const std::string& prefix) {
  std::vector<NamedFlags> sets;
  std::erase_if(fields, [&](const Field& f) {
    if (f.components != 1 || f.name.compare(0, prefix.size(), prefix) != 0) return false;
    NamedFlags set{f.name.substr(prefix.size()), {}};
    for (const double v : f.values) set.flags.push_back(v != 0.0 ? 1 : 0);
    sets.push_back(std::move(set));
    return true;
  });
  return sets;
}

VtuContents contents_of(vtkUnstructuredGrid* grid, const SourceLocation& where) {
  VtuContents contents;
  try {
    contents.mesh = detail::extract_mesh(grid);
  } catch (const Error& e) {
    throw InputError(where, e.what());
  }
  contents.point_fields = detail::extract_fields(grid->GetPointData());
  contents.cell_fields = detail::extract_fields(grid->GetCellData());
  contents.mesh.point_ids = detail::take_global_ids(grid->GetPointData(), contents.point_fields);
  contents.mesh.cell_ids = detail::take_global_ids(grid->GetCellData(), contents.cell_fields);
  contents.mesh.point_sets = take_sets(contents.point_fields, detail::kNodeSetPrefix);
  contents.mesh.cell_sets = take_sets(contents.cell_fields, detail::kRegionPrefix);
  return contents;
}

}  // namespace

VtuContents read_vtu(const std::string& path) {
  const SourceLocation where{path, 0, 0};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(where, "cannot read .vtu file: " + (std::filesystem::exists(path, ec)
                                                             ? std::string("not a regular file")
                                                             : std::string("no such file")));
  }
  if (std::filesystem::path(path).extension() == ".pvtu") {
    vtkNew<vtkXMLPUnstructuredGridReader> reader;
    return contents_of(read_grid(reader.Get(), path, ".pvtu", where), where);
  }
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  return contents_of(read_grid(reader.Get(), path, ".vtu", where), where);
}

}  // namespace fem

#endif  // FEM_WITH_VTK
