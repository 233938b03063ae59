// Segmented images as meshes (mesh.image): the same labelled image written as VTK image data
// (through VTK), MetaImage (.mhd + .raw, .mha) and NRRD (.nrrd, .nhdr + .raw; by hand: a text
// header and raw bytes) gives the same voxel mesh, one region per label; scale, labels,
// background and downsample; every refusal at its key.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/error.hpp>
#include <fem/mesh/voxels.hpp>
#include <fem/output/vtk_series.hpp>

#include "output/scratch_dir.hpp"

#ifdef FEM_WITH_VTK
#include <vtkCellData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataWriter.h>
#endif

namespace fem::test {
namespace {

/// A labelled image: 10 x 5 x 4 samples of spacing (2, 2, 3) from (10, 20, 30), in millimetres.
/// Label 1 where i < 3 (60 voxels), label 2 where i >= 3 and j < 2 (56), background 0 elsewhere.
/// (VTK reads a NRRD's first axis as vector components when it has 9 samples or fewer.)
struct Image {
  std::array<int, 3> dims = {10, 5, 4};
  std::array<double, 3> spacing = {2, 2, 3};
  std::array<double, 3> origin = {10, 20, 30};
  std::vector<int> labels;
  Image() {
    for (int k = 0; k < dims[2]; ++k)
      for (int j = 0; j < dims[1]; ++j)
        for (int i = 0; i < dims[0]; ++i) labels.push_back(i < 3 ? 1 : j < 2 ? 2 : 0);
  }
};

std::string vector_text(const std::array<double, 3>& v, const char* sep = " ") {
  return std::to_string(v[0]) + sep + std::to_string(v[1]) + sep + std::to_string(v[2]);
}

std::string raw_bytes(const Image& image) {
  std::string bytes;
  for (int v : image.labels) bytes.push_back(static_cast<char>(v));
  return bytes;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A MetaImage header; `local`: the data follows it in one .mha, else in labels.raw beside it.
std::string write_mhd(const ScratchDir& dir, const Image& image, bool local = false) {
  const std::string header =
      "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
      "DimSize = " +
      std::to_string(image.dims[0]) + " " + std::to_string(image.dims[1]) + " " +
      std::to_string(image.dims[2]) + "\nElementSpacing = " + vector_text(image.spacing) +
      "\nOffset = " + vector_text(image.origin) + "\nElementType = MET_UCHAR\nElementDataFile = ";
  if (local) {
    write_text(dir / "labels.mha", header + "LOCAL\n" + raw_bytes(image));
    return dir / "labels.mha";
  }
  write_text(dir / "labels.raw", raw_bytes(image));
  write_text(dir / "labels.mhd", header + "labels.raw\n");
  return dir / "labels.mhd";
}

/// A NRRD file; `detached`: a .nhdr header naming labels.raw.
std::string write_nrrd(const ScratchDir& dir, const Image& image, bool detached = false) {
  const std::array<double, 3>& h = image.spacing;
  const std::string header = "NRRD0004\ntype: uint8\ndimension: 3\nspace dimension: 3\nsizes: " +
                             std::to_string(image.dims[0]) + " " + std::to_string(image.dims[1]) +
                             " " + std::to_string(image.dims[2]) + "\nspace directions: (" +
                             std::to_string(h[0]) + ",0,0) (0," + std::to_string(h[1]) +
                             ",0) (0,0," + std::to_string(h[2]) + ")\nspace origin: (" +
                             vector_text(image.origin, ",") + ")\nencoding: raw\n";
  if (detached) {
    write_text(dir / "labels.raw", raw_bytes(image));
    write_text(dir / "labels.nhdr", header + "data file: labels.raw\n");
    return dir / "labels.nhdr";
  }
  write_text(dir / "labels.nrrd", header + "\n" + raw_bytes(image));
  return dir / "labels.nrrd";
}

#ifdef FEM_WITH_VTK
/// Through VTK's own writer; `values` (if given) replaces the labels, as floats.
std::string write_vti(const ScratchDir& dir, const Image& image, const std::string& name = "l.vti",
                      const std::vector<float>& values = {}) {
  vtkNew<vtkImageData> data;
  data->SetDimensions(image.dims.data());
  data->SetSpacing(image.spacing.data());
  data->SetOrigin(image.origin.data());
  if (values.empty()) {
    vtkNew<vtkIntArray> labels;
    labels->SetName("labels");
    labels->SetNumberOfTuples(static_cast<vtkIdType>(image.labels.size()));
    for (std::size_t v = 0; v < image.labels.size(); ++v)
      labels->SetValue(static_cast<vtkIdType>(v), image.labels[v]);
    data->GetPointData()->SetScalars(labels);
  } else {
    vtkNew<vtkFloatArray> labels;
    labels->SetName("labels");
    labels->SetNumberOfTuples(static_cast<vtkIdType>(values.size()));
    for (std::size_t v = 0; v < values.size(); ++v)
      labels->SetValue(static_cast<vtkIdType>(v), values[v]);
    data->GetPointData()->SetScalars(labels);
  }
  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName((dir / name).c_str());
  writer->SetInputData(data);
  EXPECT_EQ(writer->Write(), 1);
  return dir / name;
}
#endif

/// The image in a format by its extension (VTK image data only with VTK).
std::string write_image(const ScratchDir& dir, const Image& image, const std::string& format) {
  if (format == "mha") return write_mhd(dir, image, true);
  if (format == "nrrd") return write_nrrd(dir, image);
  if (format == "nhdr") return write_nrrd(dir, image, true);
#ifdef FEM_WITH_VTK
  if (format == "vti") return write_vti(dir, image);
#endif
  return write_mhd(dir, image);
}

const std::string kBlocks = R"(
materials:
  soft: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.3}
  hard: {type: neo_hookean, youngs_modulus: 30000, poisson_ratio: 0.3}
blocks:
  - {region: label_1, element: hex8r, material: soft}
  - {region: label_2, element: hex8r, material: hard}
solver: {end_time: 0.01}
)";

/// `mesh: {image: <path><rest>}` and two blocks on label_1 and label_2.
std::string image_case(const std::string& path, const std::string& rest = "",
                       const std::string& blocks = kBlocks) {
  return "mesh: {image: " + path + rest + "}" + blocks;
}

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_case(yaml, "<test>");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_HAS(text, part)                               \
  EXPECT_NE(std::string(text).find(part), std::string::npos) \
      << "no '" << (part) << "' in: " << (text)

/// Checks the mesh of Image scaled to metres: regions, counts, exact lattice corner.
void expect_image_mesh(const Mesh& mesh, const Image& image, double scale) {
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "label_1");
  EXPECT_EQ(mesh.regions[1].name, "label_2");
  EXPECT_EQ(mesh.regions[0].num_cells(), 60);
  EXPECT_EQ(mesh.regions[1].num_cells(), 56);
  // Every lattice node of the 11 x 6 x 5 corners is used but those only empty voxels touch:
  // x = 4..10 with y = 3..5 (empty voxels i >= 3, j >= 2; node j = 2 is shared with label 2).
  EXPECT_EQ(mesh.num_nodes(), 11 * 6 * 5 - 7 * 3 * 5);
  const auto b = mesh.bounds();
  for (int d = 0; d < 3; ++d) {
    // The sample is the voxel's centre: the lattice starts half a voxel below the origin.
    EXPECT_DOUBLE_EQ(b[0][d], (image.origin[d] - image.spacing[d] / 2) * scale);
    EXPECT_NEAR(b[1][d], (image.origin[d] + (image.dims[d] - 0.5) * image.spacing[d]) * scale,
                1e-12);
  }
}

class ImageFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(ImageFormats, LabelsBecomeRegionsInMetres) {
  const std::string format = GetParam();
  ScratchDir dir;
  const Image image;
  const std::string path = write_image(dir, image, format);
  if (!vtk_output_available()) {
    EXPECT_HAS(error_of(image_case(path)), "fem was built without VTK");
    GTEST_SKIP() << "built without VTK: images cannot be read";
  }
  const CaseSpec spec = parse_case(image_case(path, ", scale: 0.001"), "<test>");
  ASSERT_TRUE(spec.mesh.file_mesh);
  EXPECT_EQ(spec.mesh.image, path);
  expect_image_mesh(*spec.mesh.file_mesh, image, 0.001);
}

INSTANTIATE_TEST_SUITE_P(Images, ImageFormats,
                         ::testing::Values("vti", "mhd", "mha", "nrrd", "nhdr"));

class ImageCase : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
    path_ = write_mhd(dir_, Image());
  }
  ScratchDir dir_;
  std::string path_;
};

TEST_F(ImageCase, LabelsKeepsSomeAndBlocksAreCheckedAgainstThem) {
  const CaseSpec spec =
      parse_case(image_case(path_, ", labels: [2]",
                            kBlocks.substr(0, kBlocks.find("  - {region: label_1")) +
                                "  - {region: label_2, element: hex8r, "
                                "material: hard}\nsolver: {end_time: 0.01}\n"),
                 "<test>");
  ASSERT_EQ(spec.mesh.file_mesh->regions.size(), 1u);
  EXPECT_EQ(spec.mesh.file_mesh->regions[0].name, "label_2");
  // A block on a label left out is refused at the block, naming the regions the image has.
  const std::string e = error_of(image_case(path_, ", labels: [2]"));
  EXPECT_HAS(e, "block 'block0' uses mesh region 'label_1', which the image does not have");
  EXPECT_HAS(e, "an image has a region label_<n> per label");
}

