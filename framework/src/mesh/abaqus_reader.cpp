// Abaqus .inp reader: *NODE, *ELEMENT (C3D4, C3D8, C3D8R, C3D10, C3D20, C3D20R and their H/I/M
// variants),
// *NSET, *ELSET (lists, set names, GENERATE) and *INCLUDE. Keywords and parameters are
// case-insensitive; '**' starts a comment; a data line ending in a comma continues on the next.
// Element sets of volume elements become regions, element sets of surface and line elements
// (what Gmsh writes for its physical surfaces) node sets, and node sets node sets. A deck with no
// volume elements is a plane mesh: its plane-strain and plane-stress triangles and quadrilaterals
// (CPE3, CPS4R, ...) are the cells, and their element sets the regions. Set names are
// case-insensitive in Abaqus, so fem knows them in lower case. Abaqus numbers the nodes of C3D4,
// C3D8, C3D10 and C3D20 as VTK does (corners of one face, then the opposite face; edge midpoints in
// VTK's order), and those of CPE3 and CPE4 round the cell as VTK does, so connectivity is taken as
// it stands.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "abaqus_deck.hpp"
#include "fem/mesh/readers.hpp"
#include "mesh_builder.hpp"
#include "parsers.hpp"
#include "read_file.hpp"

namespace fem {

namespace {

using detail::DeckKeyword;
using detail::DeckLine;
using detail::DeckLines;
using detail::FilePos;
using detail::lower;
using detail::split_commas;

struct ElementKind {
  const char* type;
  int nodes;
  /// fem reads it as a cell: volume elements always, plane ones when the deck has no volume
  /// elements (MeshBuilder::finish() chooses). The formulation (plane strain or stress, reduced
  /// integration, hybrid) is the case's blocks' to choose; the deck gives topology.
  bool cell;
  CellShape shape;
};

// Volume and plane elements fem runs, and the surface / line elements whose nodes are read for
// node sets.
constexpr ElementKind kKinds[] = {
    {"c3d4", 4, true, CellShape::Tet4},      {"c3d4h", 4, true, CellShape::Tet4},
    {"c3d8", 8, true, CellShape::Hex8},      {"c3d8r", 8, true, CellShape::Hex8},
    {"c3d8h", 8, true, CellShape::Hex8},     {"c3d8rh", 8, true, CellShape::Hex8},
    {"c3d8i", 8, true, CellShape::Hex8},     {"c3d10", 10, true, CellShape::Tet10},
    {"c3d10h", 10, true, CellShape::Tet10},  {"c3d10m", 10, true, CellShape::Tet10},
    {"c3d10mh", 10, true, CellShape::Tet10}, {"c3d20", 20, true, CellShape::Hex20},
    {"c3d20r", 20, true, CellShape::Hex20},  {"c3d20h", 20, true, CellShape::Hex20},
    {"c3d20rh", 20, true, CellShape::Hex20}, {"cpe3", 3, true, CellShape::Tri3},
    {"cpe3h", 3, true, CellShape::Tri3},     {"cps3", 3, true, CellShape::Tri3},
    {"cpe4", 4, true, CellShape::Quad4},     {"cpe4h", 4, true, CellShape::Quad4},
    {"cpe4i", 4, true, CellShape::Quad4},    {"cpe4ih", 4, true, CellShape::Quad4},
    {"cpe4r", 4, true, CellShape::Quad4},    {"cpe4rh", 4, true, CellShape::Quad4},
    {"cps4", 4, true, CellShape::Quad4},     {"cps4i", 4, true, CellShape::Quad4},
    {"cps4r", 4, true, CellShape::Quad4},    {"s3", 3, false, CellShape::Tet4},
    {"s3r", 3, false, CellShape::Tet4},      {"m3d3", 3, false, CellShape::Tet4},
    {"r3d3", 3, false, CellShape::Tet4},     {"sfm3d3", 3, false, CellShape::Tet4},
    {"s4", 4, false, CellShape::Tet4},       {"s4r", 4, false, CellShape::Tet4},
    {"m3d4", 4, false, CellShape::Tet4},     {"r3d4", 4, false, CellShape::Tet4},
    {"sfm3d4", 4, false, CellShape::Tet4},   {"sfm3d4r", 4, false, CellShape::Tet4},
    {"t3d2", 2, false, CellShape::Tet4},     {"b31", 2, false, CellShape::Tet4},
    {"t2d2", 2, false, CellShape::Tet4},     {"b21", 2, false, CellShape::Tet4},
};

const char* const kSupported =
    "fem reads the volume elements C3D4, C3D8, C3D8R, C3D10, C3D20, C3D20R (and their H, I and M "
    "variants), and "
    "in a deck without them (a plane mesh) CPE3, CPS3, CPE4, CPE4R, CPS4, CPS4R (and their H and "
    "I variants); triangles, quadrilaterals and lines (S3, S4, M3D3, M3D4, R3D3, R3D4, SFM3D3, "
    "SFM3D4, T3D2, B31, T2D2, B21, and CPS3 and CPS4 next to volume elements) are read for the "
    "node sets their ELSET names";

/// A set as the deck writes it: ids, GENERATE ranges and names of other sets, with their lines.
struct SetDef {
  std::string name;  ///< lower case
  std::vector<std::int64_t> ids;
  std::vector<FilePos> id_where;
  std::vector<std::pair<std::string, FilePos>> members;  ///< other sets, lower case
};

class AbaqusReader {
 public:
  /// Reads the deck (its lines already read, *INCLUDE files expanded) into the builder.
  explicit AbaqusReader(DeckLines& deck) : deck_(deck), builder_(deck.files().front()) {
    for (std::size_t f = 1; f < deck.files().size(); ++f) builder_.add_file(deck.files()[f]);
    parse();
    resolve_sets();
  }

