// The command-line options of `fem bench`.
#include <CLI/CLI.hpp>

#include "bench.hpp"
#include "case_cli.hpp"

namespace fem::cli {

void add_bench_options(CLI::App& cmd, BenchOptions& o) {
  cmd.add_option("case", o.case_file, "case file (YAML)")->required();
  cmd.add_option("--backends", o.backends,
                 "backends to compare, comma-separated; one not built or without a device is "
                 "listed as unavailable; one listed twice runs twice (reproducibility)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--precision", o.precisions, "precisions, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();
  add_device_option(cmd, o.device);
  cmd.add_option("--reference", o.reference,
                 "backend the others are compared with (run even if not in --backends)")
      ->capture_default_str();
  cmd.add_option("--repeats", o.repeats,
                 "timed repeats per combination (static and implicit_dynamic cases: whole "
                 "solves, default 1)")
      ->check(CLI::PositiveNumber)
      ->each([&o](const std::string&) { o.repeats_given = true; })
      ->capture_default_str();
  cmd.add_option("--warmup", o.warmup, "untimed steps before the repeats (explicit only)")
      ->check(CLI::NonNegativeNumber)
      ->each([&o](const std::string&) { o.warmup_given = true; })
      ->capture_default_str();
  auto* steps = cmd.add_option("--steps", o.steps, "steps per repeat (default 100; explicit only)")
                    ->check(CLI::PositiveNumber);
  cmd.add_option("--end-time", o.end_time,
                 "simulated time per repeat, s (instead of --steps; explicit only)")
      ->check(CLI::PositiveNumber)
      ->excludes(steps);
  cmd.add_option("--sizes", o.sizes,
                 "sweep the generated mesh: divisions per edge, comma-separated (box: "
                 "mesh.divisions; cylinder: radial and axial n, circumferential 4n)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd.add_option("--output", o.output,
                 "folder for bench.json, bench.csv and plots "
                 "(default: <case name>_bench)");
  cmd.add_option("--set", o.sets, "override any case key, as for `fem run`")
      ->type_name("KEY.PATH=VALUE");
  cmd.add_option("--tolerance-single", o.tolerance_single,
                 "largest deviation from the reference, relative to max |u|, single precision "
                 "(static and implicit_dynamic cases: default 1e-4)")
      ->each([&o](const std::string&) { o.tolerance_single_given = true; })
      ->capture_default_str();
  cmd.add_option("--tolerance-double", o.tolerance_double,
                 "the same in double precision (static and implicit_dynamic cases: default 1e-7)")
      ->each([&o](const std::string&) { o.tolerance_double_given = true; })
      ->capture_default_str();
  cmd.add_option("--peer", o.peer,
                 "also solve the case with another code and compare the corner node: calculix")
      ->check(CLI::IsMember({"calculix"}));
  cmd.add_option("--peer-tolerance", o.peer_tolerance,
                 "largest deviation of the compared node's displacement from the peer's, relative")
      ->capture_default_str();
  cmd.add_option("--peer-levels", o.peer_levels, "load levels compared with the peer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_flag("!--no-plots", o.plots, "do not make PNG plots");
}

}  // namespace fem::cli