TEST_F(ImageCase, BackgroundIsAnyLabel) {
  // With background 1, labels 0 and 2 are the foreground.
  const CaseSpec spec = parse_case(
      image_case(path_, ", background: 1",
                 "\nmaterials: {soft: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: "
                 "0.3}}\nblocks: [{region: label_0, element: hex8r, material: soft}, {region: "
                 "label_2, element: hex8r, material: soft}]\nsolver: {end_time: 0.01}\n"),
      "<test>");
  EXPECT_EQ(spec.mesh.file_mesh->regions[0].num_cells(), 200 - 60 - 56);
  EXPECT_EQ(spec.mesh.file_mesh->regions[1].num_cells(), 56);
}

TEST_F(ImageCase, DownsampleMergesBlocksByMajority) {
  // Blocks of 2^3 over 10 x 5 x 4 voxels: 5 x 3 x 2 voxels of edge (4, 4, 6), the last block row
  // (j = 4 alone) half missing. Per block column (bi, bj), each of the 2 block layers alike:
  //   bi = 0 (i = 0, 1, label 1): bj = 0, 1 full; bj = 2 has 4 of 8: foreground.      -> 3 x 1
  //   bi = 1 (i = 2 label 1, i = 3 label 2 or 0): bj = 0 4 ones and 4 twos: the tie goes to
  //          the smaller label; bj = 1 4 ones of 8; bj = 2 2 of 8: background.        -> 2 x 1
  //   bi = 2, 3, 4 (i = 4..9, label 2 where j < 2): bj = 0 full.                       -> 3 x 2
  const CaseSpec spec = parse_case(image_case(path_, ", downsample: 2"), "<test>");
  const Mesh& mesh = *spec.mesh.file_mesh;
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].num_cells(), 5 * 2);
  EXPECT_EQ(mesh.regions[1].num_cells(), 3 * 2);
  const auto b = mesh.bounds();
  EXPECT_DOUBLE_EQ(b[0][0], 9);     // the image's corner stays
  EXPECT_DOUBLE_EQ(b[1][0], 29);    // 5 voxels of 4
  EXPECT_DOUBLE_EQ(b[1][1], 31);    // 3 block rows of 4
  EXPECT_DOUBLE_EQ(b[1][2], 40.5);  // 2 block layers of 6
}

TEST(ImageErrors, MissingFileAtTheImageKey) {
  const std::string e = error_of(image_case("no/such.vti"));
  EXPECT_HAS(e, "<test>:1:15: error: image 'no/such.vti' does not exist");
  EXPECT_HAS(e, "fem reads '.vti' (VTK image data)");
}

TEST(ImageErrors, KeysOfAnImageWithoutOne) {
  EXPECT_HAS(error_of("mesh: {generator: box, downsample: 2}" + kBlocks),
             "<test>:1:24: error: 'downsample' applies to a segmented image only");
  EXPECT_HAS(error_of("mesh: {image: a.vti, file: b.vtu}" + kBlocks),
             "a mesh comes from a file or from an image, not both");
  EXPECT_HAS(error_of("mesh: {image: a.vti, divisions: 3}" + kBlocks),
             "'divisions' does not apply to an image");
}

