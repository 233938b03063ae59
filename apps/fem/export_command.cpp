#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>

#include <fem/deck.hpp>
#include <fem/export/abaqus_writer.hpp>

#include "commands.hpp"
#include "export.hpp"

namespace fem::cli {

void add_export_options(CLI::App& cmd, ExportOptions& o) {
  cmd.add_option("case", o.case_file, "case file (YAML, or an Abaqus/CalculiX deck .inp)")
      ->required();
  cmd.add_option("--format", o.format,
                 "abaqus: the model as an Abaqus/CalculiX deck; yaml: the case a deck translates "
                 "to")
      ->check(CLI::IsMember({"abaqus", "yaml"}))
      ->capture_default_str();
  cmd.add_option("-o,--output", o.output,
                 "file to write (default: <case name>.inp, or <deck name>.yaml)");
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

namespace {

/// `fem export model.inp --format yaml`: the case the deck runs as, its mesh still the deck.
int export_deck_as_yaml(const ExportOptions& o) {
  if (!is_abaqus_deck(o.case_file))
    throw InputError({o.case_file, 0, 0}, "--format yaml translates Abaqus/CalculiX decks (.inp)",
                     "this case is YAML already");
  if (!o.sets.empty())
    throw InputError({"<command line>", 0, 0}, "--set does not apply to --format yaml",
                     "export the deck's case as it is, then edit it or run it with --set");
  namespace fs = std::filesystem;
  const std::string path =
      o.output.empty() ? fs::path(o.case_file).stem().string() + ".yaml" : o.output;
  // The mesh is the deck itself, named relative to the folder the case is written to.
  const fs::path folder = fs::absolute(path).parent_path();
  const DeckTranslation t =
      translate_abaqus_deck(o.case_file, fs::relative(fs::absolute(o.case_file), folder).string());
  const std::string tmp = path + ".part";
  {
    std::ofstream out(tmp);
    if (!out)
      throw InputError({"<command line>", 0, 0}, "cannot write '" + path + "'",
                       "check that the folder exists and is writable");
    out << t.yaml;
  }
  fs::rename(tmp, path);
  for (const std::string& n : t.notes) fmt::print("note: {}\n", n);
  fmt::print("wrote {} (the case of {})\n", path, o.case_file);
  return kOk;
}

}  // namespace

int export_command(const ExportOptions& o) {
  try {
    if (o.format == "yaml") return export_deck_as_yaml(o);
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
