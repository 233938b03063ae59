// Legacy .vtk sections checked against their data before VTK reads them (vtk_legacy_check.hpp).
#include "vtk_legacy_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "fem/error.hpp"

namespace fem::detail {

namespace {

struct Token {
  std::string text;  ///< empty at the end of the file
  int line = 0, column = 0;
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// VTK's reader matches keywords by their first letters (strncmp with the keyword's length), so
/// "CELLSCELLS" is CELLS to it, and must be to the check.
bool is(const std::string& key, const char* keyword) {
  return key.compare(0, std::char_traits<char>::length(keyword), keyword) == 0;
}

/// Bytes per value of a legacy data type in a BINARY file (0: bits), or nullopt if fem does not
/// check it (strings). Matched by prefix in the order VTK's reader tries them ("integer" is int
/// to it); vtkIdType is written and read as a 4-byte int.
std::optional<int> value_bytes(const std::string& type) {
  const std::string t = upper(type);
  static const std::pair<const char*, int> kTypes[] = {
      {"BIT", 0},           {"UNSIGNED_CHAR", 1}, {"UNSIGNED_SHORT", 2}, {"UNSIGNED_INT", 4},
      {"UNSIGNED_LONG", 8}, {"SIGNED_CHAR", 1},   {"CHAR", 1},           {"SHORT", 2},
      {"VTKIDTYPE", 4},     {"INT", 4},           {"LONG", 8},           {"VTKTYPEINT64", 8},
      {"VTKTYPEUINT64", 8}, {"FLOAT", 4},         {"DOUBLE", 8}};
  for (const auto& [name, bytes] : kTypes)
    if (t.compare(0, std::char_traits<char>::length(name), name) == 0) return bytes;
  return std::nullopt;
}

class LegacyChecker {
 public:
  LegacyChecker(const std::string& path, const std::string& bytes) : path_(path), s_(bytes) {}

  void run() {
    const Token version = header_line();
    const std::string prefix = "# vtk DataFile Version";
    if (version.text.compare(0, 20, prefix, 0, 20) != 0) return;  // the reader says what
    major_ =
        version.text.size() > prefix.size() ? std::atoi(version.text.c_str() + prefix.size()) : 0;
    (void)header_line();          // the title
    const Token format = next();  // VTK reads it as a word: blank lines before it are skipped
    const std::string mode = upper(format.text);
    if (!is(mode, "ASCII") && !is(mode, "BINARY")) return;  // the reader says what
    binary_ = is(mode, "BINARY");
    if (!is(upper(next().text), "DATASET") || !is(upper(next().text), "UNSTRUCTURED_GRID")) return;
    std::int64_t attribute_count = -1;  // tuples of the CELL_DATA / POINT_DATA in force
    for (Token t = next(); !t.text.empty(); t = next()) {
      const std::string key = upper(t.text);
      if (is(key, "FIELD")) {
        field(t, -1);
      } else if (is(key, "POINTS")) {
        points_ = count(next(), t);
        values(t, 3 * points_, next(), nullptr);
      } else if (is(key, "CELLS")) {
        cells(t);
      } else if (is(key, "CELL_TYPES")) {
        const std::int64_t n = count(next(), t);
        if (cells_ >= 0 && n != cells_)
          fail(t, "CELL_TYPES announces " + std::to_string(n) + " types for " +
                      std::to_string(cells_) + " cells");
        values(t, n, Token{"int", t.line, t.column}, nullptr);
      } else if (is(key, "CELL_DATA") || is(key, "POINT_DATA")) {
        attribute_count = count(next(), t);
      } else if (is(key, "METADATA")) {
        skip_metadata();
      } else if (attribute_count >= 0 && attribute(t, key, attribute_count)) {
      } else {
        fail(t, "unknown section '" + t.text + "'",
             "fem reads legacy unstructured grids: POINTS, CELLS (or OFFSETS and CONNECTIVITY), "
             "CELL_TYPES, and CELL_DATA / POINT_DATA with SCALARS, VECTORS, NORMALS, TENSORS, "
             "FIELD, ...; write the file again, or as .vtu");
      }
    }
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& what,
                         const std::string& hint =
                             "the file is damaged or truncated: the "
                             "section's header must announce exactly the "
                             "values that follow it; write it again") {
    throw InputError({path_, at.line, at.column}, what, hint);
  }

  void advance(std::size_t n) {
    for (std::size_t i = 0; i < n && pos_ < s_.size(); ++i, ++pos_)
      if (s_[pos_] == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      }
  }

  /// The rest of the current line (the header lines), without its end.
  Token header_line() {
    Token t{{}, line_, static_cast<int>(pos_ - line_start_) + 1};
    const std::size_t end = s_.find('\n', pos_);
    t.text = s_.substr(pos_, end == std::string::npos ? std::string::npos : end - pos_);
    if (!t.text.empty() && t.text.back() == '\r') t.text.pop_back();
    advance(end == std::string::npos ? s_.size() - pos_ : end - pos_ + 1);
    return t;
  }

