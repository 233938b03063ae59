// load_case / parse_case: text -> YAML tree -> overrides -> schema, stopping at the first error.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/eventhandler.h>

#include "case_schema.hpp"
#include "fem/case.hpp"
#include "fem/deck.hpp"
#include "overrides.hpp"

namespace fem {

namespace {

namespace fs = std::filesystem;
using namespace case_io;

/// The largest case file read, in bytes. A case describes a model; bulk data (long node-id
/// lists) belongs in a mesh file. yaml-cpp keeps about 500 bytes per YAML value and a value can
/// be two bytes of text ("0,"), so this bounds what a case costs before it is checked: about
/// 1 GB and 5 s at worst (docs/case-reference.md, "Size limits").
constexpr std::size_t kMaxCaseFileBytes = std::size_t{4} << 20;

std::string mebibytes(std::uintmax_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

void require_case_size(std::uintmax_t bytes, const std::string& file) {
  if (bytes <= kMaxCaseFileBytes) return;
  throw InputError({file, 0, 0},
                   "the case file is larger than the " + mebibytes(kMaxCaseFileBytes) +
                       " a case file may have (" + std::to_string(bytes) + " bytes)",
                   "large data belongs in the mesh file: node sets as Gmsh physical groups, "
                   "Abaqus *NSET or VTK point arrays 'node_set:<name>' (docs/case-reference.md, "
                   "Mesh files)");
}

/// "<string>", "<test>": text that does not come from a file, so has no folder or stem.
bool is_pseudo_file(const std::string& file) {
  return file.empty() || file.front() == '<';
}

/// Where each document of the text starts, as yaml-cpp's parser reports it (events only, no tree).
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// yaml-cpp 0.7 (Debian 12) finds a new empty document at the same place over and over on some
/// malformed text ("[a]:T" and a line ","), so LoadAll() never returns and fills the memory
/// (fuzz_case_loader). Its parser is run first on events alone, which cost no tree, stopping
/// where a document starts without the text having advanced.
void require_documents_advance(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (parser.HandleNextDocument(starts)) {
    const std::size_t n = starts.starts.size();
    if (n >= 2 && starts.starts[n - 1].pos <= starts.starts[n - 2].pos) {
      const YAML::Mark m = starts.starts[n - 1];
      throw InputError({file, m.line + 1, m.column + 1},
                       "invalid YAML: the parser cannot get past this point",
                       "check the indentation, the brackets and the ': ' after each key");
    }
  }
}

YAML::Node parse_document(const std::string& text, const std::string& file) {
  std::vector<YAML::Node> docs;
  try {
    require_documents_advance(text, file);
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    const SourceLocation where = e.mark.is_null()
                                     ? SourceLocation{file, 0, 0}
                                     : SourceLocation{file, e.mark.line + 1, e.mark.column + 1};
    throw InputError(where, "invalid YAML: " + e.msg,
                     "check the indentation, the brackets and the ': ' after each key");
  }
  if (docs.size() > 1) {
    const YAML::Mark m = docs[1].Mark();
    throw InputError({file, m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1},
                     "the case file holds " + std::to_string(docs.size()) +
                         " YAML documents; a case is a single document",
                     "remove the '---' separator and what follows it, or split the file");
  }
  return docs.empty() ? YAML::Node(YAML::NodeType::Null) : docs.front();
}

std::vector<PluginPathSpec> read_plugin_paths(const Value& v, const std::string& file) {
  // Relative to the case file, so that a case and its plugins move together.
  const fs::path base =
      is_pseudo_file(file) ? fs::current_path() : fs::absolute(fs::path(file)).parent_path();
  std::vector<PluginPathSpec> paths;
  for (const Value& item : as_list(v)) {
    const fs::path p = non_empty_string(item);
    paths.push_back({(p.is_absolute() ? p : base / p).lexically_normal().string(), item.where()});
  }
  return paths;
}

/// What the linear wave solver does not model, said where the case asks for it.
void refuse_outside_elastodynamics(const CaseSpec& spec) {
  const std::string why = "solver type elastodynamic is linear small-strain wave propagation";
  if (!spec.contacts.empty())
    throw InputError(spec.contacts.front().where, "contact does not apply to " + why,
                     "use solver type explicit for contact");
  if (spec.gravity)
    throw InputError(spec.gravity->where, "gravity does not apply to " + why,
                     "waves are perturbations about the loaded state: leave gravity out");
  if (!spec.output.histories.empty())
    throw InputError(spec.output.histories.front().where,
                     "output.histories do not apply to solver type elastodynamic",
                     "record node traces with output.receivers: [{set: <set>, quantities: "
                     "[displacement, velocity]}]");
  if (spec.output.checkpoint)
    throw InputError(spec.output.checkpoint->where,
                     "checkpoints are not written by solver type elastodynamic",
                     "leave output.checkpoint out: a wave run restarts from its beginning");
}

/// Where output.fields names its i-th field, or the output section for the default fields.
const SourceLocation& field_location(const OutputSpec& out, std::size_t i) {
  return i < out.field_locations.size() ? out.field_locations[i] : out.where;
}

/// A static solution has no time: velocities asked of it would come out as zeros.
void refuse_velocity_of_static(const CaseSpec& spec) {
  const std::string why = "solver type static: a static solution has no time and no velocity";
  const OutputSpec& out = spec.output;
  for (std::size_t i = 0; i < out.fields.size(); ++i)
    if (out.fields[i] == "velocity")
      throw InputError(field_location(out, i), "output field 'velocity' is not computed by " + why,
                       "leave velocity out of output.fields, or run implicit_dynamic");
  for (const HistorySpec& h : spec.output.histories)
    for (const std::string& q : h.quantities)
      if (q == "velocity")
        throw InputError(h.where, "history '" + h.name + "': velocity is not computed by " + why,
                         "record quantities: [displacement, reaction_force]");
}

/// What the co-rotational solver (seed 004) does not do yet, each refused at its key.
void refuse_outside_corotational(const CaseSpec& spec) {
  const std::string why = "solver type corotational";
  if (!spec.contacts.empty())
    throw InputError(spec.contacts.front().where, "contact does not apply to " + why,
                     "use solver type implicit_dynamic or explicit for contact");
}

CaseSpec read_case(const Value& root, const std::string& file) {
  if (root.is_null())
    throw InputError({file, 1, 1}, "the case file is empty",
                     "a case needs at least the sections mesh:, materials:, blocks: and solver: "
                     "(see docs/case-reference.md)");
  const Mapping top(root,
                    {"name", "backend", "device", "precision", "plugin_paths", "mesh", "materials",
                     "blocks", "node_sets", "amplitudes", "boundary_conditions", "loads", "gravity",
                     "initial_conditions", "contact", "solver", "output"});
  CaseSpec spec;
  spec.file = file;
  spec.name = is_pseudo_file(file) ? "case" : fs::path(file).stem().string();
  if (auto v = top.get("name")) {
    spec.name = non_empty_string(*v);
    // The name makes the default output folder "<name>_results".
    if (spec.name.find_first_of("/\\") != std::string::npos)
      v->fail("'name' must not contain '/' or '\\', got '" + spec.name + "'",
              "the name is used for the default output folder <name>_results");
  }
  if (auto v = top.get("backend")) spec.backend = non_empty_string(*v);
  if (auto v = top.get("device")) {
    spec.device = as_int(*v, 0);
    spec.device_where = v->where();
  }
  if (auto v = top.get("precision"))
    spec.precision =
        as_choice(*v, {"single", "double"}) == "single" ? Precision::Single : Precision::Double;
  if (auto v = top.get("plugin_paths")) spec.plugin_paths = read_plugin_paths(*v, file);

  read_mesh(top.required("mesh"), spec.mesh);
  read_materials(top.required("materials"), spec);
  read_blocks(top.required("blocks"), spec);
  if (auto v = top.get("node_sets")) read_node_sets(*v, spec);
  AmplitudeSpec constant;
  constant.name = "constant";
  spec.amplitudes["constant"] = constant;
  if (auto v = top.get("amplitudes")) read_amplitudes(*v, spec);
  if (auto v = top.get("boundary_conditions")) read_boundary_conditions(*v, spec);
  if (auto v = top.get("loads")) read_loads(*v, spec);
  if (auto v = top.get("gravity")) read_gravity(*v, spec);
  if (auto v = top.get("initial_conditions")) read_initial_conditions(*v, spec);
  if (auto v = top.get("contact")) read_contacts(*v, spec);
  read_solver(top.required("solver"), spec);
  resolve_follower_pressures(spec);
  if (spec.solver.type == SolverType::DynamicRelaxation && !spec.initial_velocities.empty())
    throw InputError(spec.initial_velocities.front().where,
                     "initial_conditions do not apply to solver type dynamic_relaxation",
                     "dynamic relaxation starts from rest and looks for the static equilibrium; "
                     "remove initial_conditions");
  if (spec.solver.type == SolverType::ImplicitDynamic && !spec.initial_velocities.empty() &&
      analysis_steps(spec.solver).front().type == SolverType::Static)
    throw InputError(spec.initial_velocities.front().where,
                     "initial velocities with a first step that is static: a static step has no "
                     "velocity, and the dynamic steps after it start from rest",
                     "make the first step dynamic, or remove initial_conditions");
  if (!is_implicit(spec.solver.type))
    for (const ContactSpec& c : spec.contacts) {
      const std::string type = to_string(spec.solver.type);
      if (c.type == "deformable")
        throw InputError(c.where,
                         "contact between deformable bodies needs solver type static or "
                         "implicit_dynamic, not " +
                             type,
                         "the explicit solvers support rigid contact surfaces (plane, sphere, "
                         "stl, mesh)");
      if (c.method_where.line > 0)
        throw InputError(c.method_where,
                         "'method' and 'penalty' apply to the implicit solvers: solver type " +
                             type + " projects penetrating nodes back onto the surface",
                         "leave them out, or use solver type static or implicit_dynamic");
    }
  close_open_amplitudes(spec);
  read_output(top.get("output"), spec);
  if (spec.solver.type == SolverType::Elastodynamic) refuse_outside_elastodynamics(spec);
  if (spec.solver.type == SolverType::Corotational) refuse_outside_corotational(spec);
  if (spec.solver.type == SolverType::Static) refuse_velocity_of_static(spec);
  return spec;
}

}  // namespace

CaseSpec parse_case(const std::string& yaml_text, const std::string& file,
                    const std::vector<CaseOverride>& overrides) {
  return parse_translated_case(yaml_text, file, {}, overrides);
}

CaseSpec parse_translated_case(const std::string& yaml_text, const std::string& file,
                               const std::vector<SourceLocation>& lines,
                               const std::vector<CaseOverride>& overrides) {
  if (lines.empty()) require_case_size(yaml_text.size(), file);
  Origin origin;
  origin.file = file;
  if (!lines.empty()) origin.lines = std::make_shared<const std::vector<SourceLocation>>(lines);
  YAML::Node root = parse_document(yaml_text, file);
  check_keys(root, file, "");
  apply_overrides(root, overrides, origin);
  return read_case(Value(root, origin), file);
}

CaseSpec load_case(const std::string& path, const std::vector<CaseOverride>& overrides) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError({path, 0, 0}, "cannot open case file '" + path + "': it is a directory",
                     "give the path of a .yaml file");
  if (const std::uintmax_t size = fs::file_size(path, ec); !ec && !is_abaqus_deck(path))
    require_case_size(size, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError({path, 0, 0}, "cannot open case file '" + path +
                                       "': " + (err ? std::strerror(err) : "it cannot be read"));
  }
  // An Abaqus/CalculiX deck holds its mesh: no case-file size limit, its own reader.
  if (is_abaqus_deck(path)) return load_abaqus_deck(path, overrides);
  // At most one byte past the limit: a pipe or device that never ends is refused all the same.
  std::string text(kMaxCaseFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw InputError({path, 0, 0}, "cannot read case file '" + path + "'");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_case(text, path, overrides);
}

}  // namespace fem
