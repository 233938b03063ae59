// What the harnesses share: a per-process scratch folder for readers that take a path, and the
// rule for outcomes. fem's own errors (fem::Error and subclasses) are the expected answer to bad
// input; anything else escaping a reader (another exception, a crash, a sanitizer report, a leak,
// a timeout) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "fem/error.hpp"

namespace fem::fuzz {

/// A folder of this process's own, removed at exit: under $TMPDIR, else /dev/shm (memory), else
/// /tmp. Parallel fuzzing processes (-jobs, -fork) get one each.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string base;
    if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0')
      base = t;
    else if (std::filesystem::is_directory("/dev/shm"))
      base = "/dev/shm";
    else
      base = "/tmp";
    std::string tmpl = base + "/fem-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::perror("fem fuzz: mkdtemp");
      std::abort();
    }
    static std::filesystem::path made = tmpl;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(made, ec);
    });
    return made;
  }();
  return dir;
}

/// Writes `size` bytes to `name` in the scratch folder and returns the file's path.
inline std::string write_scratch(const std::string& name, const std::uint8_t* data,
                                 std::size_t size) {
  const std::string path = (scratch_dir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror("fem fuzz: cannot write the scratch file");
    std::abort();
  }
  return path;
}

/// Runs `f`; fem's errors are expected outcomes, other exceptions propagate (libFuzzer reports an
/// uncaught exception as a crash, with the input).
template <class F>
void expect_fem_errors(F&& f) {
  try {
    f();
  } catch (const fem::Error&) {
    // A message for the user: the reader refused the input, as it should.
  }
}

}  // namespace fem::fuzz
