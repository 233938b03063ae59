// What `fem sweep` runs: its parameters (`--set key=v1,v2,...` or a distribution) and the list of
// override sets they give, a cartesian product or random samples. No processes here: sweep.cpp
// runs them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fem::cli {

/// One `--set` of `fem sweep`: a key path with a list of values (each a YAML text, as `--set`
/// takes) or, for random samples, a distribution of numbers.
struct SweepParameter {
  enum class Kind { kList, kUniform, kNormal, kLogNormal };
  std::string key;
  Kind kind = Kind::kList;
  std::vector<std::string> values;  ///< kList
  double a = 0.0, b = 0.0;  ///< uniform(a, b), normal(mean a, sd b), lognormal(mu a, sigma b)
};

/// Splits a value list at its commas, except those inside brackets, braces, parentheses and
/// quotes, so that `[1, 2],[3, 4]` is two values. Spaces around each value are dropped.
std::vector<std::string> split_sweep_values(const std::string& text);

/// Reads `key=v1,v2,...`, `key=uniform(a,b)`, `key=normal(mean,sd)` or `key=lognormal(mu,sigma)`;
/// throws InputError at "<command line>" for anything else.
SweepParameter parse_sweep_parameter(const std::string& text);

/// The runs, each a list of `key=value` overrides in the parameters' order. samples == 0: the
/// cartesian product of the lists, the last parameter varying fastest (a distribution is refused:
/// it needs samples). samples > 0: that many runs, each value drawn independently (a list: one of
/// its values, uniformly) from a generator seeded with `seed`, so a sweep can be repeated.
std::vector<std::vector<std::string>> sweep_runs(const std::vector<SweepParameter>& parameters,
                                                 int samples, std::uint64_t seed);

}  // namespace fem::cli
