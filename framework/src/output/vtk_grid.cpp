#ifdef FEM_WITH_VTK

#include "vtk_grid.hpp"

#include <vtkCellArray.h>
#include <vtkCellType.h>
#include <vtkDoubleArray.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <set>

#include "fem/error.hpp"

namespace fem::detail {

namespace {

void check_ids(const std::vector<std::int64_t>& ids, std::size_t count, const char* kind) {
  if (!ids.empty() && ids.size() != count) {
    throw Error("output mesh: " + std::to_string(ids.size()) + " " + kind + " ids for " +
                std::to_string(count) + " " + kind + "s (one each, or none)");
  }
}

void check_mesh(const OutputMesh& mesh) {
  if (mesh.points.size() % 3 != 0) {
    throw Error("output mesh: " + std::to_string(mesh.points.size()) +
                " point coordinates is not a multiple of 3");
  }
  const auto num_points = static_cast<std::int64_t>(mesh.points.size() / 3);
  const std::size_t num_cells = mesh.cell_types.size();
  // No cells may come with no offsets at all; otherwise there is one past the last cell.
  if (!(num_cells == 0 && mesh.offsets.empty()) && mesh.offsets.size() != num_cells + 1) {
    throw Error("output mesh: " + std::to_string(mesh.offsets.size()) + " offsets for " +
                std::to_string(num_cells) + " cells (expected cells + 1)");
  }
  if (!mesh.offsets.empty()) {
    if (mesh.offsets.front() != 0 ||
        mesh.offsets.back() != static_cast<std::int64_t>(mesh.connectivity.size()) ||
        !std::is_sorted(mesh.offsets.begin(), mesh.offsets.end())) {
      throw Error("output mesh: offsets must rise from 0 to the connectivity size (" +
                  std::to_string(mesh.connectivity.size()) + ")");
    }
  }
  for (const std::int64_t node : mesh.connectivity) {
    if (node < 0 || node >= num_points) {
      throw Error("output mesh: node id " + std::to_string(node) + " outside 0.." +
                  std::to_string(num_points - 1));
    }
  }
  check_ids(mesh.point_ids, static_cast<std::size_t>(num_points), "point");
  check_ids(mesh.cell_ids, num_cells, "cell");
}

void check_field(const Field& field, vtkIdType tuples, const char* kind) {
  if (field.components < 1) {
    throw Error(std::string(kind) + " field '" + field.name + "' has " +
                std::to_string(field.components) + " components (needs at least 1)");
  }
  const auto expected =
      static_cast<std::size_t>(tuples) * static_cast<std::size_t>(field.components);
  if (field.values.size() != expected) {
    throw Error(std::string(kind) + " field '" + field.name + "' has " +
                std::to_string(field.values.size()) + " values, expected " +
                std::to_string(expected) + " (" + std::to_string(tuples) + " " + kind + "s x " +
                std::to_string(field.components) + " components)");
  }
}

template <class Source>
vtkSmartPointer<vtkIdTypeArray> id_array(const Source& values) {
  auto array = vtkSmartPointer<vtkIdTypeArray>::New();
  array->SetNumberOfValues(static_cast<vtkIdType>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    array->SetValue(static_cast<vtkIdType>(i), static_cast<vtkIdType>(values[i]));
  }
  return array;
}

}  // namespace

vtkSmartPointer<vtkUnstructuredGrid> make_grid(const OutputMesh& mesh) {
  check_mesh(mesh);
  auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();

  vtkNew<vtkDoubleArray> coords;
  coords->SetNumberOfComponents(3);
  coords->SetNumberOfTuples(static_cast<vtkIdType>(mesh.points.size() / 3));
  std::copy(mesh.points.begin(), mesh.points.end(), coords->GetPointer(0));
  vtkNew<vtkPoints> points;
  points->SetData(coords);
  grid->SetPoints(points);

  vtkNew<vtkUnsignedCharArray> types;
  types->SetNumberOfValues(static_cast<vtkIdType>(mesh.cell_types.size()));
  std::copy(mesh.cell_types.begin(), mesh.cell_types.end(), types->GetPointer(0));
  const std::vector<std::int64_t> no_cells_offsets{0};
  vtkNew<vtkCellArray> cells;
  cells->SetData(id_array(mesh.offsets.empty() ? no_cells_offsets : mesh.offsets),
                 id_array(mesh.connectivity));
  grid->SetCells(types, cells);
  return grid;
}

std::vector<vtkSmartPointer<vtkUnsignedCharArray>> make_set_arrays(
    const std::vector<NamedFlags>& sets, std::size_t count, const char* prefix, const char* kind) {
  std::vector<vtkSmartPointer<vtkUnsignedCharArray>> arrays;
  for (const NamedFlags& set : sets) {
    if (set.flags.size() != count)
      throw Error(std::string("output mesh: ") + kind + " set '" + set.name + "' has " +
                  std::to_string(set.flags.size()) + " flags for " + std::to_string(count) + " " +
                  kind + "s");
    auto array = vtkSmartPointer<vtkUnsignedCharArray>::New();
    array->SetName((prefix + set.name).c_str());
    array->SetNumberOfValues(static_cast<vtkIdType>(count));
    std::copy(set.flags.begin(), set.flags.end(), array->GetPointer(0));
    arrays.push_back(array);
  }
  return arrays;
}

vtkSmartPointer<vtkIdTypeArray> make_global_ids(const std::vector<std::int64_t>& ids,
                                                const char* name) {
  if (ids.empty()) return nullptr;
  vtkSmartPointer<vtkIdTypeArray> array = id_array(ids);
  array->SetName(name);
  return array;
}

void attach_global_ids(vtkDataSetAttributes* data, vtkIdTypeArray* ids) {
  if (ids == nullptr) return;
  if (data->HasArray(ids->GetName()) != 0) {
    throw Error(std::string("a field is named '") + ids->GetName() +
                "', the name under which the mesh's global ids are written");
  }
  data->SetGlobalIds(ids);
}

std::vector<std::int64_t> take_global_ids(vtkDataSetAttributes* data, std::vector<Field>& fields) {
  vtkDataArray* array = data->GetGlobalIds();
  if (array == nullptr) return {};
  std::vector<std::int64_t> ids(static_cast<std::size_t>(array->GetNumberOfTuples()));
  // Through double: exact for every id below 2^53, far more than any mesh has.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<std::int64_t>(array->GetComponent(static_cast<vtkIdType>(i), 0));
  }
  const std::string name = array->GetName() ? array->GetName() : "";
  std::erase_if(fields, [&](const Field& f) { return f.name == name; });
  return ids;
}

