// The JSON run summary: what ran, how long each part took, how it ended.
//
// Values are set under dotted keys that become nested objects ("timing.element_pass_s" ->
// {"timing": {"element_pass_s": ...}}). The JSON library stays private to libfem.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>

namespace fem {

class RunSummary {
 public:
  RunSummary();
  ~RunSummary();
  RunSummary(RunSummary&&) noexcept;
  RunSummary& operator=(RunSummary&&) noexcept;
  RunSummary(const RunSummary&) = delete;
  RunSummary& operator=(const RunSummary&) = delete;

  /// Sets (or replaces) a value. Throws fem::Error for an empty key segment ("a..b") or when the
  /// key would put a value inside a non-object or replace an object ("a" = 1, then "a.b").
  /// JSON has no NaN or infinity: such a double is written as null.
  void set(const std::string& dotted_key, double value);
  void set(const std::string& dotted_key, std::int64_t value);
  void set(const std::string& dotted_key, const std::string& value);
  void set(const std::string& dotted_key, bool value);
  /// Without these, a string literal would pick the bool overload and an int would be ambiguous.
  void set(const std::string& dotted_key, const char* value) {
    set(dotted_key, std::string(value));
  }
  template <std::integral T>
  requires(!std::same_as<T, bool> &&
           !std::same_as<T, std::int64_t>) void set(const std::string& dotted_key, T value) {
    set(dotted_key, static_cast<std::int64_t>(value));
  }

  /// Writes pretty-printed JSON, keys in the order first set, replacing `path` atomically.
  /// Throws fem::Error with the path and reason if it cannot.
  void write(const std::string& path) const;
  /// The JSON text write() writes.
  [[nodiscard]] std::string json() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fem
