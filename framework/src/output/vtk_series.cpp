#ifdef FEM_WITH_VTK

#include "fem/output/vtk_series.hpp"

#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "fem/error.hpp"
#include "fem/parallel/communicator.hpp"
#include "pvd_index.hpp"
#include "rank_agreement.hpp"
#include "vtk_error_capture.hpp"
#include "vtk_grid.hpp"

namespace fem {
namespace fs = std::filesystem;

namespace {

using SetArrays = std::vector<vtkSmartPointer<vtkUnsignedCharArray>>;

/// The frame's arrays on the shared grid for the duration of one write. They point into the
/// frame's storage, so they must be gone before the frame is; removing them in the destructor
/// holds even when the write throws.
class FrameOnGrid {
 public:
  /// `point_ids` / `cell_ids`: the mesh's global ids, or nullptr for none. `sets`: the mesh's
  /// named-set arrays, the same in every frame.
  FrameOnGrid(vtkUnstructuredGrid* grid, const OutputFrame& frame, vtkIdTypeArray* point_ids,
              vtkIdTypeArray* cell_ids, const SetArrays& point_sets, const SetArrays& cell_sets)
      : grid_(grid) {
    try {
      detail::attach_fields(grid->GetPointData(), frame.point_fields, grid->GetNumberOfPoints(),
                            "point");
      detail::attach_fields(grid->GetCellData(), frame.cell_fields, grid->GetNumberOfCells(),
                            "cell");
      for (const auto& a : point_sets) grid->GetPointData()->AddArray(a);
      for (const auto& a : cell_sets) grid->GetCellData()->AddArray(a);
      detail::attach_global_ids(grid->GetPointData(), point_ids);
      detail::attach_global_ids(grid->GetCellData(), cell_ids);
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

void write_vtu(vtkUnstructuredGrid* grid, const std::string& path, VtkCompression compression) {
  vtkNew<vtkXMLUnstructuredGridWriter> writer;
  vtkNew<detail::VtkErrorCapture> errors;
  errors->watch(writer);
  writer->SetInputData(grid);
  writer->SetFileName(path.c_str());
  // Raw appended binary is the fastest to write and read. zlib roughly halves field data at a
  // tenth of the speed; LZ4 keeps about 60 % of the bytes at nearly the speed of none
  // (docs/performance.md, "Writing frames").
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  switch (compression) {
    case VtkCompression::Zlib:
      writer->SetCompressorTypeToZLib();
      break;
    case VtkCompression::Lz4:
      writer->SetCompressorTypeToLZ4();
      break;
    case VtkCompression::None:
      writer->SetCompressorTypeToNone();
      break;
  }
  // 64-bit block headers: a large mesh's arrays can pass the 4 GiB a 32-bit header can describe.
  writer->SetHeaderTypeToUInt64();
  if (writer->Write() == 0 || !errors->empty()) {
    const std::string reason =
        errors->empty() ? std::string("VTK reported an error") : errors->text();
    throw Error("cannot write '" + path + "': " + reason);
  }
}

void remove_file(const std::string& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
}

detail::PvtuArray id_declaration(vtkIdTypeArray* ids) {
  // vtkXMLWriter writes vtkIdType arrays with its default IdType, vtkIdType's own width.
  return {ids->GetName(), sizeof(vtkIdType) == 8 ? "Int64" : "Int32", 1, true};
}

/// The arrays a piece's file holds, as the .pvtu declares them: the frame's fields in double,
/// the named sets, then the global ids (attach_global_ids() appends them last).
void declare(std::vector<detail::PvtuArray>& out, std::string& global_ids,
             const std::vector<Field>& fields, const SetArrays& sets, vtkIdTypeArray* ids) {
  for (const Field& f : fields) out.push_back({f.name, "Float64", f.components});
  for (const auto& a : sets) out.push_back({a->GetName(), "UInt8", 1});
  if (ids == nullptr) return;
  out.push_back(id_declaration(ids));
  global_ids = ids->GetName();
}

/// "<stem>.vtu" -> "<stem>": write_single() names a piece's files after the stem.
std::string without_vtu(const std::string& file_name) {
  const std::string suffix = ".vtu";
  if (file_name.size() > suffix.size() && file_name.ends_with(suffix)) {
    return file_name.substr(0, file_name.size() - suffix.size());
  }
  return file_name;
}

}  // namespace

struct VtkSeriesWriter::Impl {
  fs::path directory;
  std::string basename;
  vtkSmartPointer<vtkUnstructuredGrid> grid;  // static geometry; only the arrays change per frame
  vtkSmartPointer<vtkIdTypeArray> point_ids;  // global ids; null when the mesh has none
  vtkSmartPointer<vtkIdTypeArray> cell_ids;
  SetArrays point_sets, cell_sets;         // named sets, the same in every frame
  parallel::Communicator* comm = nullptr;  ///< set only for a piece of several
  VtkCompression compression = VtkCompression::Zlib;
  std::vector<detail::PvdEntry> entries;
  int next_index = 0;                                 ///< number of the next frame's file
  std::size_t pvd_listed = 0;                         ///< entries the .pvd on disk lists
  std::chrono::steady_clock::time_point pvd_written;  ///< when it was last rewritten

  [[nodiscard]] std::string path(const std::string& relative) const {
    return (directory / relative).string();
  }

  void open(const OutputMesh& mesh);
  void write_grid(const OutputFrame& frame, const std::string& path) {
    const FrameOnGrid on_grid(grid, frame, point_ids, cell_ids, point_sets, cell_sets);
    write_vtu(grid, path, compression);
  }
  /// Rewrites the .pvd with every entry.
  void write_pvd() {
    detail::write_file_atomically(path(basename + ".pvd"), detail::format_pvd(entries));
    pvd_listed = entries.size();
    pvd_written = std::chrono::steady_clock::now();
  }
  /// The same, unless it was rewritten less than a second ago.
  void update_pvd() {
    if (std::chrono::steady_clock::now() - pvd_written >= std::chrono::seconds(1)) write_pvd();
  }
  /// Whether this process writes the .pvd (rank 0 of a piece).
  [[nodiscard]] bool writes_pvd() const { return comm == nullptr || comm->rank() == 0; }
  [[nodiscard]] detail::PvtuLayout layout(const OutputFrame& frame) const {
    detail::PvtuLayout l;
    declare(l.point_arrays, l.point_global_ids, frame.point_fields, point_sets, point_ids);
    declare(l.cell_arrays, l.cell_global_ids, frame.cell_fields, cell_sets, cell_ids);
    return l;
  }
  std::string write_pieces(const OutputFrame& frame, const std::string& stem,
                           const std::function<void()>& then_on_rank0);
};

/// Creates the directory and the grid; the part of construction that may fail on one rank only.
void VtkSeriesWriter::Impl::open(const OutputMesh& mesh) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) {
    throw Error("cannot create output directory '" + directory.string() + "': " + ec.message());
  }
  if (!fs::is_directory(directory, ec)) {
    throw Error("cannot use output directory '" + directory.string() +
                "': it exists and is not a directory");
  }
  grid = detail::make_grid(mesh);
  point_ids = detail::make_global_ids(mesh.point_ids, detail::kPointGlobalIds);
  cell_ids = detail::make_global_ids(mesh.cell_ids, detail::kCellGlobalIds);
  point_sets = detail::make_set_arrays(mesh.point_sets, mesh.points.size() / 3,
                                       detail::kNodeSetPrefix, "point");
  cell_sets = detail::make_set_arrays(mesh.cell_sets, mesh.cell_types.size(), detail::kRegionPrefix,
                                      "cell");
}

/// Writes this rank's piece of `frame` as "<stem>/<leaf>_<rank>.vtu" and, once every piece is
/// on disk, rank 0 writes "<stem>.pvtu" and runs `then_on_rank0` (the .pvd's update). Returns
/// the .pvtu's path. The pieces go into a folder per .pvtu, as VTK's parallel writers put them.
std::string VtkSeriesWriter::Impl::write_pieces(const OutputFrame& frame, const std::string& stem,
                                                const std::function<void()>& then_on_rank0) {
  const detail::PvtuLayout arrays = layout(frame);
  // Rank 0 declares its own arrays for every piece: a rank with other fields would make a
  // .pvtu that VTK cannot read, so it is refused before anything is written.
  detail::require_same_on_all_ranks(*comm, detail::format_pvtu(arrays, {}), "output fields");

  const std::string leaf = fs::path(stem).filename().string();
  const auto source = [&](int rank) { return fmt::format("{}/{}_{}.vtu", leaf, leaf, rank); };
  const std::string folder = path(stem);
  const std::string piece = (fs::path(folder).parent_path() / source(comm->rank())).string();
  const std::string pvtu = path(stem + ".pvtu");
  detail::run_on_all_ranks(
      *comm,
      [&] {
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec) throw Error("cannot create folder '" + folder + "': " + ec.message());
        write_grid(frame, piece);
      },
      [&] { remove_file(piece); });

