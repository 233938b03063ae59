// CSV and HDF5 receiver traces (fem/output/receiver_traces.hpp). HDF5 datasets grow along the
// sample axis (chunked, unlimited), and the file is flushed after every append.
#include "fem/output/receiver_traces.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "fem/error.hpp"
#include "fem/output/history.hpp"

#if FEM_WITH_HDF5
#include "hdf5_support.hpp"
#endif

namespace fem {

bool hdf5_output_available() {
  return FEM_WITH_HDF5 != 0;
}

namespace {

struct Receiver {
  std::string name;
  std::size_t nodes = 0;
  std::vector<std::string> quantities;
  std::optional<CsvHistory> csv;
#if FEM_WITH_HDF5
  hid_t group = -1;
  std::vector<hid_t> datasets;  ///< per quantity: [sample][node][3]
  hid_t time = -1, step = -1;
  hsize_t samples = 0;
#endif
};

}  // namespace

struct ReceiverTraces::Impl {
  std::string directory;
  bool csv = false;
  bool hdf5 = false;
  std::vector<Receiver> receivers;
  std::vector<std::string> files;
#if FEM_WITH_HDF5
  hid_t file = -1;

  std::string h5_path() const {
    return directory + "/receivers.h5";
  }

  /// An empty dataset of rows of `row` shape that grows along its first axis.
  hid_t growing(hid_t where, const char* name, hid_t type, const std::vector<hsize_t>& row) {
    std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{256};
    for (const hsize_t r : row) {
      dims.push_back(r);
      max.push_back(r);
      chunk.push_back(r);
    }
    // Chunks of at most ~1 MiB: shrink the sample count for wide receivers.
    hsize_t row_size = 8;
    for (const hsize_t r : row) row_size *= r;
    chunk[0] =
        std::max<hsize_t>(1, std::min<hsize_t>(256, (1u << 20) / std::max<hsize_t>(1, row_size)));
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data());
    const hid_t props = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(props, static_cast<int>(chunk.size()), chunk.data());
    const hid_t d = H5Dcreate2(where, name, type, space, H5P_DEFAULT, props, H5P_DEFAULT);
    H5Pclose(props);
    H5Sclose(space);
    return detail::hdf5_checked_id(d, std::string("create dataset ") + name, h5_path());
  }

  /// Appends `count` rows to a growing dataset that holds `before` rows.
  void extend(hid_t d, hid_t type, hsize_t before, hsize_t count, const void* data) {
    const hid_t space0 = H5Dget_space(d);
    const int rank = H5Sget_simple_extent_ndims(space0);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space0, dims.data(), nullptr);
    H5Sclose(space0);
    dims[0] = before + count;
    detail::hdf5_checked(H5Dset_extent(d, dims.data()), "grow a dataset", h5_path());
    const hid_t space = H5Dget_space(d);
    std::vector<hsize_t> start(dims.size(), 0), size = dims;
    start[0] = before;
    size[0] = count;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, size.data(), nullptr);
    const hid_t memory = H5Screate_simple(rank, size.data(), nullptr);
    const herr_t status = H5Dwrite(d, type, memory, space, H5P_DEFAULT, data);
    H5Sclose(memory);
    H5Sclose(space);
    detail::hdf5_checked(status, "write receiver samples", h5_path());
  }
#endif
};

