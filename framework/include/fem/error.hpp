// Errors that reach the user. Every one says what went wrong, where, and how to fix it.
#pragma once

#include <stdexcept>
#include <string>

namespace fem {

/// A place in an input file. line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  [[nodiscard]] std::string str() const;  // "file:line:column" (or as much as is known)
};

/// Base of all errors fem reports to the user. what() is the complete, formatted message.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input: case file, mesh file, parameter. Message is "file:line:col: error: what. hint".
class InputError : public Error {
 public:
  InputError(SourceLocation where, const std::string& message, const std::string& hint = {});
  [[nodiscard]] const SourceLocation& where() const { return where_; }
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

/// A plugin that cannot be used (missing entry point, ABI mismatch, missing backend build...).
class PluginError : public Error {
 public:
  using Error::Error;
  /// what() is "reason\n  hint: hint"; the parts stay apart for messages that place them.
  PluginError(const std::string& reason, const std::string& hint);
  /// The message without its hint.
  [[nodiscard]] std::string reason() const { return hint_.empty() ? what() : reason_; }
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  std::string reason_, hint_;
};

/// A run that cannot continue (inverted element, NaN, divergence). Carries step and element.
class SolveError : public Error {
 public:
  using Error::Error;
};

/// Not the input's fault: a device call that failed (an illegal address in a kernel, say) or an
/// invariant fem broke. `fem` exits with 1 and the message asks for a report.
class InternalError : public Error {
 public:
  using Error::Error;
};

/// A checkpoint that cannot be read or continued (`fem run --restart`): bad input, which every
/// rank of a run on several processes meets at once (they read the same file).
class CheckpointError : public Error {
 public:
  using Error::Error;
};

/// "did you mean 'x'?" for the closest candidate within a small edit distance, or "".
std::string did_you_mean(const std::string& word, const std::string* candidates_begin,
                         const std::string* candidates_end);

}  // namespace fem
