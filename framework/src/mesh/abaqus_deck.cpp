#include "abaqus_deck.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "read_file.hpp"

namespace fem::detail {

const std::vector<std::vector<int>>& abaqus_faces(CellShape shape) {
  static const std::vector<std::vector<int>> hex = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1},
                                                    {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
  static const std::vector<std::vector<int>> tet = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
  static const std::vector<std::vector<int>> tri = {{0, 1}, {1, 2}, {2, 0}};
  static const std::vector<std::vector<int>> quad = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  switch (shape) {
    case CellShape::Tet4:
    case CellShape::Tet10:
      return tet;
    case CellShape::Tri3:
      return tri;
    case CellShape::Quad4:
      return quad;
    default:
      return hex;
  }
}

namespace {

namespace fs = std::filesystem;

/// The path without links and dots, to recognise a file by (the path itself if that fails).
std::string canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

/// "solid   section" -> "solid section": keyword words as Abaqus compares them.
std::string single_spaced(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : c);
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    fields.push_back(
        trim(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

DeckLines::DeckLines(const std::string& path) : DeckLines(path, read_mesh_file_bytes(path)) {}

DeckLines::DeckLines(const std::string& path, const std::string& bytes) {
  files_.push_back(path);
  including_ = {canonical(path)};
  load(path, bytes, 0, 0);
}

void DeckLines::load(const std::string& path, const std::string& bytes, int file, int depth) {
  int number = 0;
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string text = bytes.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const std::string_view t = trim(text);
    if (t.empty() || t.substr(0, 2) == "**") continue;
    if (lower(t.substr(0, 8)) == "*include") {
      include(path, t, FilePos(number, file), depth);
      continue;
    }
    lines_.push_back({std::string(t), FilePos(number, file)});
  }
}

void DeckLines::include(const std::string& from, std::string_view text, FilePos where, int depth) {
  std::string line(text);
  while (!line.empty() && line.back() == ',') line.pop_back();
  const DeckKeyword k = parse_keyword(line, where);
  const std::optional<std::string> input = k.param("input");
  if (!input || input->empty())
    fail(where, "*INCLUDE needs INPUT=<file>", "for example: *INCLUDE, INPUT=nodes.inp");
  std::string name = *input;
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
    name = name.substr(1, name.size() - 2);
  const fs::path p = name;
  const std::string path = (p.is_absolute() ? p : fs::path(from).parent_path() / p).string();
  if (depth >= 16)
    fail(where, "*INCLUDE files nest more than 16 deep",
         "an included file probably includes itself");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    fail(where, "*INCLUDE file '" + path + "' does not exist",
         "INPUT is relative to the folder of the file that includes it");
  // A file that includes itself (directly or through others) would be read 16 times over, and
  // k such lines k^16 times: refused at the line that closes the circle.
  const std::string here = canonical(path);
  for (const std::string& open : including_)
    if (open == here)
      fail(where, "*INCLUDE file '" + path + "' includes itself",
           "the files it includes lead back to it; remove the *INCLUDE that closes the circle");
  including_.push_back(here);
  files_.push_back(path);
  load(path, read_mesh_file_bytes(path), static_cast<int>(files_.size()) - 1, depth + 1);
  including_.pop_back();
}

DeckKeyword DeckLines::keyword(const DeckLine& line) {
  std::string text = line.text;
  // A keyword line ending in a comma continues on the next line.
  while (!text.empty() && text.back() == ',' && data_line_next()) text += lines_[next_++].text;
  return parse_keyword(std::move(text), line.where);
}

DeckKeyword DeckLines::parse_keyword(std::string text, FilePos where) {
  DeckKeyword k;
  k.where = where;
  const std::vector<std::string_view> fields = split_commas(std::string_view(text).substr(1));
  k.name = lower(single_spaced(fields[0]));
  for (std::size_t i = 1; i < fields.size(); ++i) {
    if (fields[i].empty()) continue;
    const std::size_t eq = fields[i].find('=');
    if (eq == std::string_view::npos)
      k.params[lower(single_spaced(fields[i]))] = "";
    else
      k.params[lower(single_spaced(trim(fields[i].substr(0, eq))))] =
          std::string(trim(fields[i].substr(eq + 1)));
  }
  return k;
}

std::int64_t DeckLines::integer(std::string_view field, FilePos where, const char* what) const {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size())
    fail(where,
         std::string("expected ") + what + " (an integer), got '" + std::string(field) + "'");
  return v;
}

double DeckLines::real(std::string_view field, FilePos where, const char* what) const {
  std::string s(field.substr(!field.empty() && field.front() == '+' ? 1 : 0));
  std::replace(s.begin(), s.end(), 'd', 'e');  // Fortran exponents: 1.5D-3
  std::replace(s.begin(), s.end(), 'D', 'e');
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    fail(where, std::string("expected ") + what + " (a number), got '" + std::string(field) + "'");
  return v;
}

}  // namespace fem::detail
