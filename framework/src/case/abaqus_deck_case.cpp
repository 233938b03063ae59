// An Abaqus/CalculiX deck -> the YAML case fem runs for it (fem/deck.hpp). Two passes over the
// deck's lines: the mesh reader's (nodes, elements, sets, and each element set's element types),
// then this one over the keywords, which collects model and step data into small records, checks
// them against the mesh, and writes the case. Keyword table and mapping: docs/case-reference.md,
// "Abaqus and CalculiX decks".
#include "fem/deck.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/Dense>

#include "../mesh/abaqus_deck.hpp"
#include "../mesh/parsers.hpp"
#include "fem/solver/linear_solver.hpp"

namespace fem {

namespace {

namespace fs = std::filesystem;
using detail::abaqus_faces;
using detail::DeckKeyword;
using detail::DeckLine;
using detail::DeckLines;
using detail::FilePos;
using detail::lower;
using detail::split_commas;

// -- the supported subset -----------------------------------------------------------------------

/// Keywords fem translates, as a user writes them (the message lists these).
const std::vector<std::string> kModelKeywords = {
    "*HEADING",  "*NODE",         "*ELEMENT",       "*NSET",      "*ELSET",
    "*INCLUDE",  "*PART",         "*END PART",      "*ASSEMBLY",  "*END ASSEMBLY",
    "*INSTANCE", "*END INSTANCE", "*SOLID SECTION", "*MATERIAL",  "*DENSITY",
    "*ELASTIC",  "*HYPERELASTIC", "*VISCOELASTIC",  "*AMPLITUDE", "*INITIAL CONDITIONS",
    "*BOUNDARY", "*STEP"};
const std::vector<std::string> kStepKeywords = {
    "*STATIC",         "*DYNAMIC",  "*BOUNDARY",  "*CLOAD",   "*DLOAD",
    "*NODE PRINT",     "*EL PRINT", "*NODE FILE", "*EL FILE", "*NODE OUTPUT",
    "*ELEMENT OUTPUT", "*OUTPUT",   "*END STEP"};

/// Keywords of Abaqus and CalculiX that fem knows but does not run: refused as unsupported, not
/// as unknown (no did-you-mean towards a keyword that means something else).
const std::set<std::string> kKnownUnsupported = {"buckle",
                                                 "change friction",
                                                 "clearance",
                                                 "conductivity",
                                                 "contact file",
                                                 "contact pair",
                                                 "contact print",
                                                 "contact output",
                                                 "contact",
                                                 "contact inclusions",
                                                 "controls",
                                                 "coupling",
                                                 "creep",
                                                 "cyclic symmetry model",
                                                 "damping",
                                                 "deformation plasticity",
                                                 "distributing",
                                                 "distributing coupling",
                                                 "dsload",
                                                 "equation",
                                                 "expansion",
                                                 "film",
                                                 "fluid constants",
                                                 "frequency",
                                                 "friction",
                                                 "gap",
                                                 "heat transfer",
                                                 "initial strain increase",
                                                 "kinematic",
                                                 "kinematic coupling",
                                                 "mass",
                                                 "modal damping",
                                                 "modal dynamic",
                                                 "mpc",
                                                 "orientation",
                                                 "physical constants",
                                                 "plastic",
                                                 "pre-tension section",
                                                 "radiate",
                                                 "restart",
                                                 "rigid body",
                                                 "shell section",
                                                 "beam section",
                                                 "membrane section",
                                                 "spring",
                                                 "specific heat",
                                                 "steady state dynamics",
                                                 "surface",
                                                 "surface behavior",
                                                 "surface interaction",
                                                 "tie",
                                                 "transform",
                                                 "uncoupled temperature-displacement",
                                                 "coupled temperature-displacement",
                                                 "user material",
                                                 "visco",
                                                 "depvar",
                                                 "time points",
                                                 "temperature",
                                                 "dflux",
                                                 "cflux",
                                                 "sectionprint",
                                                 "energy print",
                                                 "energy output",
                                                 "section print",
                                                 "contact damping",
                                                 "hyperfoam",
                                                 "anisotropic hyperelastic",
                                                 "mohr coulomb",
                                                 "cyclic hardening",
                                                 "rate dependent",
                                                 "dashpot",
                                                 "damping controls",
                                                 "select eigenmodes",
                                                 "sensitivity",
                                                 "design variables",
                                                 "complex frequency",
                                                 "electromagnetics",
                                                 "green",
                                                 "submodel",
                                                 "filter",
                                                 "feasible direction",
                                                 "constraint",
                                                 "objective",
                                                 "boundaryf",
                                                 "cfd",
                                                 "pre-tension",
                                                 "normal",
                                                 "beam general section"};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// A number as YAML reads back exactly.
std::string num(double v) {
  return fmt::format("{:.17g}", v);
}

/// A string as a double-quoted YAML scalar.
std::string yaml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// fem's element for an Abaqus solid element type, and the cell shape it runs (the suffix of a
/// region of several shapes, <set>/<shape>).
struct FemElement {
  const char* element;
  const char* shape;
};
/// Null for a type fem does not run.
const FemElement* fem_element(const std::string& abaqus_type) {
  static const std::map<std::string, FemElement> kElements = {
      {"C3D4", {"tet4", "tet4"}},
      {"C3D8", {"hex8", "hex8"}},
      {"C3D8R", {"hex8r", "hex8"}},
      {"C3D10", {"tet10", "tet10"}},
      {"C3D20", {"hex20", "hex20"}},
      {"C3D20R", {"hex20r", "hex20"}},
      // Plane strain, per unit thickness (fem's plane models).
      {"CPE3", {"tri3", "tri3"}},
      {"CPE4", {"quad4", "quad4"}}};
  const auto it = kElements.find(abaqus_type);
  return it == kElements.end() ? nullptr : &it->second;
}
const char* const kElementHint =
    "fem runs the solid elements C3D4 (tet4), C3D8 (hex8), C3D8R (hex8r), C3D10 (tet10), C3D20 "
    "(hex20) and C3D20R (hex20r), and the plane-strain CPE3 (tri3) and CPE4 (quad4, 2x2 "
    "points); write the deck with these types";

// -- what the deck says, as records -------------------------------------------------------------

struct Material {
  std::string name;   ///< lower case, as sections refer to it
  std::string shown;  ///< as the deck writes it
  FilePos where;
  std::optional<double> density;
  /// The law: "elastic" (isotropic), "elastic_anisotropic" or a hyperelastic form, with its
  /// numbers as written.
  std::string law;
  FilePos law_where;
  std::vector<double> values;
  int order = 1;  ///< N of OGDEN / REDUCED POLYNOMIAL
  /// *VISCOELASTIC, TIME=PRONY: g_i, k_i, tau_i of each term, as written.
  std::vector<double> prony;
  FilePos prony_where;
};

struct Section {
  std::string elset;  ///< lower case
  std::string material;
  FilePos where;
};

struct DeckAmplitude {
  std::string name;  ///< lower case
  FilePos where;
  std::vector<std::pair<double, double>> points;
  fem::Amplitude curve;     ///< the points as fem evaluates a tabular curve
  bool total_time = false;  ///< TIME=TOTAL TIME (default: step time)
};

/// A node set a condition names: a set of the deck (lower case) or one node by its number.
struct NodeRef {
  std::string set;
  std::int64_t node = -1;  ///< >= 0: a node number (`set` is then the generated set's name)
  FilePos where;
};

struct Prescribed {
  NodeRef target;
  int component = 0;  ///< 0, 1, 2
  double value = 0.0;
  bool fixed = true;      ///< no value given (or a model-data boundary)
  std::string amplitude;  ///< deck amplitude (lower case); empty: the step's default
  FilePos where;
};

struct Force {
  NodeRef target;
  int component = 0;
  double value = 0.0;
  std::string amplitude;
  FilePos where;
};

struct Gravity {
  std::string elset;
  std::array<double, 3> acceleration = {0, 0, 0};
  std::string amplitude;
  FilePos where;
};

/// A *DLOAD Pn line: a pressure on face n of an element or of every element of a set.
struct Pressure {
  std::string elset;  ///< lower case; empty where the line names one element
  std::int64_t element = -1;
  int face = 0;  ///< Abaqus's face number, 1-based
  double value = 0.0;
  std::string amplitude;
  FilePos where;
};

/// A condition's definition in one step: its value at the step's end and the curve that takes
/// it there (a deck amplitude, or the step's default: a ramp from the value the previous step
/// ended with, or a jump to it at the step's start).
struct Definition {
  double value = 0.0;
  std::string amplitude;  ///< deck amplitude (lower case); empty: the step's default
  FilePos where;
};

/// The faces of one translated pressure (the *DLOAD lines of one value and amplitude) and the
/// node set that names them in the case.
struct PressureSet {
  std::string name;
  double value = 0.0;  ///< one step: the pressure (its definition)
  std::string amplitude;
  /// The faces' definitions in each step (several steps: the curve's, in pascals).
  std::vector<std::optional<Definition>> definitions;
  std::vector<std::int32_t> nodes;  ///< sorted mesh node indices
  FilePos where;                    ///< the first line
};

struct Velocity {
  NodeRef target;
  int component = 0;
  double value = 0.0;
  FilePos where;
};

/// A *NODE PRINT request (a node set's history) or an *EL PRINT of a section's element set (a
/// region's element history).
struct PrintedHistory {
  std::string set;
  bool of_elements = false;
  std::set<std::string> quantities;
  int every = 1;
  FilePos where;
};

struct Step {
  FilePos where;
  bool nlgeom = false;
  bool nlgeom_given = false;
  /// static | implicit_dynamic | explicit
  std::string procedure;
  FilePos procedure_where;
  bool direct = false;
  std::optional<double> alpha;
  std::vector<double> data;                      ///< the procedure's data line
  std::optional<std::string> amplitude_default;  ///< *STEP, AMPLITUDE=RAMP|STEP
  std::vector<Prescribed> boundaries;
  std::vector<Force> forces;
  std::vector<Gravity> gravities;
  std::vector<Pressure> pressures;
  std::optional<FilePos> cload_new;  ///< *CLOAD, OP=NEW: the earlier steps' loads removed
  std::optional<FilePos> dload_new;  ///< *DLOAD, OP=NEW
  bool ended = false;
};

/// The output requests of the deck's steps together: fem records them over the whole run.
struct OutputRequests {
  std::vector<PrintedHistory> histories;
  std::set<std::string> fields;  ///< VTK fields requested
  int field_every = 0;           ///< FREQUENCY of the file requests
  bool frames = false;           ///< a file request (*NODE FILE, *EL FILE, *OUTPUT ...)
  /// *EL PRINT's variables: written to the frames a file request asks for, where it sets no
  /// frames of its own.
  std::set<std::string> printed_fields;
  std::optional<FilePos> el_print;
};

/// A condition of a deck of several steps in the case: a set's load or prescribed displacement
/// along one axis (or the gravity, or a pressure), scaled by its curve over the steps.
struct SteppedCondition {
  std::string set;
  int component = 0;
  std::string curve;  ///< the amplitude's name in the case
  std::vector<std::pair<double, double>> points;
  FilePos where;  ///< its first definition
};

/// The mid-edge nodes of quadratic cells: (corner, corner, mid-edge node) in VTK's order.
const std::vector<std::array<int, 3>>& quadratic_edges(CellShape shape) {
  static const std::vector<std::array<int, 3>> hex = {
      {0, 1, 8},  {1, 2, 9},  {2, 3, 10}, {3, 0, 11}, {4, 5, 12}, {5, 6, 13},
      {6, 7, 14}, {7, 4, 15}, {0, 4, 16}, {1, 5, 17}, {2, 6, 18}, {3, 7, 19}};
  static const std::vector<std::array<int, 3>> tet = {{0, 1, 4}, {1, 2, 5}, {2, 0, 6},
                                                      {0, 3, 7}, {1, 3, 8}, {2, 3, 9}};
  static const std::vector<std::array<int, 3>> none;
  if (shape == CellShape::Hex20) return hex;
  if (shape == CellShape::Tet10) return tet;
  return none;
}

class DeckTranslator {
 public:
  DeckTranslator(const std::string& path, std::string mesh_file)
      : path_(path), mesh_file_(std::move(mesh_file)), deck_(path) {
    if (mesh_file_.empty()) mesh_file_ = fs::path(path).filename().string();
  }

