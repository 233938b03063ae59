// What fem's HDF5 writers share (framework/src/output/ only, not installed; include where
// FEM_WITH_HDF5 is 1): identifiers that close themselves, HDF5's error printing silenced while
// fem reports failures itself, and one message for a failed call.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

#include "fem/error.hpp"

namespace fem::detail {

/// An HDF5 identifier, closed with its own close function when the handle goes.
class H5Id {
 public:
  H5Id() = default;
  H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5Id() { reset(); }
  H5Id(H5Id&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  H5Id& operator=(H5Id&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
      close_ = other.close_;
    }
    return *this;
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }
  [[nodiscard]] hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

/// HDF5 prints its error stack on every failed call; fem reports failures itself.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

/// Throws fem::Error: "could not <what> in <path>", with the usual causes as the hint.
[[noreturn]] inline void hdf5_failed(const std::string& what, const std::string& path) {
  throw Error("could not " + what + " in " + path +
              "\n  hint: check the disk space and that no other program holds the file");
}

/// `status` of an HDF5 call, or hdf5_failed() where it is negative.
inline herr_t hdf5_checked(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) hdf5_failed(what, path);
  return status;
}

/// An identifier an HDF5 call returned, or hdf5_failed() where it is negative.
inline hid_t hdf5_checked_id(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) hdf5_failed(what, path);
  return id;
}

/// A new dataset `name` of `dims` in `where`, holding `data` (of `type`); returned open.
inline H5Id write_dataset(hid_t where, const std::string& name, hid_t type,
                          const std::vector<hsize_t>& dims, const void* data,
                          const std::string& path) {
  const H5Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  H5Id d(hdf5_checked_id(H5Dcreate2(where, name.c_str(), type, space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT),
                         "create the dataset " + name, path),
         H5Dclose);
  hsize_t count = 1;
  for (const hsize_t n : dims) count *= n;
  if (count > 0)
    hdf5_checked(H5Dwrite(d.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                 "write the dataset " + name, path);
  return d;
}

}  // namespace fem::detail
