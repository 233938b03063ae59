// `fem sweep`: one case run over a cartesian product or random samples of overrides, each run a
// `fem run` process of its own in its own folder, tabulated in sweep.csv and sweep.json.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "child_run.hpp"

namespace fem::cli {

struct SweepOptions {
  StudyCase study;
  std::vector<std::string> parameters;  ///< key.path=v1,v2,... or key.path=uniform(a,b), ...
  std::string output;                   ///< default: <the case's output directory>_sweep
  int samples = 0;                      ///< 0: the cartesian product of the lists
  std::uint64_t seed = 1;
  int jobs = 1;                        ///< runs at once
  std::vector<std::string> histories;  ///< table.column: its last value becomes a column
  bool dry_run = false;
};

void add_sweep_options(CLI::App& cmd, SweepOptions& options);
int sweep_command(const SweepOptions& options);

}  // namespace fem::cli