  Token next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) advance(1);
    Token t{{}, line_, static_cast<int>(pos_ - line_start_) + 1};
    const std::size_t start = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    t.text = s_.substr(start, pos_ - start);
    return t;
  }

  Token peek() {
    const std::size_t pos = pos_, start = line_start_;
    const int line = line_;
    Token t = next();
    pos_ = pos;
    line_start_ = start;
    line_ = line;
    return t;
  }

  static bool is_number(const std::string& text) {
    if (text.empty()) return false;
    char* end = nullptr;
    (void)std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
  }

  /// A count in a header: a non-negative integer no larger than the file could hold values for.
  std::int64_t count(const Token& t, const Token& header) {
    char* end = nullptr;
    const long long n = std::strtoll(t.text.c_str(), &end, 10);
    if (t.text.empty() || end != t.text.c_str() + t.text.size() || n < 0)
      fail(t, upper(header.text) + " needs a count, a non-negative integer, not '" + t.text + "'");
    if (static_cast<unsigned long long>(n) > s_.size())
      fail(t, upper(header.text) + " announces " + t.text + " items, more than the " +
                  std::to_string(s_.size()) + "-byte file can hold");
    return n;
  }

  /// `n` values of `type` after `header`; their integer values into `keep` when asked.
  void values(const Token& header, std::int64_t n, const Token& type,
              std::vector<std::int64_t>* keep) {
    const std::optional<int> size = value_bytes(type.text);
    if (!size)
      fail(type, upper(header.text) + " has data type '" + type.text + "', which fem does not read",
           "numeric types only (float, double, int, unsigned_char, vtktypeint64, ...)");
    const auto un = static_cast<std::uint64_t>(n);
    if (keep) keep->clear();
    if (binary_) {
      // As VTK's reader: the rest of the header line, then the values, big-endian.
      const std::size_t end = s_.find('\n', pos_);
      advance(end == std::string::npos ? s_.size() - pos_ : end - pos_ + 1);
      const std::uint64_t bytes =
          *size == 0 ? (un + 7) / 8 : un * static_cast<std::uint64_t>(*size);
      if (un > s_.size() || bytes > s_.size() - pos_)
        fail(header, upper(header.text) + " announces " + std::to_string(n) + " values (" +
                         std::to_string(bytes) + " bytes), but only " +
                         std::to_string(s_.size() - pos_) + " bytes follow");
      if (keep) {
        for (std::uint64_t i = 0; i < un; ++i) {
          std::uint64_t v = 0;
          for (int b = 0; b < *size; ++b)
            v = (v << 8) | static_cast<unsigned char>(s_[pos_ + i * *size + b]);
          keep->push_back(*size == 4 ? static_cast<std::int32_t>(v) : static_cast<std::int64_t>(v));
        }
      }
      advance(static_cast<std::size_t>(bytes));
      return;
    }
    if (un > s_.size() - pos_)
      fail(header, upper(header.text) + " announces " + std::to_string(n) +
                       " values, more than the rest of the file can hold");
    for (std::uint64_t i = 0; i < un; ++i) {
      const Token v = next();
      if (!is_number(v.text))
        fail(header,
             upper(header.text) + " announces " + std::to_string(n) + " values, but " +
                 (v.text.empty() ? std::string("the file ends")
                                 : "'" + v.text + "' (line " + std::to_string(v.line) + ") comes") +
                 " after " + std::to_string(i));
      if (keep) keep->push_back(std::strtoll(v.text.c_str(), nullptr, 10));
    }
    if (const Token after = peek(); is_number(after.text))
      fail(header, upper(header.text) + " announces " + std::to_string(n) +
                       " values, but more follow (line " + std::to_string(after.line) + ")");
  }

  void require_nodes(const Token& header, const std::vector<std::int64_t>& ids) {
    for (const std::int64_t id : ids)
      if (id < 0 || (points_ >= 0 && id >= points_))
        fail(header, "a cell names point " + std::to_string(id) + ", but the file has " +
                         std::to_string(points_) + " points (0 to " + std::to_string(points_ - 1) +
                         ")");
  }