  // Every piece is complete: only now may the .pvtu, and the .pvd through it, refer to them.
  detail::run_on_all_ranks(
      *comm,
      [&] {
        if (comm->rank() != 0) return;
        std::vector<std::string> sources;
        for (int r = 0; r < comm->size(); ++r) sources.push_back(source(r));
        detail::write_file_atomically(pvtu, detail::format_pvtu(arrays, sources));
        then_on_rank0();
      },
      [&] {
        remove_file(piece);
        if (comm->rank() == 0) remove_file(pvtu);
      });
  return pvtu;
}

bool vtk_output_available() {
  return true;
}

VtkSeriesWriter::VtkSeriesWriter(std::string directory, std::string basename, OutputMesh mesh,
                                 SeriesPiece piece, VtkCompression compression)
    : impl_(std::make_unique<Impl>()) {
  impl_->compression = compression;
  if (piece.comm != nullptr && piece.comm->size() > 1) impl_->comm = piece.comm;
  const auto open = [&] {
    if (basename.empty() || basename.find('/') != std::string::npos) {
      // The .pvd refers to frames by bare file name, which only works when they sit next to it.
      throw Error("output basename '" + basename +
                  "' must be a non-empty file name without '/'; put folders in the directory");
    }
    impl_->directory = directory.empty() ? fs::path(".") : fs::path(directory);
    impl_->basename = std::move(basename);
    impl_->open(mesh);
  };
  if (impl_->comm == nullptr) {
    open();
  } else {
    detail::run_on_all_ranks(*impl_->comm, open, [] {});
  }
}

VtkSeriesWriter::~VtkSeriesWriter() {
  try {
    flush();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; the solvers
  }                // flush before their summary, where a failure is reported
}

void VtkSeriesWriter::flush() {
  if (impl_ && impl_->writes_pvd() && impl_->pvd_listed != impl_->entries.size())
    impl_->write_pvd();
}

std::string VtkSeriesWriter::write(const OutputFrame& frame) {
  const std::string stem = fmt::format("{}_{:06d}", impl_->basename, impl_->next_index);
  // The index only ever lists frames that are completely on disk. (No copy of the list per
  // frame: over 100,000 frames that copying was what made writing them slow.)
  std::string path;
  if (impl_->comm != nullptr) {
    impl_->entries.push_back({frame.time, stem + ".pvtu"});
    try {
      path = impl_->write_pieces(frame, stem, [&] { impl_->update_pvd(); });
    } catch (...) {
      impl_->entries.pop_back();
      throw;
    }
  } else {
    path = impl_->path(stem + ".vtu");
    try {
      impl_->write_grid(frame, path);
    } catch (...) {
      // A full disk leaves part of the file: remove it, the index never listed it.
      remove_file(path);
      throw;
    }
    impl_->entries.push_back({frame.time, stem + ".vtu"});
    impl_->update_pvd();
  }
  ++impl_->next_index;
  return path;
}

std::string VtkSeriesWriter::write_single(const OutputFrame& frame, const std::string& file_name) {
  if (impl_->comm != nullptr) return impl_->write_pieces(frame, without_vtu(file_name), [] {});
  const std::string path = impl_->path(file_name);
  impl_->write_grid(frame, path);
  return path;
}

std::string VtkSeriesWriter::pvd_path() const {
  return impl_->path(impl_->basename + ".pvd");
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
  if (impl_->comm == nullptr) {
    impl_->write_pvd();
    return;
  }
  detail::run_on_all_ranks(
      *impl_->comm,
      [&] {
        if (impl_->comm->rank() == 0) impl_->write_pvd();
      },
      [] {});
}

}  // namespace fem

#endif  // FEM_WITH_VTK