  DeckTranslation translate() {
    detail::AbaqusDeckMesh read = detail::parse_abaqus_deck(deck_);
    set_types_ = std::move(read.set_types);
    deck_.rewind();
    walk();
    if (steps_.empty())
      fail(FilePos(0), "the deck has no *STEP: there is no analysis to run",
           "add a step, e.g. *STEP, NLGEOM / *STATIC / ... / *END STEP");
    for (const Step& s : steps_) {
      if (!s.ended) fail(s.where, "*STEP has no *END STEP", "close the step with *END STEP");
      if (s.procedure.empty())
        fail(s.where, "the step has no procedure",
             "give *STATIC, *DYNAMIC or *DYNAMIC, EXPLICIT inside the step");
    }
    check_steps_agree();
    resolve_nodes(read.builder);
    resolve_pressures();
    write();
    return std::move(out_);
  }

 private:
  std::string path_;
  std::string mesh_file_;
  DeckLines deck_;
  std::map<std::string, std::set<std::string>> set_types_;
  Mesh mesh_;
  std::vector<Material> materials_;
  std::vector<Section> sections_;
  std::vector<DeckAmplitude> amplitudes_;
  std::vector<Prescribed> model_boundaries_;
  std::vector<Velocity> velocities_;
  std::vector<Step> steps_;  ///< in the deck's order; all of one procedure
  OutputRequests output_;
  /// Node numbers the conditions name, each turned into a node set of its own.
  std::map<std::int64_t, std::string> node_sets_;
  std::map<std::int64_t, std::int32_t> node_index_;
  std::vector<PressureSet> pressure_sets_;
  DeckTranslation out_;

  [[noreturn]] void fail(FilePos where, const std::string& what,
                         const std::string& hint = {}) const {
    deck_.fail(where, what, hint);
  }

  /// How the deck was read where a user could expect otherwise, at its line.
  void note(FilePos where, const std::string& what) {
    out_.notes.push_back(deck_.at(where).str() + ": " + what);
  }

  // -- the walk over keywords -------------------------------------------------------------------

  void walk() {
    Material* material = nullptr;  // the *MATERIAL whose options follow
    while (!deck_.done()) {
      const DeckLine& line = deck_.take();
      if (line.text.front() != '*')
        fail(line.where, "data line outside any keyword: '" + line.text.substr(0, 40) + "'");
      const DeckKeyword k = deck_.keyword(line);
      const std::string& n = k.name;
      const bool in_step = !steps_.empty() && !steps_.back().ended;
      const bool material_option_keyword =
          n == "density" || n == "elastic" || n == "hyperelastic" || n == "viscoelastic";
      if (!material_option_keyword) material = nullptr;
      if (in_step) {
        step_keyword(k);
        continue;
      }
      if (n == "heading" || n == "node" || n == "element" || n == "nset" || n == "elset" ||
          n == "part" || n == "end part" || n == "assembly" || n == "end assembly" ||
          n == "instance" || n == "end instance") {
        deck_.skip_data();  // the mesh reader's
      } else if (n == "solid section") {
        solid_section(k);
      } else if (n == "material") {
        materials_.push_back(read_material(k));
        material = &materials_.back();
      } else if (material_option_keyword) {
        if (!material)
          fail(k.where, "*" + upper(n) + " outside a *MATERIAL",
               "put it right after the *MATERIAL, NAME=... line it belongs to");
        material_option(k, *material);
      } else if (n == "amplitude") {
        amplitude(k);
      } else if (n == "initial conditions") {
        initial_conditions(k);
      } else if (n == "boundary") {
        boundary(k, model_boundaries_, true);
      } else if (n == "step") {
        begin_step(k);
      } else if (n == "end step") {
        fail(k.where, "*END STEP without a *STEP");
      } else {
        refuse(k, in_step);
      }
    }
  }

  [[noreturn]] void refuse(const DeckKeyword& k, bool in_step) const {
    const std::vector<std::string>& supported = in_step ? kStepKeywords : kModelKeywords;
    const std::string shown = "*" + upper(k.name);
    const std::string where = in_step ? " in a step" : " in model data";
    for (const std::string& s : in_step ? kModelKeywords : kStepKeywords)
      if (s == shown)
        fail(k.where, shown + " is not supported" + where,
             in_step ? "model data (materials, sections, amplitudes) comes before *STEP"
                     : "it belongs inside *STEP ... *END STEP");
    if (kKnownUnsupported.count(k.name) != 0)
      fail(k.where, shown + " is not supported",
           "fem translates these keywords" + where + ": " + join(supported));
    const std::string guess =
        did_you_mean(shown, supported.data(), supported.data() + supported.size());
    fail(k.where, "unknown keyword " + shown,
         (guess.empty() ? "" : guess + "; ") + "fem translates these keywords" + where + ": " +
             join(supported));
  }

  /// Parameters other than `allowed` are refused at the keyword's line.
  void allow(const DeckKeyword& k, std::initializer_list<const char*> allowed) const {
    for (const auto& [name, value] : k.params) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || name == a;
      if (ok) continue;
      std::vector<std::string> names;
      for (const char* a : allowed) names.push_back(upper(a));
      fail(k.where, "parameter " + upper(name) + " of *" + upper(k.name) + " is not supported",
           names.empty() ? "*" + upper(k.name) + " takes no parameters here"
                         : "fem honours " + join(names) + " here");
    }
  }

  std::string required_param(const DeckKeyword& k, const char* name, const char* example) const {
    const std::optional<std::string> v = k.param(name);
    if (!v || v->empty())
      fail(k.where, "*" + upper(k.name) + " needs " + upper(name) + "=", example);
    return *v;
  }

  /// The numbers of the data lines that follow (all of them, lines joined).
  std::vector<double> numbers(const DeckKeyword& k, FilePos& first) {
    std::vector<double> values;
    first = k.where;
    bool any = false;
    while (deck_.data_line_next()) {
      const DeckLine& line = deck_.take();
      if (!any) first = line.where;
      any = true;
      for (const std::string_view f : split_commas(line.text))
        if (!f.empty()) values.push_back(deck_.real(f, line.where, "a number"));
    }
    return values;
  }

  // -- model data ------------------------------------------------------------------------------

  void solid_section(const DeckKeyword& k) {
    allow(k, {"elset", "material"});
    Section s;
    s.elset = lower(required_param(k, "elset",
                                   "for example: *SOLID SECTION, ELSET=EALL, "
                                   "MATERIAL=STEEL"));
    s.material = lower(required_param(k, "material",
                                      "for example: *SOLID SECTION, ELSET=EALL, "
                                      "MATERIAL=STEEL"));
    s.where = k.where;
    // The optional data line, the thickness of plane elements: fem's plane-strain models are
    // per unit thickness, as are their forces.
    FilePos first;
    const std::vector<double> data = numbers(k, first);
    if (set_types_.count(s.elset) == 0) {
      std::vector<std::string> names;
      for (const auto& [name, types] : set_types_) names.push_back(name);
      const std::string guess = did_you_mean(s.elset, names.data(), names.data() + names.size());
      fail(k.where, "*SOLID SECTION names element set '" + s.elset + "', which holds no elements",
           (guess.empty() ? "" : guess + "; ") + "element sets of the deck: " + join(names));
    }
    for (const Section& other : sections_)
      if (other.elset == s.elset)
        fail(k.where, "element set '" + s.elset + "' has two *SOLID SECTIONs",
             "give each element one section");
    bool plane = false;
    for (const std::string& t : set_types_.at(s.elset)) plane = plane || t.rfind("CP", 0) == 0;
    if (plane && !data.empty() && data[0] != 1.0)
      fail(first,
           fmt::format("thickness {:g} of element set '{}': fem's plane-strain models are per "
                       "unit thickness",
                       data[0], s.elset),
           "give 1 (or leave the line out) and multiply the forces fem reports by the thickness");
    sections_.push_back(s);
  }

  Material read_material(const DeckKeyword& k) {
    allow(k, {"name"});
    Material m;
    m.shown = required_param(k, "name", "for example: *MATERIAL, NAME=STEEL");
    m.name = lower(m.shown);
    m.where = k.where;
    for (const Material& other : materials_)
      if (other.name == m.name) fail(k.where, "material '" + m.shown + "' is defined twice");
    if (deck_.data_line_next()) fail(deck_.peek().where, "*MATERIAL takes no data lines");
    return m;
  }

  void material_option(const DeckKeyword& k, Material& m) {
    FilePos first;
    if (k.name == "density") {
      allow(k, {});
      const std::vector<double> v = numbers(k, first);
      if (v.size() != 1 || !(v[0] > 0))
        fail(first, "*DENSITY of material '" + m.shown + "' must be one positive number",
             "density in the deck's units (kg/m^3 in SI); fem runs one temperature");
      m.density = v[0];
      return;
    }
    if (k.name == "viscoelastic") {
      viscoelastic(k, m);
      return;
    }
    if (!m.law.empty())
      fail(k.where, "material '" + m.shown + "' has a second elastic law",
           "give one *ELASTIC or *HYPERELASTIC per material");
    m.law_where = k.where;
    if (k.name == "elastic") {
      allow(k, {"type"});
      const std::string type = upper(k.param("type").value_or("ISOTROPIC"));
      if (type == "ISOTROPIC")
        m.law = "elastic";
      else if (type == "ENGINEERING CONSTANTS" || type == "ORTHOTROPIC" || type == "ANISO" ||
               type == "ANISOTROPIC")
        m.law = "elastic_" + lower(type == "ANISO" ? "ANISOTROPIC" : type);
      else
        fail(k.where, "*ELASTIC, TYPE=" + type + " is not supported",
             "fem knows TYPE=ISOTROPIC, ENGINEERING CONSTANTS, ORTHOTROPIC and ANISOTROPIC");
      m.values = numbers(k, first);
      const std::size_t want = m.law == "elastic" ? 2 : m.law == "elastic_anisotropic" ? 21 : 9;
      if (m.values.size() != want)
        fail(first,
             "*ELASTIC, TYPE=" + type + " of material '" + m.shown + "' needs " +
                 std::to_string(want) + " constants, got " + std::to_string(m.values.size()),
             "one temperature only (no temperature column)");
      return;
    }
    // *HYPERELASTIC, <form>[, N=n]
    allow(k,
          {"neo hooke", "mooney-rivlin", "ogden", "reduced polynomial", "yeoh", "polynomial", "n"});
    std::string form;
    for (const char* f :
         {"neo hooke", "mooney-rivlin", "ogden", "reduced polynomial", "yeoh", "polynomial"})
      if (k.has(f)) {
        if (!form.empty())
          fail(k.where, "*HYPERELASTIC names two forms, " + upper(form) + " and " + upper(f));
        form = f;
      }
    if (form.empty()) form = "polynomial";  // Abaqus's default, N = 1 (Mooney-Rivlin)
    int order = 1;
    if (auto n = k.param("n")) order = static_cast<int>(deck_.integer(*n, k.where, "N"));
    if (form == "yeoh") {
      form = "reduced polynomial";
      order = 3;
    }
    if (form == "polynomial") {
      if (order != 1)
        fail(k.where,
             "*HYPERELASTIC, POLYNOMIAL with N=" + std::to_string(order) + " is not supported",
             "fem runs POLYNOMIAL with N=1 (Mooney-Rivlin), REDUCED POLYNOMIAL N=1..3 and "
             "OGDEN N=1..3");
      form = "mooney-rivlin";
    }
    if ((form == "ogden" || form == "reduced polynomial") && (order < 1 || order > 3))
      fail(k.where,
           "*HYPERELASTIC, " + upper(form) + " with N=" + std::to_string(order) +
               " is not supported",
           "fem runs N = 1, 2 or 3");
    if ((form == "neo hooke" || form == "mooney-rivlin") && k.has("n"))
      fail(k.where, "N does not apply to *HYPERELASTIC, " + upper(form));
    m.law = form;
    m.order = order;
    m.values = numbers(k, first);
    const std::size_t want = form == "neo hooke"       ? 2
                             : form == "mooney-rivlin" ? 3
                             : form == "ogden"         ? 3 * static_cast<std::size_t>(order)
                                                       : 2 * static_cast<std::size_t>(order);
    if (m.values.size() != want)
      fail(first,
           "*HYPERELASTIC, " + upper(form) + " of material '" + m.shown + "' needs " +
               std::to_string(want) + " constants, got " + std::to_string(m.values.size()),
           form == "neo hooke"       ? "C10, D1"
           : form == "mooney-rivlin" ? "C10, C01, D1"
           : form == "ogden"         ? "mu_1, alpha_1, ..., mu_N, alpha_N, D_1, ..., D_N"
                                     : "C10, C20, ..., CN0, D1, ..., DN");
  }

