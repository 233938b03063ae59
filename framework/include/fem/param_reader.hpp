// Reads a material's parameters from its case-file mapping, with file:line:column messages.
//
// Material plugins receive one in their parse() function. Every key read (or asked about with
// has()) is remembered; finish() then rejects keys nobody asked for, with a did-you-mean drawn
// from the keys that were asked for. The YAML library stays behind this interface so that the
// plugin SDK does not depend on it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fem/error.hpp"

namespace YAML {
class Node;
}

namespace fem {

class ParamReader {
 public:
  /// `node` is the material's mapping; `reserved` are keys consumed by the framework.
  ParamReader(const YAML::Node& node, std::string file, std::string owner,
              const std::vector<std::string>& reserved);
  ~ParamReader();
  /// The mapping is text translated from another file (an Abaqus deck): per line, where it came
  /// from, so that messages name the user's file and line.
  void set_translated_lines(std::shared_ptr<const std::vector<SourceLocation>> lines);
  ParamReader(const ParamReader&) = delete;
  ParamReader& operator=(const ParamReader&) = delete;

  /// True if the key is present. Also records the key as known.
  bool has(const std::string& key);
  /// A required number. Missing or non-numeric -> InputError at the mapping / the value.
  double number(const std::string& key);
  /// An optional number with a default.
  double number(const std::string& key, double default_value);
  /// A required 3-vector.
  std::vector<double> vector3(const std::string& key);

  /// Helpers for physical checks that point at the key's value.
  void require_positive(const std::string& key, double value);
  void require_range(const std::string& key, double value, double lo, double hi, bool lo_inclusive,
                     bool hi_inclusive);
  /// Raise an error at the key's value (or the mapping if absent).
  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         const std::string& hint = {});
  /// Raise an error at the mapping itself.
  [[noreturn]] void fail_here(const std::string& message, const std::string& hint = {});

  /// Rejects any key never asked for. Called by the framework after the plugin's parse().
  void finish();

  [[nodiscard]] SourceLocation location(const std::string& key) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fem
