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
#include "fem/memory.hpp"
#include "fem/mesh/voxels.hpp"

namespace fem {

const char* label_image_formats() {
  return "'.vti' (VTK image data), '.mhd' or '.mha' (MetaImage), '.nrrd' or '.nhdr' (NRRD)";
}

}  // namespace fem

#ifdef FEM_WITH_VTK

#include <vtkAbstractArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataObject.h>
#include <vtkDataSetAttributes.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkMatrix3x3.h>
#include <vtkMetaImageReader.h>
#include <vtkNew.h>
#include <vtkNrrdReader.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkStreamingDemandDrivenPipeline.h>
#include <vtkStringOutputWindow.h>
#include <vtkXMLDataElement.h>
#include <vtkXMLDataParser.h>
#include <vtkXMLImageDataReader.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "../output/vtk_error_capture.hpp"
#include "read_file.hpp"
#include "vtu_check.hpp"

namespace fem {

namespace {

/// The label array: the active scalars, else the first numeric array.
vtkDataArray* label_array(vtkDataSetAttributes* data) {
  if (vtkDataArray* a = data->GetScalars()) return a;
  for (int i = 0; i < data->GetNumberOfArrays(); ++i)
    if (vtkDataArray* a = data->GetArray(i)) return a;
  return nullptr;
}

/// MetaImage's library (metaio) reports a missing or short data file only on std::cerr, and VTK
/// then hands on whatever was read: the stream is captured while an image is read, so that its
/// reports become the error instead of noise beside a silently wrong image.
class CerrCapture {
 public:
  CerrCapture() : saved_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(saved_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
  /// The captured lines joined by "; ", without metaio's "MetaImage: " prefixes.
  [[nodiscard]] std::string text() const {
    std::istringstream lines(text_.str());
    std::string line, joined;
    while (std::getline(lines, line)) {
      if (line.rfind("MetaImage: ", 0) == 0) line.erase(0, 11);
      const auto start = line.find_first_not_of(" \t");
      if (start == std::string::npos) continue;
      joined += (joined.empty() ? "" : "; ") + line.substr(start);
    }
    return joined;
  }

 private:
  std::ostringstream text_;
  std::streambuf* saved_;
};

/// The raw-image readers (NRRD) report a data file shorter than the header says as a generic
/// warning, which no observer sees, and go on with what they read: VTK's output window is
/// captured while an image is read, so that the warning becomes the error.
class OutputWindowCapture {
 public:
  OutputWindowCapture() : previous_(vtkOutputWindow::GetInstance()) {
    vtkOutputWindow::SetInstance(window_);
  }
  ~OutputWindowCapture() { vtkOutputWindow::SetInstance(previous_); }
  OutputWindowCapture(const OutputWindowCapture&) = delete;
  OutputWindowCapture& operator=(const OutputWindowCapture&) = delete;
  [[nodiscard]] std::string text() const { return window_->GetOutput(); }