  detail::MeshBuilder& builder() { return builder_; }
  /// Per element set, the types of its volume (or plane) cells, upper case ("C3D8R").
  std::map<std::string, std::set<std::string>>& set_types() { return set_types_; }

 private:
  DeckLines& deck_;
  detail::MeshBuilder builder_;
  std::vector<std::string> type_names_;              ///< upper case, as the deck has them
  std::unordered_map<std::int64_t, int> cell_type_;  ///< element id -> type_names_ index
  std::map<std::string, std::set<std::string>> set_types_;
  std::map<std::string, SetDef> nsets_;   ///< by lower-case name
  std::map<std::string, SetDef> elsets_;  ///< by lower-case name
  /// Nodes of the plane, surface and line elements: an element set of surface and line elements
  /// is a node set, and one of triangles or quadrilaterals a contact surface.
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> face_nodes_;

  [[noreturn]] void fail(FilePos where, const std::string& what,
                         const std::string& hint = {}) const {
    deck_.fail(where, what, hint);
  }
  [[nodiscard]] bool data_line_next() const { return deck_.data_line_next(); }
  std::int64_t integer(std::string_view field, FilePos where, const char* what) const {
    return deck_.integer(field, where, what);
  }
  double real(std::string_view field, FilePos where, const char* what) const {
    return deck_.real(field, where, what);
  }

  void parse() {
    bool in_part = false;
    while (!deck_.done()) {
      const DeckLine& line = deck_.take();
      if (line.text.front() != '*')
        fail(line.where, "data line outside any keyword: '" + line.text.substr(0, 40) + "'",
             "a deck starts with a keyword line such as *NODE");
      const DeckKeyword k = deck_.keyword(line);
      if (k.name == "node") {
        read_nodes(k);
      } else if (k.name == "element") {
        read_elements(k);
      } else if (k.name == "nset") {
        read_set(k, "nset", nsets_);
      } else if (k.name == "elset") {
        read_set(k, "elset", elsets_);
      } else if (k.name == "part") {
        if (in_part)
          fail(k.where, "the deck has more than one *PART",
               "fem reads one mesh: write the deck flat (no parts) or with a single part");
        in_part = true;
      } else if (k.name == "instance" && data_line_next()) {
        // A translated or rotated instance: its nodes are not where the part says.
        fail(deck_.peek().where, "*INSTANCE with a translation or rotation is not supported",
             "fem reads the part's coordinates as they stand: write the deck with the instance "
             "in place (no data lines under *INSTANCE) or flatten it");
      } else {
        // *HEADING, *MATERIAL, *STEP...: the case file says these things; skip their data.
        deck_.skip_data();
      }
    }
  }

  void read_nodes(const DeckKeyword& k) {
    const std::optional<std::string> nset = k.param("nset");
    while (data_line_next()) {
      const DeckLine& line = deck_.take();
      const std::vector<std::string_view> f = split_commas(line.text);
      if (f.size() < 2 || f.size() > 4 || f[1].empty())
        fail(line.where, "a *NODE line is 'id, x, y, z', got '" + line.text + "'");
      const std::int64_t id = integer(f[0], line.where, "a node id");
      double x[3] = {0, 0, 0};
      for (std::size_t c = 1; c < f.size(); ++c)
        if (!f[c].empty()) x[c - 1] = real(f[c], line.where, "a coordinate");
      builder_.add_node(id, x[0], x[1], x[2], line.where);
      if (nset) add_ids(nsets_, *nset, {id}, line.where);
    }
  }

