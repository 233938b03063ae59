// Test helpers: run the built `fem` program and read what it wrote.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "output/scratch_dir.hpp"  // read_text

namespace fem::test {

struct FemResult {
  int code;
  std::string output;  // stdout and stderr
};

/// Runs a shell command line; stdout and stderr together.
inline FemResult run_shell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  const int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs `<build>/bin/fem args` through the shell (so args may set variables before it).
inline FemResult run_fem(const std::string& args, const std::string& env = "") {
  return run_shell(env + (env.empty() ? "" : " ") + std::string(FEM_BINARY_DIR) + "/bin/fem " +
                   args);
}

/// A fresh, empty folder under the system's temporary directory.
inline std::string fresh_temp_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  (prefix + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

}  // namespace fem::test
