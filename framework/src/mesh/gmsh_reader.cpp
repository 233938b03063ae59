// Gmsh .msh reader: formats 2.2 and 4.1, ASCII and binary (https://gmsh.info/doc/texinfo/,
// "MSH file format"). Physical groups of volumes become regions, physical groups of surfaces,
// curves and points become node sets. A file with no volume elements is a plane mesh: its
// triangles and quadrangles are the cells, physical surfaces the regions, and physical curves and
// points the node sets. Node and element tags may be sparse.
#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fem/mesh/readers.hpp"
#include "mesh_builder.hpp"
#include "parsers.hpp"
#include "read_file.hpp"

namespace fem {

namespace {

struct GmshType {
  int type;
  int nodes;
  int dim;
  const char* name;
  /// fem reads it as a cell (else only its nodes are used): solids always, triangles and
  /// quadrangles when the file has no solids (MeshBuilder::finish() chooses).
  bool cell;
  CellShape shape;
};

// The element types Gmsh writes for linear and low-order meshes.
constexpr GmshType kTypes[] = {
    {1, 2, 1, "2-node line", false, CellShape::Tet4},
    {2, 3, 2, "3-node triangle", true, CellShape::Tri3},
    {3, 4, 2, "4-node quadrangle", true, CellShape::Quad4},
    {4, 4, 3, "4-node tetrahedron", true, CellShape::Tet4},
    {5, 8, 3, "8-node hexahedron", true, CellShape::Hex8},
    {6, 6, 3, "6-node prism", false, CellShape::Tet4},
    {7, 5, 3, "5-node pyramid", false, CellShape::Tet4},
    {8, 3, 1, "3-node line", false, CellShape::Tet4},
    {9, 6, 2, "6-node triangle", false, CellShape::Tet4},
    {10, 9, 2, "9-node quadrangle", false, CellShape::Tet4},
    {11, 10, 3, "10-node tetrahedron", true, CellShape::Tet10},
    {12, 27, 3, "27-node hexahedron", false, CellShape::Tet4},
    {13, 18, 3, "18-node prism", false, CellShape::Tet4},
    {14, 14, 3, "14-node pyramid", false, CellShape::Tet4},
    {15, 1, 0, "1-node point", false, CellShape::Tet4},
    {16, 8, 2, "8-node quadrangle", false, CellShape::Tet4},
    {17, 20, 3, "20-node hexahedron", true, CellShape::Hex20},
    {18, 15, 3, "15-node prism", false, CellShape::Tet4},
    {19, 13, 3, "13-node pyramid", false, CellShape::Tet4},
    {20, 9, 2, "9-node triangle", false, CellShape::Tet4},
    {21, 10, 2, "10-node triangle", false, CellShape::Tet4},
    {26, 4, 1, "4-node line", false, CellShape::Tet4},
    {29, 20, 3, "20-node tetrahedron", false, CellShape::Tet4},
};

const char* const kSupported =
    "fem reads Gmsh volume elements of type 4 (4-node tetrahedron), 5 (8-node hexahedron), 11 "
    "(10-node tetrahedron) and 17 (20-node hexahedron), and in a file without them (a plane mesh) "
    "2 (3-node triangle) and 3 "
    "(4-node quadrangle); points, lines and other triangles and quadrangles are read for the node "
    "sets of their physical groups";

const GmshType* find_type(std::int64_t type) {
  for (const GmshType& t : kTypes)
    if (t.type == type) return &t;
  return nullptr;
}

template <class T>
T byteswap(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

class GmshReader {
 public:
  GmshReader(const std::string& path, std::string data) : data_(std::move(data)), builder_(path) {}

  /// Reads the whole file into the builder; then `builder` has it.
  void parse() {
    skip_ws();
    if (data_.compare(pos_, 11, "$MeshFormat") != 0)
      fail("not a Gmsh mesh file: it does not start with $MeshFormat",
           "give a .msh file written by Gmsh (format 2.2 or 4.1)");
    bool have_elements = false;
    while (true) {
      skip_ws();
      if (pos_ >= data_.size()) break;
      const std::string_view header = token("a section header such as $Nodes");
      if (header.size() < 2 || header[0] != '$' || header.substr(0, 4) == "$End")
        fail("expected a section header such as $Nodes, got '" + std::string(header) + "'");
      section_ = std::string(header.substr(1));
      section_pos_ = token_pos_;
      section_line_ = token_line_;
      if (section_ == "MeshFormat") {
        read_format();
      } else if (version_ == 0) {
        fail("the $MeshFormat section must come first");
      } else if (section_ == "PhysicalNames") {
        read_physical_names();
      } else if (section_ == "Entities") {
        read_entities();
      } else if (section_ == "PartitionedEntities") {
        fail("partitioned Gmsh meshes are not supported",
             "save the mesh without partitions (Mesh.PartitionOldStyleMsh2 or no partitioning)");
      } else if (section_ == "Nodes") {
        version_ == 4 ? read_nodes4() : read_nodes2();
      } else if (section_ == "Elements") {
        version_ == 4 ? read_elements4() : read_elements2();
        have_elements = true;
      } else {
        skip_section();  // $NodeData, $Periodic, $Comments...: nothing fem uses
        continue;
      }
      expect_end();
    }
    if (!have_elements) {
      token_line_ = line_;
      fail("the file has no $Elements section", "the file is truncated or holds no mesh");
    }
  }

  detail::MeshBuilder& builder() { return builder_; }

 private:
  std::string data_;
  detail::MeshBuilder builder_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t token_pos_ = 0;
  int token_line_ = 1;
  std::string section_;
  std::size_t section_pos_ = 0;
  int section_line_ = 0;
  int version_ = 0;  ///< 2 or 4
  bool binary_ = false;
  bool swap_ = false;
  std::map<std::pair<int, std::int64_t>, std::string> physical_names_;  ///< (dim, tag) -> name
  std::map<std::pair<int, std::int64_t>, std::vector<std::int64_t>> entity_groups_;

  // -- errors ---------------------------------------------------------------------------------

  [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const {
    // Binary data has no lines: name the section's line and the byte offset.
    if (binary_ && pos_ > section_pos_ && section_line_ > 0)
      throw InputError(
          builder_.at(section_line_),
          what + " (binary $" + section_ + " data, byte offset " + std::to_string(pos_) + ")",
          hint);
    throw InputError(builder_.at(token_line_), what, hint);
  }

  [[noreturn]] void truncated(const char* what = nullptr) const {
    throw InputError(builder_.at(line_),
                     "the file ends inside the $" + section_ + " section that starts at line " +
                         std::to_string(section_line_) +
                         (what ? std::string(", where ") + what + " was expected" : ""),
                     "the file is truncated; write or copy it again");
  }

  // -- text -----------------------------------------------------------------------------------

  void skip_ws() {
    while (pos_ < data_.size() && std::isspace(static_cast<unsigned char>(data_[pos_]))) {
      if (data_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  std::string_view token(const char* what) {
    skip_ws();
    if (pos_ >= data_.size()) truncated(what);
    token_pos_ = pos_;
    token_line_ = line_;
    while (pos_ < data_.size() && !std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
    return std::string_view(data_).substr(token_pos_, pos_ - token_pos_);
  }

  std::int64_t integer(const char* what) {
    const std::string_view t = token(what);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      fail(std::string("expected ") + what + " (an integer) in $" + section_ + ", got '" +
           std::string(t) + "'");
    return v;
  }

  double real(const char* what) {
    const std::string_view t = token(what);
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      fail(std::string("expected ") + what + " (a number) in $" + section_ + ", got '" +
           std::string(t) + "'");
    return v;
  }

  /// The rest of the current line, including its newline (before binary data).
  void end_of_line() {
    while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
    if (pos_ >= data_.size()) truncated();
    ++pos_;
    ++line_;
  }

  void expect_end() {
    const std::string want = "$End" + section_;
    const std::string_view t = token(want.c_str());
    if (t != want)
      fail("expected " + want + ", got '" + std::string(t.substr(0, 40)) + "'",
           "the section holds more or fewer entries than its header announces");
  }

  void skip_section() {
    const std::string want = "\n$End" + section_;
    const std::size_t end = data_.find(want, pos_);
    if (end == std::string::npos) truncated();
    line_ += static_cast<int>(std::count(data_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         data_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    pos_ = end;
    skip_ws();
    token("$End");
  }

  // -- binary ---------------------------------------------------------------------------------

  template <class T>
  T bin() {
    if (pos_ + sizeof(T) > data_.size()) truncated();
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    line_ +=
        static_cast<int>(std::count(data_.data() + pos_, data_.data() + pos_ + sizeof(T), '\n'));
    pos_ += sizeof(T);
    return swap_ ? byteswap(v) : v;
  }

  // Numbers of either mode: `int` and `size_t` fields of the format, and coordinates.
  std::int64_t read_int(const char* what) { return binary_ ? bin<std::int32_t>() : integer(what); }
  std::int64_t read_size(const char* what) {
    if (!binary_) return integer(what);
    const std::uint64_t v = bin<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(INT64_MAX)) fail(std::string("impossible ") + what);
    return static_cast<std::int64_t>(v);
  }
  double read_real(const char* what) { return binary_ ? bin<double>() : real(what); }

  std::int64_t count(const char* what) {
    const std::int64_t n = read_size(what);
    if (n < 0) fail(std::string("negative ") + what + " in $" + section_);
    return n;
  }

  /// A count read from a header, before anything is sized by it: `n` entries of at least
  /// `bytes_each` bytes must fit in the rest of the file, so that a damaged header is refused
  /// instead of reserving gigabytes.
  void require_fits(std::int64_t n, std::size_t bytes_each, const char* what) {
    const std::size_t left = data_.size() - std::min(pos_, data_.size());
    if (n < 0 || static_cast<std::uint64_t>(n) > left / bytes_each)
      fail("$" + section_ + " announces " + std::to_string(n) + " " + what +
               ", more than the rest of the file (" + std::to_string(left) + " bytes) can hold",
           "the file is truncated or its header is damaged; write it again");
  }

  // -- sections -------------------------------------------------------------------------------

  void read_format() {
    const std::string_view v = token("the format version");
    const std::string version(v);
    const std::int64_t file_type = integer("the file type");
    const std::int64_t data_size = integer("the data size");
    if (version == "4.1") {
      version_ = 4;
    } else if (version == "2.2") {
      version_ = 2;
    } else {
      fail("unsupported Gmsh format version " + version,
           "fem reads versions 2.2 and 4.1; save with Gmsh's -format msh41 or msh22 (or "
           "Mesh.MshFileVersion = 4.1)");
    }
    if (file_type != 0 && file_type != 1)
      fail("unknown file type " + std::to_string(file_type) + " in $MeshFormat",
           "0 means ASCII and 1 binary");
    if (data_size != 8)
      fail("data size " + std::to_string(data_size) + " is not supported",
           "fem reads files with 8-byte floating point numbers (and 8-byte size_t in 4.1)");
    if (file_type == 1) {
      end_of_line();
      binary_ = true;
      section_pos_ = pos_ - 1;
      // The integer 1, written in the writer's byte order.
      const std::int32_t one = bin<std::int32_t>();
      if (one == 1)
        swap_ = false;
      else if (byteswap(one) == 1)
        swap_ = true;
      else
        fail("the binary check value after $MeshFormat is not 1",
             "the file is damaged (was it copied as text?)");
    }
  }

  void read_physical_names() {
    // Text in both modes: count, then `dim tag "name"` per line.
    const std::int64_t n = integer("the number of physical names");
    for (std::int64_t i = 0; i < n; ++i) {
      const int dim = static_cast<int>(integer("the dimension"));
      const std::int64_t tag = integer("the physical tag");
      skip_ws();
      if (pos_ >= data_.size()) truncated();
      token_line_ = line_;
      if (data_[pos_] != '"') fail("expected a quoted physical name");
      const std::size_t close = data_.find('"', pos_ + 1);
      if (close == std::string::npos || data_.find('\n', pos_) < close)
        fail("the physical name has no closing quote");
      physical_names_[{dim, tag}] = data_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
    }
  }

  void read_entities() {
    if (binary_) end_of_line();
    std::int64_t counts[4];
    for (std::int64_t& c : counts) c = count("the number of entities");
    for (int dim = 0; dim < 4; ++dim)
      for (std::int64_t i = 0; i < counts[dim]; ++i) {
        const std::int64_t tag = read_int("the entity tag");
        for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) read_real("a bounding-box coordinate");
        std::vector<std::int64_t>& groups = entity_groups_[{dim, tag}];
        const std::int64_t np = count("the number of physical tags");
        for (std::int64_t p = 0; p < np; ++p) groups.push_back(std::llabs(read_int("a tag")));
        if (dim > 0) {
          const std::int64_t nb = count("the number of bounding entities");
          for (std::int64_t b = 0; b < nb; ++b) read_int("a bounding entity");
        }
      }
  }

  void read_nodes2() {
    const std::int64_t n = integer("the number of nodes");
    builder_.require_room(n, 0, token_line_, "nodes that $Nodes announces");
    if (binary_) end_of_line();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t id = read_int("a node tag");
      const int line = token_line_;
      const double x = read_real("x"), y = read_real("y"), z = read_real("z");
      builder_.add_node(id, x, y, z, binary_ ? section_line_ : line);
    }
  }

  void read_nodes4() {
    if (binary_) end_of_line();
    const std::int64_t blocks = count("the number of node blocks");
    builder_.require_room(count("the number of nodes"), 0, binary_ ? section_line_ : token_line_,
                          "nodes that $Nodes announces");
    for (int k = 0; k < 2; ++k) count("the node tag range");
    std::vector<std::int64_t> tags;
    std::vector<int> lines;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t dim = read_int("the entity dimension");
      read_int("the entity tag");
      const std::int64_t parametric = read_int("the parametric flag");
      const std::int64_t n = count("the number of nodes in the block");
      // A tag and three coordinates each: "1 0 0 0\n" or 32 bytes.
      require_fits(n, binary_ ? 32 : 8, "nodes in a block");
      tags.resize(static_cast<std::size_t>(n));
      lines.resize(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        tags[i] = read_size("a node tag");
        lines[i] = binary_ ? section_line_ : token_line_;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        const double x = read_real("x"), y = read_real("y"), z = read_real("z");
        if (parametric)
          for (std::int64_t p = 0; p < dim; ++p) read_real("a parametric coordinate");
        builder_.add_node(tags[i], x, y, z, lines[i]);
      }
    }
  }

  /// One element, whatever the format; `groups` are its physical tags.
  void add_element(std::int64_t id, std::int64_t type, std::vector<std::int64_t>& nodes,
                   const std::vector<std::int64_t>& groups, int line) {
    const GmshType* t = find_type(type);
    if (t->dim == 3 && !t->cell)
      throw InputError(builder_.at(line),
                       "element " + std::to_string(id) + " is a " + t->name + " (Gmsh type " +
                           std::to_string(type) + "), which fem does not support",
                       std::string(kSupported) + "; mesh the volume with tetrahedra or hexahedra");
    std::vector<std::string> names;
    for (const std::int64_t g : groups) {
      const auto it = physical_names_.find({t->dim, g});
      // An unnamed physical group is known by its tag.
      names.push_back(it != physical_names_.end() ? it->second : std::to_string(g));
    }
    if (t->cell) {
      // Gmsh numbers the last two edge nodes of a 10-node tetrahedron the other way round from
      // VTK: (2,3) before (1,3).
      if (t->shape == CellShape::Tet10) std::swap(nodes[8], nodes[9]);
      // A 20-node hexahedron's mid-edge nodes follow the edges 0-1, 0-3, 0-4, 1-2, 1-5, 2-3,
      // 2-6, 3-7, 4-5, 4-7, 5-6, 6-7 in Gmsh, and 0-1, 1-2, 2-3, 3-0, 4-5, 5-6, 6-7, 7-4, 0-4,
      // 1-5, 2-6, 3-7 in VTK: VTK's node 8 + i is Gmsh's 8 + kGmshHex20Edge[i].
      if (t->shape == CellShape::Hex20) {
        constexpr int kGmshHex20Edge[12] = {0, 3, 5, 1, 8, 10, 11, 9, 2, 4, 6, 7};
        const std::vector<std::int64_t> gmsh(nodes.begin() + 8, nodes.begin() + 20);
        for (int i = 0; i < 12; ++i) nodes[8 + i] = gmsh[kGmshHex20Edge[i]];
      }
      const std::int64_t cell = builder_.add_cell(id, t->shape, nodes.data(), line);
      for (const std::string& name : names) builder_.add_to_group(cell, name, line);
    } else {
      builder_.add_other_element(id, line);
      for (const std::string& name : names)
        builder_.add_to_node_set(name, nodes.data(), t->nodes, line);
    }
    if (t->dim == 2) {
      const int corners =
          std::string_view(t->name).find("triangle") != std::string_view::npos ? 3 : 4;
      for (const std::string& name : names)
        builder_.add_surface_face(name, nodes.data(), corners, line);
    }
  }

  const GmshType& known_type(std::int64_t type) {
    const GmshType* t = find_type(type);
    if (t == nullptr)
      fail("unknown Gmsh element type " + std::to_string(type), std::string(kSupported));
    return *t;
  }

  void read_elements2() {
    const std::int64_t n = integer("the number of elements");
    builder_.require_room(0, n, token_line_, "elements that $Elements announces");
    std::vector<std::int64_t> nodes, tags, groups;
    if (!binary_) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t id = integer("an element number");
        const int line = token_line_;
        const GmshType& t = known_type(integer("the element type"));
        const std::int64_t num_tags = integer("the number of tags");
        require_fits(num_tags, 2, "tags of an element");
        tags.resize(static_cast<std::size_t>(num_tags));
        for (std::int64_t& tag : tags) tag = integer("a tag");
        nodes.resize(static_cast<std::size_t>(t.nodes));
        for (std::int64_t& node : nodes) node = integer("a node number");
        groups.clear();
        if (!tags.empty() && tags[0] != 0) groups.push_back(tags[0]);
        add_element(id, t.type, nodes, groups, line);
      }
      return;
    }
    end_of_line();
    // Binary: blocks of elements of one type, each with a header (type, count, tags per element).
    for (std::int64_t done = 0; done < n;) {
      const GmshType& t = known_type(bin<std::int32_t>());
      const std::int64_t in_block = bin<std::int32_t>();
      const std::int64_t num_tags = bin<std::int32_t>();
      if (in_block <= 0 || num_tags < 0 || done + in_block > n)
        fail("bad element block header (" + std::to_string(in_block) + " elements, " +
             std::to_string(num_tags) + " tags)");
      require_fits(num_tags, 4, "tags of each element");
      tags.resize(static_cast<std::size_t>(num_tags));
      nodes.resize(static_cast<std::size_t>(t.nodes));
      for (std::int64_t i = 0; i < in_block; ++i) {
        const std::int64_t id = bin<std::int32_t>();
        for (std::int64_t& tag : tags) tag = bin<std::int32_t>();
        for (std::int64_t& node : nodes) node = bin<std::int32_t>();
        groups.clear();
        if (!tags.empty() && tags[0] != 0) groups.push_back(tags[0]);
        add_element(id, t.type, nodes, groups, section_line_);
      }
      done += in_block;
    }
  }

  void read_elements4() {
    if (binary_) end_of_line();
    const std::int64_t blocks = count("the number of element blocks");
    builder_.require_room(0, count("the number of elements"), binary_ ? section_line_ : token_line_,
                          "elements that $Elements announces");
    for (int k = 0; k < 2; ++k) count("the element tag range");
    std::vector<std::int64_t> nodes;
    const std::vector<std::int64_t> none;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const int dim = static_cast<int>(read_int("the entity dimension"));
      const std::int64_t entity = read_int("the entity tag");
      const GmshType& t = known_type(read_int("the element type"));
      const std::int64_t n = count("the number of elements in the block");
      const auto it = entity_groups_.find({dim, entity});
      const std::vector<std::int64_t>& groups = it == entity_groups_.end() ? none : it->second;
      nodes.resize(static_cast<std::size_t>(t.nodes));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t id = read_size("an element tag");
        const int line = binary_ ? section_line_ : token_line_;
        for (std::int64_t& node : nodes) node = read_size("a node tag");
        add_element(id, t.type, nodes, groups, line);
      }
    }
  }
};

}  // namespace

detail::MeshBuilder detail::parse_gmsh_bytes(const std::string& path, std::string bytes) {
  GmshReader reader(path, std::move(bytes));
  reader.parse();
  return std::move(reader.builder());
}

detail::MeshBuilder detail::parse_gmsh(const std::string& path) {
  return parse_gmsh_bytes(path, read_mesh_file_bytes(path));
}

Mesh read_gmsh(const std::string& path) {
  return detail::parse_gmsh(path).finish();
}

}  // namespace fem
