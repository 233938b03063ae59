#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>

#include <fem/export/abaqus_writer.hpp>

#include "commands.hpp"
#include "export.hpp"

namespace fem::cli {

void add_export_options(CLI::App& cmd, ExportOptions& o) {
  cmd.add_option("case", o.case_file, "case file (YAML)")->required();
  cmd.add_option("--format", o.format, "output format")
      ->check(CLI::IsMember({"abaqus"}))
      ->capture_default_str();
  cmd.add_option("-o,--output", o.output, "file to write (default: <case name>.inp)");
  cmd.add_option("--step", o.step,
                 "static (*STATIC, NLGEOM: quasi-static, free rigid-body motions held), "
                 "dynamic (implicit *DYNAMIC) or explicit (*DYNAMIC, EXPLICIT)")
      ->check(CLI::IsMember({"static", "dynamic", "explicit"}))
      ->capture_default_str();
  cmd.add_option("--intervals", o.intervals,
                 "equal increments of the step; printed states at k * end_time / intervals")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--set", o.sets, "override any case key, as for `fem run`")
      ->type_name("KEY.PATH=VALUE");
}

int export_command(const ExportOptions& o) {
  try {
    CaseOptions co;
    co.case_file = o.case_file;
    co.sets = o.sets;
    const PreparedCase prepared = prepare_case(co);
    const std::string path = o.output.empty() ? prepared.model.spec.name + ".inp" : o.output;
    AbaqusExportOptions options;
    options.step = parse_abaqus_step(o.step);
    options.intervals = o.intervals;
    options.source = "fem export " + o.case_file + " --step " + o.step;
    const std::string tmp = path + ".part";
    AbaqusExportReport report;
    {
      std::ofstream out(tmp);
      if (!out)
        throw InputError({"<command line>", 0, 0}, "cannot write '" + path + "'",
                         "check that the folder exists and is writable");
      report = write_abaqus_deck(prepared.model, options, out);
    }
    std::filesystem::rename(tmp, path);
    for (const std::string& n : report.notes) fmt::print("note: {}\n", n);
    fmt::print("wrote {} ({} nodes, {} elements, {} step)\n", path, prepared.model.mesh.num_nodes(),
               prepared.model.num_elements(), o.step);
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
