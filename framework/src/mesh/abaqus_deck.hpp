// An Abaqus/CalculiX input deck as keyword and data lines (framework/src/ only, not installed):
// *INCLUDE files expanded in place, '**' comments and blank lines dropped, keyword lines that end
// in a comma joined with the next, numbers in Fortran form. The mesh reader (abaqus_reader.cpp)
// and the analysis translator (case/abaqus_deck_case.cpp) read decks through this, so that both
// see the same lines and name the same file:line in their messages.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fem/error.hpp"
#include "mesh_builder.hpp"

namespace fem::detail {

/// Abaqus's face numbering (S1/P1, S2/P2, ...) as corner positions of a cell in fem's (VTK's)
/// node order, which for these cells is Abaqus's: C3D8/C3D20 (6 faces), C3D4/C3D10 (4), and the
/// edges of CPE3 (3) and CPE4 (4).
const std::vector<std::vector<int>>& abaqus_faces(CellShape shape);

std::string lower(std::string_view s);
std::string_view trim(std::string_view s);
/// "a, b,,c" -> {"a", "b", "", "c"}, each field trimmed.
std::vector<std::string_view> split_commas(std::string_view s);

/// One line of the deck, wherever it came from.
struct DeckLine {
  std::string text;
  FilePos where;
};

/// A keyword line: "*ELEMENT, TYPE=C3D8, ELSET=core" -> keyword "element", parameters by name.
struct DeckKeyword {
  std::string name;                           ///< lower case, without '*', words joined by ' '
  std::map<std::string, std::string> params;  ///< lower-case name -> value as written
  FilePos where;
  [[nodiscard]] std::optional<std::string> param(const std::string& key) const {
    const auto it = params.find(key);
    if (it == params.end()) return std::nullopt;
    return it->second;
  }
  [[nodiscard]] bool has(const std::string& key) const { return params.count(key) != 0; }
};

class DeckLines {
 public:
  /// Reads the deck `path` (or its given bytes) and every file it includes. Throws InputError
  /// for a missing or circular *INCLUDE, at its line.
  explicit DeckLines(const std::string& path);
  DeckLines(const std::string& path, const std::string& bytes);

  /// The deck and its included files, in the order FilePos::file numbers them.
  [[nodiscard]] const std::vector<std::string>& files() const { return files_; }
  [[nodiscard]] SourceLocation at(FilePos p) const { return {files_[p.file], p.line, 0}; }
  [[noreturn]] void fail(FilePos where, const std::string& what,
                         const std::string& hint = {}) const {
    throw InputError(at(where), what, hint);
  }

  [[nodiscard]] std::size_t size() const { return lines_.size(); }
  [[nodiscard]] bool done() const { return next_ >= lines_.size(); }
  /// The next line, consumed.
  const DeckLine& take() { return lines_[next_++]; }
  /// The next line, not consumed.
  [[nodiscard]] const DeckLine& peek() const { return lines_[next_]; }
  [[nodiscard]] bool data_line_next() const {
    return next_ < lines_.size() && lines_[next_].text.front() != '*';
  }
  /// Back to the first line, to read the deck again.
  void rewind() { next_ = 0; }
  void skip_data() {
    while (data_line_next()) ++next_;
  }

  /// The keyword of a line that starts with '*' (a following line continues it when this one
  /// ends in a comma).
  DeckKeyword keyword(const DeckLine& line);

  /// Fields of a data line.
  [[nodiscard]] std::int64_t integer(std::string_view field, FilePos where, const char* what) const;
  [[nodiscard]] double real(std::string_view field, FilePos where, const char* what) const;

 private:
  std::vector<std::string> files_;
  std::vector<DeckLine> lines_;
  std::vector<std::string> including_;  ///< the files being read, outermost first (canonical)
  std::size_t next_ = 0;

  void load(const std::string& path, const std::string& bytes, int file, int depth);
  void include(const std::string& from, std::string_view text, FilePos where, int depth);
  DeckKeyword parse_keyword(std::string text, FilePos where);
};

}  // namespace fem::detail
