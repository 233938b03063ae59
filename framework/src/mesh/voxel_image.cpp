// Segmented 3D images read through VTK into a voxel lattice (conventions in
// fem/mesh/voxels.hpp).
//
// The image readers give a vtkImageData whose points are the samples: a sample is the centre of a
// voxel of edge `spacing`, so the lattice's corner is half a spacing below the image origin. An
// image whose labels are cell data (a .vti written that way) has a voxel per cell instead, whose
// corners are the points.
#include <cstdint>
#include <string>

#include "fem/error.hpp"
#include "fem/mesh/voxels.hpp"

namespace fem {

const char* label_image_formats() {
  return "'.vti' (VTK image data), '.mhd' or '.mha' (MetaImage), '.nrrd' or '.nhdr' (NRRD)";
}

}  // namespace fem

#ifdef FEM_WITH_VTK

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkMatrix3x3.h>
#include <vtkMetaImageReader.h>
#include <vtkNew.h>
#include <vtkNrrdReader.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLImageDataReader.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "../output/vtk_error_capture.hpp"
#include "read_file.hpp"

namespace fem {

namespace {

/// The label array: the active scalars, else the first numeric array.
vtkDataArray* label_array(vtkDataSetAttributes* data) {
  if (vtkDataArray* a = data->GetScalars()) return a;
  for (int i = 0; i < data->GetNumberOfArrays(); ++i)
    if (vtkDataArray* a = data->GetArray(i)) return a;
  return nullptr;
}

vtkSmartPointer<vtkImageData> load_image(const std::string& path, const SourceLocation& where) {
  const std::string ext = detail::lower_extension(path);
  vtkNew<detail::VtkErrorCapture> errors;
  // The XML and the raw-image readers share no base class with SetFileName.
  vtkSmartPointer<vtkAlgorithm> reader;
  if (ext == ".vti") {
    auto xml = vtkSmartPointer<vtkXMLImageDataReader>::New();
    xml->SetParserErrorObserver(errors);
    xml->SetFileName(path.c_str());
    reader = xml;
  } else if (ext == ".mhd" || ext == ".mha") {
    auto meta = vtkSmartPointer<vtkMetaImageReader>::New();
    if (!meta->CanReadFile(path.c_str()))
      throw InputError(where, "'" + path + "' is not a MetaImage file fem can read",
                       "a MetaImage header has ObjectType = Image, NDims = 3, DimSize, "
                       "ElementType and ElementDataFile (LOCAL in a .mha)");
    meta->SetFileName(path.c_str());
    reader = meta;
  } else if (ext == ".nrrd" || ext == ".nhdr") {
    auto nrrd = vtkSmartPointer<vtkNrrdReader>::New();
    if (!nrrd->CanReadFile(path.c_str()))
      throw InputError(where, "'" + path + "' is not an NRRD file fem can read",
                       "VTK reads NRRD files of raw, ASCII or gzip data (other encodings are "
                       "refused)");
    nrrd->SetFileName(path.c_str());
    reader = nrrd;
  } else {
    throw InputError(where,
                     "unknown image format '" + (ext.empty() ? path : ext) + "' of '" + path + "'",
                     std::string("fem reads ") + label_image_formats() + ", chosen by extension");
  }
  errors->watch(reader);
  reader->Update();
  vtkSmartPointer<vtkImageData> image = vtkImageData::SafeDownCast(reader->GetOutputDataObject(0));
  if (!errors->empty() || reader->GetErrorCode() != 0 || image == nullptr)
    throw InputError(where,
                     "cannot read image '" + path +
                         "': " + (errors->empty() ? "VTK reported an error" : errors->text()),
                     "the file is damaged or truncated, or (MetaImage, NRRD) its data file is "
                     "missing; write it again");
  return image;
}

}  // namespace

VoxelLattice read_label_image(const std::string& path, const SourceLocation& where) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(where, "image file '" + path + "' does not exist or is not a file",
                     "the path is relative to the case file's folder");
  const vtkSmartPointer<vtkImageData> image = load_image(path, where);

