#include "fem/error.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace fem {

std::string SourceLocation::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ':';
    s += std::to_string(line);
    if (column > 0) {
      s += ':';
      s += std::to_string(column);
    }
  }
  return s;
}

namespace {
std::string format_input_error(const SourceLocation& where, const std::string& message,
                               const std::string& hint) {
  std::string s = where.str() + ": error: " + message;
  if (!hint.empty()) s += "\n  hint: " + hint;
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

InputError::InputError(SourceLocation where, const std::string& message, const std::string& hint)
    : Error(format_input_error(where, message, hint)),
      where_(std::move(where)),
      message_(message) {}

PluginError::PluginError(const std::string& reason, const std::string& hint)
    : Error(hint.empty() ? reason : reason + "\n  hint: " + hint), reason_(reason), hint_(hint) {}

std::string did_you_mean(const std::string& word, const std::string* begin,
                         const std::string* end) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string* c = begin; c != end; ++c) {
    const std::size_t d = edit_distance(word, *c);
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // Accept up to a third of the word's length in edits (at least 2): typos, not guesses.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  if (best && best_distance <= limit) return "did you mean '" + *best + "'?";
  return {};
}

}  // namespace fem
