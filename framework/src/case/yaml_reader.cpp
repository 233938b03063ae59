#include "yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string_view>

namespace fem::case_io {

namespace {

std::string in_what(const std::string& path) {
  return path.empty() ? "at the top level" : "in '" + path + "'";
}

SourceLocation location_of(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// from_chars does not take YAML's optional leading '+'.
std::string_view unsigned_part(const std::string& text) {
  std::string_view s = text;
  if (s.size() > 1 && s[0] == '+' &&
      (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.'))
    s.remove_prefix(1);
  return s;
}

std::string valid_keys_hint(const std::string& key, const std::vector<std::string>& keys) {
  const std::string guess = did_you_mean(key, keys.data(), keys.data() + keys.size());
  return (guess.empty() ? "" : guess + " ") + "valid keys: " + join(keys);
}

}  // namespace

SourceLocation Origin::at(const YAML::Mark& m) const {
  if (!lines || m.is_null()) return location_of(m, file);
  const auto line = static_cast<std::size_t>(m.line);
  return line < lines->size() ? (*lines)[line] : SourceLocation{file, 0, 0};
}

// ---- Value --------------------------------------------------------------------------------------

Value::Value(YAML::Node node, const Origin& origin)
    : node_(std::move(node)), origin_(&origin), parent_where_{origin.file, 1, 1} {}

Value::Value(YAML::Node node, YAML::Node key, const Origin& origin, std::string name,
             std::string path, std::string override_path, const std::string* label,
             SourceLocation parent_where)
    : node_(std::move(node)),
      key_(std::move(key)),
      origin_(&origin),
      name_(std::move(name)),
      path_(std::move(path)),
      override_path_(std::move(override_path)),
      label_(label),
      parent_where_(std::move(parent_where)) {}

SourceLocation Value::mark_of(const YAML::Node& n) const {
  if (!n.IsDefined() || n.Mark().is_null()) return parent_where_;
  return origin_->at(n.Mark());
}

SourceLocation Value::where() const {
  if (label_) return {*label_, 0, 0};
  // yaml-cpp marks an empty value at the next token, often on a later line: the key is where the
  // user left the value out.
  if (node_.IsNull() && key_.IsDefined() && key_.IsScalar()) return mark_of(key_);
  return mark_of(node_);
}

SourceLocation Value::key_where() const {
  if (label_) return {*label_, 0, 0};
  if (key_.IsDefined() && key_.IsScalar()) return mark_of(key_);
  return where();
}

std::string Value::text() const {
  return node_.IsScalar() ? node_.Scalar() : std::string();
}

std::string Value::describe() const {
  if (node_.IsScalar()) return "'" + node_.Scalar() + "'";
  if (node_.IsSequence()) return "a list";
  if (node_.IsMap()) return "a mapping";
  return "nothing";
}

std::string Value::quoted() const {
  return name_.empty() ? "the case file" : "'" + name_ + "'";
}

Value Value::entry(const YAML::Node& key, const YAML::Node& value) const {
  const std::string k = key.Scalar();
  std::string opath = override_path_.empty() ? k : override_path_ + "." + k;
  const auto it = origin_->overridden.find(opath);
  const std::string* label = it != origin_->overridden.end() ? &it->second : label_;
  SourceLocation here = label ? SourceLocation{*label, 0, 0} : where();
  if (!label && key.IsDefined() && !key.Mark().is_null()) here = origin_->at(key.Mark());
  return Value(value, key, *origin_, k, path_.empty() ? k : path_ + "." + k, std::move(opath),
               label, std::move(here));
}

Value Value::item(std::size_t index, const YAML::Node& value) const {
  const std::string i = std::to_string(index);
  std::string opath = override_path_.empty() ? i : override_path_ + "." + i;
  const auto it = origin_->overridden.find(opath);
  const std::string* label = it != origin_->overridden.end() ? &it->second : label_;
  return Value(value, YAML::Node(), *origin_, name_ + "[" + i + "]", path_ + "[" + i + "]",
               std::move(opath), label, where());
}

void Value::fail(const std::string& message, const std::string& hint) const {
  throw InputError(where(), message, hint);
}

void Value::fail_at_key(const std::string& message, const std::string& hint) const {
  throw InputError(key_where(), message, hint);
}

// ---- Mapping ------------------------------------------------------------------------------------

Mapping::Mapping(const Value& value, std::vector<std::string> keys) : value_(value) {
  const YAML::Node& n = value.node();
  if (value.is_null()) return;
  if (!n.IsMap()) {
    if (value.path().empty())
      value.fail(
          "a case file must be a mapping of sections (mesh:, materials:, blocks:, ...), got " +
          value.describe());
    value.fail(value.quoted() + " must be a mapping (key: value pairs), got " + value.describe(),
               "write it as 'key: value' lines indented below " + value.quoted() +
                   ", or as {key: value, ...}");
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    // check_keys() has already rejected non-scalar keys; guard anyway, the reader is generic.
    if (!it->first.IsScalar())
      value.fail("a key " + in_what(value.path()) + " must be a plain name");
    entries_.push_back(value.entry(it->first, it->second));
  }
  if (keys.empty()) return;
  for (const Value& e : entries_) {
    if (std::find(keys.begin(), keys.end(), e.name()) != keys.end()) continue;
    e.fail_at_key("unknown key '" + e.name() + "' " + in_what(value.path()),
                  valid_keys_hint(e.name(), keys));
  }
}

bool Mapping::has(const std::string& key) const {
  return get(key).has_value();
}

std::optional<Value> Mapping::get(const std::string& key) const {
  for (const Value& e : entries_)
    if (e.name() == key) return e;
  return std::nullopt;
}

Value Mapping::required(const std::string& key, const std::string& hint) const {
  if (auto v = get(key)) return *v;
  const std::string where = value_.path().empty() ? "top-level key '" + key + "'"
                                                  : "key '" + key + "' in '" + value_.path() + "'";
  value_.fail_at_key("missing required " + where, hint);
}

// ---- typed reads --------------------------------------------------------------------------------

std::string as_string(const Value& v) {
  if (v.is_scalar()) return v.text();
  v.fail(v.quoted() + " must be a string, got " + v.describe());
}

double as_number(const Value& v) {
  double x = 0.0;
  if (v.is_scalar() && parse_number(v.text(), x)) return x;
  v.fail(v.quoted() + " must be a number, got " + v.describe(), number_hint(v.text()));
}

std::int64_t as_integer(const Value& v) {
  std::int64_t n = 0;
  if (v.is_scalar() && parse_integer(v.text(), n)) return n;
  double x = 0.0;
  const bool is_number = v.is_scalar() && parse_number(v.text(), x);
  v.fail(v.quoted() + " must be an integer, got " + v.describe(),
         is_number ? "write a whole number without a decimal point" : number_hint(v.text()));
}

int as_int(const Value& v, int min) {
  const std::int64_t n = as_integer(v);
  if (n < min) v.fail(v.quoted() + " must be >= " + std::to_string(min) + ", got " + v.text());
  if (n > INT_MAX) v.fail(v.quoted() + " is too large: at most " + std::to_string(INT_MAX));
  return static_cast<int>(n);
}

bool as_bool(const Value& v) {
  if (v.is_scalar()) {
    const std::string s = lower(v.text());
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  v.fail(v.quoted() + " must be true or false, got " + v.describe());
}

std::string as_choice(const Value& v, const std::vector<std::string>& allowed) {
  const std::string what = allowed.size() == 1   ? allowed[0]
                           : allowed.size() == 2 ? allowed[0] + " or " + allowed[1]
                                                 : "one of " + join(allowed);
  if (!v.is_scalar()) v.fail(v.quoted() + " must be " + what + ", got " + v.describe());
  const std::string s = v.text();
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
  v.fail(v.quoted() + " must be " + what + ", got '" + s + "'",
         did_you_mean(s, allowed.data(), allowed.data() + allowed.size()));
}

std::vector<Value> as_list(const Value& v) {
  std::vector<Value> items;
  if (v.is_null()) return items;
  if (!v.is_list())
    v.fail(v.quoted() + " must be a list, got " + v.describe(),
           "write [a, b, ...] or one '- item' per line");
  for (std::size_t i = 0; i < v.node().size(); ++i) items.push_back(v.item(i, v.node()[i]));
  return items;
}

std::string existing_file(const Value& v, const std::string& what, const std::string& hint) {
  namespace fs = std::filesystem;
  const fs::path p = non_empty_string(v);
  const std::string& from = v.origin().file;
  const fs::path base = from.empty() || from.front() == '<'
                            ? fs::current_path()
                            : fs::absolute(fs::path(from)).parent_path();
  const std::string path = (p.is_absolute() ? p : base / p).lexically_normal().string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    v.fail(what + " '" + p.string() + "' " +
               (fs::exists(path, ec) ? "is not a regular file" : "does not exist") +
               " (looked for " + path + ")",
           hint);
  return path;
}

std::vector<Value> list_items(const Value& v, std::size_t count, const std::string& what) {
  const std::string expected = v.quoted() + " must be a list of " + what;
  if (!v.is_list()) v.fail(expected + ", got " + v.describe());
  const std::size_t n = v.node().size();
  if (n != count) v.fail(expected + ", got " + std::to_string(n) + (n == 1 ? " item" : " items"));
  return as_list(v);
}

std::vector<Value> three_items(const Value& v, const std::string& what) {
  return list_items(v, 3, what);
}

std::array<double, 3> as_vector3(const Value& v) {
  const std::vector<Value> items = three_items(v, "3 numbers [x, y, z]");
  return {as_number(items[0]), as_number(items[1]), as_number(items[2])};
}

std::string non_empty_string(const Value& v) {
  std::string s = as_string(v);
  if (s.empty()) v.fail(v.quoted() + " must not be empty");
  return s;
}

// ---- physical checks ----------------------------------------------------------------------------

double positive(const Value& v) {
  const double x = as_number(v);
  if (!(x > 0.0)) v.fail(v.quoted() + " must be > 0, got " + v.text());
  return x;
}

double non_negative(const Value& v) {
  const double x = as_number(v);
  if (!(x >= 0.0)) v.fail(v.quoted() + " must be >= 0, got " + v.text());
  return x;
}

double in_range(const Value& v, double lo, double hi, bool lo_inclusive, bool hi_inclusive) {
  const double x = as_number(v);
  const bool ok = (lo_inclusive ? x >= lo : x > lo) && (hi_inclusive ? x <= hi : x < hi);
  if (!ok)
    v.fail(v.quoted() + " must be in " + (lo_inclusive ? "[" : "(") + format_number(lo) + ", " +
           format_number(hi) + (hi_inclusive ? "]" : ")") + ", got " + v.text());
  return x;
}

// ---- numbers and words --------------------------------------------------------------------------

bool parse_number(const std::string& text, double& out) {
  const std::string_view s = unsigned_part(text);
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  // from_chars also reads "inf" and "nan": a case has no use for them and they poison a run.
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

bool parse_integer(const std::string& text, std::int64_t& out) {
  const std::string_view s = unsigned_part(text);
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::string number_hint(const std::string& text) {
  const std::string l = lower(text);
  for (const char* special : {".inf", "-.inf", "+.inf", "inf", "-inf", ".nan", "nan", "infinity"})
    if (l == special) return "only finite numbers are accepted";
  const std::string_view s = unsigned_part(text);
  double x = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || ptr == s.data()) return {};
  if (*ptr == ',' && ptr + 1 < s.data() + s.size() &&
      std::isdigit(static_cast<unsigned char>(ptr[1])))
    return "use '.' as the decimal separator";
  return "write a plain number in SI units (m, s, kg, Pa, N), without a unit";
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known,
                       const std::string& noun) {
  if (known.empty()) return "no " + noun + " are defined";
  const std::string guess = did_you_mean(word, known.data(), known.data() + known.size());
  return (guess.empty() ? "" : guess + " ") + "defined " + noun + ": " + join(known);
}

// ---- duplicate keys -----------------------------------------------------------------------------

namespace {

/// The collections of one document by their position in it: an alias reaches the node of its
/// anchor again, at the anchor's position.
struct KeyCheck {
  std::set<std::size_t> checked;  ///< collections whose keys are checked (aliased: skipped)
  std::vector<std::size_t> open;  ///< collections being checked, outermost first
  const std::string& file;
  const std::string& label;
};

void check_keys(const YAML::Node& node, const std::string& path, KeyCheck& state) {
  const auto where = [&](const YAML::Node& n) {
    return state.label.empty() ? location_of(n.Mark(), state.file)
                               : SourceLocation{state.label, 0, 0};
  };
  if (!node.IsSequence() && !node.IsMap()) return;
  // A collection met again through an alias is checked once: without this a self-referring
  // alias (a: &x [1, *x]) recursed until the stack ran out, and nested aliases ("billion
  // laughs") took time exponential in the file's size.
  const YAML::Mark mark = node.Mark();
  const bool tracked = !mark.is_null();
  const auto pos = static_cast<std::size_t>(mark.pos);
  if (tracked) {
    if (std::find(state.open.begin(), state.open.end(), pos) != state.open.end())
      throw InputError(
          where(node),
          "a YAML alias " + in_what(path) + " refers to a list or mapping that contains it",
          "an alias (*name) must not point into its own anchor (&name): write the "
          "value out, or anchor a smaller part");
    if (!state.checked.insert(pos).second) return;
    state.open.push_back(pos);
  }
  if (node.IsSequence()) {
    // Only collections can hold keys: a list of a million numbers costs no path string each.
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      if (item.IsSequence() || item.IsMap())
        check_keys(item, path + "[" + std::to_string(i) + "]", state);
    }
  } else {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      // A copy: yaml-cpp's operator-> returns a proxy that dies with the statement, so a
      // reference into it dangles (AddressSanitizer: stack-use-after-scope, fuzz_case_loader).
      const YAML::Node key = it->first;
      if (!key.IsScalar())
        throw InputError(where(key), "a key " + in_what(path) + " must be a plain name, got " +
                                         (key.IsSequence() ? "a list" : "a mapping"));
      // yaml-cpp reads "<<" as an ordinary key; without this the merged keys would just be
      // missing.
      if (key.Scalar() == "<<")
        throw InputError(where(key), "YAML merge keys ('<<') are not supported " + in_what(path),
                         "repeat the keys, or refer to a whole mapping with an alias (*name)");
      const auto [first, inserted] = seen.emplace(key.Scalar(), key.Mark());
      if (!inserted)
        throw InputError(
            where(key), "duplicate key '" + key.Scalar() + "' " + in_what(path),
            (state.label.empty() && !first->second.is_null()
                 ? "it is already given at line " + std::to_string(first->second.line + 1) + "; "
                 : std::string()) +
                "YAML would silently keep only one of them: remove or rename one");
      if (it->second.IsSequence() || it->second.IsMap())
        check_keys(it->second, path.empty() ? key.Scalar() : path + "." + key.Scalar(), state);
    }
  }
  if (tracked) state.open.pop_back();
}

}  // namespace

void check_keys(const YAML::Node& node, const std::string& file, const std::string& path,
                const std::string& label) {
  KeyCheck state{{}, {}, file, label};
  check_keys(node, path, state);
}

}  // namespace fem::case_io