class ImageError : public ImageCase {
 protected:
  std::string error(const std::string& rest) { return error_of(image_case(path_, rest)); }
  /// Column of the value after "mesh: {image: <path>, <key>: ".
  std::string at(const std::string& key, int extra = 0) const {
    return "<test>:1:" +
           std::to_string(static_cast<int>(15 + path_.size() + 2 + key.size() + 2 + extra)) +
           ": error: ";
  }
};

TEST_F(ImageError, LabelAbsentFromTheImageNamesThosePresent) {
  const std::string e = error(", labels: [1, 7]");
  EXPECT_HAS(e, at("labels", 4) + "label 7 is not in image");
  EXPECT_HAS(e, "the image's labels: 1 (60 voxels), 2 (56 voxels); background 0");
  EXPECT_HAS(error(", labels: [0]"), at("labels", 1) + "label 0 is the background");
  EXPECT_HAS(error(", labels: [2, 2]"), "label 2 is listed twice");
}

TEST_F(ImageError, DownsampleMustBeAPositiveInteger) {
  EXPECT_HAS(error(", downsample: 1.5"), at("downsample") + "'downsample' must be an integer");
  const std::string zero = error(", downsample: 0");
  EXPECT_HAS(zero, at("downsample") + "'downsample' must be an integer from 1 to 1024");
  EXPECT_HAS(zero, "makes each block of 2 x 2 x 2 voxels one voxel");
  // Blocks of 8^3 hold at most 8 x 5 x 4 voxels: less than half of 512 foreground.
  const std::string gone = error(", downsample: 8");
  EXPECT_HAS(gone, at("downsample") + "no voxel is left after downsample 8");
  EXPECT_HAS(gone, "lower downsample");
  EXPECT_HAS(error(", labels: [2], downsample: 8"),
             "label 2 has no voxel left after downsample 8 (it had 56)");
}

TEST_F(ImageError, NoForegroundSaysWhatTheImageHolds) {
  Image empty;
  std::fill(empty.labels.begin(), empty.labels.end(), 0);
  const std::string e = error_of(image_case(write_mhd(dir_, empty)));
  EXPECT_HAS(e, "<test>:1:15: error: image '");
  EXPECT_HAS(e, "has no foreground: every voxel holds the background 0");
  // Background 5: everything is background.
  std::fill(empty.labels.begin(), empty.labels.end(), 5);
  const std::string b = error_of(image_case(write_mhd(dir_, empty), ", background: 5"));
  EXPECT_HAS(b, "every voxel holds the background 5");
  EXPECT_HAS(b, "set mesh.background to the label of the empty voxels");
}

