#include "sweep_plan.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

#include <fem/error.hpp>

namespace fem::cli {

namespace {

const SourceLocation kCommandLine{"<command line>", 0, 0};

std::string trimmed(const std::string& s) {
  std::size_t first = 0, last = s.size();
  while (first < last && std::isspace(static_cast<unsigned char>(s[first]))) ++first;
  while (last > first && std::isspace(static_cast<unsigned char>(s[last - 1]))) --last;
  return s.substr(first, last - first);
}

double number(const std::string& text, const std::string& where) {
  const std::string t = trimmed(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v))
    throw InputError(kCommandLine, "--set " + where + ": '" + t + "' is not a number",
                     "distributions take two numbers, e.g. uniform(0.4, 0.6)");
  return v;
}

/// "name(a, b)" -> the distribution, or false when `value` is not a call of a known name.
bool parse_distribution(const std::string& value, const std::string& where, SweepParameter& p) {
  const std::size_t open = value.find('(');
  if (open == std::string::npos || value.back() != ')') return false;
  const std::string name = trimmed(value.substr(0, open));
  if (name == "uniform")
    p.kind = SweepParameter::Kind::kUniform;
  else if (name == "normal")
    p.kind = SweepParameter::Kind::kNormal;
  else if (name == "lognormal")
    p.kind = SweepParameter::Kind::kLogNormal;
  else
    return false;
  const std::vector<std::string> args =
      split_sweep_values(value.substr(open + 1, value.size() - open - 2));
  if (args.size() != 2)
    throw InputError(kCommandLine, "--set " + where + ": " + name + " takes two numbers",
                     "uniform(low, high), normal(mean, sd) or lognormal(mu, sigma)");
  p.a = number(args[0], where);
  p.b = number(args[1], where);
  if (p.kind == SweepParameter::Kind::kUniform && !(p.a < p.b))
    throw InputError(kCommandLine, "--set " + where + ": uniform needs low < high",
                     "for example uniform(0.4, 0.6)");
  if (p.kind != SweepParameter::Kind::kUniform && !(p.b > 0))
    throw InputError(kCommandLine, "--set " + where + ": the spread must be > 0",
                     name + "(mean, sd) with sd > 0");
  return true;
}

}  // namespace

std::vector<std::string> split_sweep_values(const std::string& text) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      values.push_back(trimmed(current));
      current.clear();
      continue;
    }
    current += c;
  }
  values.push_back(trimmed(current));
  return values;
}

SweepParameter parse_sweep_parameter(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(kCommandLine, "--set '" + text + "' is not of the form key.path=values",
                     "for example --set materials.soft.shear_modulus=1000,2000,4000");
  SweepParameter p;
  p.key = trimmed(text.substr(0, eq));
  const std::string value = trimmed(text.substr(eq + 1));
  if (parse_distribution(value, text, p)) return p;
  p.values = split_sweep_values(value);
  for (const std::string& v : p.values)
    if (v.empty())
      throw InputError(kCommandLine, "--set " + text + ": an empty value in the list",
                       "separate values by single commas: key=1,2,3");
  return p;
}

std::vector<std::vector<std::string>> sweep_runs(const std::vector<SweepParameter>& parameters,
                                                 int samples, std::uint64_t seed) {
  std::set<std::string> keys;
  for (const SweepParameter& p : parameters)
    if (!keys.insert(p.key).second)
      throw InputError(kCommandLine, "--set " + p.key + " is given twice",
                       "give one --set per key, with all its values: key=v1,v2,v3");
  std::vector<std::vector<std::string>> runs;
  if (samples <= 0) {
    std::size_t count = 1;
    for (const SweepParameter& p : parameters) {
      if (p.kind != SweepParameter::Kind::kList)
        throw InputError(kCommandLine, "--set " + p.key + " draws from a distribution",
                         "distributions need --samples N (how many runs to draw)");
      count *= p.values.size();
    }
    for (std::size_t r = 0; r < count; ++r) {
      std::vector<std::string> run(parameters.size());
      std::size_t index = r;
      for (std::size_t i = parameters.size(); i-- > 0;) {
        const SweepParameter& p = parameters[i];
        run[i] = p.key + "=" + p.values[index % p.values.size()];
        index /= p.values.size();
      }
      runs.push_back(std::move(run));
    }
    return runs;
  }
  // One generator, drawn in run order then parameter order: the same seed gives the same runs.
  std::mt19937_64 generator(seed);
  for (int r = 0; r < samples; ++r) {
    std::vector<std::string> run;
    for (const SweepParameter& p : parameters) {
      double x = 0.0;
      switch (p.kind) {
        case SweepParameter::Kind::kList:
          run.push_back(p.key + "=" +
                        p.values[std::uniform_int_distribution<std::size_t>(
                            0, p.values.size() - 1)(generator)]);
          continue;
        case SweepParameter::Kind::kUniform:
          x = std::uniform_real_distribution<double>(p.a, p.b)(generator);
          break;
        case SweepParameter::Kind::kNormal:
          x = std::normal_distribution<double>(p.a, p.b)(generator);
          break;
        case SweepParameter::Kind::kLogNormal:
          x = std::lognormal_distribution<double>(p.a, p.b)(generator);
          break;
      }
      run.push_back(p.key + "=" + fmt::format("{}", x));  // shortest text that reads back as x
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace fem::cli