  vtkDataArray* values = label_array(image->GetPointData());
  const bool per_cell = values == nullptr;
  if (per_cell) values = label_array(image->GetCellData());
  if (values == nullptr)
    throw InputError(where, "image '" + path + "' holds no scalar values",
                     "a segmented image holds one integer label per voxel");
  if (values->GetNumberOfComponents() != 1)
    throw InputError(
        where,
        "image '" + path + "' has " + std::to_string(values->GetNumberOfComponents()) +
            " components per voxel, not one label",
        std::string("a segmented image holds one integer label per voxel (not RGB "
                    "or vectors)") +
            (detail::lower_extension(path) == ".nrrd" || detail::lower_extension(path) == ".nhdr"
                 ? "; VTK reads the first axis of a NRRD as components when it "
                   "has 9 samples or fewer: give it 10 or more"
                 : ""));

  int samples[3];
  image->GetDimensions(samples);
  if (samples[0] < 2 || samples[1] < 2 || samples[2] < 2)
    throw InputError(where,
                     "image '" + path + "' has " + std::to_string(samples[0]) + " x " +
                         std::to_string(samples[1]) + " x " + std::to_string(samples[2]) +
                         " samples: fem makes voxel meshes of 3D images only",
                     "a slice's thickness is not in a 2D image; give at least 2 samples along "
                     "every axis (stack slices into a 3D image)");
  if (vtkMatrix3x3* direction = image->GetDirectionMatrix(); !direction->IsIdentity())
    throw InputError(where, "image '" + path + "' has rotated axes (a direction matrix)",
                     "fem's voxels are aligned with x, y and z; resample the image onto "
                     "axis-aligned voxels");

  VoxelLattice lattice;
  const double* spacing = image->GetSpacing();
  const double* origin = image->GetOrigin();
  for (int d = 0; d < 3; ++d) {
    if (!(spacing[d] > 0) || !std::isfinite(spacing[d]) || !std::isfinite(origin[d]))
      throw InputError(where,
                       "image '" + path + "' has spacing " + std::to_string(spacing[d]) +
                           " and origin " + std::to_string(origin[d]) + " along " + "xyz"[d],
                       "voxel edges must be positive and the origin finite");
    lattice.dims[d] = per_cell ? samples[d] - 1 : samples[d];
    lattice.spacing[d] = spacing[d];
    lattice.origin[d] = per_cell ? origin[d] : origin[d] - 0.5 * spacing[d];
  }
  if (values->GetNumberOfTuples() != lattice.num_voxels())
    throw InputError(where,
                     "image '" + path + "' holds " + std::to_string(values->GetNumberOfTuples()) +
                         " values for " + std::to_string(lattice.num_voxels()) + " voxels",
                     "the file is truncated or its header's sizes are wrong");

  lattice.labels.resize(static_cast<std::size_t>(lattice.num_voxels()));
  for (std::int64_t v = 0; v < lattice.num_voxels(); ++v) {
    const double x = values->GetComponent(v, 0);
    if (!(x == std::floor(x) && x >= std::numeric_limits<std::int32_t>::min() &&
          x <= std::numeric_limits<std::int32_t>::max())) {
      const std::int64_t i = v % lattice.dims[0], j = v / lattice.dims[0] % lattice.dims[1],
                         k = v / lattice.dims[0] / lattice.dims[1];
      throw InputError(where,
                       "image '" + path + "' holds " + std::to_string(x) + " at voxel (" +
                           std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) +
                           "), not an integer label",
                       "a segmented image holds integer labels (32-bit); a grey-level image "
                       "must be segmented first");
    }
    lattice.labels[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(x);
  }
  return lattice;
}

}  // namespace fem

#else  // FEM_WITH_VTK

namespace fem {

VoxelLattice read_label_image(const std::string& path, const SourceLocation& where) {
  throw InputError(
      where,
      "fem was built without VTK (FEM_WITH_VTK=OFF): the image '" + path + "' cannot be read",
      "rebuild with VTK (the Debian package libvtk9-dev), or mesh a built-in shape "
      "with the voxels generator");
}

}  // namespace fem

#endif  // FEM_WITH_VTK
