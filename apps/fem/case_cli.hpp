// The command-line options of a case (the case file and its overrides), shared by `fem run`,
// `fem check` and the other programs in apps/ (fem_drag) so that every one reads a case alike.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace fem::cli {

/// --device N: the GPU a run uses (`fem plugins` lists them), for every command that runs a case.
inline void add_device_option(CLI::App& cmd, int& device) {
  cmd.add_option("--device", device,
                 "GPU to run on, numbered from 0 as `fem plugins` lists them (overrides `device`)")
      ->check(CLI::NonNegativeNumber);
}

/// The case file is not checked here: load_case() refuses a missing file or a folder with fem's
/// own message and exit code 2.
inline void add_case_options(CLI::App& cmd, CaseOptions& o) {
  cmd.add_option("case", o.case_file, "case file (YAML)")->required();
  cmd.add_option("--backend", o.backend, "compute backend, e.g. openmp (overrides `backend`)");
  add_device_option(cmd, o.device);
  cmd.add_option("--precision", o.precision, "single or double (overrides `precision`)")
      ->check(CLI::IsMember({"single", "double"}));
  cmd.add_option("--output", o.output, "output folder (overrides `output.directory`)");
  cmd.add_option("--end-time", o.end_time, "simulated time in s (overrides `solver.end_time`)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--set", o.sets,
                 "override any case key: --set solver.mass_damping=10 --set mesh.divisions=25")
      ->type_name("KEY.PATH=VALUE");
}

}  // namespace fem::cli