  void cells(const Token& header) {
    const std::int64_t a = count(next(), header), b = count(next(), header);
    std::vector<std::int64_t> list;
    if (major_ < 5) {
      // Per cell its number of points, then the points: b integers for a cells.
      values(header, b, Token{"int", header.line, header.column}, &list);
      std::size_t i = 0;
      for (std::int64_t c = 0; c < a; ++c) {
        if (i >= list.size() || list[i] < 0 ||
            static_cast<std::uint64_t>(list[i]) >= list.size() - i)
          fail(header, "CELLS announces " + std::to_string(a) + " cells in " + std::to_string(b) +
                           " integers, but cell " + std::to_string(c) + " does not fit in them");
        const auto k = static_cast<std::size_t>(list[i]);
        require_nodes(header, std::vector<std::int64_t>(
                                  list.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                  list.begin() + static_cast<std::ptrdiff_t>(i + 1 + k)));
        i += 1 + k;
      }
      if (i != list.size())
        fail(header, "CELLS announces " + std::to_string(a) + " cells in " + std::to_string(b) +
                         " integers, but they take " + std::to_string(i));
      cells_ = a;
      return;
    }
    // Version 5: CELLS <offsets> <connectivity>, then OFFSETS and CONNECTIVITY arrays.
    const Token offsets = next();
    if (!is(upper(offsets.text), "OFFSETS")) fail(offsets, "CELLS must be followed by OFFSETS");
    values(offsets, a, next(), &list);
    for (std::size_t i = 0; i < list.size(); ++i)
      if ((i == 0 && list[i] != 0) || (i > 0 && list[i] < list[i - 1]) || list[i] > b)
        fail(offsets, "OFFSETS must rise from 0 to the CONNECTIVITY size " + std::to_string(b) +
                          "; entry " + std::to_string(i) + " is " + std::to_string(list[i]));
    if (a > 0 && list.back() != b)
      fail(offsets, "the last offset is " + std::to_string(list.back()) +
                        ", but CONNECTIVITY has " + std::to_string(b) + " entries");
    const Token connectivity = next();
    if (!is(upper(connectivity.text), "CONNECTIVITY"))
      fail(connectivity, "OFFSETS must be followed by CONNECTIVITY");
    values(connectivity, b, next(), &list);
    require_nodes(connectivity, list);
    cells_ = a > 0 ? a - 1 : 0;
  }

  /// FIELD name k: k arrays "name components tuples type" and their values.
  void field(const Token& header, std::int64_t /*tuples of the attribute data, unused*/) {
    (void)next();  // the field's name
    const std::int64_t arrays = count(next(), header);
    for (std::int64_t i = 0; i < arrays; ++i) {
      const Token name = next();
      if (name.text.empty()) fail(header, "FIELD announces more arrays than follow");
      if (is(upper(name.text), "NULL_ARRAY")) continue;
      const std::int64_t components = count(next(), name);
      const std::int64_t tuples = count(next(), name);
      if (components > 0 && tuples > static_cast<std::int64_t>(s_.size()) / components)
        fail(name, "array '" + name.text + "' announces more values than the file can hold");
      values(name, components * tuples, next(), nullptr);
    }
  }

  /// An attribute of CELL_DATA / POINT_DATA; false if `key` is none.
  bool attribute(const Token& t, const std::string& key, std::int64_t n) {
    if (is(key, "SCALARS")) {
      (void)next();  // name
      const Token type = next();
      std::int64_t components = 1;
      if (is_number(peek().text)) components = count(next(), t);
      if (components < 1 || components > 4)
        fail(t, "SCALARS has " + std::to_string(components) + " components (1 to 4)");
      if (is(upper(peek().text), "LOOKUP_TABLE")) {
        (void)next();
        (void)next();
      }
      values(t, components * n, type, nullptr);
    } else if (is(key, "VECTORS") || is(key, "NORMALS") || is(key, "TENSORS")) {
      (void)next();
      const int per = is(key, "TENSORS6") ? 6 : is(key, "TENSORS") ? 9 : 3;
      values(t, per * n, next(), nullptr);
    } else if (is(key, "TEXTURE_COORDINATES")) {
      (void)next();
      const std::int64_t dim = count(next(), t);
      if (dim < 1 || dim > 3) fail(t, "TEXTURE_COORDINATES needs 1 to 3 dimensions");
      values(t, dim * n, next(), nullptr);
    } else if (is(key, "COLOR_SCALARS")) {
      (void)next();
      const std::int64_t components = count(next(), t);
      if (components < 1 || components > 4) fail(t, "COLOR_SCALARS needs 1 to 4 components");
      values(t, components * n, Token{binary_ ? "unsigned_char" : "float", t.line, t.column},
             nullptr);
    } else if (is(key, "LOOKUP_TABLE")) {
      (void)next();
      const std::int64_t size = count(next(), t);
      values(t, 4 * size, Token{binary_ ? "unsigned_char" : "float", t.line, t.column}, nullptr);
    } else if (is(key, "GLOBAL_IDS") || is(key, "PEDIGREE_IDS")) {
      (void)next();
      values(t, n, next(), nullptr);
    } else if (is(key, "FIELD")) {
      field(t, n);
    } else {
      return false;
    }
    return true;
  }

  /// METADATA (written by VTK 8 and later after arrays): text lines up to an empty one.
  void skip_metadata() {
    (void)header_line();
    while (pos_ < s_.size()) {
      Token l = header_line();
      if (l.text.find_first_not_of(" \t\r") == std::string::npos) return;
    }
  }

  const std::string& path_;
  const std::string& s_;
  std::size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
  bool binary_ = false;
  int major_ = 0;
  std::int64_t points_ = -1, cells_ = -1;
};

}  // namespace

void check_legacy_vtk(const std::string& path, const std::string& bytes) {
  LegacyChecker(path, bytes).run();
}

}  // namespace fem::detail
