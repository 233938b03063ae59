// The checked YAML reader under the case loader: every read names the offending node.
//
// yaml-cpp gives nodes and marks but no notion of "where did this come from" once --set overrides
// have replaced parts of the tree, nor of a node's name in the schema. Value carries both, so
// every type or range check can throw an InputError that says which key is wrong, where it is
// and what would be valid, without the schema code repeating that bookkeeping.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "fem/error.hpp"

namespace fem::case_io {

/// Where a case tree came from: the file, and the subtrees the command line replaced.
struct Origin {
  std::string file;
  /// override path ("blocks.0.material") -> "<command line>: --set blocks.0.material=x"
  std::map<std::string, std::string> overridden;
  /// Text translated from another file (an Abaqus deck): per line (index 0 is line 1), where
  /// it came from. Empty: the text is `file` itself.
  std::shared_ptr<const std::vector<SourceLocation>> lines;

  /// Where a mark of the text is, in the file the user wrote.
  [[nodiscard]] SourceLocation at(const YAML::Mark& m) const;
};

/// A node of the case tree with its schema name, display path and origin.
class Value {
 public:
  /// The document root.
  Value(YAML::Node node, const Origin& origin);

  [[nodiscard]] const YAML::Node& node() const { return node_; }
  /// "end_time", "size[1]"; the last component of the path.
  [[nodiscard]] const std::string& name() const { return name_; }
  /// "output.histories[0].every_steps"; "" for the root.
  [[nodiscard]] const std::string& path() const { return path_; }
  /// The path as --set spells it: "output.histories.0.every_steps".
  [[nodiscard]] const std::string& override_path() const { return override_path_; }
  [[nodiscard]] const Origin& origin() const { return *origin_; }

  /// The value itself (an empty value is located at its key, where the user typed something).
  [[nodiscard]] SourceLocation where() const;
  /// The key that names this value (for messages about the whole entry), or where() if none.
  [[nodiscard]] SourceLocation key_where() const;

  [[nodiscard]] bool is_null() const { return node_.IsNull(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }
  [[nodiscard]] bool is_list() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  /// The scalar text ("" for anything else).
  [[nodiscard]] std::string text() const;
  /// For "got ...": "'five'", "a list", "a mapping", "nothing".
  [[nodiscard]] std::string describe() const;
  /// The name quoted for messages: "'end_time'" (or "the case file" for the root).
  [[nodiscard]] std::string quoted() const;

  /// A mapping entry and a list item. The key must be a scalar.
  [[nodiscard]] Value entry(const YAML::Node& key, const YAML::Node& value) const;
  [[nodiscard]] Value item(std::size_t index, const YAML::Node& value) const;

  [[noreturn]] void fail(const std::string& message, const std::string& hint = {}) const;
  [[noreturn]] void fail_at_key(const std::string& message, const std::string& hint = {}) const;

 private:
  Value(YAML::Node node, YAML::Node key, const Origin& origin, std::string name, std::string path,
        std::string override_path, const std::string* label, SourceLocation parent_where);
  [[nodiscard]] SourceLocation mark_of(const YAML::Node& n) const;

  YAML::Node node_;
  YAML::Node key_;  // undefined for the root and list items
  const Origin* origin_;
  std::string name_;
  std::string path_;
  std::string override_path_;
  const std::string* label_ = nullptr;  // set when this subtree came from --set
  SourceLocation parent_where_;         // fallback for nodes without a mark
};

/// A mapping whose keys are checked against the schema when it is opened.
class Mapping {
 public:
  /// Requires a mapping (an empty value counts as an empty one). Rejects the first key not in
  /// `keys`, with did-you-mean and the valid keys. An empty `keys` accepts any key.
  Mapping(const Value& value, std::vector<std::string> keys);

  [[nodiscard]] const Value& value() const { return value_; }
  [[nodiscard]] bool has(const std::string& key) const;
  [[nodiscard]] std::optional<Value> get(const std::string& key) const;
  /// Missing -> "missing required key 'k' in 'section'" at the key naming this mapping.
  [[nodiscard]] Value required(const std::string& key, const std::string& hint = {}) const;
  /// All entries in file order.
  [[nodiscard]] const std::vector<Value>& entries() const { return entries_; }

 private:
  Value value_;
  std::vector<Value> entries_;
};

// Typed reads. Each throws InputError at the value with the expected type and what it got.
[[nodiscard]] std::string as_string(const Value& v);
[[nodiscard]] double as_number(const Value& v);
[[nodiscard]] std::int64_t as_integer(const Value& v);
[[nodiscard]] int as_int(const Value& v, int min);
[[nodiscard]] bool as_bool(const Value& v);
/// One of `allowed`, with did-you-mean.
[[nodiscard]] std::string as_choice(const Value& v, const std::vector<std::string>& allowed);
/// A list (an empty value counts as an empty list).
[[nodiscard]] std::vector<Value> as_list(const Value& v);
[[nodiscard]] std::array<double, 3> as_vector3(const Value& v);
/// The items of a list of exactly 3; `what` completes "must be a list of ...": "3 integers".
/// A file the case names (a non-empty string), resolved against the folder of the file the
/// value comes from (the working folder for text and --set values), and checked to be a regular
/// file: otherwise an error at the value names `what` ("mesh file") and where it looked.
[[nodiscard]] std::string existing_file(const Value& v, const std::string& what,
                                        const std::string& hint);
[[nodiscard]] std::vector<Value> list_items(const Value& v, std::size_t count,
                                            const std::string& what);
[[nodiscard]] std::vector<Value> three_items(const Value& v, const std::string& what);
/// A string that must not be empty (names, plugin names, paths).
[[nodiscard]] std::string non_empty_string(const Value& v);

// Physical checks on numbers: they return the value so reads stay one line.
double positive(const Value& v);
double non_negative(const Value& v);
double in_range(const Value& v, double lo, double hi, bool lo_inclusive, bool hi_inclusive);

/// Number parsing as the case file sees it: plain decimal or exponent notation, finite.
[[nodiscard]] bool parse_number(const std::string& text, double& out);
[[nodiscard]] bool parse_integer(const std::string& text, std::int64_t& out);
/// A hint for a number written with a unit ("5 s") or similar, or "".
[[nodiscard]] std::string number_hint(const std::string& text);
/// %g with enough digits to round-trip typical input.
[[nodiscard]] std::string format_number(double v);

[[nodiscard]] std::string join(const std::vector<std::string>& words,
                               const std::string& sep = ", ");
/// For an undefined name: "did you mean 'x'? defined <noun>: a, b, c", or "no <noun> are defined".
[[nodiscard]] std::string suggestion(const std::string& word, const std::vector<std::string>& known,
                                     const std::string& noun);

/// Rejects a key given twice in one mapping (yaml-cpp silently keeps the first) and keys that
/// are not plain scalars, anywhere below `node`. `label` replaces marks when non-empty (values
/// parsed from the command line have marks relative to the override text, not the file).
void check_keys(const YAML::Node& node, const std::string& file, const std::string& path,
                const std::string& label = {});

}  // namespace fem::case_io
