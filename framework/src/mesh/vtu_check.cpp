// Checks of a .vtu's announced sizes before VTK reads its data (vtu_check.hpp says why).
#ifdef FEM_WITH_VTK

#include "vtu_check.hpp"

#include <vtkXMLDataElement.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "fem/error.hpp"

namespace fem::detail {

namespace {

/// zlib's largest compression ratio (deflate codes 258 bytes in about 2 bits); LZ4's is lower.
/// A compressed file may announce at most this many bytes of values per byte it has.
constexpr std::uintmax_t kMaxCompressionRatio = 1032;

/// The line and column of byte `index` of `path` (1-based; the file is read up to there).
SourceLocation location_of(const std::string& path, vtkTypeInt64 index) {
  SourceLocation at{path, 0, 0};
  std::ifstream in(path, std::ios::binary);
  if (index < 0 || !in) return at;
  at.line = 1;
  at.column = 1;
  char c = 0;
  for (vtkTypeInt64 i = 0; i < index && in.get(c); ++i) {
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

class VtuChecker {
 public:
  VtuChecker(const std::string& path, std::uintmax_t file_bytes, bool compressed)
      : path_(path),
        max_values_(compressed ? file_bytes * kMaxCompressionRatio : file_bytes),
        compressed_(compressed) {}

  void check_piece(vtkXMLDataElement* piece) {
    const std::uintmax_t points = count(piece, "NumberOfPoints");
    const std::uintmax_t cells = count(piece, "NumberOfCells");
    for (int i = 0; i < piece->GetNumberOfNestedElements(); ++i) {
      vtkXMLDataElement* part = piece->GetNestedElement(i);
      const std::string_view name = part->GetName() == nullptr ? "" : part->GetName();
      // Per point: Points and PointData; per cell: CellData and the cells' offsets and types
      // (connectivity is sized by its data, not by the attributes).
      const bool per_point = name == "Points" || name == "PointData";
      const bool per_cell = name == "CellData" || name == "Cells";
      if (!per_point && !per_cell) continue;
      std::set<std::string> names;
      for (int a = 0; a < part->GetNumberOfNestedElements(); ++a) {
        vtkXMLDataElement* array = part->GetNestedElement(a);
        const char* array_name = array->GetAttribute("Name");
        const std::uintmax_t components = this->components(array);
        if (name == "Cells" && array_name != nullptr &&
            std::strcmp(array_name, "connectivity") == 0)
          continue;
        require_fits(array, components, per_point ? points : cells,
                     std::string(per_point ? "point" : "cell") + " array '" +
                         (array_name == nullptr ? "" : array_name) + "'");
        if ((name == "PointData" || name == "CellData") && array_name != nullptr &&
            !names.insert(array_name).second)
          throw InputError(location_of(path_, array->GetXMLByteIndex()),
                           std::string(name) + " names two arrays '" + array_name + "'",
                           "give each array of a piece its own Name (VTK's reader cannot tell "
                           "them apart)");
      }
    }
  }

  /// Every DataArray's NumberOfComponents, wherever it is (FieldData too).
  void check_components(vtkXMLDataElement* element) {
    if (element->GetName() != nullptr && std::strcmp(element->GetName(), "DataArray") == 0)
      (void)components(element);
    for (int i = 0; i < element->GetNumberOfNestedElements(); ++i)
      check_components(element->GetNestedElement(i));
  }

 private:
  /// A non-negative integer attribute (absent: 0, left to VTK), bounded by 32-bit ids and by
  /// the values the file can hold.
  std::uintmax_t count(vtkXMLDataElement* piece, const char* attribute) {
    const char* text = piece->GetAttribute(attribute);
    if (text == nullptr) return 0;
    const std::uintmax_t n = parse(piece, attribute, text);
    if (n > static_cast<std::uintmax_t>(std::numeric_limits<std::int32_t>::max()))
      throw InputError(location_of(path_, piece->GetXMLByteIndex()),
                       std::string("Piece ") + attribute + "=\"" + text +
                           "\" is more than fem's 32-bit ids can number (2,147,483,647)",
                       "split the mesh, or check the attribute");
    require_fits(piece, 1, n, std::string(attribute) + "=\"" + text + "\"");
    return n;
  }

  /// NumberOfComponents (1 when absent), a positive integer.
  std::uintmax_t components(vtkXMLDataElement* array) {
    const char* text = array->GetAttribute("NumberOfComponents");
    if (text == nullptr) return 1;
    const std::uintmax_t n = parse(array, "NumberOfComponents", text);
    if (n == 0)
      throw InputError(location_of(path_, array->GetXMLByteIndex()),
                       "DataArray NumberOfComponents=\"" + std::string(text) +
                           "\": an array has at least one component",
                       "write NumberOfComponents=\"1\" or more, or leave it out (1)");
    require_fits(array, 1, n, "NumberOfComponents=\"" + std::string(text) + "\"");
    return n;
  }

  /// `text` as a decimal integer (spaces around allowed), or InputError at `element`.
  std::uintmax_t parse(vtkXMLDataElement* element, const char* attribute, const char* text) {
    std::string_view s(text);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    std::uintmax_t n = 0;
    bool ok = !s.empty() && s.size() <= 18;  // 18 digits cannot overflow
    for (const char c : s) ok = ok && c >= '0' && c <= '9';
    if (ok)
      for (const char c : s) n = 10 * n + static_cast<std::uintmax_t>(c - '0');
    if (!ok)
      throw InputError(location_of(path_, element->GetXMLByteIndex()),
                       std::string(element->GetName() == nullptr ? "" : element->GetName()) + " " +
                           attribute + "=\"" + text + "\" is not a non-negative integer",
                       "the file is damaged; write it again");
    return n;
  }

  /// `components` x `tuples` values must fit in the file (components >= 1; no overflow).
  void require_fits(vtkXMLDataElement* element, std::uintmax_t components, std::uintmax_t tuples,
                    const std::string& what) {
    if (tuples <= max_values_ / components) return;
    const std::string values = components == 1
                                   ? std::to_string(tuples)
                                   : std::to_string(components) + " x " + std::to_string(tuples);
    throw InputError(location_of(path_, element->GetXMLByteIndex()),
                     what + " announces " + values + " values, more than the " +
                         std::to_string(max_values_ / (compressed_ ? kMaxCompressionRatio : 1)) +
                         "-byte file can hold" +
                         (compressed_ ? " even compressed (at most " +
                                            std::to_string(kMaxCompressionRatio) + ":1)"
                                      : std::string()),
                     "the file is damaged or truncated; write it again");
  }

  const std::string& path_;
  std::uintmax_t max_values_;
  bool compressed_;
};

}  // namespace

namespace {

/// The pieces with cell data and no point data, of whatever data set elements the root holds
/// (the reader reads its own, UnstructuredGrid or ImageData, even where the root's type
/// attribute names another).
std::vector<vtkXMLDataElement*> pieces_without_point_data(vtkXMLDataElement* root) {
  std::vector<vtkXMLDataElement*> pieces;
  for (int g = 0; root != nullptr && g < root->GetNumberOfNestedElements(); ++g) {
    vtkXMLDataElement* grid = root->GetNestedElement(g);
    for (int p = 0; p < grid->GetNumberOfNestedElements(); ++p) {
      vtkXMLDataElement* piece = grid->GetNestedElement(p);
      if (piece->GetName() != nullptr && std::strcmp(piece->GetName(), "Piece") == 0 &&
          piece->FindNestedElementWithName("PointData") == nullptr &&
          piece->FindNestedElementWithName("CellData") != nullptr)
        pieces.push_back(piece);
    }
  }
  return pieces;
}

}  // namespace

bool needs_empty_point_data(vtkXMLDataElement* root) {
  return !pieces_without_point_data(root).empty();
}

std::string with_empty_point_data(vtkXMLDataElement* root, const std::string& text) {
  std::vector<std::size_t> at;  // just after the start tag of each piece that needs it
  for (vtkXMLDataElement* piece : pieces_without_point_data(root)) {
    const vtkTypeInt64 start = piece->GetXMLByteIndex();
    const std::size_t end =
        start < 0 ? std::string::npos : text.find('>', static_cast<std::size_t>(start));
    if (end == std::string::npos || text[end - 1] == '/') continue;
    at.push_back(end + 1);
  }
  if (at.empty()) return {};
  std::string out = text;
  // From the back, so that the earlier positions stay where they are.
  for (auto it = at.rbegin(); it != at.rend(); ++it) out.insert(*it, "<PointData></PointData>");
  return out;
}

void check_vtu_tree(vtkXMLDataElement* root, const std::string& path, std::uintmax_t file_bytes) {
  if (root == nullptr) return;  // VTK's reader has reported why
  VtuChecker checker(path, file_bytes, root->GetAttribute("compressor") != nullptr);
  checker.check_components(root);
  vtkXMLDataElement* grid = root->FindNestedElementWithName("UnstructuredGrid");
  if (grid == nullptr) return;  // VTK's reader says what is missing
  for (int p = 0; p < grid->GetNumberOfNestedElements(); ++p) {
    vtkXMLDataElement* piece = grid->GetNestedElement(p);
    if (piece->GetName() != nullptr && std::strcmp(piece->GetName(), "Piece") == 0)
      checker.check_piece(piece);
  }
}

}  // namespace fem::detail

#endif  // FEM_WITH_VTK