  void read_elements(const DeckKeyword& k) {
    const std::optional<std::string> type = k.param("type");
    if (!type || type->empty())
      fail(k.where, "*ELEMENT needs TYPE=<element type>", "for example: *ELEMENT, TYPE=C3D8");
    const std::string t = lower(*type);
    const ElementKind* kind = nullptr;
    for (const ElementKind& e : kKinds)
      if (t == e.type) kind = &e;
    if (kind == nullptr) fail(k.where, "element type " + *type + " is not supported", kSupported);
    std::string upper = *type;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    const auto known = std::find(type_names_.begin(), type_names_.end(), upper);
    const int type_index = static_cast<int>(known - type_names_.begin());
    if (known == type_names_.end()) type_names_.push_back(upper);
    const std::optional<std::string> elset = k.param("elset");
    std::vector<std::int64_t> values;
    while (data_line_next()) {
      const FilePos where = deck_.peek().where;
      values.clear();
      // Fields until the element is complete; a line ending in ',' continues on the next one.
      while (true) {
        const DeckLine& line = deck_.take();
        std::vector<std::string_view> f = split_commas(line.text);
        const bool continues = f.back().empty();
        if (continues) f.pop_back();
        for (const std::string_view field : f)
          values.push_back(integer(field, line.where, "a node id"));
        if (!continues || static_cast<int>(values.size()) >= kind->nodes + 1 || !data_line_next())
          break;
      }
      if (static_cast<int>(values.size()) != kind->nodes + 1)
        fail(where,
             "element " + std::to_string(values[0]) + " of type " + *type + " lists " +
                 std::to_string(values.size() - 1) + " nodes; " + *type + " has " +
                 std::to_string(kind->nodes),
             "a data line is 'id, node1, node2, ...'; end a line with ',' to continue it");
      if (kind->cell) {
        builder_.add_cell(values[0], kind->shape, values.data() + 1, where);
        cell_type_[values[0]] = type_index;
      } else
        builder_.add_other_element(values[0], where);
      if (!kind->cell || cell_dimension(kind->shape) == 2)
        face_nodes_[values[0]].assign(values.begin() + 1, values.end());
      if (elset) add_ids(elsets_, *elset, {values[0]}, where);
    }
  }

  void add_ids(std::map<std::string, SetDef>& sets, const std::string& name,
               const std::vector<std::int64_t>& ids, FilePos where) {
    SetDef& s = sets[lower(name)];
    s.name = lower(name);
    for (const std::int64_t id : ids) {
      s.ids.push_back(id);
      s.id_where.push_back(where);
    }
  }