  /// *VISCOELASTIC, TIME=PRONY: one term g_i, k_i, tau_i per line (Abaqus's normalised shear
  /// and bulk relaxation moduli and relaxation time). fem's viscoelastic law relaxes the
  /// isochoric stress of Mooney-Rivlin by up to three terms; its volumetric response is elastic.
  void viscoelastic(const DeckKeyword& k, Material& m) {
    allow(k, {"time", "frequency"});
    const std::string kSupported =
        "fem runs *VISCOELASTIC, TIME=PRONY: g_i, k_i (0), tau_i on each line, up to three terms";
    if (!m.prony.empty())
      fail(k.where, "material '" + m.shown + "' has a second *VISCOELASTIC",
           "give all its Prony terms under one *VISCOELASTIC, one term a line");
    const std::string time = upper(k.param("time").value_or(""));
    if (k.has("frequency") || time != "PRONY")
      fail(k.where,
           "*VISCOELASTIC" +
               (k.has("frequency") ? ", FREQUENCY=" + upper(k.param("frequency").value_or(""))
                : time.empty()     ? std::string(" without TIME=PRONY")
                                   : ", TIME=" + time) +
               " is not supported",
           kSupported);
    FilePos first;
    const std::vector<double> v = numbers(k, first);
    const std::size_t terms = v.size() / 3;
    if (v.empty() || v.size() % 3 != 0)
      fail(first,
           "*VISCOELASTIC, TIME=PRONY of material '" + m.shown +
               "' needs g_i, k_i, tau_i on each line, got " + std::to_string(v.size()) + " numbers",
           kSupported);
    if (terms > 3)
      fail(first,
           "*VISCOELASTIC of material '" + m.shown + "' has " + std::to_string(terms) +
               " Prony terms; fem's viscoelastic law takes at most 3",
           "merge terms of close relaxation times");
    for (std::size_t i = 0; i < terms; ++i)
      if (v[3 * i + 1] != 0.0)
        fail(first,
             fmt::format("k_{} = {:g} of material '{}' (bulk relaxation) is not supported: "
                         "fem's viscoelastic law relaxes the isochoric stress only",
                         i + 1, v[3 * i + 1], m.shown),
             "give k_i = 0 (the volumetric response stays elastic)");
    m.prony = v;
    m.prony_where = k.where;
  }

  void amplitude(const DeckKeyword& k) {
    allow(k, {"name", "definition", "time"});
    DeckAmplitude a;
    a.name = lower(required_param(k, "name", "for example: *AMPLITUDE, NAME=RAMP"));
    a.where = k.where;
    if (auto d = k.param("definition"); d && upper(*d) != "TABULAR")
      fail(k.where, "*AMPLITUDE, DEFINITION=" + upper(*d) + " is not supported",
           "fem translates tabular amplitudes (time, value pairs)");
    if (auto t = k.param("time"); t && upper(*t) != "STEP TIME" && upper(*t) != "TOTAL TIME")
      fail(k.where, "*AMPLITUDE, TIME=" + upper(*t) + " is not understood",
           "TIME=STEP TIME or TOTAL TIME (the same in a deck of one step)");
    else if (t)
      a.total_time = upper(*t) == "TOTAL TIME";
    for (const DeckAmplitude& other : amplitudes_)
      if (other.name == a.name) fail(k.where, "amplitude '" + a.name + "' is defined twice");
    FilePos first;
    const std::vector<double> v = numbers(k, first);
    if (v.size() < 2 || v.size() % 2 != 0)
      fail(first, "*AMPLITUDE '" + a.name + "' needs time, value pairs, got " +
                      std::to_string(v.size()) + " numbers");
    for (std::size_t i = 0; i < v.size(); i += 2) a.points.emplace_back(v[i], v[i + 1]);
    if (a.points.size() > static_cast<std::size_t>(kMaxAmplitudePoints))
      fail(first,
           "*AMPLITUDE '" + a.name + "' has " + std::to_string(a.points.size()) +
               " points; fem's tabular amplitudes have at most " +
               std::to_string(kMaxAmplitudePoints),
           "resample the curve, or give it as a signal file in a YAML case (tabular file:)");
    a.curve.kind = AmplitudeKind::Tabular;
    a.curve.num_points = static_cast<int>(a.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i)
      std::tie(a.curve.time[i], a.curve.value[i]) = a.points[i];
    amplitudes_.push_back(std::move(a));
  }

  std::string amplitude_ref(const DeckKeyword& k) const {
    const std::optional<std::string> a = k.param("amplitude");
    if (!a) return {};
    const std::string name = lower(*a);
    for (const DeckAmplitude& amp : amplitudes_)
      if (amp.name == name) return name;
    std::vector<std::string> names;
    for (const DeckAmplitude& amp : amplitudes_) names.push_back(amp.name);
    const std::string guess = did_you_mean(name, names.data(), names.data() + names.size());
    fail(k.where, "AMPLITUDE=" + *a + " names no *AMPLITUDE defined before it",
         guess.empty() ? "define *AMPLITUDE, NAME=" + *a + " in the model data" : guess);
  }

  /// The first field of a condition's data line: a node number or a node set.
  NodeRef node_ref(std::string_view field, FilePos where) {
    NodeRef r;
    r.where = where;
    if (!field.empty() && (std::isdigit(static_cast<unsigned char>(field[0])) != 0)) {
      r.node = deck_.integer(field, where, "a node number");
      auto [it, added] = node_sets_.emplace(r.node, "");
      if (added) it->second = fmt::format("node_{}", r.node);
      r.set = it->second;
      return r;
    }
    if (field.empty()) deck_.fail(where, "the data line names no node or node set");
    r.set = lower(field);
    return r;
  }

  int dof(std::string_view field, FilePos where, const char* keyword) const {
    const std::int64_t d = deck_.integer(field, where, "a degree of freedom");
    if (d < 1 || d > 3)
      fail(where,
           std::string(keyword) + " names degree of freedom " + std::to_string(d) +
               ": solid elements have 1, 2 and 3 (displacements) only",
           "remove rotational (4-6) and other degrees of freedom");
    return static_cast<int>(d) - 1;
  }

  void initial_conditions(const DeckKeyword& k) {
    allow(k, {"type"});
    const std::string type = upper(k.param("type").value_or(""));
    if (type != "VELOCITY")
      fail(k.where,
           "*INITIAL CONDITIONS, TYPE=" + (type.empty() ? "?" : type) + " is not supported",
           "fem translates TYPE=VELOCITY (node or set, dof, velocity)");
    while (deck_.data_line_next()) {
      const DeckLine& line = deck_.take();
      const std::vector<std::string_view> f = split_commas(line.text);
      if (f.size() < 3)
        fail(line.where,
             "*INITIAL CONDITIONS, TYPE=VELOCITY data is 'node or set, dof, "
             "velocity', got '" +
                 line.text + "'");
      Velocity v;
      v.target = node_ref(f[0], line.where);
      v.component = dof(f[1], line.where, "*INITIAL CONDITIONS");
      v.value = deck_.real(f[2], line.where, "a velocity");
      v.where = line.where;
      velocities_.push_back(v);
    }
  }

  /// *BOUNDARY lines: "set, first dof[, last dof[, value]]" or "set, ENCASTRE|PINNED|XSYMM|...".
  void boundary(const DeckKeyword& k, std::vector<Prescribed>& into, bool model_data) {
    allow(k, model_data ? std::initializer_list<const char*>{}
                        : std::initializer_list<const char*>{"amplitude", "op"});
    if (auto op = k.param("op"); op && upper(*op) != "NEW" && upper(*op) != "MOD")
      fail(k.where, "*BOUNDARY, OP=" + *op + " is not understood", "OP=MOD or OP=NEW");
    else if (op && upper(*op) == "NEW" && steps_.size() > 1)
      fail(k.where, "*BOUNDARY, OP=NEW in a later step: fem does not release supports",
           "fem's supports hold for the whole run: keep the earlier steps' boundary conditions "
           "(OP=MOD) and change their values");
    const std::string amp = amplitude_ref(k);
    while (deck_.data_line_next()) {
      const DeckLine& line = deck_.take();
      std::vector<std::string_view> f = split_commas(line.text);
      while (!f.empty() && f.back().empty()) f.pop_back();
      if (f.size() < 2)
        fail(line.where, "*BOUNDARY data is 'node or set, first dof[, last dof[, value]]', got '" +
                             line.text + "'");
      Prescribed p;
      p.target = node_ref(f[0], line.where);
      p.amplitude = amp;
      p.where = line.where;
      const std::string word = upper(std::string(f[1]));
      if (!word.empty() && std::isalpha(static_cast<unsigned char>(word[0])) != 0) {
        // Abaqus's named conditions; on solids only their translations matter.
        std::vector<int> comps;
        if (word == "ENCASTRE" || word == "PINNED")
          comps = {0, 1, 2};
        else if (word == "XSYMM")
          comps = {0};
        else if (word == "YSYMM")
          comps = {1};
        else if (word == "ZSYMM")
          comps = {2};
        else
          fail(line.where, "*BOUNDARY type " + word + " is not supported",
               "fem translates ENCASTRE, PINNED, XSYMM, YSYMM and ZSYMM, and dof ranges");
        for (const int c : comps) {
          p.component = c;
          into.push_back(p);
        }
        continue;
      }
      const int first = dof(f[1], line.where, "*BOUNDARY");
      const int last = f.size() > 2 && !f[2].empty() ? dof(f[2], line.where, "*BOUNDARY") : first;
      if (last < first)
        fail(line.where, "*BOUNDARY dof range " + std::to_string(first + 1) + " to " +
                             std::to_string(last + 1) + " is empty");
      if (f.size() > 3) {
        p.value = deck_.real(f[3], line.where, "a displacement");
        p.fixed = false;
      }
      if (model_data && p.value != 0.0)
        fail(line.where, "a *BOUNDARY in the model data with a non-zero value",
             "prescribe non-zero displacements inside the step, where their amplitude applies");
      for (int c = first; c <= last; ++c) {
        p.component = c;
        into.push_back(p);
      }
    }
  }

  // -- the step ---------------------------------------------------------------------------------

  void begin_step(const DeckKeyword& k) {
    allow(k, {"nlgeom", "inc", "name", "amplitude"});
    Step s;
    s.where = k.where;
    if (auto g = k.param("nlgeom")) {
      const std::string v = upper(*g);
      if (!(v.empty() || v == "YES" || v == "NO"))
        fail(k.where, "NLGEOM=" + *g + " is not understood", "NLGEOM, NLGEOM=YES or NLGEOM=NO");
      s.nlgeom = v != "NO";
      s.nlgeom_given = true;
    }
    if (auto a = k.param("amplitude")) {
      const std::string v = upper(*a);
      if (v != "RAMP" && v != "STEP")
        fail(k.where, "*STEP, AMPLITUDE=" + *a + " is not understood", "RAMP or STEP");
      s.amplitude_default = v;
    }
    if (!steps_.empty() && !s.nlgeom_given) {
      // Abaqus and CalculiX: NLGEOM stays as the previous step set it.
      s.nlgeom = steps_.back().nlgeom;
      s.nlgeom_given = steps_.back().nlgeom_given;
    }
    if (auto inc = k.param("inc")) {
      (void)deck_.integer(*inc, k.where, "INC (the most increments)");
      note(k.where,
           "INC (the most increments) is not enforced: fem takes the increments the step "
           "needs");
    }
    if (deck_.data_line_next()) deck_.skip_data();  // the step's title
    steps_.push_back(s);
  }

  /// OP=NEW (the earlier steps' loads of the keyword removed) or OP=MOD (the default).
  bool op_new(const DeckKeyword& k) const {
    const std::optional<std::string> op = k.param("op");
    if (op && upper(*op) != "NEW" && upper(*op) != "MOD")
      fail(k.where, "*" + upper(k.name) + ", OP=" + *op + " is not understood", "OP=MOD or OP=NEW");
    return op && upper(*op) == "NEW";
  }

