#include "fem/output/run_sink.hpp"

#include "fem/error.hpp"

namespace fem {

void MemorySink::table(const std::string& name, const std::vector<std::string>& columns) {
  auto [it, added] = tables_.try_emplace(name);
  if (added) order_.push_back(name);
  it->second = MemoryTable{columns, {}, {}, {}};
}

void MemorySink::row(const std::string& name, double time, std::int64_t step,
                     const std::vector<double>& values) {
  const auto it = tables_.find(name);
  // A row of an undeclared table, or of the wrong width, is a solver's mistake, not input.
  if (it == tables_.end() || values.size() != it->second.columns.size())
    throw Error("internal error: a row of " + std::to_string(values.size()) +
                " values for the table '" + name + "', which " +
                (it == tables_.end()
                     ? std::string("was not declared")
                     : "has " + std::to_string(it->second.columns.size()) + " columns"));
  MemoryTable& t = it->second;
  t.time.push_back(time);
  t.step.push_back(step);
  t.values.insert(t.values.end(), values.begin(), values.end());
}

}  // namespace fem