 private:
  vtkSmartPointer<vtkOutputWindow> previous_;
  vtkNew<vtkStringOutputWindow> window_;
};

/// The first 4 MB of an image file, where VTK's NRRD and MetaImage readers look for the header.
std::string header_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(0x400000, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

/// `text` for a message: at most 40 characters, other than printable ASCII as '?'.
std::string printable(const std::string& text) {
  std::string out = text.substr(0, 40);
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return text.size() > 40 ? out + "..." : out;
}

/// Whether a header's data file name is a list of files (LIST) or a pattern of numbered files
/// (with '%'), as MetaIO and NRRD read such names; fem reads a label image from one file.
bool names_several_files(const std::string& name) {
  return name.rfind("LIST", 0) == 0 || name.find('%') != std::string::npos;
}

/// The fields of the NRRD format (teem's nrrd format definition, version 5), with their
/// alternative spellings.
const std::set<std::string> kNrrdFields = {"dimension",
                                           "type",
                                           "block size",
                                           "blocksize",
                                           "encoding",
                                           "endian",
                                           "content",
                                           "min",
                                           "max",
                                           "old min",
                                           "oldmin",
                                           "old max",
                                           "oldmax",
                                           "data file",
                                           "datafile",
                                           "line skip",
                                           "lineskip",
                                           "byte skip",
                                           "byteskip",
                                           "sample units",
                                           "sampleunits",
                                           "sizes",
                                           "spacings",
                                           "thicknesses",
                                           "axis mins",
                                           "axismins",
                                           "axis maxs",
                                           "axismaxs",
                                           "centers",
                                           "centerings",
                                           "labels",
                                           "units",
                                           "kinds",
                                           "space",
                                           "space dimension",
                                           "space units",
                                           "space origin",
                                           "space directions",
                                           "measurement frame",
                                           "number"};

/// VTK 9.1's NRRD reader loops forever on a header whose last line has no line end or that holds
/// a zero byte, reads out of bounds without `sizes` or with a space dimension other than its
/// directions', and takes a first axis of 9 samples or fewer for vector components: the header
/// is checked here before VTK sees it, for what a label image needs (fuzz_image found most).
void check_nrrd_header(const std::string& path, const SourceLocation& where) {
  const auto refuse = [&](const std::string& what, const std::string& hint) {
    throw InputError(where, "NRRD file '" + path + "' " + what, hint);
  };
  const std::string spec_hint =
      "a NRRD label image's header has the lines NRRD0004, type, dimension: 3, sizes "
      "(x y z), encoding, each ended by a line break, then (in a .nrrd) an empty line and the "
      "data";
  const std::string text = header_bytes(path);
  const bool attached = detail::lower_extension(path) == ".nrrd";
  std::size_t end = text.size();
  if (attached) {
    const std::size_t blank = text.find("\n\n"), crlf = text.find("\r\n\r\n");
    end = std::min(blank == std::string::npos ? blank : blank + 1,
                   crlf == std::string::npos ? crlf : crlf + 2);
    if (end == std::string::npos)
      refuse("has no empty line between its header and its data", spec_hint);
  } else if (text.empty() || text.back() != '\n') {
    refuse("has a header whose last line has no line break", spec_hint);
  }
  // VTK 9.1's header reader loops forever on a zero byte in the header (fuzz_image found it).
  if (const std::size_t zero = text.substr(0, end).find('\0'); zero != std::string::npos)
    refuse("has a zero byte in its header (byte " + std::to_string(zero + 1) + ")",
           "a NRRD header is text: the file is damaged, or its header was written as binary");
  // Every line a field NRRD defines, once: VTK's reader writes past its arrays on a "space
  // dimension" other than the directions it then reads, and misreads lines it does not know.
  std::istringstream lines(text.substr(0, end));
  std::string line;
  std::map<std::string, std::string> fields;
  std::getline(lines, line);  // the magic NRRD000x, which CanReadFile checked
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;
    if (line[0] == '#') continue;
    const std::size_t colon = line.find(": "), pair = line.find(":=");
    if (pair != std::string::npos && (colon == std::string::npos || pair < colon)) continue;
    if (colon == std::string::npos)
      refuse("has a header line that is no field: '" + printable(line) + "'", spec_hint);
    const std::string name = line.substr(0, colon);
    if (kNrrdFields.count(name) == 0)
      refuse("has an unknown field '" + printable(name) + "'",
             "a NRRD header holds the fields of the NRRD format (type, dimension, sizes, "
             "encoding, space, space directions, ...), a line each; key/value pairs are written "
             "key:=value");
    if (!fields.emplace(name, line.substr(colon + 2)).second)
      refuse("gives the field '" + name + "' twice", spec_hint);
  }
  if (fields.count("space dimension") != 0 && fields["space dimension"] != "3")
    refuse("has space dimension '" + printable(fields["space dimension"]) + "', not 3",
           "fem reads label images in 3D space: write 'space dimension: 3' (or leave it out)");
  const std::string number = R"(\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*)";
  const std::string vector = "\\(" + number + "," + number + "," + number + "\\)";
  if (fields.count("space directions") != 0 &&
      !std::regex_match(fields["space directions"],
                        std::regex("\\s*" + vector + "\\s+" + vector + "\\s+" + vector + "\\s*")))
    refuse("has space directions '" + printable(fields["space directions"]) +
               "', not three vectors (x,y,z)",
           "write for example 'space directions: (0.5,0,0) (0,0.5,0) (0,0,1)'");
  if (fields.count("space origin") != 0 &&
      !std::regex_match(fields["space origin"], std::regex("\\s*" + vector + "\\s*")))
    refuse("has space origin '" + printable(fields["space origin"]) + "', not a vector (x,y,z)",
           "write for example 'space origin: (0,0,0)'");
  // A data file named in a .nrrd, whose data are attached, or a list or pattern of files in a
  // .nhdr: VTK's reader took the one fuzz_image wrote ("data file: n: (::...)" in a .nrrd) for
  // files to read and allocated 3 GB.
  for (const char* field : {"data file", "datafile"}) {
    if (fields.count(field) == 0) continue;
    const std::string& data = fields[field];
    if (attached)
      refuse("names a data file ('" + printable(data) + "') although its data are attached",
             "a .nrrd holds its samples after the header's empty line: remove the '" +
                 std::string(field) + "' line, or name the header .nhdr to keep them apart");
    if (names_several_files(data))
      refuse("names its data as a list or pattern of files ('" + printable(data) + "')",
             "fem reads a label image's samples from one data file: name it (data file: "
             "labels.raw)");
  }
  for (const char* field : {"type", "dimension", "sizes", "encoding"})
    if (fields.count(field) == 0) refuse(std::string("has no '") + field + "' field", spec_hint);
  int dimension = 0;
  if (!(std::istringstream(fields["dimension"]) >> dimension) || dimension != 3)
    refuse("has dimension '" + fields["dimension"] + "', not 3",
           "fem reads NRRD images of 3 axes of one label each");
  std::istringstream sizes(fields["sizes"]);
  std::int64_t size[3] = {0, 0, 0};
  if (!(sizes >> size[0] >> size[1] >> size[2]) || size[0] < 1 || size[1] < 1 || size[2] < 1)
    refuse("has sizes '" + fields["sizes"] + "', not 3 positive integers", spec_hint);
  if (size[0] <= 9)
    refuse("has " + std::to_string(size[0]) + " samples along x",
           "VTK reads the first axis of a NRRD file as vector components when it has 9 samples "
           "or fewer: give it 10 or more, or write the image as .mhd or .vti");
}

/// VTK 9.1's MetaImage reader (MetaIO) writes past a buffer or throws std::length_error through
/// VTK (an abort) on a header without a data file or with a zero size (fuzz_image found them):
/// the header, "Key = Value" lines up to ElementDataFile, is checked here first for what a label
/// image needs.
void check_metaimage_header(const std::string& path, const SourceLocation& where) {
  const auto refuse = [&](const std::string& what, const std::string& hint) {
    throw InputError(where, "MetaImage file '" + path + "' " + what, hint);
  };
  const std::string spec_hint =
      "a MetaImage label image's header has the lines ObjectType = Image, NDims = 3, DimSize = "
      "x y z, ElementType = MET_..., and last ElementDataFile = LOCAL (the data follows, in a "
      ".mha) or the data file's name";
  const std::string text = header_bytes(path);
  std::map<std::string, std::string> fields;
  std::size_t at = 0;
  bool data_file = false;
  while (!data_file && at < text.size()) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, eol - at);
    at = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find('\0') != std::string::npos)
      refuse("has a zero byte in its header", "a MetaImage header is text: the file is damaged");
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;  // MetaIO skips such lines too
    const auto trim = [](std::string t) {
      const std::size_t a = t.find_first_not_of(" \t"), b = t.find_last_not_of(" \t");
      return a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
    };
    const std::string key = trim(line.substr(0, eq));
    if (!fields.emplace(key, trim(line.substr(eq + 1))).second)
      refuse("gives '" + printable(key) + "' twice", spec_hint);
    data_file = key == "ElementDataFile";
  }
  if (!data_file) refuse("has no ElementDataFile line", spec_hint);
  if (fields["ElementDataFile"].empty())
    refuse("names no data file (ElementDataFile is empty)", spec_hint);
  // A damaged list or pattern threw through VTK: fem reads the data from one file.
  const std::string& data = fields["ElementDataFile"];
  if (names_several_files(data))
    refuse("names its data as a list or pattern of files ('" + printable(data) + "')",
           "fem reads a label image's data from one file: ElementDataFile = LOCAL (in a .mha) "
           "or the name of one raw file");
  if (fields["NDims"] != "3")
    refuse("has NDims '" + printable(fields["NDims"]) + "', not 3",
           "fem reads 3D label images (NDims = 3)");
  std::istringstream sizes(fields["DimSize"]);
  std::int64_t size[3] = {0, 0, 0};
  std::string rest;
  if (!(sizes >> size[0] >> size[1] >> size[2]) || (sizes >> rest) || size[0] < 1 || size[1] < 1 ||
      size[2] < 1)
    refuse("has DimSize '" + printable(fields["DimSize"]) + "', not 3 positive integers",
           spec_hint);
  if (fields["ElementType"].empty()) refuse("has no ElementType", spec_hint);
}

