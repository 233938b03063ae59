#include "atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "fem/error.hpp"

namespace fem::detail {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw Error("cannot " + what + " '" + path + "': " + std::strerror(err ? err : EIO));
}

/// Writes all of `contents` to `fd` (write() may write less than asked); returns errno or 0.
int write_all(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;  // a signal (fem's SIGINT handler) arrived mid-write
      return errno;
    }
    contents.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// fsync of the directory that holds `path`, so that the rename itself is durable.
void sync_directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the file itself is already on the device
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view contents,
                           Durability durability) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("write", temp, errno);
  int err = write_all(fd, contents);
  // A full disk may show up only here, when the data reaches the device.
  if (err == 0 && durability == Durability::Synced && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  std::error_code ignored;
  if (err != 0) {
    std::filesystem::remove(temp, ignored);
    fail("write", temp, err);
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ignored);
    throw Error("cannot replace '" + path + "' with '" + temp + "': " + ec.message());
  }
  if (durability == Durability::Synced) sync_directory(path);
}

}  // namespace fem::detail
