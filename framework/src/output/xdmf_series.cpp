// XDMF + HDF5 series (fem/output/xdmf_series.hpp).
//
// The mesh goes into "<file>.new" when the writer is made, and that file replaces "<file>" only
// with the first frame: a run that fails before its first frame leaves the previous run's file
// as it was, and a restart (resume) continues the previous file instead.
#include "fem/output/xdmf_series.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "atomic_file.hpp"
#include "fem/error.hpp"
#include "fem/parallel/communicator.hpp"
#include "rank_agreement.hpp"
#include "xdmf_document.hpp"

#if FEM_WITH_HDF5
#include "hdf5_support.hpp"
#endif

namespace fem {

namespace fs = std::filesystem;

bool xdmf_output_available() {
  return FEM_WITH_HDF5 != 0;
}

#if FEM_WITH_HDF5

namespace {

using detail::H5Id;
using detail::hdf5_checked_id;
using detail::hdf5_failed;
using detail::QuietHdf5;
using detail::write_dataset;

/// Deletes the link `name` of `where` if there is one.
void remove_link(hid_t where, const std::string& name) {
  if (H5Lexists(where, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(where, name.c_str(), H5P_DEFAULT);
}

template <class T>
void write_attribute(hid_t where, const char* name, hid_t type, T value, const std::string& path) {
  const H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  const H5Id a(hdf5_checked_id(H5Acreate2(where, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                               std::string("create the attribute ") + name, path),
               H5Aclose);
  if (H5Awrite(a.get(), type, &value) < 0)
    hdf5_failed(std::string("write the attribute ") + name, path);
}

template <class T>
bool read_attribute(hid_t where, const char* name, hid_t type, T& value) {
  if (H5Aexists(where, name) <= 0) return false;
  const H5Id a(H5Aopen(where, name, H5P_DEFAULT), H5Aclose);
  return a && H5Aread(a.get(), type, &value) >= 0;
}

/// The names of a group's links, in creation order where the group tracks it, else by name.
std::vector<std::string> link_names(hid_t group, H5_index_t order) {
  H5G_info_t info{};
  std::vector<std::string> names;
  if (H5Gget_info(group, &info) < 0) return names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t size =
        H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (size < 0) continue;
    std::string name(static_cast<std::size_t>(size), '\0');
    H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, i, name.data(),
                       static_cast<std::size_t>(size) + 1, H5P_DEFAULT);
    names.push_back(name);
  }
  return names;
}

/// The first extent of a dataset, or -1.
std::int64_t rows_of(hid_t where, const char* name, int* components = nullptr) {
  if (H5Lexists(where, name, H5P_DEFAULT) <= 0) return -1;
  const H5Id d(H5Dopen2(where, name, H5P_DEFAULT), H5Dclose);
  if (!d) return -1;
  const H5Id space(H5Dget_space(d.get()), H5Sclose);
  hsize_t dims[2] = {0, 1};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 2) return -1;
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (components) *components = rank == 2 ? static_cast<int>(dims[1]) : 1;
  return static_cast<std::int64_t>(dims[0]);
}

}  // namespace

struct XdmfSeriesWriter::Impl {
  std::string directory, basename;
  parallel::Communicator* comm = nullptr;
  int rank = 0;
  bool several = false;
  std::string h5_name;  ///< this rank's file, relative to the directory
  std::int64_t points = 0, cells = 0;
  H5Id file;
  bool fresh_pending = true;              ///< the file is still "<h5>.new"
  std::vector<detail::XdmfPiece> pieces;  ///< every rank's, on rank 0
  std::vector<detail::XdmfFrame> frames;  ///< this rank's file's frames (rank 0's: the index)
  int next = 0;
  std::chrono::steady_clock::time_point index_written;
  bool index_behind = false;

  [[nodiscard]] std::string h5_path() const { return (fs::path(directory) / h5_name).string(); }
  [[nodiscard]] std::string fresh_path() const { return h5_path() + ".new"; }
  [[nodiscard]] std::string xdmf_path() const {
    return (fs::path(directory) / (basename + ".xdmf")).string();
  }
  [[nodiscard]] bool writes_index() const { return rank == 0; }

  /// Runs `step` here, or on every rank together (undo where any failed).
  void together(const std::function<void()>& step, const std::function<void()>& undo) {
    if (several)
      detail::run_on_all_ranks(*comm, step, undo);
    else
      step();
  }