ReceiverTraces::ReceiverTraces(std::string directory, std::vector<std::string> formats)
    : impl_(std::make_unique<Impl>()) {
  impl_->directory = std::move(directory);
  for (const std::string& f : formats) {
    if (f == "csv") impl_->csv = true;
    if (f == "hdf5") impl_->hdf5 = true;
  }
  if (impl_->hdf5 && !hdf5_output_available())
    throw Error(
        "receiver_formats asks for hdf5, and this fem was built without HDF5\n  hint: install "
        "libhdf5-dev and rebuild, or write receiver_formats: [csv]");
#if FEM_WITH_HDF5
  if (impl_->hdf5) {
    impl_->file = H5Fcreate(impl_->h5_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    detail::hdf5_checked_id(impl_->file, "create the file", impl_->h5_path());
    impl_->files.push_back(impl_->h5_path());
  }
#endif
}

ReceiverTraces::~ReceiverTraces() {
#if FEM_WITH_HDF5
  for (Receiver& r : impl_->receivers) {
    for (const hid_t d : r.datasets) H5Dclose(d);
    if (r.time >= 0) H5Dclose(r.time);
    if (r.step >= 0) H5Dclose(r.step);
    if (r.group >= 0) H5Gclose(r.group);
  }
  if (impl_->file >= 0) H5Fclose(impl_->file);
#endif
}

int ReceiverTraces::add(const std::string& name, const std::vector<std::int32_t>& node_ids,
                        const std::vector<double>& coordinates,
                        const std::vector<std::string>& quantities) {
  Receiver r;
  r.name = name;
  r.nodes = node_ids.size();
  r.quantities = quantities;
  if (impl_->csv) {
    std::vector<std::string> columns;
    for (const std::string& q : quantities)
      for (const std::int32_t id : node_ids)
        for (const char* axis : {"x", "y", "z"})
          columns.push_back(fmt::format("{}{}_{}", q == "velocity" ? 'v' : 'u', id, axis));
    r.csv.emplace(impl_->directory + "/" + name + ".csv", columns);
    impl_->files.push_back(r.csv->path());
  }
#if FEM_WITH_HDF5
  if (impl_->hdf5) {
    const std::string& path = impl_->h5_path();
    r.group = detail::hdf5_checked_id(
        H5Gcreate2(impl_->file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        "create group " + name, path);
    const hsize_t n = node_ids.size();
    detail::write_dataset(r.group, "node_ids", H5T_NATIVE_INT32, {n}, node_ids.data(), path);
    detail::write_dataset(r.group, "coordinates", H5T_NATIVE_DOUBLE, {n, 3}, coordinates.data(),
                          path);
    r.time = impl_->growing(r.group, "time", H5T_NATIVE_DOUBLE, {});
    r.step = impl_->growing(r.group, "step", H5T_NATIVE_INT64, {});
    for (const std::string& q : quantities)
      r.datasets.push_back(impl_->growing(r.group, q.c_str(), H5T_NATIVE_DOUBLE, {n, 3}));
    H5Fflush(impl_->file, H5F_SCOPE_GLOBAL);
  }
#else
  (void)coordinates;
#endif
  impl_->receivers.push_back(std::move(r));
  return static_cast<int>(impl_->receivers.size()) - 1;
}

void ReceiverTraces::append(int index, const std::vector<double>& times,
                            const std::vector<std::int64_t>& steps,
                            const std::vector<double>& values) {
  Receiver& r = impl_->receivers[static_cast<std::size_t>(index)];
  const std::size_t row = r.quantities.size() * r.nodes * 3;
  if (r.csv)
    for (std::size_t s = 0; s < times.size(); ++s)
      r.csv->append(
          times[s], steps[s],
          std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(s * row),
                              values.begin() + static_cast<std::ptrdiff_t>((s + 1) * row)));
#if FEM_WITH_HDF5
  if (impl_->hdf5 && !times.empty()) {
    const hsize_t count = times.size();
    impl_->extend(r.time, H5T_NATIVE_DOUBLE, r.samples, count, times.data());
    impl_->extend(r.step, H5T_NATIVE_INT64, r.samples, count, steps.data());
    const std::size_t block = r.nodes * 3;
    std::vector<double> one(count * block);
    for (std::size_t q = 0; q < r.quantities.size(); ++q) {
      for (std::size_t s = 0; s < count; ++s)
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(s * row + q * block), block,
                    one.begin() + static_cast<std::ptrdiff_t>(s * block));
      impl_->extend(r.datasets[q], H5T_NATIVE_DOUBLE, r.samples, count, one.data());
    }
    r.samples += count;
    H5Fflush(impl_->file, H5F_SCOPE_GLOBAL);
  }
#endif
}

std::vector<std::string> ReceiverTraces::files() const {
  return impl_->files;
}

}  // namespace fem