void attach_fields(vtkDataSetAttributes* data, const std::vector<Field>& fields, vtkIdType tuples,
                   const char* kind) {
  std::set<std::string> names;
  for (const Field& field : fields) {
    check_field(field, tuples, kind);
    // VTK would silently replace an array of the same name and lose data.
    if (!names.insert(field.name).second) {
      throw Error(std::string("two ") + kind + " fields are named '" + field.name + "'");
    }
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfComponents(field.components);
    // save = 1: VTK must neither free nor write to the frame's storage; the writer only reads it.
    array->SetArray(const_cast<double*>(field.values.data()),
                    static_cast<vtkIdType>(field.values.size()), 1);
    data->AddArray(array);
  }
}

std::vector<Field> extract_fields(vtkDataSetAttributes* data) {
  std::vector<Field> fields;
  for (int i = 0; i < data->GetNumberOfArrays(); ++i) {
    vtkDataArray* array = data->GetArray(i);  // nullptr for string and other non-numeric arrays
    if (array == nullptr) continue;
    Field field;
    field.name = array->GetName() ? array->GetName() : "";
    field.components = array->GetNumberOfComponents();
    const vtkIdType tuples = array->GetNumberOfTuples();
    field.values.resize(static_cast<std::size_t>(tuples) *
                        static_cast<std::size_t>(field.components));
    if (auto* doubles = vtkDoubleArray::FastDownCast(array)) {
      std::copy_n(doubles->GetPointer(0), field.values.size(), field.values.begin());
    } else {
      std::size_t k = 0;
      for (vtkIdType t = 0; t < tuples; ++t) {
        for (int c = 0; c < field.components; ++c) field.values[k++] = array->GetComponent(t, c);
      }
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

OutputMesh extract_mesh(vtkUnstructuredGrid* grid) {
  OutputMesh mesh;
  const vtkIdType num_points = grid->GetNumberOfPoints();
  mesh.points.resize(static_cast<std::size_t>(num_points) * 3);
  for (vtkIdType p = 0; p < num_points; ++p) grid->GetPoint(p, &mesh.points[3 * p]);

  const vtkIdType num_cells = grid->GetNumberOfCells();
  mesh.cell_types.reserve(static_cast<std::size_t>(num_cells));
  mesh.offsets.reserve(static_cast<std::size_t>(num_cells) + 1);
  mesh.offsets.push_back(0);
  for (vtkIdType c = 0; c < num_cells; ++c) {
    const int type = grid->GetCellType(c);
    if (type == VTK_POLYHEDRON) {
      throw Error("cell " + std::to_string(c) +
                  " is a polyhedron; fem reads only cells defined by their nodes");
    }
    vtkIdType npts = 0;
    const vtkIdType* pts = nullptr;
    grid->GetCellPoints(c, npts, pts);
    mesh.cell_types.push_back(static_cast<std::uint8_t>(type));
    mesh.connectivity.insert(mesh.connectivity.end(), pts, pts + npts);
    mesh.offsets.push_back(static_cast<std::int64_t>(mesh.connectivity.size()));
  }
  return mesh;
}

}  // namespace fem::detail

#endif  // FEM_WITH_VTK
