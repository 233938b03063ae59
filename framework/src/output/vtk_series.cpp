#ifdef FEM_WITH_VTK

#include "fem/output/vtk_series.hpp"

#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "fem/error.hpp"
#include "pvd_index.hpp"
#include "vtk_error_capture.hpp"
#include "vtk_grid.hpp"

namespace fem {
namespace fs = std::filesystem;

namespace {

/// The frame's arrays on the shared grid for the duration of one write. They point into the
/// frame's storage, so they must be gone before the frame is; removing them in the destructor
/// holds even when the write throws.
class FrameOnGrid {
 public:
  FrameOnGrid(vtkUnstructuredGrid* grid, const OutputFrame& frame) : grid_(grid) {
    try {
      detail::attach_fields(grid->GetPointData(), frame.point_fields, grid->GetNumberOfPoints(),
                            "point");
      detail::attach_fields(grid->GetCellData(), frame.cell_fields, grid->GetNumberOfCells(),
                            "cell");
    } catch (...) {
      clear();
      throw;
    }
    // ParaView takes a dataset's time from this field-data array (also when opened without the
    // .pvd, e.g. a single *_last_good.vtu).
    vtkNew<vtkDoubleArray> time;
    time->SetName("TimeValue");
    time->SetNumberOfTuples(1);
    time->SetValue(0, frame.time);
    grid->GetFieldData()->AddArray(time);
  }
  ~FrameOnGrid() { clear(); }
  FrameOnGrid(const FrameOnGrid&) = delete;
  FrameOnGrid& operator=(const FrameOnGrid&) = delete;

 private:
  void clear() {
    grid_->GetPointData()->Initialize();
    grid_->GetCellData()->Initialize();
    grid_->GetFieldData()->Initialize();
  }
  vtkUnstructuredGrid* grid_;
};

void write_vtu(vtkUnstructuredGrid* grid, const std::string& path) {
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  vtkNew<detail::VtkErrorCapture> errors;
  errors->watch(writer);
  writer->SetInputData(grid);
  writer->SetFileName(path.c_str());
  // Raw appended binary is the fastest to write and read; zlib roughly halves field data.
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  writer->SetCompressorTypeToZLib();
  // 64-bit block headers: a large mesh's arrays can pass the 4 GiB a 32-bit header can describe.
  writer->SetHeaderTypeToUInt64();
  if (writer->Write() == 0 || !errors->empty()) {
    const std::string reason =
        errors->empty() ? std::string("VTK reported an error") : errors->text();
    throw Error("cannot write '" + path + "': " + reason);
  }
}

}  // namespace

struct VtkSeriesWriter::Impl {
  fs::path directory;
  std::string basename;
  vtkSmartPointer<vtkUnstructuredGrid> grid;  // static geometry; only the arrays change per frame
  std::vector<detail::PvdEntry> entries;
  int next_index = 0;  ///< number of the next frame's file
};

bool vtk_output_available() {
  return true;
}

VtkSeriesWriter::VtkSeriesWriter(std::string directory, std::string basename, OutputMesh mesh)
    : impl_(std::make_unique<Impl>()) {
  if (basename.empty() || basename.find('/') != std::string::npos) {
    // The .pvd refers to frames by bare file name, which only works when they sit next to it.
    throw Error("output basename '" + basename +
                "' must be a non-empty file name without '/'; put folders in the directory");
  }
  impl_->directory = directory.empty() ? fs::path(".") : fs::path(directory);
  impl_->basename = std::move(basename);
  std::error_code ec;
  fs::create_directories(impl_->directory, ec);
  if (ec) {
    throw Error("cannot create output directory '" + impl_->directory.string() +
                "': " + ec.message());
  }
  if (!fs::is_directory(impl_->directory, ec)) {
    throw Error("cannot use output directory '" + impl_->directory.string() +
                "': it exists and is not a directory");
  }
  impl_->grid = detail::make_grid(mesh);
}

VtkSeriesWriter::~VtkSeriesWriter() = default;

std::string VtkSeriesWriter::write(const OutputFrame& frame) {
  const std::string file_name = fmt::format("{}_{:06d}.vtu", impl_->basename, impl_->next_index);
  const std::string path = (impl_->directory / file_name).string();
  try {
    const FrameOnGrid on_grid(impl_->grid, frame);
    write_vtu(impl_->grid, path);
  } catch (...) {
    // A full disk leaves part of the file: remove it, the index never listed it.
    std::error_code ignored;
    fs::remove(path, ignored);
    throw;
  }
  // The index only ever lists frames that are completely on disk.
  impl_->entries.push_back({frame.time, file_name});
  try {
    detail::write_file_atomically(pvd_path(), detail::format_pvd(impl_->entries));
  } catch (...) {
    impl_->entries.pop_back();
    throw;
  }
  ++impl_->next_index;
  return path;
}

std::string VtkSeriesWriter::write_single(const OutputFrame& frame, const std::string& file_name) {
  const std::string path = (impl_->directory / file_name).string();
  const FrameOnGrid on_grid(impl_->grid, frame);
  write_vtu(impl_->grid, path);
  return path;
}

std::string VtkSeriesWriter::pvd_path() const {
  return (impl_->directory / (impl_->basename + ".pvd")).string();
}

int VtkSeriesWriter::frames_written() const {
  return static_cast<int>(impl_->entries.size());
}

const std::vector<SeriesFrame>& VtkSeriesWriter::frames() const {
  return impl_->entries;
}

int VtkSeriesWriter::next_index() const {
  return impl_->next_index;
}

void VtkSeriesWriter::resume(std::vector<SeriesFrame> frames, int next_index) {
  impl_->entries = std::move(frames);
  impl_->next_index = next_index;
  detail::write_file_atomically(pvd_path(), detail::format_pvd(impl_->entries));
}

}  // namespace fem

#endif  // FEM_WITH_VTK