  void read_set(const DeckKeyword& k, const std::string& param,
                std::map<std::string, SetDef>& sets) {
    const std::optional<std::string> name = k.param(param);
    const std::string keyword = param == "nset" ? "*NSET" : "*ELSET";
    if (!name || name->empty())
      fail(k.where, keyword + " needs " + lower(param) + "=<name>",
           "for example: " + keyword + ", " + (param == "nset" ? "NSET" : "ELSET") + "=fixed");
    SetDef& s = sets[lower(*name)];
    s.name = lower(*name);
    const bool generate = k.params.count("generate") != 0;
    while (data_line_next()) {
      const DeckLine& line = deck_.take();
      std::vector<std::string_view> f = split_commas(line.text);
      if (f.back().empty()) f.pop_back();
      if (generate) {
        if (f.size() < 2 || f.size() > 3)
          fail(line.where,
               keyword + ", GENERATE data is 'first, last[, step]', got '" + line.text + "'");
        const std::int64_t first = integer(f[0], line.where, "the first id");
        const std::int64_t last = integer(f[1], line.where, "the last id");
        const std::int64_t step = f.size() == 3 ? integer(f[2], line.where, "the step") : 1;
        if (step <= 0 || last < first)
          fail(line.where,
               "GENERATE range " + std::to_string(first) + " to " + std::to_string(last) + " by " +
                   std::to_string(step) + " is empty or endless",
               "the last id must not be below the first and the step must be positive");
        // A set names only ids the deck defines, each on a line of its own: a range of more ids
        // than the deck has lines is refused before it is generated (unsigned: no overflow).
        const std::uint64_t count =
            (static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first)) /
                static_cast<std::uint64_t>(step) +
            1;
        if (count > deck_.size())
          fail(line.where,
               "GENERATE range " + std::to_string(first) + " to " + std::to_string(last) + " by " +
                   std::to_string(step) + " names " + std::to_string(count) +
                   " ids, more than the deck's " + std::to_string(deck_.size()) +
                   " lines can define",
               "check the range: every id it names must be defined by the deck");
        for (std::uint64_t i = 0; i < count; ++i) {
          s.ids.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(first) +
                                                    i * static_cast<std::uint64_t>(step)));
          s.id_where.push_back(line.where);
        }
        continue;
      }
      for (const std::string_view field : f) {
        if (field.empty()) continue;
        if (std::isdigit(static_cast<unsigned char>(field[0])) || field[0] == '-') {
          s.ids.push_back(integer(field, line.where, "an id"));
          s.id_where.push_back(line.where);
        } else {
          s.members.emplace_back(lower(field), line.where);  // another set, by name
        }
      }
    }
  }

  // -- sets, once every node and element is known ---------------------------------------------

  /// The ids of a set with the ids of the sets it names, each with the line that brought it.
  /// Each named set is expanded once (`done`), so that sets naming each other many times over
  /// cost their size, not the number of paths to them; `open` holds the sets being expanded.
  void collect(const std::map<std::string, SetDef>& sets, const SetDef& s, const char* kind,
               std::vector<std::pair<std::int64_t, FilePos>>& out, std::set<std::string>& open,
               std::set<std::string>& done) const {
    if (!done.insert(s.name).second) return;
    open.insert(s.name);
    for (std::size_t i = 0; i < s.ids.size(); ++i) out.emplace_back(s.ids[i], s.id_where[i]);
    for (const auto& [member, where] : s.members) {
      const auto it = sets.find(member);
      if (it == sets.end())
        fail(where, std::string(kind) + " '" + s.name + "' names '" + member +
                        "', which is neither an id nor a defined " + kind);
      if (open.count(member) != 0)
        fail(where, std::string(kind) + " '" + member + "' contains itself" +
                        (member == s.name ? "" : " (through '" + s.name + "')"));
      collect(sets, it->second, kind, out, open, done);
    }
    open.erase(s.name);
  }

  void resolve_sets() {
    std::vector<std::pair<std::int64_t, FilePos>> members;
    std::set<std::string> open, done;
    for (const auto& [key, s] : nsets_) {
      members.clear();
      done.clear();
      collect(nsets_, s, "node set", members, open, done);
      for (const auto& [id, where] : members) builder_.add_to_node_set(s.name, &id, 1, where);
      if (members.empty()) builder_.add_to_node_set(s.name, nullptr, 0, FilePos());
    }
    for (const auto& [key, s] : elsets_) {
      members.clear();
      done.clear();
      collect(elsets_, s, "element set", members, open, done);
      std::set<std::int64_t> seen;
      for (const auto& [id, where] : members) {
        if (!builder_.has_element(id))
          fail(where, "element set '" + s.name + "' contains element " + std::to_string(id) +
                          ", which the file does not define");
        if (!seen.insert(id).second) continue;
        const std::int64_t cell = builder_.cell_index(id);
        if (cell >= 0) {
          builder_.add_to_group(cell, s.name, where);
          set_types_[s.name].insert(type_names_[static_cast<std::size_t>(cell_type_.at(id))]);
        }
        const auto face = face_nodes_.find(id);
        if (face == face_nodes_.end()) continue;
        const std::vector<std::int64_t>& nodes = face->second;
        const int count = static_cast<int>(nodes.size());
        if (cell < 0) builder_.add_to_node_set(s.name, nodes.data(), count, where);
        if (count == 3 || count == 4) builder_.add_surface_face(s.name, nodes.data(), count, where);
      }
    }
  }
};

}  // namespace

detail::MeshBuilder detail::parse_abaqus(const std::string& path) {
  DeckLines deck(path);
  AbaqusReader reader(deck);
  return std::move(reader.builder());
}

detail::AbaqusDeckMesh detail::parse_abaqus_deck(DeckLines& deck) {
  AbaqusReader reader(deck);
  return {std::move(reader.builder()), std::move(reader.set_types())};
}

detail::MeshBuilder detail::parse_abaqus_bytes(const std::string& path, const std::string& bytes) {
  DeckLines deck(path, bytes);
  AbaqusReader reader(deck);
  return std::move(reader.builder());
}

Mesh read_abaqus(const std::string& path) {
  return detail::parse_abaqus(path).finish();
}

}  // namespace fem
