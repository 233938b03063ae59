// A dataset of an HDF5 file read back through HDF5's own C API, for tests of fem's HDF5 output.
// Include only where FEM_WITH_HDF5 is 1 and the test links fem::hdf5.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace fem::test {

/// A dataset read back: its dimensions and values (as T: double, std::int64_t, std::uint8_t).
template <class T>
struct Dataset {
  std::vector<hsize_t> dims;
  std::vector<T> values;
};

template <class T>
inline Dataset<T> read_dataset(const std::string& file, const std::string& path) {
  Dataset<T> out;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    ADD_FAILURE() << "cannot open " << file;
    return out;
  }
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  if (d < 0) {
    ADD_FAILURE() << file << " has no dataset " << path;
    H5Fclose(f);
    return out;
  }
  const hid_t space = H5Dget_space(d);
  out.dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, out.dims.data(), nullptr);
  hsize_t n = 1;
  for (const hsize_t k : out.dims) n *= k;
  out.values.resize(n);
  hid_t type = H5T_NATIVE_DOUBLE;
  if constexpr (std::is_same_v<T, std::int64_t>) type = H5T_NATIVE_INT64;
  if constexpr (std::is_same_v<T, std::uint8_t>) type = H5T_NATIVE_UINT8;
  if (n > 0) {
    EXPECT_GE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()), 0);
  }
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

/// Whether `path` names a group or dataset of `file`.
inline bool has_link(const std::string& file, const std::string& path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return false;
  const bool found = H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0;
  H5Fclose(f);
  return found;
}

}  // namespace fem::test