  /// The steps of a deck run as one analysis in steps: one NLGEOM, and one procedure, except
  /// that *STATIC and implicit *DYNAMIC steps mix (an implicit dynamic analysis with static
  /// steps: a preload before the dynamic response).
  void check_steps_agree() const {
    const Step& a = first();
    const auto implicit = [](const Step& s) { return s.procedure != "explicit"; };
    const Step* first_dynamic = nullptr;
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      const Step& b = steps_[k];
      if (k > 0 && b.procedure != a.procedure && !(implicit(a) && implicit(b)))
        fail(b.procedure_where,
             fmt::format("step {} is {}, step 1 {}: fem runs the steps of a deck as one "
                         "analysis, whose steps may be *STATIC and implicit *DYNAMIC but not "
                         "explicit with either",
                         k + 1, procedure_name(b), procedure_name(a)),
             "run steps of another procedure as a deck of their own");
      if (k > 0 && nlgeom(b) != nlgeom(a))
        fail(b.where, fmt::format("step {} changes NLGEOM", k + 1),
             "give every step the first step's NLGEOM");
      if (k > 0 && a.procedure == "explicit" &&
          (b.direct != a.direct || (a.direct && increment(k) != increment(0))))
        fail(b.procedure_where,
             fmt::format("step {}'s time increment differs from step 1's", k + 1),
             "fem's explicit run takes one time step: give every step the same DIRECT "
             "increment, or none (fem takes its stable step)");
      if (b.procedure != "implicit_dynamic") continue;
      if (!first_dynamic) {
        first_dynamic = &b;
        continue;
      }
      const Step& d = *first_dynamic;
      if (b.alpha.value_or(-0.05) != d.alpha.value_or(-0.05))
        fail(b.procedure_where,
             fmt::format("step {} has ALPHA={}, the first *DYNAMIC step ALPHA={}", k + 1,
                         num(b.alpha.value_or(-0.05)), num(d.alpha.value_or(-0.05))),
             "give every *DYNAMIC step the same ALPHA");
    }
  }

  static const char* procedure_name(const Step& s) {
    return s.procedure == "static"             ? "*STATIC"
           : s.procedure == "implicit_dynamic" ? "*DYNAMIC"
                                               : "*DYNAMIC, EXPLICIT";
  }

  void step_keyword(const DeckKeyword& k) {
    Step& s = steps_.back();
    const std::string& n = k.name;
    FilePos first;
    if (n == "static" || n == "dynamic") {
      if (!s.procedure.empty())
        fail(k.where, "the step has a second procedure",
             "one *STATIC or *DYNAMIC per step (fem runs one step per deck)");
      const bool explicit_dynamic = n == "dynamic" && k.has("explicit");
      if (n == "static")
        allow(k, {"direct"});
      else if (explicit_dynamic)
        allow(k, {"explicit", "direct"});
      else
        allow(k, {"direct", "alpha"});
      s.procedure = n == "static" ? "static" : explicit_dynamic ? "explicit" : "implicit_dynamic";
      s.procedure_where = k.where;
      s.direct = k.has("direct");
      if (auto a = k.param("alpha")) s.alpha = deck_.real(*a, k.where, "ALPHA");
      s.data = numbers(k, first);
      if (s.data.size() > 4)
        fail(first, "*" + upper(n) + " data is 'initial increment, period[, minimum, maximum]'");
      for (const double v : s.data)
        if (!(v > 0))
          fail(first, "*" + upper(n) + " data must be positive, got " + num(v),
               "initial increment, time period, minimum and maximum increment");
    } else if (n == "boundary") {
      boundary(k, s.boundaries, false);
    } else if (n == "cload") {
      allow(k, {"amplitude", "op"});
      if (op_new(k)) s.cload_new = k.where;
      const std::string amp = amplitude_ref(k);
      while (deck_.data_line_next()) {
        const DeckLine& line = deck_.take();
        const std::vector<std::string_view> f = split_commas(line.text);
        if (f.size() < 3)
          fail(line.where, "*CLOAD data is 'node or set, dof, force', got '" + line.text + "'");
        Force force;
        force.target = node_ref(f[0], line.where);
        force.component = dof(f[1], line.where, "*CLOAD");
        force.value = deck_.real(f[2], line.where, "a force");
        force.amplitude = amp;
        force.where = line.where;
        s.forces.push_back(force);
      }
    } else if (n == "dload") {
      allow(k, {"amplitude", "op"});
      if (op_new(k)) s.dload_new = k.where;
      const std::string amp = amplitude_ref(k);
      while (deck_.data_line_next()) {
        const DeckLine& line = deck_.take();
        const std::vector<std::string_view> f = split_commas(line.text);
        const std::string type = f.size() > 1 ? upper(std::string(f[1])) : "";
        if (type.size() == 2 && type[0] == 'P' && type[1] >= '1' && type[1] <= '6') {
          if (f.size() != 3)
            fail(line.where, "*DLOAD " + type + " data is 'element or set, " + type +
                                 ", pressure', got '" + line.text + "'");
          Pressure p;
          const std::string target = lower(f[0]);
          if (!target.empty() && std::all_of(target.begin(), target.end(),
                                             [](char c) { return c >= '0' && c <= '9'; }))
            p.element = deck_.integer(f[0], line.where, "an element number");
          else
            p.elset = target;
          p.face = type[1] - '0';
          p.value = deck_.real(f[2], line.where, "a pressure");
          p.amplitude = amp;
          p.where = line.where;
          s.pressures.push_back(p);
          continue;
        }
        if (type != "GRAV")
          fail(line.where, "*DLOAD type " + (type.empty() ? "?" : type) + " is not supported",
               type == "P"
                   ? "P without a face number loads shells and beams; on a solid element's face "
                     "write P1 .. P6 (the face number)"
               : type == "CENTRIF"
                   ? "fem has no centrifugal load: it follows the deformation (rho omega^2 times "
                     "the distance from the axis where the material is now) and stiffens or "
                     "softens the tangent, which fem's loads do not model; for a small "
                     "deformation give the nodes their m omega^2 r as *CLOAD"
                   : "fem translates GRAV (elset, GRAV, magnitude, direction x, y, z) and "
                     "pressures on element faces (element or set, P1 .. P6, pressure)");
        if (f.size() != 6)
          fail(line.where,
               "*DLOAD GRAV data is 'elset, GRAV, magnitude, nx, ny, nz', got '" + line.text + "'");
        Gravity g;
        g.elset = lower(f[0]);
        g.amplitude = amp;
        g.where = line.where;
        const double magnitude = deck_.real(f[2], line.where, "the magnitude");
        for (int c = 0; c < 3; ++c)
          g.acceleration[c] = magnitude * deck_.real(f[3 + c], line.where, "a direction");
        s.gravities.push_back(g);
      }
    } else if (n == "node print" || n == "node file" || n == "node output") {
      node_output(k, n == "node print");
    } else if (n == "el print" || n == "el file" || n == "element output") {
      element_output(k, n == "el print");
    } else if (n == "output") {
      allow(k, {"field", "history", "frequency", "number interval"});
      if (auto f = k.param("frequency"))
        output_.field_every = static_cast<int>(deck_.integer(*f, k.where, "FREQUENCY"));
      if (k.has("number interval"))
        fail(k.where, "*OUTPUT, NUMBER INTERVAL is not supported", "give FREQUENCY=n (increments)");
      deck_.skip_data();
    } else if (n == "end step") {
      s.ended = true;
    } else if (n == "step") {
      fail(k.where, "*STEP inside a step", "close the first with *END STEP");
    } else {
      refuse(k, true);
    }
  }

  /// The variables of an output request's data lines, upper case.
  std::vector<std::pair<std::string, FilePos>> variables() {
    std::vector<std::pair<std::string, FilePos>> v;
    while (deck_.data_line_next()) {
      const DeckLine& line = deck_.take();
      for (const std::string_view f : split_commas(line.text))
        if (!f.empty()) v.emplace_back(upper(std::string(f)), line.where);
    }
    return v;
  }

  int frequency(const DeckKeyword& k) const {
    if (auto f = k.param("frequency")) {
      const std::int64_t n = deck_.integer(*f, k.where, "FREQUENCY");
      if (n < 0) fail(k.where, "FREQUENCY must not be negative");
      return static_cast<int>(n);
    }
    return 1;
  }

  void node_output(const DeckKeyword& k, bool print) {
    if (print) {
      allow(k, {"nset", "frequency", "totals", "global"});
      PrintedHistory h;
      h.set = lower(required_param(k, "nset", "for example: *NODE PRINT, NSET=TOP"));
      h.every = frequency(k);
      h.where = k.where;
      if (auto t = k.param("totals");
          t && upper(*t) != "ONLY" && upper(*t) != "YES" && upper(*t) != "NO")
        fail(k.where, "TOTALS=" + *t + " is not understood", "TOTALS=YES, NO or ONLY");
      for (const auto& [var, where] : variables()) {
        if (var == "U")
          h.quantities.insert("displacement");
        else if (var == "V")
          h.quantities.insert("velocity");
        else if (var == "RF")
          h.quantities.insert("reaction_force");
        else
          fail(where, "*NODE PRINT variable " + var + " is not supported",
               "fem records U (mean displacement of the set), V (mean velocity) and RF (total "
               "reaction force of the set)");
      }
      add_history(h);
      return;
    }
    allow(k, {"frequency", "nset", "global", "output"});
    if (k.has("nset"))
      fail(k.where, "NSET on *" + upper(k.name) + " is not supported",
           "VTK frames hold every node; leave NSET out");
    file_output(k, true);
  }

  void element_output(const DeckKeyword& k, bool print) {
    if (print) {
      allow(k, {"elset", "frequency", "totals", "global", "position"});
      // The element set of a section is a region: its elements' means become a history. Other
      // sets (a subset, or one spanning sections) keep the values in the frames.
      if (const auto elset = k.param("elset");
          elset && std::any_of(sections_.begin(), sections_.end(),
                               [&](const Section& sec) { return sec.elset == lower(*elset); })) {
        element_history(k, lower(*elset));
        return;
      }
      output_.el_print = k.where;
    } else {
      allow(k, {"frequency", "global", "output", "position"});
    }
    file_output(k, !print);
  }

  /// *EL PRINT, ELSET=<a section's set>: S and E as the region's mean stress and strain, ENER
  /// as its strain energy (CalculiX prints the energy density at each integration point).
  void element_history(const DeckKeyword& k, const std::string& elset) {
    PrintedHistory h;
    h.set = elset;
    h.of_elements = true;
    h.every = frequency(k);
    h.where = k.where;
    for (const auto& [var, where] : variables()) {
      if (var == "S")
        h.quantities.insert({"cauchy_stress", "von_mises"});
      else if (var == "E")
        h.quantities.insert("green_lagrange_strain");
      else if (var == "ENER")
        h.quantities.insert("strain_energy");
      else
        fail(where, "*EL PRINT variable " + var + " is not supported",
             "fem records S (the element set's mean Cauchy stress and its largest von Mises "
             "stress), E (the mean Green-Lagrange strain) and ENER (the set's strain energy)");
    }
    add_history(h);
  }

  /// A print request's history, joined with an earlier one of the same set and kind (U and RF,
  /// or S and E, in two requests: one history at the more frequent cadence); FREQUENCY=0 asks
  /// for none.
  void add_history(const PrintedHistory& h) {
    if (h.every == 0) return;
    for (PrintedHistory& other : output_.histories)
      if (other.of_elements == h.of_elements && other.set == h.set) {
        other.quantities.insert(h.quantities.begin(), h.quantities.end());
        other.every = std::min(other.every, h.every);
        return;
      }
    output_.histories.push_back(h);
  }

  /// Field output (VTK frames): U, V, S, E.
  void file_output(const DeckKeyword& k, bool frames) {
    OutputRequests& s = output_;
    const int every = frequency(k);
    std::set<std::string>& fields = frames ? s.fields : s.printed_fields;
    for (const auto& [var, where] : variables()) {
      if (var == "U")
        fields.insert("displacement");
      else if (var == "V")
        fields.insert("velocity");
      else if (var == "S")
        fields.insert({"cauchy_stress", "von_mises"});
      else if (var == "E")
        fields.insert("green_lagrange_strain");
      else if (var == "RF" || var == "ENER" || var == "ELSE" || var == "PEEQ" || var == "NT")
        fail(where, "*" + upper(k.name) + " variable " + var + " is not supported",
             "fem writes U, V, S (Cauchy stress and von Mises) and E (Green-Lagrange strain) to "
             "its VTK frames; RF as *NODE PRINT, NSET=..., RF");
      else
        fail(where, "*" + upper(k.name) + " variable " + var + " is not supported",
             "fem writes U, V, S and E");
    }
    if (!frames || every == 0) return;
    s.frames = true;
    s.field_every = s.field_every > 0 ? std::min(s.field_every, every) : every;
  }

  // -- checks against the mesh ------------------------------------------------------------------

  void resolve_nodes(detail::MeshBuilder& builder) {
    for (const auto& [node, set] : node_sets_) {
      // Each node number as a node set of the builder: the reader's own check of the number
      // (a node the deck does not define is an error at the line that names it).
      FilePos where;
      for (const Prescribed& p : all_prescribed())
        if (p.target.node == node) where = p.where;
      builder.add_to_node_set(" node " + std::to_string(node), &node, 1, where);
    }
    mesh_ = builder.finish();
    for (const auto& [node, set] : node_sets_) {
      const auto& ids = mesh_.node_sets.at(" node " + std::to_string(node));
      if (ids.empty())
        fail(FilePos(0), "node " + std::to_string(node) + " belongs to no element",
             "conditions on nodes that no element uses have no effect; remove them");
      node_index_[node] = ids.front();
    }
  }