/// VTK 9.1's XML image reader copies a piece into the image by their extents without checking
/// them (overlapping copies, fuzz_image found them): every extent must run from low to high, and
/// each piece's lie inside the whole.
void check_vti_extents(vtkXMLDataElement* root, const std::string& path,
                       const SourceLocation& where) {
  vtkXMLDataElement* image =
      root == nullptr ? nullptr : root->FindNestedElementWithName("ImageData");
  if (image == nullptr) return;  // VTK's own message follows
  const auto refuse = [&](const std::string& what) {
    throw InputError(where, "image '" + path + "' " + what,
                     "an extent is 'x0 x1 y0 y1 z0 z1' with x0 <= x1, y0 <= y1, z0 <= z1, and each "
                     "Piece's Extent lies within the ImageData's WholeExtent");
  };
  int whole[6] = {0, 0, 0, 0, 0, 0};
  if (image->GetVectorAttribute("WholeExtent", 6, whole) != 6)
    refuse("has no WholeExtent of six integers");
  for (int d = 0; d < 3; ++d)
    if (whole[2 * d] > whole[2 * d + 1]) refuse("has a WholeExtent that runs backwards");
  for (int p = 0; p < image->GetNumberOfNestedElements(); ++p) {
    vtkXMLDataElement* piece = image->GetNestedElement(p);
    if (piece->GetName() == nullptr || std::string(piece->GetName()) != "Piece") continue;
    int extent[6] = {0, 0, 0, 0, 0, 0};
    if (piece->GetVectorAttribute("Extent", 6, extent) != 6)
      refuse("has a Piece without an Extent of six integers");
    for (int d = 0; d < 3; ++d)
      if (extent[2 * d] > extent[2 * d + 1] || extent[2 * d] < whole[2 * d] ||
          extent[2 * d + 1] > whole[2 * d + 1])
        refuse("has a Piece whose Extent is not within the WholeExtent");
  }
}

