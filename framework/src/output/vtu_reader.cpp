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