  /// The *DLOAD Pn lines as node sets of the case, one per value and amplitude. fem selects a
  /// pressure's faces by their nodes (the boundary faces all of whose nodes are in the set), so
  /// each set is checked to select exactly the faces the deck loads.
  void resolve_pressures() {
    const auto with_pressure = std::find_if(steps_.begin(), steps_.end(),
                                            [](const Step& s) { return !s.pressures.empty(); });
    if (with_pressure == steps_.end()) return;
    // The model's cells (those of a *SOLID SECTION's set), each once, by element number.
    std::map<std::int64_t, std::pair<const CellRegion*, std::int64_t>> cells;
    for (const Section& sec : sections_)
      for (const CellRegion& r : mesh_.regions)
        if (r.name == sec.elset || r.name.rfind(sec.elset + "/", 0) == 0)
          for (std::int64_t c = 0; c < r.num_cells(); ++c)
            cells.emplace(r.origin(c).id, std::pair{&r, c});
    using Key = std::array<std::int32_t, 4>;
    const auto face_corners = [](const CellRegion& r, std::int64_t c, int face) {
      const std::vector<std::vector<int>>& table = abaqus_faces(r.shape);
      std::vector<std::int32_t> corners;
      for (const int i : table[static_cast<std::size_t>(face)])
        corners.push_back(r.connectivity[static_cast<std::size_t>(c * r.nodes_per_cell + i)]);
      return corners;
    };
    const auto key_of = [](std::vector<std::int32_t> corners) {
      std::sort(corners.begin(), corners.end());
      Key k;
      k.fill(-1);
      std::copy(corners.begin(), corners.end(), k.begin());
      return k;
    };
    std::map<Key, int> face_count;
    for (const auto& [id, cell] : cells)
      for (std::size_t f = 0; f < abaqus_faces(cell.first->shape).size(); ++f)
        ++face_count[key_of(face_corners(*cell.first, cell.second, static_cast<int>(f)))];

    // The faces a *DLOAD line loads, checked: boundary faces of the model's elements.
    const auto faces_of = [&](const Pressure& p) {
      std::vector<std::pair<const CellRegion*, std::int64_t>> targets;
      if (p.element >= 0) {
        const auto c = cells.find(p.element);
        if (c == cells.end())
          fail(p.where, "*DLOAD names element " + std::to_string(p.element) +
                            ", which is not in any *SOLID SECTION's set");
        targets.push_back(c->second);
      } else {
        if (set_types_.count(p.elset) == 0)
          fail(p.where, "*DLOAD names element set '" + p.elset + "', which holds no elements");
        for (const CellRegion& r : mesh_.regions)
          if (r.name == p.elset || r.name.rfind(p.elset + "/", 0) == 0)
            for (std::int64_t c = 0; c < r.num_cells(); ++c) {
              const auto m = cells.find(r.origin(c).id);
              if (m == cells.end())
                fail(p.where, "*DLOAD loads element " + std::to_string(r.origin(c).id) +
                                  ", which is not in any *SOLID SECTION's set");
              targets.push_back(m->second);
            }
      }
      std::vector<std::pair<Key, std::vector<std::int32_t>>> faces;  // key, the face's nodes
      for (const auto& [r, c] : targets) {
        const auto& table = abaqus_faces(r->shape);
        if (p.face > static_cast<int>(table.size()))
          fail(p.where, fmt::format("element {} has faces P1 .. P{}, not P{}", r->origin(c).id,
                                    table.size(), p.face));
        const std::vector<std::int32_t> corners = face_corners(*r, c, p.face - 1);
        const Key k = key_of(corners);
        if (face_count.at(k) != 1)
          fail(p.where, fmt::format("face P{} of element {} is inside the body (another element "
                                    "shares it): a pressure loads the boundary",
                                    p.face, r->origin(c).id));
        // The face's nodes: its corners and the mid-edge nodes between two of them.
        std::vector<std::int32_t> nodes = corners;
        const std::int32_t* conn = r->connectivity.data() + c * r->nodes_per_cell;
        for (const auto& [a, b, mid] : quadratic_edges(r->shape)) {
          if (mid >= r->nodes_per_cell) continue;
          if (std::count(corners.begin(), corners.end(), conn[a]) &&
              std::count(corners.begin(), corners.end(), conn[b]))
            nodes.push_back(conn[mid]);
        }
        faces.emplace_back(k, std::move(nodes));
      }
      return faces;
    };
    // Each face's definition in each step: lines on one face in a step add up (one amplitude),
    // a later step's replace, and OP=NEW removes the faces a step does not name.
    std::map<Key, std::vector<std::optional<Definition>>> defined;
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      std::map<Key, Definition> step;
      for (const Pressure& p : steps_[k].pressures)
        for (const auto& [key, nodes] : faces_of(p)) {
          auto [it, added] = step.try_emplace(key, Definition{0.0, p.amplitude, p.where});
          if (it->second.amplitude != p.amplitude)
            fail(p.where, "two *DLOADs of one step load this face with different amplitudes",
                 "give a face's pressure one amplitude per step");
          it->second.value += p.value;
        }
      if (steps_[k].dload_new)
        for (auto& [key, d] : defined)
          if (step.count(key) == 0) d[k] = Definition{0.0, {}, *steps_[k].dload_new};
      for (const auto& [key, d] : step)
        defined.try_emplace(key, steps_.size()).first->second[k] = d;
    }
    // One node set per group of faces with the same definitions, in the order of the lines.
    const auto same = [](const std::vector<std::optional<Definition>>& a,
                         const std::vector<std::optional<Definition>>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.has_value() == y.has_value() &&
               (!x || (x->value == y->value && x->amplitude == y->amplitude));
      });
    };
    struct Loaded {
      std::set<Key> faces;
      std::set<std::int32_t> nodes;
    };
    std::vector<Loaded> loaded;
    for (const Step& step : steps_)
      for (const Pressure& p : step.pressures)
        for (const auto& [key, nodes] : faces_of(p)) {
          const std::vector<std::optional<Definition>>& d = defined.at(key);
          auto it = std::find_if(pressure_sets_.begin(), pressure_sets_.end(),
                                 [&](const PressureSet& q) { return same(q.definitions, d); });
          if (it == pressure_sets_.end()) {
            PressureSet q;
            q.name = "pressure_" + std::to_string(pressure_sets_.size() + 1);
            // One step: the face's pressure (its lines summed) and amplitude.
            q.value = d.front() ? d.front()->value : p.value;
            q.amplitude = p.amplitude;
            q.definitions = d;
            q.where = p.where;
            pressure_sets_.push_back(q);
            loaded.emplace_back();
            it = pressure_sets_.end() - 1;
          }
          Loaded& l = loaded[static_cast<std::size_t>(it - pressure_sets_.begin())];
          l.faces.insert(key);
          l.nodes.insert(nodes.begin(), nodes.end());
        }
    for (std::size_t i = 0; i < pressure_sets_.size(); ++i) {
      PressureSet& q = pressure_sets_[i];
      q.nodes.assign(loaded[i].nodes.begin(), loaded[i].nodes.end());
      for (const auto& [k, count] : face_count) {
        if (count != 1 || loaded[i].faces.count(k)) continue;
        const bool inside = std::all_of(k.begin(), k.end(), [&](std::int32_t n) {
          return n < 0 || loaded[i].nodes.count(n) != 0;
        });
        if (inside)
          fail(q.where,
               "the faces this pressure loads leave a boundary face unloaded whose nodes are all "
               "among theirs, and fem selects a pressure's faces by their nodes",
               "give the faces on different sides of that face their own *DLOAD lines with a "
               "pressure that differs (or, if that face should carry the pressure too, load it)");
      }
    }
  }

  std::vector<Prescribed> all_prescribed() const {
    std::vector<Prescribed> all = model_boundaries_;
    for (const Step& s : steps_) {
      all.insert(all.end(), s.boundaries.begin(), s.boundaries.end());
      for (const Force& f : s.forces) all.push_back({f.target, 0, 0.0, true, {}, f.where});
    }
    for (const Velocity& v : velocities_) all.push_back({v.target, 0, 0.0, true, {}, v.where});
    return all;
  }

  void require_node_set(const NodeRef& r, const char* keyword) const {
    if (r.node >= 0 || mesh_.node_sets.count(r.set) != 0) return;
    std::vector<std::string> names;
    for (const auto& [name, ids] : mesh_.node_sets)
      if (name.front() != ' ') names.push_back(name);
    const std::string guess = did_you_mean(r.set, names.data(), names.data() + names.size());
    fail(r.where,
         std::string(keyword) + " names node set '" + r.set + "', which the deck does not define",
         guess.empty() ? "node sets of the deck: " + join(names) : guess);
  }

  // -- writing the case -------------------------------------------------------------------------

  void emit(const std::string& text, FilePos from = FilePos(0)) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = text.find('\n', start);
      const std::string line = text.substr(start, end == std::string::npos ? end : end - start);
      out_.yaml += line + "\n";
      out_.origin.push_back(from.line > 0 ? deck_.at(from) : SourceLocation{path_, 0, 0});
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  /// "  # model.inp:12"
  std::string from(FilePos p) const {
    const SourceLocation l = deck_.at(p);
    return fmt::format("  # {}:{}", fs::path(l.file).filename().string(), l.line);
  }

  /// The first step, whose NLGEOM all steps share (and procedure, but for static steps in an
  /// implicit dynamic analysis).
  const Step& first() const { return steps_.front(); }

  /// The analysis the steps make: implicit_dynamic where any step is (its other steps static),
  /// else the procedure every step has.
  std::string analysis() const {
    const bool dynamic = std::any_of(steps_.begin(), steps_.end(), [](const Step& s) {
      return s.procedure == "implicit_dynamic";
    });
    return dynamic ? "implicit_dynamic" : first().procedure;
  }

  /// Step k's duration (its time period).
  double period(std::size_t k = 0) const {
    const Step& s = steps_[k];
    return s.data.size() >= 2 ? s.data[1] : 1.0;
  }

  /// Step k's initial (DIRECT: fixed) increment.
  double increment(std::size_t k) const {
    return steps_[k].data.empty() ? period(k) : steps_[k].data[0];
  }

  /// The total time at the end of step k.
  double step_end(std::size_t k) const {
    double t = 0.0;
    for (std::size_t i = 0; i <= k; ++i) t += period(i);
    return t;
  }

  /// The default amplitude of step k's conditions: a ramp over the step, or a step at its
  /// start (CalculiX and Abaqus: a ramp in static steps, a step in dynamic ones).
  bool ramp_by_default(std::size_t k = 0) const {
    const Step& s = steps_[k];
    if (s.amplitude_default) return *s.amplitude_default == "RAMP";
    return s.procedure == "static";
  }

  const DeckAmplitude& deck_amplitude(const std::string& name) const {
    return *std::find_if(amplitudes_.begin(), amplitudes_.end(),
                         [&](const DeckAmplitude& a) { return a.name == name; });
  }

  /// The curve in total time of a condition defined in some steps of a deck of several
  /// (`per_step[k]`: its definition in step k, none where the step leaves it as it was), as
  /// CalculiX runs it (measured, 2026-11-29): a step that does not redefine a condition holds
  /// the value the previous step ended with, also where that step followed an amplitude (which
  /// ends with the step); a definition without AMPLITUDE ramps from that value over a static
  /// step and jumps to it at a dynamic step's start (*STEP, AMPLITUDE= chooses); one with
  /// AMPLITUDE follows the curve from the step's start (TIME=STEP TIME) or at the total time.
  /// A jump is a time given twice in the tabular amplitude. Returns (time, value) points.
  std::vector<std::pair<double, double>> timeline(
      const std::vector<std::optional<Definition>>& per_step) const {
    std::vector<std::pair<double, double>> points = {{0.0, 0.0}};
    const auto add = [&](double t, double v) {
      auto& [t_last, v_last] = points.back();
      if (t == t_last && (t == 0.0 || v == v_last)) {
        v_last = v;  // at t = 0 nothing came before: the curve starts there
        return;
      }
      // Three equal values in a row: the middle point says nothing.
      if (points.size() >= 2 && v == v_last && points[points.size() - 2].second == v &&
          points[points.size() - 2].first != t_last)
        points.pop_back();
      points.emplace_back(t, v);
    };
    double held = 0.0;
    for (std::size_t k = 0; k < per_step.size(); ++k) {
      const double t0 = k == 0 ? 0.0 : step_end(k - 1), t1 = step_end(k);
      const std::optional<Definition>& d = per_step[k];
      if (!d) {
        add(t1, held);
        continue;
      }
      if (d->amplitude.empty()) {
        if (!ramp_by_default(k)) add(t0, d->value);
        held = d->value;
        add(t1, held);
        continue;
      }
      const DeckAmplitude& a = deck_amplitude(d->amplitude);
      const double shift = a.total_time ? 0.0 : t0;
      add(t0, d->value * evaluate(a.curve, t0 - shift));
      for (const auto& [t, v] : a.points)
        if (t + shift > t0 && t + shift < t1) add(t + shift, d->value * v);
      held = d->value * evaluate(a.curve, t1 - shift);
      add(t1, held);
    }
    if (points.size() > static_cast<std::size_t>(kMaxAmplitudePoints)) {
      FilePos where;
      for (const std::optional<Definition>& d : per_step)
        if (d) where = d->where;
      fail(where,
           fmt::format("the steps give this condition a curve of {} points; fem's tabular "
                       "amplitudes have at most {}",
                       points.size(), kMaxAmplitudePoints),
           "use amplitudes of fewer points");
    }
    return points;
  }

  static std::string points_text(const std::vector<std::pair<double, double>>& points) {
    std::string text;
    for (const auto& [t, v] : points)
      text += fmt::format("{}[{}, {}]", text.empty() ? "" : ", ", num(t), num(v));
    return text;
  }

  std::string amplitude_key(const std::string& deck_name) const {
    if (!deck_name.empty()) return deck_name == "constant" ? "deck_constant" : deck_name;
    return ramp_by_default() ? kRamp : "constant";
  }
  static constexpr const char* kRamp = "step_ramp";

  void write() {
    const std::string file = fs::path(path_).filename().string();
    emit(fmt::format("# The case fem runs for {} (fem export {} --format yaml).", file, file));
    emit("name: " + yaml_string(fs::path(path_).stem().string()));
    emit("mesh: {file: " + yaml_string(mesh_file_) +
         "}  # *NODE, *ELEMENT, *NSET and *ELSET of the deck");
    write_materials();
    write_blocks();
    write_node_sets();
    if (steps_.size() == 1) {
      write_amplitudes();
      write_conditions();
    } else {
      write_stepped_conditions();
    }
    write_solver();
    write_output();
  }

  /// Whether a step is geometrically nonlinear: NLGEOM as given (or inherited from the step
  /// before), else the procedure's default (explicit steps are).
  static bool nlgeom(const Step& s) {
    return s.nlgeom_given ? s.nlgeom : s.procedure == "explicit";
  }
  bool nlgeom() const { return nlgeom(first()); }

  void write_materials() {
    emit("materials:");
    std::set<std::string> used;
    for (const Section& s : sections_) used.insert(s.material);
    for (const Material& m : materials_) {
      if (used.count(m.name) == 0) continue;
      if (!m.density && analysis() != "static")
        fail(m.where, "material '" + m.shown + "' has no *DENSITY",
             "a dynamic step needs the density: add *DENSITY under the *MATERIAL");
      if (m.law.empty())
        fail(m.where, "material '" + m.shown + "' has no *ELASTIC or *HYPERELASTIC",
             "fem needs an elastic law for every material");
      if (!m.prony.empty() && m.law != "neo hooke" && m.law != "mooney-rivlin")
        fail(m.prony_where,
             "*VISCOELASTIC of material '" + m.shown + "' goes with *" +
                 (m.law.rfind("elastic", 0) == 0 ? std::string("ELASTIC")
                                                 : "HYPERELASTIC, " + upper(m.law)) +
                 ", which fem's viscoelastic law does not relax",
             "fem relaxes *HYPERELASTIC, NEO HOOKE and MOONEY-RIVLIN (Prony series on the "
             "isochoric stress)");
      std::string law;
      const std::vector<double>& v = m.values;
      if (m.law == "elastic") {
        // CalculiX: *ELASTIC with NLGEOM is linear between the second Piola-Kirchhoff stress
        // and the Green-Lagrange strain (St. Venant-Kirchhoff); without, small strain.
        law = fmt::format("type: {}, youngs_modulus: {}, poisson_ratio: {}",
                          nlgeom() ? "saint_venant_kirchhoff" : "linear_elastic", num(v[0]),
                          num(v[1]));
      } else if (m.law.rfind("elastic_", 0) == 0) {
        if (nlgeom())
          fail(m.law_where,
               "material '" + m.shown +
                   "': anisotropic *ELASTIC with NLGEOM is "
                   "not supported",
               "fem's anisotropic law is small-strain: run the step without NLGEOM");
        law = "type: linear_elastic_anisotropic" + anisotropic(m);
      } else {
        law = m.prony.empty() ? hyperelastic(m) : viscoelastic_law(m);
        if (first().nlgeom_given && !first().nlgeom)
          note(m.law_where, "material '" + m.shown +
                                "' is hyperelastic: fem runs it with "
                                "nonlinear geometry although the step says NLGEOM=NO");
      }
      const std::string density = m.density ? ", density: " + num(*m.density) : "";
      emit(fmt::format("  {}: {{{}{}}}{}", yaml_string(m.name), law, density, from(m.law_where)),
           m.law_where);
    }
  }

  /// A material's D (1/D = K/2) as fem's bulk modulus: D = 0 is incompressible, which fem's
  /// compressible laws cannot run.
  double bulk_from_d(const Material& m, double d) const {
    if (!(d > 0))
      fail(m.law_where, "material '" + m.shown + "' is incompressible (D1 = 0)",
           "fem's hyperelastic laws are compressible: give D1 > 0 (bulk modulus K = 2 / D1; "
           "K / mu of 100 to 1000 is nearly incompressible)");
    return 2.0 / d;
  }

  /// NEO HOOKE or MOONEY-RIVLIN with its Prony series: fem's viscoelastic law (Mooney-Rivlin
  /// base, c01 = 0 for NEO HOOKE; g_i and tau_i in Abaqus's meaning).
  std::string viscoelastic_law(const Material& m) const {
    const std::vector<double>& v = m.values;
    const bool neo_hooke = m.law == "neo hooke";
    const double d1 = neo_hooke ? v[1] : v[2];
    bulk_from_d(m, d1);
    std::string law = fmt::format("type: viscoelastic, c10: {}, c01: {}, d1: {}", num(v[0]),
                                  num(neo_hooke ? 0.0 : v[1]), num(d1));
    for (std::size_t i = 0; 3 * i < m.prony.size(); ++i)
      law += fmt::format(", g{}: {}, tau{}: {}", i + 1, num(m.prony[3 * i]), i + 1,
                         num(m.prony[3 * i + 2]));
    return law;
  }

  std::string hyperelastic(const Material& m) const {
    const std::vector<double>& v = m.values;
    if (m.law == "neo hooke")
      return fmt::format("type: neo_hookean, shear_modulus: {}, bulk_modulus: {}", num(2 * v[0]),
                         num(bulk_from_d(m, v[1])));
    if (m.law == "mooney-rivlin") {
      bulk_from_d(m, v[2]);
      return fmt::format("type: mooney_rivlin, c10: {}, c01: {}, d1: {}", num(v[0]), num(v[1]),
                         num(v[2]));
    }
    const int n = m.order;
    std::string law;
    if (m.law == "ogden") {
      law = "type: ogden";
      for (int i = 0; i < n; ++i)
        law +=
            fmt::format(", mu{}: {}, alpha{}: {}", i + 1, num(v[2 * i]), i + 1, num(v[2 * i + 1]));
      for (int i = 0; i < n; ++i) law += fmt::format(", d{}: {}", i + 1, num(v[2 * n + i]));
    } else {
      law = "type: reduced_polynomial";
      for (int i = 0; i < n; ++i) law += fmt::format(", c{}0: {}", i + 1, num(v[i]));
      for (int i = 0; i < n; ++i) law += fmt::format(", d{}: {}", i + 1, num(v[n + i]));
    }
    bulk_from_d(m, v[v.size() - static_cast<std::size_t>(n)]);
    return law;
  }

  /// The 6x6 stiffness of an *ELASTIC, TYPE=ANISOTROPIC | ORTHOTROPIC | ENGINEERING CONSTANTS,
  /// as fem's c11..c66 (Voigt order 11, 22, 33, 23, 13, 12; Abaqus orders 11, 22, 33, 12, 13, 23).
  std::string anisotropic(const Material& m) const {
    const std::vector<double>& v = m.values;
    Eigen::Matrix<double, 6, 6> D = Eigen::Matrix<double, 6, 6>::Zero();  // Abaqus order
    if (m.law == "elastic_anisotropic") {
      // D1111, D1122, D2222, D1133, D2233, D3333, D1112, ..., D2323: the upper triangle by
      // columns.
      int k = 0;
      for (int j = 0; j < 6; ++j)
        for (int i = 0; i <= j; ++i) D(i, j) = D(j, i) = v[static_cast<std::size_t>(k++)];
    } else if (m.law == "elastic_orthotropic") {
      // D1111, D1122, D2222, D1133, D2233, D3333, D1212, D1313, D2323
      D(0, 0) = v[0];
      D(0, 1) = D(1, 0) = v[1];
      D(1, 1) = v[2];
      D(0, 2) = D(2, 0) = v[3];
      D(1, 2) = D(2, 1) = v[4];
      D(2, 2) = v[5];
      D(3, 3) = v[6];
      D(4, 4) = v[7];
      D(5, 5) = v[8];
    } else {
      // E1, E2, E3, nu12, nu13, nu23, G12, G13, G23: the compliance, inverted.
      const double E1 = v[0], E2 = v[1], E3 = v[2], nu12 = v[3], nu13 = v[4], nu23 = v[5];
      Eigen::Matrix<double, 6, 6> S = Eigen::Matrix<double, 6, 6>::Zero();
      S(0, 0) = 1 / E1;
      S(1, 1) = 1 / E2;
      S(2, 2) = 1 / E3;
      S(0, 1) = S(1, 0) = -nu12 / E1;
      S(0, 2) = S(2, 0) = -nu13 / E1;
      S(1, 2) = S(2, 1) = -nu23 / E2;
      S(3, 3) = 1 / v[6];
      S(4, 4) = 1 / v[7];
      S(5, 5) = 1 / v[8];
      for (const std::size_t i : {0, 1, 2, 6, 7, 8})
        if (!(v[i] > 0))
          fail(m.law_where, "material '" + m.shown +
                                "': the moduli E1, E2, E3, G12, G13 and "
                                "G23 must be positive, got " +
                                num(v[i]));
      D = S.inverse();
    }
    // Abaqus index -> fem index: 11 22 33 12 13 23 -> 11 22 33 23 13 12.
    const int to_fem[6] = {0, 1, 2, 5, 4, 3};
    std::string out;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        const int a = to_fem[i], b = to_fem[j];
        if (a > b || D(i, j) == 0.0) continue;
        out += fmt::format(", c{}{}: {}", a + 1, b + 1, num(D(i, j)));
      }
    return out;
  }

  void write_blocks() {
    emit("blocks:");
    for (const Section& s : sections_) {
      const std::set<std::string>& types = set_types_.at(s.elset);
      std::set<std::string> shapes;
      for (const std::string& t : types) {
        if (!fem_element(t))
          fail(s.where,
               "element set '" + s.elset + "' holds elements of type " + t +
                   ", which fem does not run",
               kElementHint);
        shapes.insert(fem_element(t)->shape);
      }
      if (shapes.size() < types.size())
        fail(s.where,
             "element set '" + s.elset + "' mixes " + join({types.begin(), types.end()}) +
                 ", cells of one shape run by different elements",
             "put each element type in an element set of its own, with a *SOLID SECTION each");
      bool found = false;
      for (const Material& m : materials_) found = found || m.name == s.material;
      if (!found) {
        std::vector<std::string> names;
        for (const Material& m : materials_) names.push_back(m.name);
        const std::string guess =
            did_you_mean(s.material, names.data(), names.data() + names.size());
        fail(s.where,
             "*SOLID SECTION names material '" + s.material + "', which the deck does not define",
             guess.empty() ? "define it with *MATERIAL, NAME=" + s.material : guess);
      }
      for (const std::string& t : types) {
        const std::string region =
            types.size() == 1 ? s.elset : s.elset + "/" + fem_element(t)->shape;
        const std::string name = types.size() == 1 ? s.elset : region;
        emit(fmt::format("  - {{name: {}, region: {}, element: {}, material: {}}}{} {}",
                         yaml_string(name), yaml_string(region), fem_element(t)->element,
                         yaml_string(s.material), from(s.where), t),
             s.where);
      }
    }
  }

  void write_node_sets() {
    if (node_sets_.empty() && pressure_sets_.empty()) return;
    emit("node_sets:  # nodes the deck names by number (0-based ids in the mesh's node order)");
    for (const auto& [node, set] : node_sets_)
      emit(fmt::format("  {}: {{ids: [{}]}}  # node {}", set, node_index_.at(node), node));
    for (const PressureSet& q : pressure_sets_)
      emit(fmt::format("  {}: {{ids: [{}]}}{}: the nodes of the faces *DLOAD loads", q.name,
                       fmt::join(q.nodes, ", "), from(q.where)),
           q.where);
  }

  // -- a deck of several steps: each condition's curve over the steps ---------------------------

  /// Each condition's definitions in the steps, by (set, component).
  using StepDefinitions =
      std::map<std::pair<std::string, int>, std::vector<std::optional<Definition>>>;

  /// The prescribed displacements of a deck of several steps, by (set, component): the model
  /// data's and the first step's hold for the whole run; later steps change their values.
  std::vector<SteppedCondition> stepped_boundaries() const {
    StepDefinitions defined;
    std::vector<std::pair<std::string, int>> order;
    const auto define = [&](const Prescribed& p, std::size_t k) {
      require_node_set(p.target, "*BOUNDARY");
      const auto key = std::make_pair(p.target.set, p.component);
      auto [it, added] = defined.try_emplace(key, steps_.size());
      if (added) {
        if (k > 0)
          fail(p.where,
               fmt::format("*BOUNDARY in step {} holds {} of set '{}', which the earlier steps "
                           "left free: fem's supports hold for the whole run",
                           k + 1, axis(p.component), p.target.set),
               "prescribe it from the first step on (its value may change later)");
        order.push_back(key);
      }
      it->second[k] = Definition{p.fixed ? 0.0 : p.value, p.fixed ? "" : p.amplitude, p.where};
    };
    for (const Prescribed& p : model_boundaries_) define(p, 0);
    for (std::size_t k = 0; k < steps_.size(); ++k)
      for (const Prescribed& p : steps_[k].boundaries) define(p, k);
    return stepped("displacement", defined, order);
  }

  /// The conditions of `order` (set, component) with their curves, named <kind>_<set>_<axis>.
  std::vector<SteppedCondition> stepped(
      const char* kind, const StepDefinitions& defined,
      const std::vector<std::pair<std::string, int>>& order) const {
    std::vector<SteppedCondition> out;
    for (const auto& key : order) {
      const std::vector<std::optional<Definition>>& d = defined.at(key);
      FilePos where;
      for (const auto& x : d)
        if (x && where.line == 0) where = x->where;
      out.push_back({key.first, key.second,
                     fmt::format("{}_{}_{}", kind, key.first, axis(key.second)), timeline(d),
                     where});
    }
    return out;
  }

  /// The *CLOADs of a deck of several steps by (set, component): a step's lines on one set and
  /// dof add up and replace the earlier steps' value; OP=NEW removes the loads it does not
  /// name.
  std::vector<SteppedCondition> stepped_loads() const {
    StepDefinitions defined;
    std::vector<std::pair<std::string, int>> order;
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      std::map<std::pair<std::string, int>, Definition> step;
      for (const Force& f : steps_[k].forces) {
        require_node_set(f.target, "*CLOAD");
        const auto key = std::make_pair(f.target.set, f.component);
        auto [it, added] = step.try_emplace(key, Definition{0.0, f.amplitude, f.where});
        if (it->second.amplitude != f.amplitude)
          fail(f.where, "two *CLOADs of one step load this set and dof with different amplitudes",
               "in a deck of several steps give a set's load one amplitude per step");
        it->second.value += f.value;  // Abaqus adds loads on the same dof
      }
      if (steps_[k].cload_new)
        for (auto& [key, d] : defined)
          if (step.count(key) == 0) d[k] = Definition{0.0, {}, *steps_[k].cload_new};
      for (const auto& [key, d] : step) {
        auto [it, added] = defined.try_emplace(key, steps_.size());
        if (added) order.push_back(key);
        it->second[k] = d;
      }
    }
    return stepped("load", defined, order);
  }

  void write_stepped_conditions() {
    const std::vector<SteppedCondition> boundaries = stepped_boundaries();
    const std::vector<SteppedCondition> loads = stepped_loads();
    // Gravity: one direction, its size a curve over the steps (component: unused).
    std::optional<SteppedCondition> gravity;
    std::array<double, 3> g_direction = {0, 0, 0};
    {
      std::vector<std::optional<Definition>> d(steps_.size());
      for (std::size_t k = 0; k < steps_.size(); ++k) {
        const Gravity* g = uniform_gravity(steps_[k].gravities);
        if (!g) {
          if (steps_[k].dload_new && gravity) d[k] = Definition{0.0, {}, *steps_[k].dload_new};
          continue;
        }
        if (!gravity) {
          gravity = SteppedCondition{{}, 0, "gravity", {}, g->where};
          g_direction = g->acceleration;
        }
        const double gg = g_direction[0] * g_direction[0] + g_direction[1] * g_direction[1] +
                          g_direction[2] * g_direction[2];
        const double factor =
            (g->acceleration[0] * g_direction[0] + g->acceleration[1] * g_direction[1] +
             g->acceleration[2] * g_direction[2]) /
            gg;
        for (int c = 0; c < 3; ++c)
          if (std::abs(g->acceleration[c] - factor * g_direction[c]) > 1e-12 * std::sqrt(gg))
            fail(g->where, fmt::format("*DLOAD GRAV of step {} turns the gravity of step 1", k + 1),
                 "fem's gravity keeps its direction over the steps: change its size only");
        d[k] = Definition{factor, g->amplitude, g->where};
      }
      if (gravity) gravity->points = timeline(d);
    }
    // Pressures: each group of faces with its curve in pascals.
    std::vector<SteppedCondition> pressures;
    for (const PressureSet& q : pressure_sets_)
      pressures.push_back({q.name, 0, q.name, timeline(q.definitions), q.where});

    emit("amplitudes:  # each condition's curve over the deck's steps (total time)");
    using Conditions = const std::vector<SteppedCondition>*;
    for (const Conditions list : std::initializer_list<Conditions>{&boundaries, &loads, &pressures})
      for (const SteppedCondition& c : *list)
        if (list != &boundaries || !all_zero(c))
          emit(fmt::format("  {}: {{type: tabular, points: [{}]}}{}", yaml_string(c.curve),
                           points_text(c.points), from(c.where)),
               c.where);
    if (gravity)
      emit(fmt::format("  gravity: {{type: tabular, points: [{}]}}{}", points_text(gravity->points),
                       from(gravity->where)),
           gravity->where);

    if (!boundaries.empty()) emit("boundary_conditions:");
    // Supports held at zero throughout: a set's axes on one line.
    std::vector<std::pair<const SteppedCondition*, std::string>> fixed;
    for (const SteppedCondition& c : boundaries) {
      if (!all_zero(c)) continue;
      auto it = std::find_if(fixed.begin(), fixed.end(),
                             [&](const auto& f) { return f.first->set == c.set; });
      if (it == fixed.end())
        fixed.emplace_back(&c, axis(c.component));
      else
        it->second += std::string(", ") + axis(c.component);
    }
    for (const auto& [c, axes] : fixed)
      emit(fmt::format("  - {{set: {}, fixed: [{}]}}{}", yaml_string(c->set), axes, from(c->where)),
           c->where);
    for (const SteppedCondition& c : boundaries)
      if (!all_zero(c))
        emit(
            fmt::format("  - {{set: {}, displacement: {{{}: 1}}, amplitude: {}}}{}",
                        yaml_string(c.set), axis(c.component), yaml_string(c.curve), from(c.where)),
            c.where);
    if (!loads.empty() || !pressures.empty()) emit("loads:");
    for (const SteppedCondition& c : loads) {
      std::array<int, 3> unit = {0, 0, 0};
      unit[static_cast<std::size_t>(c.component)] = 1;
      emit(fmt::format("  - {{set: {}, force: [{}, {}, {}], amplitude: {}}}{}", yaml_string(c.set),
                       unit[0], unit[1], unit[2], yaml_string(c.curve), from(c.where)),
           c.where);
    }
    for (std::size_t i = 0; i < pressures.size(); ++i)
      emit(fmt::format("  - {{set: {}, pressure: 1, follower: {}, amplitude: {}}}{}",
                       pressure_sets_[i].name, nlgeom() ? "true" : "false",
                       yaml_string(pressures[i].curve), from(pressures[i].where)),
           pressures[i].where);
    if (gravity)
      emit(fmt::format("gravity: {{acceleration: [{}, {}, {}], amplitude: gravity}}{}",
                       num(g_direction[0]), num(g_direction[1]), num(g_direction[2]),
                       from(gravity->where)),
           gravity->where);
    write_velocities();
  }

  static bool all_zero(const SteppedCondition& c) {
    return std::all_of(c.points.begin(), c.points.end(),
                       [](const auto& p) { return p.second == 0.0; });
  }

  void write_amplitudes() {
    const bool ramp = ramp_by_default();
    if (amplitudes_.empty() && !ramp) return;
    emit("amplitudes:");
    if (ramp)
      emit(fmt::format("  {}: {{type: linear, start: 0, end: {}}}  # conditions without "
                       "AMPLITUDE ramp over the step",
                       kRamp, num(period())),
           first().where);
    for (const DeckAmplitude& a : amplitudes_) {
      std::string points;
      for (const auto& [t, v] : a.points)
        points += fmt::format("{}[{}, {}]", points.empty() ? "" : ", ", num(t), num(v));
      emit(fmt::format("  {}: {{type: tabular, points: [{}]}}{}",
                       yaml_string(amplitude_key(a.name)), points, from(a.where)),
           a.where);
    }
  }

  static const char* axis(int c) { return c == 0 ? "x" : c == 1 ? "y" : "z"; }

  void write_conditions() {
    const Step& s = first();
    // Boundary conditions: a later line on the same set and component replaces an earlier one
    // (Abaqus: the last definition holds); model data first, then the step's.
    std::vector<Prescribed> all = model_boundaries_;
    all.insert(all.end(), s.boundaries.begin(), s.boundaries.end());
    std::map<std::pair<std::string, int>, Prescribed> last;
    std::vector<std::pair<std::string, int>> order;
    for (const Prescribed& p : all) {
      require_node_set(p.target, "*BOUNDARY");
      const auto key = std::make_pair(p.target.set, p.component);
      if (last.count(key) == 0) order.push_back(key);
      last[key] = p;
    }
    // One item per (set, amplitude, fixed-or-value) group, components together.
    struct Item {
      std::string set, amplitude;
      bool fixed;
      std::array<bool, 3> on = {false, false, false};
      std::array<double, 3> value = {0, 0, 0};
      FilePos where;
    };
    std::vector<Item> items;
    for (const auto& key : order) {
      const Prescribed& p = last.at(key);
      const bool fixed = p.fixed || p.value == 0.0;
      const std::string amp = fixed ? "" : amplitude_key(p.amplitude);
      auto it = std::find_if(items.begin(), items.end(), [&](const Item& i) {
        return i.set == p.target.set && i.amplitude == amp && i.fixed == fixed;
      });
      if (it == items.end()) {
        items.push_back({p.target.set, amp, fixed, {}, {}, p.where});
        it = items.end() - 1;
      }
      it->on[p.component] = true;
      it->value[p.component] = p.value;
    }
    if (!items.empty()) emit("boundary_conditions:");
    for (const Item& i : items) {
      std::string comps;
      for (int c = 0; c < 3; ++c)
        if (i.on[c])
          comps += fmt::format("{}{}", comps.empty() ? "" : ", ",
                               i.fixed ? axis(c) : fmt::format("{}: {}", axis(c), num(i.value[c])));
      if (i.fixed)
        emit(
            fmt::format("  - {{set: {}, fixed: [{}]}}{}", yaml_string(i.set), comps, from(i.where)),
            i.where);
      else
        emit(fmt::format("  - {{set: {}, displacement: {{{}}}, amplitude: {}}}{}",
                         yaml_string(i.set), comps, yaml_string(i.amplitude), from(i.where)),
             i.where);
    }
    write_loads();
    write_gravity();
    write_velocities();
  }

  void write_loads() {
    const Step& s = first();
    struct Item {
      std::string set, amplitude;
      std::array<double, 3> force = {0, 0, 0};
      FilePos where;
    };
    std::vector<Item> items;
    for (const Force& f : s.forces) {
      require_node_set(f.target, "*CLOAD");
      const std::string amp = amplitude_key(f.amplitude);
      auto it = std::find_if(items.begin(), items.end(), [&](const Item& i) {
        return i.set == f.target.set && i.amplitude == amp;
      });
      if (it == items.end()) {
        items.push_back({f.target.set, amp, {}, f.where});
        it = items.end() - 1;
      }
      it->force[f.component] += f.value;  // Abaqus adds loads on the same dof
    }
    if (!items.empty() || !pressure_sets_.empty()) emit("loads:");
    for (const Item& i : items)
      emit(fmt::format("  - {{set: {}, force: [{}, {}, {}], amplitude: {}}}{}", yaml_string(i.set),
                       num(i.force[0]), num(i.force[1]), num(i.force[2]), yaml_string(i.amplitude),
                       from(i.where)),
           i.where);
    // As Abaqus and CalculiX: on the deformed surface in a geometrically nonlinear step.
    for (const PressureSet& q : pressure_sets_)
      emit(fmt::format("  - {{set: {}, pressure: {}, follower: {}, amplitude: {}}}{}", q.name,
                       num(q.value), nlgeom() ? "true" : "false",
                       yaml_string(amplitude_key(q.amplitude)), from(q.where)),
           q.where);
  }

  /// A step's gravity, the same on every element, or refused: fem's gravity acts on the whole
  /// model. Null where the step has none.
  const Gravity* uniform_gravity(const std::vector<Gravity>& gravities) const {
    if (gravities.empty()) return nullptr;
    const Gravity& g = gravities.front();
    std::set<std::int64_t> loaded;
    for (const Gravity& other : gravities) {
      if (other.acceleration != g.acceleration || other.amplitude != g.amplitude)
        fail(other.where, "*DLOAD GRAV differs between element sets",
             "fem applies one gravity to the whole model: give the same GRAV to every set");
      if (set_types_.count(other.elset) == 0)
        fail(other.where, "*DLOAD names element set '" + other.elset +
                              "', which holds no "
                              "elements");
      for (const CellRegion& r : mesh_.regions)
        if (r.name == other.elset || r.name.rfind(other.elset + "/", 0) == 0)
          for (std::int64_t c = 0; c < r.num_cells(); ++c) loaded.insert(r.origin(c).id);
    }
    for (const Section& sec : sections_)
      for (const CellRegion& r : mesh_.regions)
        if (r.name == sec.elset || r.name.rfind(sec.elset + "/", 0) == 0)
          for (std::int64_t c = 0; c < r.num_cells(); ++c)
            if (loaded.count(r.origin(c).id) == 0)
              fail(g.where,
                   "*DLOAD GRAV leaves element " + std::to_string(r.origin(c).id) + " (set '" +
                       sec.elset + "') without gravity",
                   "fem applies gravity to the whole model: name every element's set (or one "
                   "set of all elements)");
    return &g;
  }

  void write_gravity() {
    const Gravity* found = uniform_gravity(first().gravities);
    if (!found) return;
    const Gravity& g = *found;
    emit(fmt::format("gravity: {{acceleration: [{}, {}, {}], amplitude: {}}}{}",
                     num(g.acceleration[0]), num(g.acceleration[1]), num(g.acceleration[2]),
                     yaml_string(amplitude_key(g.amplitude)), from(g.where)),
         g.where);
  }

  void write_velocities() {
    if (velocities_.empty()) return;
    if (first().procedure == "static")
      fail(velocities_.front().where,
           analysis() == "static"
               ? "*INITIAL CONDITIONS, TYPE=VELOCITY in a static analysis"
               : "*INITIAL CONDITIONS, TYPE=VELOCITY with a first step that is *STATIC: a static "
                 "step has no velocity",
           "initial velocities need a first step that is *DYNAMIC");
    std::vector<std::pair<std::string, std::array<double, 3>>> sets;
    std::vector<FilePos> where;
    for (const Velocity& v : velocities_) {
      require_node_set(v.target, "*INITIAL CONDITIONS");
      auto it = std::find_if(sets.begin(), sets.end(),
                             [&](const auto& s) { return s.first == v.target.set; });
      if (it == sets.end()) {
        sets.push_back({v.target.set, {0, 0, 0}});
        where.push_back(v.where);
        it = sets.end() - 1;
      }
      it->second[v.component] = v.value;
    }
    emit("initial_conditions:");
    for (std::size_t i = 0; i < sets.size(); ++i)
      emit(fmt::format("  - {{set: {}, velocity: [{}, {}, {}]}}{}", yaml_string(sets[i].first),
                       num(sets[i].second[0]), num(sets[i].second[1]), num(sets[i].second[2]),
                       from(where[i])),
           where[i]);
  }

  /// Step k's *STATIC increments as the case gives them: a count (DIRECT) or the automatic
  /// controller's fractions of the step.
  std::string static_increments(std::size_t k) const {
    const Step& s = steps_[k];
    const double T = period(k), first_increment = increment(k);
    if (s.direct) {
      const double count = T / first_increment;
      const double rounded = std::round(count);
      if (std::abs(count - rounded) > 1e-9 * count)
        fail(s.procedure_where,
             "*STATIC, DIRECT: the step (" + num(T) + ") is not a whole number of " +
                 "increments of " + num(first_increment),
             "give an increment that divides the step");
      return fmt::format("{}", rounded);
    }
    const double minimum = s.data.size() >= 3 ? s.data[2] / T : 1e-5;
    const double maximum = s.data.size() >= 4 ? s.data[3] / T : 1.0;
    return fmt::format("{{initial: {}, minimum: {}, maximum: {}}}", num(first_increment / T),
                       num(std::min(minimum, first_increment / T)),
                       num(std::max(maximum, first_increment / T)));
  }

  void write_solver() {
    const Step& s = first();
    for (std::size_t k = 0; k < steps_.size(); ++k)
      if (increment(k) > period(k) * (1 + 1e-12))
        fail(steps_[k].procedure_where, "the initial increment " + num(increment(k)) +
                                            " is longer than the step (" + num(period(k)) + ")");
    const FilePos at = s.procedure_where;
    const bool stepped = steps_.size() > 1;
    // A deck of several steps: one analysis in steps, each with its own increments.
    const auto write_steps = [&](bool dynamic) {
      emit("  steps:  # the deck's *STEPs (end_time: the total time at the step's end)", at);
      for (std::size_t k = 0; k < steps_.size(); ++k) {
        const bool static_step = steps_[k].procedure == "static";
        emit(fmt::format("    - {{{}end_time: {}, {}}}{}",
                         dynamic && static_step ? "type: static, " : "", num(step_end(k)),
                         static_step ? "increments: " + static_increments(k)
                                     : "time_step: " + num(increment(k)),
                         from(steps_[k].procedure_where)),
             steps_[k].procedure_where);
      }
    };
    emit("solver:" + from(at), at);
    const std::string procedure = analysis();
    if (procedure == "static") {
      emit("  type: static", at);
      if (stepped) {
        write_steps(false);
      } else {
        emit("  end_time: " + num(period()), at);
        emit("  increments: " + static_increments(0) +
                 (s.direct ? "  # DIRECT: fixed increments" : ""),
             at);
      }
      // Fixed increments keep the tangent while it converges, as dynamic steps do (the 16^3
      // barrelling deck: 2.6x faster); automatic ones grow after few Newton iterations, which
      // modified Newton spends more of, so they keep full Newton.
      const bool direct =
          std::all_of(steps_.begin(), steps_.end(), [](const Step& step) { return step.direct; });
      const bool setup_costs = write_linear_solver(at);
      emit(std::string("  newton: {residual_tolerance: 1.0e-8") +
               (direct && setup_costs ? ", method: modified}" : "}"),
           at);
    } else if (procedure == "implicit_dynamic") {
      emit("  type: implicit_dynamic", at);
      if (stepped) {
        write_steps(true);
      } else {
        emit("  end_time: " + num(period()), at);
        emit("  time_step: " + num(increment(0)) + "  # fixed: the initial increment", at);
      }
      // CalculiX and Abaqus integrate by HHT-alpha, alpha = -0.05 unless given.
      emit("  integrator: hht", at);
      const Step& dynamic = *std::find_if(steps_.begin(), steps_.end(), [](const Step& step) {
        return step.procedure == "implicit_dynamic";
      });
      emit("  alpha: " + num(dynamic.alpha.value_or(-0.05)), at);
      // Within a step the tangent changes little (its mass term dominates), and with a
      // factorisation or an AMG setup it is most of an iteration's cost: kept while it converges
      // (the 16^3 cube deck: 2-3x faster, the same plate force to 1e-11).
      if (write_linear_solver(at))
        emit("  newton: {method: modified}  # the tangent kept while it halves the residual", at);
    } else {
      emit("  type: explicit", at);
      emit("  end_time: " + num(step_end(steps_.size() - 1)) +
               (stepped ? "  # the deck's steps one after the other" : ""),
           at);
      if (s.direct)
        emit("  time_step: " + num(increment(0)) + "  # DIRECT: the given increment", at);
    }
  }

  /// A deck's mesh is unstructured, and the decks users bring are often small: a sparse
  /// Cholesky factorisation (CHOLMOD) up to 60,000 unknowns, where it is the fastest (the 8^3
  /// barrelling deck, 2,196 unknowns: 1.9 s against AMG's 3.0 s and Jacobi-CG's 8.5 s on the
  /// 2-core machine), algebraic multigrid (hypre) above, Jacobi without either library. Whether
  /// the choice has a costly setup (a factorisation, AMG), which modified Newton saves.
  bool write_linear_solver(FilePos at) {
    const LinearSolverLibraries libraries = linear_solver_libraries();
    const std::int64_t unknowns = 3 * mesh_.num_nodes();
    if (unknowns <= 60000 && !libraries.cholmod.empty()) {
      emit(fmt::format("  linear: {{solver: direct}}  # CHOLMOD: {} unknowns at most", unknowns),
           at);
      return true;
    }
    if (!libraries.hypre.empty()) {
      emit("  linear: {preconditioner: amg}  # hypre BoomerAMG on the assembled tangent", at);
      return true;
    }
    return false;
  }

  void write_output() {
    const OutputRequests& s = output_;
    emit("output:");
    if (!s.frames) {
      emit("  vtk: false  # no *NODE FILE or *EL FILE request");
      note(s.el_print.value_or(steps_.front().where),
           s.el_print ? "*EL PRINT's element values are not written: fem records element "
                        "histories of a *SOLID SECTION's element set only, and the step "
                        "requests no *EL FILE frames to hold them"
                      : "the step requests no *NODE FILE or *EL FILE output: no VTK frames");
    } else {
      std::set<std::string> all = s.fields;
      all.insert(s.printed_fields.begin(), s.printed_fields.end());
      if (s.el_print)
        note(*s.el_print,
             "*EL PRINT's element values are written to the VTK frames (fem records element "
             "histories of a *SOLID SECTION's element set only)");
      std::vector<std::string> fields(all.begin(), all.end());
      emit("  fields: [" + join(fields) + "]");
      emit(fmt::format("  every_steps: {}", std::max(1, s.field_every)));
    }
    if (s.histories.empty()) return;
    emit("  calculix_dat: true  # the *NODE PRINT and *EL PRINT tables also in <name>.dat");
    emit("  histories:");
    for (const PrintedHistory& h : s.histories) {
      std::vector<std::string> q(h.quantities.begin(), h.quantities.end());
      if (h.of_elements) {
        // Named after the set, unless a node history of a set of that name takes the name.
        const bool taken = std::any_of(s.histories.begin(), s.histories.end(), [&](const auto& o) {
          return !o.of_elements && o.set == h.set;
        });
        emit(fmt::format("    - {{name: {}, region: {}, quantities: [{}], every_steps: {}}}{}",
                         yaml_string(taken ? h.set + "_elements" : h.set), yaml_string(h.set),
                         join(q), h.every, from(h.where)),
             h.where);
        continue;
      }
      require_node_set({h.set, -1, h.where}, "*NODE PRINT");
      emit(fmt::format("    - {{name: {}, set: {}, quantities: [{}], every_steps: {}}}{}",
                       yaml_string(h.set), yaml_string(h.set), join(q), h.every, from(h.where)),
           h.where);
    }
  }
};

}  // namespace

bool is_abaqus_deck(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  return ext == ".inp";
}

DeckTranslation translate_abaqus_deck(const std::string& path, const std::string& mesh_file) {
  return DeckTranslator(path, mesh_file).translate();
}

CaseSpec load_abaqus_deck(const std::string& path, const std::vector<CaseOverride>& overrides) {
  const DeckTranslation t = translate_abaqus_deck(path);
  for (const std::string& n : t.notes) spdlog::info("{}", n);
  return parse_translated_case(t.yaml, path, t.origin, overrides);
}

}  // namespace fem
