#include "atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "fem/error.hpp"

namespace fem::detail {

void write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string temp = path + ".tmp";
  {
    errno = 0;
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw Error("cannot write '" + temp + "': " + std::strerror(errno ? errno : EIO));
    }
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    // A full disk shows up only here, once the buffer is flushed.
    if (!out) {
      const int err = errno ? errno : EIO;
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw Error("cannot write '" + temp + "': " + std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw Error("cannot replace '" + path + "' with '" + temp + "': " + ec.message());
  }
}

}  // namespace fem::detail