[[noreturn]] void unreadable(const std::string& path, const SourceLocation& where,
                             const std::string& reason) {
  throw InputError(where, "cannot read image '" + path + "': " + reason,
                   "the file is damaged or truncated, or (MetaImage, NRRD) its data file is "
                   "missing or shorter than the header says; write it again");
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
    check_metaimage_header(path, where);
    meta->SetFileName(path.c_str());
    reader = meta;
  } else if (ext == ".nrrd" || ext == ".nhdr") {
    auto nrrd = vtkSmartPointer<vtkNrrdReader>::New();
    if (!nrrd->CanReadFile(path.c_str()))
      throw InputError(where, "'" + path + "' is not an NRRD file fem can read",
                       "VTK reads NRRD files of raw, ASCII or gzip data (other encodings are "
                       "refused)");
    check_nrrd_header(path, where);
    nrrd->SetFileName(path.c_str());
    reader = nrrd;
  } else {
    throw InputError(where,
                     "unknown image format '" + (ext.empty() ? path : ext) + "' of '" + path + "'",
                     std::string("fem reads ") + label_image_formats() + ", chosen by extension");
  }
  errors->watch(reader);
  const OutputWindowCapture vtk_output;
  // Generic warnings no observer sees: a short data file, a NRRD type VTK does not read.
  const auto short_data = [&] {
    return vtk_output.text().find("File operation failed") != std::string::npos;
  };
  const auto unsupported = [&] {
    const std::string t = vtk_output.text();
    return t.find("Unknown type") != std::string::npos ||
           t.find("not supported") != std::string::npos;
  };
  const CerrCapture metaio;
  const auto failed = [&] {
    return !errors->empty() || reader->GetErrorCode() != 0 || !metaio.text().empty() ||
           short_data() || unsupported();
  };
  const auto reason = [&]() -> std::string {
    if (!errors->empty()) return errors->text();
    if (!metaio.text().empty()) return metaio.text();
    if (short_data()) return "its data is shorter than the header says";
    if (unsupported()) return vtk_output.text();
    return "VTK reported an error";
  };
  // The header first: a damaged one can ask for more samples than memory holds.
  reader->UpdateInformation();
  if (failed()) unreadable(path, where, reason());
  // A .vti piece with cell data and no point data is read from a copy given an empty PointData:
  // VTK 9.1 dereferences null when it cannot read such a cell array (with_empty_point_data()).
  if (auto* xml = vtkXMLImageDataReader::SafeDownCast(reader)) {
    vtkXMLDataElement* root =
        xml->GetXMLParser() != nullptr ? xml->GetXMLParser()->GetRootElement() : nullptr;
    check_vti_extents(root, path, where);
    if (detail::needs_empty_point_data(root)) {
      auto from_text = vtkSmartPointer<vtkXMLImageDataReader>::New();
      from_text->SetParserErrorObserver(errors);
      from_text->ReadFromInputStringOn();
      from_text->SetInputString(
          detail::with_empty_point_data(root, detail::read_mesh_file_bytes(path)));
      errors->watch(from_text);
      reader = from_text;
      reader->UpdateInformation();
      if (failed()) unreadable(path, where, reason());
    }
  }
  int extent[6] = {0, -1, 0, -1, 0, -1};
  reader->GetOutputInformation(0)->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), extent);
  double samples = 1;
  for (int d = 0; d < 3; ++d) samples *= std::max(0, extent[2 * d + 1] - extent[2 * d] + 1);
  const std::string size = std::to_string(extent[1] - extent[0] + 1) + " x " +
                           std::to_string(extent[3] - extent[2] + 1) + " x " +
                           std::to_string(extent[5] - extent[4] + 1) + " samples";
  if (samples > std::numeric_limits<std::int32_t>::max())
    throw InputError(
        where, "image '" + path + "' has " + size + ", more than fem meshes (2^31 - 1 voxels)",
        "crop the image to the object, or downsample it, before meshing");
  // The samples are read whole, as the image's type (one byte each where VTK does not say),
  // before the mesh is built from them.
  int sample_bytes = 1;
  if (vtkInformation* scalars = vtkDataObject::GetActiveFieldInformation(
          reader->GetOutputInformation(0), vtkDataObject::FIELD_ASSOCIATION_POINTS,
          vtkDataSetAttributes::SCALARS)) {
    const int components = scalars->Has(vtkDataObject::FIELD_NUMBER_OF_COMPONENTS())
                               ? scalars->Get(vtkDataObject::FIELD_NUMBER_OF_COMPONENTS())
                               : 1;
    if (scalars->Has(vtkDataObject::FIELD_ARRAY_TYPE()))
      sample_bytes = std::max(
          1, vtkAbstractArray::GetDataTypeSize(scalars->Get(vtkDataObject::FIELD_ARRAY_TYPE())) *
                 std::max(1, components));
  }
  require_memory(samples * sample_bytes,
                 "reading image '" + path + "' (" + size + " of " + std::to_string(sample_bytes) +
                     (sample_bytes == 1 ? " byte)" : " bytes)"),
                 where,
                 "crop the image to the object, or downsample it, before meshing; or run where "
                 "more memory is available");
  reader->Update();
  vtkSmartPointer<vtkImageData> image = vtkImageData::SafeDownCast(reader->GetOutputDataObject(0));
  if (failed() || image == nullptr) unreadable(path, where, reason());
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
