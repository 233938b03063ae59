// ParamReader: a material plugin's view of its case-file mapping.
#include "fem/param_reader.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "yaml_reader.hpp"

namespace fem {

using case_io::format_number;
using case_io::join;
using case_io::number_hint;
using case_io::parse_number;

struct ParamReader::Impl {
  YAML::Node node;
  std::string file;
  std::string owner;
  std::vector<std::string> reserved;
  std::vector<std::string> known;  // keys the plugin asked for, in the order it asked
  std::shared_ptr<const std::vector<SourceLocation>> lines;  // a deck's case: deck lines

  [[nodiscard]] SourceLocation located(const YAML::Mark& m) const {
    const auto line = static_cast<std::size_t>(m.line);
    if (lines && line < lines->size()) return (*lines)[line];
    return {file, m.line + 1, m.column + 1};
  }

  void remember(const std::string& key) {
    if (std::find(known.begin(), known.end(), key) == known.end()) known.push_back(key);
  }

  /// The entry for `key`, found by walking the mapping: yaml-cpp's non-const operator[] would add
  /// an empty entry, and iteration also yields the key node for locating empty values.
  [[nodiscard]] std::pair<YAML::Node, YAML::Node> find(const std::string& key) const {
    if (node.IsMap())
      for (auto it = node.begin(); it != node.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == key) return {it->first, it->second};
    return {YAML::Node(YAML::NodeType::Undefined), YAML::Node(YAML::NodeType::Undefined)};
  }

  [[nodiscard]] SourceLocation at(const YAML::Node& n) const {
    if (!n.IsDefined()) return here();
    // Nodes without a mark were set on the command line (--set): see overrides.cpp.
    if (n.Mark().is_null()) return {"<command line>", 0, 0};
    return located(n.Mark());
  }

  [[nodiscard]] SourceLocation here() const {
    if (!node.IsDefined() || node.Mark().is_null()) return {file, 0, 0};
    return located(node.Mark());
  }

  [[noreturn]] void fail_at(const SourceLocation& where, const std::string& message,
                            const std::string& hint) const {
    throw InputError(where, owner + ": " + message, hint);
  }

  /// The value as the user wrote it ("1e3" stays "1e3") when the plugin checks the value it read;
  /// a derived value (e.g. a bulk modulus computed from E and nu) is printed as computed.
  [[nodiscard]] std::string got(const std::string& key, double value) const {
    const YAML::Node v = find(key).second;
    double written = 0.0;
    if (v.IsDefined() && v.IsScalar() && parse_number(v.Scalar(), written) && written == value)
      return v.Scalar();
    return format_number(value);
  }
};

ParamReader::ParamReader(const YAML::Node& node, std::string file, std::string owner,
                         const std::vector<std::string>& reserved)
    : impl_(std::make_unique<Impl>()) {
  impl_->node = node;
  impl_->file = std::move(file);
  impl_->owner = std::move(owner);
  impl_->reserved = reserved;
}

ParamReader::~ParamReader() = default;

void ParamReader::set_translated_lines(std::shared_ptr<const std::vector<SourceLocation>> lines) {
  impl_->lines = std::move(lines);
}

bool ParamReader::has(const std::string& key) {
  impl_->remember(key);
  return impl_->find(key).second.IsDefined();
}

double ParamReader::number(const std::string& key) {
  impl_->remember(key);
  const auto [k, v] = impl_->find(key);
  if (!v.IsDefined()) fail_here("missing required parameter '" + key + "'");
  double x = 0.0;
  if (v.IsScalar() && parse_number(v.Scalar(), x)) return x;
  const std::string got = v.IsScalar()     ? "'" + v.Scalar() + "'"
                          : v.IsSequence() ? "a list"
                          : v.IsMap()      ? "a mapping"
                                           : "nothing";
  fail(key, "'" + key + "' must be a number, got " + got,
       v.IsScalar() ? number_hint(v.Scalar()) : std::string());
}

double ParamReader::number(const std::string& key, double default_value) {
  impl_->remember(key);
  if (!impl_->find(key).second.IsDefined()) return default_value;
  return number(key);
}

std::vector<double> ParamReader::vector3(const std::string& key) {
  impl_->remember(key);
  const auto [k, v] = impl_->find(key);
  if (!v.IsDefined()) fail_here("missing required parameter '" + key + "'");
  const std::string expected = "'" + key + "' must be a list of 3 numbers [x, y, z]";
  if (!v.IsSequence()) fail(key, expected);
  if (v.size() != 3) fail(key, expected + ", got " + std::to_string(v.size()) + " items");
  std::vector<double> out(3);
  for (std::size_t i = 0; i < 3; ++i) {
    const YAML::Node item = v[i];
    if (!item.IsScalar() || !parse_number(item.Scalar(), out[i]))
      impl_->fail_at(impl_->at(item),
                     "'" + key + "[" + std::to_string(i) + "]' must be a number, got " +
                         (item.IsScalar() ? "'" + item.Scalar() + "'" : std::string("a list")),
                     {});
  }
  return out;
}

void ParamReader::require_positive(const std::string& key, double value) {
  if (!(value > 0.0)) fail(key, "'" + key + "' must be > 0, got " + impl_->got(key, value));
}

void ParamReader::require_range(const std::string& key, double value, double lo, double hi,
                                bool lo_inclusive, bool hi_inclusive) {
  const bool ok =
      (lo_inclusive ? value >= lo : value > lo) && (hi_inclusive ? value <= hi : value < hi);
  if (!ok)
    fail(key, "'" + key + "' must be in " + (lo_inclusive ? "[" : "(") + format_number(lo) + ", " +
                  format_number(hi) + (hi_inclusive ? "]" : ")") + ", got " +
                  impl_->got(key, value));
}

void ParamReader::fail(const std::string& key, const std::string& message,
                       const std::string& hint) {
  impl_->fail_at(location(key), message, hint);
}

void ParamReader::fail_here(const std::string& message, const std::string& hint) {
  impl_->fail_at(impl_->here(), message, hint);
}

void ParamReader::finish() {
  if (!impl_->node.IsMap()) return;
  std::vector<std::string> candidates = impl_->known;
  candidates.insert(candidates.end(), impl_->reserved.begin(), impl_->reserved.end());
  for (auto it = impl_->node.begin(); it != impl_->node.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(candidates.begin(), candidates.end(), key) != candidates.end()) continue;
    const std::string guess =
        did_you_mean(key, candidates.data(), candidates.data() + candidates.size());
    impl_->fail_at(impl_->at(it->first), "unknown parameter '" + key + "'",
                   (guess.empty() ? "" : guess + " ") + "parameters: " + join(candidates));
  }
}

SourceLocation ParamReader::location(const std::string& key) const {
  const auto [k, v] = impl_->find(key);
  if (!v.IsDefined()) return impl_->here();
  // An empty value is marked at the next token; the key is where the user left it out.
  return v.IsNull() ? impl_->at(k) : impl_->at(v);
}

}  // namespace fem