TEST_F(ImageError, UnreadableAndTwoDimensionalImages) {
  write_text(dir_ / "bad.vti", "<VTKFile type=\"ImageData\"> truncated");
  const std::string bad = error_of(image_case(dir_ / "bad.vti"));
  EXPECT_HAS(bad, "<test>:1:15: error: cannot read image '");
  EXPECT_HAS(bad, "write it again");
  write_text(dir_ / "bad.mhd", "not a header\n");
  EXPECT_HAS(error_of(image_case(dir_ / "bad.mhd")), "is not a MetaImage file fem can read");
  write_text(dir_ / "labels.png", "x");
  EXPECT_HAS(error_of(image_case(dir_ / "labels.png")), "unknown image format '.png'");

  // A data file shorter than the header says: VTK's readers would go on with what they read.
  const std::string mhd = write_mhd(dir_, Image());
  write_text(dir_ / "labels.raw", std::string(150, '\1'));
  EXPECT_HAS(error_of(image_case(mhd)), "data not read completely");
  const std::string nrrd = write_nrrd(dir_, Image());
  write_text(nrrd, read_text(nrrd).substr(0, read_text(nrrd).size() - 50));
  EXPECT_HAS(error_of(image_case(nrrd)), "its data is shorter than the header says");
  // A header asking for more samples than fem meshes is refused before anything is allocated.
  write_text(dir_ / "huge.mhd",
             "ObjectType = Image\nNDims = 3\nDimSize = 100000 100000 1000\n"
             "ElementType = MET_UCHAR\nElementDataFile = labels.raw\n");
  EXPECT_HAS(error_of(image_case(dir_ / "huge.mhd")),
             "has 100000 x 100000 x 1000 samples, more than fem meshes (2^31 - 1 voxels)");

  // NRRD headers VTK 9.1 would hang on, read out of bounds with, or misread are refused first.
  const auto nrrd_error = [&](const std::string& name, const std::string& text) {
    write_text(dir_ / name, text);
    return error_of(image_case(dir_ / name));
  };
  EXPECT_HAS(nrrd_error("a.nrrd", "NRRD0004\ntype: uint8"),
             "has no empty line between its header and its data");
  EXPECT_HAS(nrrd_error("b.nhdr", "NRRD0004\ntype: uint8\ndimension: 3"),
             "has a header whose last line has no line break");
  EXPECT_HAS(nrrd_error("c.nrrd", "NRRD0004\ntype: uint8\ndimension: 3\nencoding: raw\n\n"),
             "has no 'sizes' field");
  EXPECT_HAS(
      nrrd_error("d.nrrd", "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 20 20\nencoding: raw\n\n"),
      "has dimension '2', not 3");
  const std::string few =
      nrrd_error("e.nrrd", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 6 5 4\nencoding: raw\n\n" +
                               std::string(120, '\1'));
  EXPECT_HAS(few, "has 6 samples along x");
  EXPECT_HAS(few, "write the image as .mhd or .vti");

  Image flat;
  flat.dims = {6, 5, 1};
  flat.labels.resize(30);
  const std::string e = error_of(image_case(write_mhd(dir_, flat)));
  EXPECT_HAS(e, "has 6 x 5 x 1 samples: fem makes voxel meshes of 3D images only");
  EXPECT_HAS(e, "at least 2 samples along every axis");
}

#ifdef FEM_WITH_VTK
TEST_F(ImageCase, CellLabelsMakeAVoxelPerCell) {
  // Image's labels as cell data of 11 x 6 x 5 points: a voxel per cell, its corners the points.
  const Image image;
  vtkNew<vtkImageData> data;
  data->SetDimensions(image.dims[0] + 1, image.dims[1] + 1, image.dims[2] + 1);
  data->SetSpacing(image.spacing.data());
  data->SetOrigin(image.origin.data());
  vtkNew<vtkIntArray> labels;
  labels->SetName("labels");
  labels->SetNumberOfTuples(static_cast<vtkIdType>(image.labels.size()));
  for (std::size_t v = 0; v < image.labels.size(); ++v)
    labels->SetValue(static_cast<vtkIdType>(v), image.labels[v]);
  data->GetCellData()->SetScalars(labels);
  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName((dir_ / "cells.vti").c_str());
  writer->SetInputData(data);
  ASSERT_EQ(writer->Write(), 1);
  const CaseSpec spec = parse_case(image_case(dir_ / "cells.vti"), "<test>");
  const Mesh& mesh = *spec.mesh.file_mesh;
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].num_cells(), 60);
  EXPECT_EQ(mesh.regions[1].num_cells(), 56);
  const auto b = mesh.bounds();
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(b[0][d], image.origin[d]);
    EXPECT_DOUBLE_EQ(b[1][d], image.origin[d] + image.dims[d] * image.spacing[d]);
  }
}

TEST_F(ImageError, FloatLabelsMustBeIntegers) {
  const Image image;
  std::vector<float> values(image.labels.begin(), image.labels.end());
  // Integral floats are labels like any others.
  const CaseSpec spec = parse_case(image_case(write_vti(dir_, image, "f.vti", values)), "<test>");
  expect_image_mesh(*spec.mesh.file_mesh, image, 1.0);
  values[12] = 1.5f;  // voxel (2, 1, 0)
  const std::string e = error_of(image_case(write_vti(dir_, image, "g.vti", values)));
  EXPECT_HAS(e, "holds 1.500000 at voxel (2, 1, 0), not an integer label");
  EXPECT_HAS(e, "must be segmented first");
}
#endif

}  // namespace
}  // namespace fem::test
