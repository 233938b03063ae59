// fem: run, check and compare finite-element cases described in YAML.
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include <fem/parallel/communicator.hpp>

#include "bench.hpp"
#include "case_cli.hpp"
#include "commands.hpp"
#include "export.hpp"
#include "fit.hpp"
#include "openmp_waiting.hpp"
#include "sweep.hpp"

int main(int argc, char** argv) {
  fem::cli::settle_openmp_waiting(argv);
  CLI::App app{"fem: nonlinear finite elements for soft tissue and elastodynamics"};
  app.set_version_flag("--version", std::string("fem ") + FEM_CLI_VERSION);
  app.require_subcommand(1);

  fem::cli::CaseOptions run_options, check_options;
  bool quiet = false;
  CLI::App* run = app.add_subcommand("run", "run a case and write its results");
  fem::cli::add_case_options(*run, run_options);
  run->add_flag("-q,--quiet", quiet, "print only warnings, errors and the final summary");
  std::string restart_file;
  run->add_option("--restart", restart_file, "continue from a checkpoint the case wrote")
      ->type_name("FILE");
  bool time_verbs = false;
  run->add_flag("--time-verbs", time_verbs,
                "static and implicit dynamic runs: wait for every backend verb so that their "
                "times in summary.json are exact (slower on GPUs)");

  CLI::App* check = app.add_subcommand(
      "check", "validate a case and print the resolved model without running it");
  fem::cli::add_case_options(*check, check_options);

  std::vector<std::string> plugin_dirs;
  CLI::App* plugins =
      app.add_subcommand("plugins", "list the backends, elements and materials found");
  plugins->add_option("--path", plugin_dirs, "additional folders to search");

  fem::cli::BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench", "run a case on several backends and precisions, time and compare them");
  fem::cli::add_bench_options(*bench, bench_options);

  fem::cli::ExportOptions export_options;
  CLI::App* exp = app.add_subcommand("export", "write a case's model for another code");
  fem::cli::add_export_options(*exp, export_options);

  fem::cli::SweepOptions sweep_options;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run a case over a product or random samples of overrides, one table of results");
  fem::cli::add_sweep_options(*sweep, sweep_options);

  fem::cli::FitOptions fit_options;
  CLI::App* fit = app.add_subcommand(
      "fit", "fit parameters of a case so that a history of its run matches a measured curve");
  fem::cli::add_fit_options(*fit, fit_options);

  // Under mpirun every rank runs the same command on its part; rank 0 speaks for the run (the
  // other ranks log errors only, and report_error prints what only they met).
  const bool speaks = !fem::parallel::launched_by_mpi() || fem::parallel::world().rank() == 0;
  // SPDLOG_LEVEL=debug shows the solvers' debug lines (setup phases and their times).
  spdlog::cfg::load_env_levels();
  if (!speaks) spdlog::set_level(spdlog::level::err);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own exit codes (105, 106, 109, ...) lie outside fem's documented 0-4: a command line
    // that cannot be parsed is bad input, like a bad case. --help and --version exit with 0.
    // Every rank parses the same command line; under mpirun rank 0 says it.
    const int code = speaks ? app.exit(e) : e.get_exit_code();
    fem::cli::leave_together();
    return code == 0 ? fem::cli::kOk : fem::cli::kBadInput;
  }
  for (int i = 0; i < argc; ++i)
    bench_options.command_line += (i ? " " : "") + std::string(argv[i]);
  spdlog::set_pattern("%^%l%$: %v");
  if (*run) return fem::cli::run_command(run_options, quiet, time_verbs, restart_file);
  if (*check) return fem::cli::check_command(check_options);
  if (*bench) return fem::cli::bench_command(bench_options);
  if (*exp) return fem::cli::export_command(export_options);
  if (*sweep) return fem::cli::sweep_command(sweep_options);
  if (*fit) return fem::cli::fit_command(fit_options);
  return fem::cli::plugins_command(plugin_dirs);
}