  /// "<h5>.new" with the mesh, /frames empty; returns the piece's mesh XML.
  std::string create_fresh(const OutputMesh& mesh) {
    const detail::XdmfTopology topology = detail::xdmf_topology(mesh);
    fs::create_directories(directory);
    const std::string path = fresh_path();
    const QuietHdf5 quiet;
    file = H5Id(hdf5_checked_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                "create the file", path),
                H5Fclose);
    const H5Id group(
        hdf5_checked_id(H5Gcreate2(file.get(), "/mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        "create the group /mesh", path),
        H5Gclose);
    const H5Id frames_group(
        hdf5_checked_id(H5Gcreate2(file.get(), "/frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        "create the group /frames", path),
        H5Gclose);
    write_dataset(group.get(), "points", H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(points), 3},
                  mesh.points.data(), path);
    const std::vector<hsize_t> topology_dims =
        topology.type == "Mixed"
            ? std::vector<hsize_t>{topology.data.size()}
            : std::vector<hsize_t>{static_cast<hsize_t>(topology.cells),
                                   static_cast<hsize_t>(topology.nodes_per_cell)};
    write_dataset(group.get(), "topology", H5T_NATIVE_INT64, topology_dims, topology.data.data(),
                  path);
    // Sets and ids go in every frame's grid, pointing at these datasets.
    std::vector<detail::XdmfArray> arrays;
    const auto add_flags = [&](const char* folder, const char* prefix,
                               const std::vector<NamedFlags>& sets, bool cell) {
      if (sets.empty()) return;
      const H5Id sub(
          hdf5_checked_id(H5Gcreate2(group.get(), folder, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          std::string("create the group /mesh/") + folder, path),
          H5Gclose);
      for (std::size_t s = 0; s < sets.size(); ++s) {
        // Set names may hold any character: the dataset is numbered, the attribute named.
        const std::string name = std::to_string(s);
        write_dataset(sub.get(), name, H5T_NATIVE_UINT8, {sets[s].flags.size()},
                      sets[s].flags.data(), path);
        arrays.push_back({prefix + sets[s].name, fmt::format("/mesh/{}/{}", folder, name), cell, 1,
                          static_cast<std::int64_t>(sets[s].flags.size()), "UInt", 1});
      }
    };
    add_flags("node_sets", "node_set:", mesh.point_sets, false);
    add_flags("cell_sets", "region:", mesh.cell_sets, true);
    const auto add_ids = [&](const char* name, const std::vector<std::int64_t>& ids, bool cell) {
      if (ids.empty()) return;
      write_dataset(group.get(), name, H5T_NATIVE_INT64, {ids.size()}, ids.data(), path);
      arrays.push_back({name, std::string("/mesh/") + name, cell, 1,
                        static_cast<std::int64_t>(ids.size()), "Int", 8});
    };
    add_ids("GlobalNodeId", mesh.point_ids, false);
    add_ids("GlobalElementId", mesh.cell_ids, true);
    if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0) hdf5_failed("flush the file", path);
    return detail::format_piece_mesh(h5_name, points, topology, arrays);
  }

  void remove_fresh() {
    if (!fresh_pending) return;
    file.reset();
    std::error_code ignored;
    fs::remove(fresh_path(), ignored);
    fresh_pending = false;
  }

  /// The new file becomes "<h5>" (with the first frame or a restart that cannot continue).
  void adopt_fresh() {
    if (!fresh_pending) return;
    std::error_code ec;
    fs::rename(fresh_path(), h5_path(), ec);
    if (ec)
      throw Error("could not rename " + fresh_path() + " to " + h5_path() + ": " + ec.message());
    fresh_pending = false;
  }

  void write_frame(const OutputFrame& frame) {
    adopt_fresh();
    const std::string path = h5_path();
    const std::string group_name = detail::xdmf_frame_group(next);
    const QuietHdf5 quiet;
    remove_link(file.get(), group_name);
    // Creation order is tracked so that a restart lists the fields in the order written.
    const H5Id properties(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_link_creation_order(properties.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    const H5Id group(hdf5_checked_id(H5Gcreate2(file.get(), group_name.c_str(), H5P_DEFAULT,
                                                properties.get(), H5P_DEFAULT),
                                     "create the group " + group_name, path),
                     H5Gclose);
    detail::XdmfFrame entry{next, frame.time, {}};
    const auto write_fields = [&](const std::vector<Field>& fields, bool cell) {
      const std::int64_t rows = cell ? cells : points;
      for (const Field& f : fields) {
        if (static_cast<std::int64_t>(f.values.size()) != rows * f.components)
          throw Error(fmt::format("output.xdmf: the {} field '{}' has {} values, not {} x {}",
                                  cell ? "cell" : "point", f.name, f.values.size(), rows,
                                  f.components));
        std::vector<hsize_t> dims{static_cast<hsize_t>(rows)};
        if (f.components != 1) dims.push_back(static_cast<hsize_t>(f.components));
        const H5Id d =
            write_dataset(group.get(), f.name, H5T_NATIVE_DOUBLE, dims, f.values.data(), path);
        write_attribute(d.get(), "cell", H5T_NATIVE_INT, cell ? 1 : 0, path);
        entry.fields.push_back({f.name, cell, f.components});
      }
    };
    write_fields(frame.point_fields, false);
    write_fields(frame.cell_fields, true);
    // The time last: a frame group without it is incomplete, and a restart drops it.
    write_attribute(group.get(), "step", H5T_NATIVE_INT64, frame.step, path);
    write_attribute(group.get(), "time", H5T_NATIVE_DOUBLE, frame.time, path);
    if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0) hdf5_failed("flush the file", path);
    frames.push_back(std::move(entry));
  }

  void remove_frame(int index) {
    if (!file) return;
    const QuietHdf5 quiet;
    remove_link(file.get(), detail::xdmf_frame_group(index));
    if (!frames.empty() && frames.back().index == index) frames.pop_back();
  }

  /// The previous run's file, if it holds this mesh: frames below `next_index` kept, later ones
  /// (written after the checkpoint) and incomplete ones deleted. False: not usable.
  bool reopen(int next_index) {
    const std::string path = h5_path();
    if (!fs::exists(path)) return false;
    const QuietHdf5 quiet;
    H5Id old(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!old) return false;
    const H5Id mesh(H5Gopen2(old.get(), "/mesh", H5P_DEFAULT), H5Gclose);
    const H5Id group(H5Gopen2(old.get(), "/frames", H5P_DEFAULT), H5Gclose);
    if (!mesh || !group || rows_of(mesh.get(), "points") != points) return false;
    std::vector<detail::XdmfFrame> kept;
    for (const std::string& name : link_names(group.get(), H5_INDEX_NAME)) {
      char* end = nullptr;
      const long index = std::strtol(name.c_str(), &end, 10);
      const H5Id frame(H5Gopen2(group.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
      detail::XdmfFrame entry{static_cast<int>(index), 0.0, {}};
      const bool complete = end && *end == '\0' && frame &&
                            read_attribute(frame.get(), "time", H5T_NATIVE_DOUBLE, entry.time);
      if (!complete || index >= next_index) {
        H5Ldelete(group.get(), name.c_str(), H5P_DEFAULT);
        continue;
      }
      for (const std::string& field : link_names(frame.get(), H5_INDEX_CRT_ORDER)) {
        int components = 1;
        rows_of(frame.get(), field.c_str(), &components);
        const H5Id d(H5Dopen2(frame.get(), field.c_str(), H5P_DEFAULT), H5Dclose);
        int cell = 0;
        if (d) read_attribute(d.get(), "cell", H5T_NATIVE_INT, cell);
        entry.fields.push_back({field, cell != 0, components});
      }
      kept.push_back(std::move(entry));
    }
    std::sort(kept.begin(), kept.end(),
              [](const auto& a, const auto& b) { return a.index < b.index; });
    if (H5Fflush(old.get(), H5F_SCOPE_LOCAL) < 0) hdf5_failed("flush the file", path);
    remove_fresh();
    file = std::move(old);
    frames = std::move(kept);
    return true;
  }

  void write_index() {
    if (!writes_index()) return;
    detail::write_file_atomically(xdmf_path(), detail::format_xdmf(basename, pieces, frames));
    index_written = std::chrono::steady_clock::now();
    index_behind = false;
  }
};

XdmfSeriesWriter::XdmfSeriesWriter(std::string directory, std::string basename, OutputMesh mesh,
                                   SeriesPiece piece)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.directory = std::move(directory);
  s.basename = std::move(basename);
  s.comm = piece.comm;
  s.several = s.comm && s.comm->size() > 1;
  s.rank = s.several ? s.comm->rank() : 0;
  s.h5_name = s.several ? fmt::format("{}_{}.h5", s.basename, s.rank) : s.basename + ".h5";
  s.points = static_cast<std::int64_t>(mesh.points.size() / 3);
  s.cells = mesh.num_cells();
  std::string mesh_xml;
  s.together([&] { mesh_xml = s.create_fresh(mesh); }, [&] { s.remove_fresh(); });
  if (!s.several) {
    s.pieces.push_back({s.h5_name, s.points, s.cells, mesh_xml});
    return;
  }
  // Rank 0 writes the index: it needs every piece's sizes and mesh elements.
  const std::vector<std::string> all = detail::gather_texts(
      *s.comm,
      fmt::format("{} {} {}\n{}\n{}", s.points, s.cells, s.h5_name.size(), s.h5_name, mesh_xml));
  if (!s.writes_index()) return;
  for (const std::string& text : all) {
    detail::XdmfPiece p;
    std::size_t name_size = 0;
    const std::size_t line = text.find('\n');
    std::istringstream(text.substr(0, line)) >> p.points >> p.cells >> name_size;
    p.file = text.substr(line + 1, name_size);
    p.mesh_xml = text.substr(line + 1 + name_size + 1);
    s.pieces.push_back(std::move(p));
  }
}

XdmfSeriesWriter::~XdmfSeriesWriter() {
  try {
    flush();
  } catch (const std::exception& e) {
    spdlog::warn("{}", e.what());
  }
  impl_->remove_fresh();
}

void XdmfSeriesWriter::write(const OutputFrame& frame) {
  Impl& s = *impl_;
  if (s.several) {
    std::string fields;
    for (const Field& f : frame.point_fields)
      fields += fmt::format("p:{}:{};", f.name, f.components);
    for (const Field& f : frame.cell_fields)
      fields += fmt::format("c:{}:{};", f.name, f.components);
    detail::require_same_on_all_ranks(*s.comm, fields, "output fields");
  }
  const int index = s.next;
  s.together([&] { s.write_frame(frame); }, [&] { s.remove_frame(index); });
  ++s.next;
  s.index_behind = true;
  if (s.frames.size() == 1 ||
      std::chrono::steady_clock::now() - s.index_written >= std::chrono::seconds(1))
    s.write_index();
}

void XdmfSeriesWriter::flush() {
  if (impl_->index_behind) impl_->write_index();
}

void XdmfSeriesWriter::resume(int next_index) {
  Impl& s = *impl_;
  s.together(
      [&] {
        if (!s.reopen(next_index)) {
          spdlog::warn(
              "{} cannot be continued (missing, unreadable or for another mesh): the "
              "XDMF series starts again at this restart",
              s.h5_path());
          s.frames.clear();
          s.adopt_fresh();
        }
      },
      [] {});
  s.next = next_index;
  s.write_index();
}

std::string XdmfSeriesWriter::xdmf_path() const {
  return impl_->xdmf_path();
}
std::string XdmfSeriesWriter::hdf5_path() const {
  return impl_->h5_path();
}
int XdmfSeriesWriter::frames_written() const {
  return static_cast<int>(impl_->frames.size());
}
int XdmfSeriesWriter::next_index() const {
  return impl_->next;
}

#else  // no HDF5

struct XdmfSeriesWriter::Impl {};

XdmfSeriesWriter::XdmfSeriesWriter(std::string /*directory*/, std::string /*basename*/,
                                   OutputMesh /*mesh*/, SeriesPiece /*piece*/) {
  throw Error(
      "output.xdmf needs HDF5, and this fem was built without it\n  hint: install libhdf5-dev "
      "and rebuild, or set output.xdmf: false");
}
XdmfSeriesWriter::~XdmfSeriesWriter() = default;
void XdmfSeriesWriter::write(const OutputFrame& /*frame*/) {}
void XdmfSeriesWriter::flush() {}
void XdmfSeriesWriter::resume(int /*next_index*/) {}
std::string XdmfSeriesWriter::xdmf_path() const {
  return {};
}
std::string XdmfSeriesWriter::hdf5_path() const {
  return {};
}
int XdmfSeriesWriter::frames_written() const {
  return 0;
}
int XdmfSeriesWriter::next_index() const {
  return 0;
}

#endif

}  // namespace fem
