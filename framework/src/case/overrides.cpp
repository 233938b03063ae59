#include "overrides.hpp"

#include <cctype>

namespace fem::case_io {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string::size_type begin = 0;
  while (true) {
    const auto dot = path.find('.', begin);
    parts.push_back(path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  return parts;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

/// Looks a key up without yaml-cpp's non-const operator[], which would add an empty entry.
bool has_key(const YAML::Node& map, const std::string& key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  return false;
}

/// A copy built through the API, so that no node carries a mark: a mark from parsing the override
/// text would read as a line of the case file (ParamReader, which only sees nodes, relies on it).
YAML::Node unmarked_copy(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (std::size_t i = 0; i < n.size(); ++i) out.push_back(unmarked_copy(n[i]));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (auto it = n.begin(); it != n.end(); ++it)
        out[it->first.Scalar()] = unmarked_copy(it->second);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

class OverrideApplier {
 public:
  OverrideApplier(const CaseOverride& o, Origin& origin)
      : o_(o), origin_(origin), label_(override_label(o)) {}

  void apply(YAML::Node& root) {
    const std::vector<std::string> parts = split_path(o_.path);
    for (const std::string& p : parts)
      if (p.empty())
        fail("the key path has an empty part",
             "write dotted keys, with list items by index: solver.end_time, blocks.0.material");
    const YAML::Node value = parse_value();

    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap()) fail("the case file is not a mapping of sections");
    YAML::Node cur;
    cur.reset(root);
    std::string walked;  // the path followed so far, with indices normalised
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const bool last = i + 1 == parts.size();
      const std::string& part = parts[i];
      if (cur.IsNull()) {
        // An empty section ("output:" with nothing below) becomes the mapping the path needs.
        cur = YAML::Node(YAML::NodeType::Map);
        origin_.overridden[walked] = label_;
      }
      std::string here;
      if (cur.IsMap()) {
        here = walked.empty() ? part : walked + "." + part;
        if (last) {
          cur[part] = value;
        } else {
          if (!has_key(cur, part)) {
            cur[part] = YAML::Node(YAML::NodeType::Map);
            origin_.overridden[here] = label_;
          }
          const YAML::Node next = cur[part];
          cur.reset(next);
        }
      } else if (cur.IsSequence()) {
        const std::size_t size = cur.size();
        const std::string items = std::to_string(size) + (size == 1 ? " item" : " items");
        if (!all_digits(part))
          fail("'" + walked + "' is a list, and '" + part + "' is not an item index",
               "items are numbered from 0: " + walked + ".0");
        const std::size_t index = part.size() > 9 ? size : std::stoul(part);
        if (index >= size)
          fail("'" + walked + "' has " + items + ", so index " + part + " is past its end",
               (size ? "indices run from 0 to " + std::to_string(size - 1) + "; " : "") +
                   "--set cannot add items: set the whole list, e.g. --set " + walked + "=[...]");
        here = walked + "." + std::to_string(index);
        if (last) {
          cur[index] = value;
        } else {
          const YAML::Node next = cur[index];
          cur.reset(next);
        }
      } else {
        fail("'" + walked + "' is the value '" + cur.Scalar() + "', so it has no '" + part + "'",
             "only mappings have keys and only lists have items");
      }
      walked = here;
    }
    // The new value replaces whatever earlier overrides put below it.
    for (auto it = origin_.overridden.begin(); it != origin_.overridden.end();) {
      if (it->first.rfind(walked + ".", 0) == 0)
        it = origin_.overridden.erase(it);
      else
        ++it;
    }
    origin_.overridden[walked] = label_;
  }

 private:
  [[noreturn]] void fail(const std::string& message, const std::string& hint = {}) const {
    throw InputError({"<command line>", 0, 0},
                     "cannot apply --set " + o_.path + "=" + o_.value + ": " + message, hint);
  }

  YAML::Node parse_value() const {
    YAML::Node parsed;
    try {
      parsed = YAML::Load(o_.value);
    } catch (const YAML::Exception& e) {
      fail("the value is not valid YAML: " + e.msg,
           "quote the whole argument for the shell: --set '" + o_.path + "=[1, 2, 3]'");
    }
    check_keys(parsed, {}, o_.path, label_);
    return unmarked_copy(parsed);
  }

  const CaseOverride& o_;
  Origin& origin_;
  std::string label_;
};

}  // namespace

std::string override_label(const CaseOverride& o) {
  return "<command line>: --set " + o.path + "=" + o.value;
}

void apply_overrides(YAML::Node& root, const std::vector<CaseOverride>& overrides, Origin& origin) {
  for (const CaseOverride& o : overrides) OverrideApplier(o, origin).apply(root);
}

}  // namespace fem::case_io
