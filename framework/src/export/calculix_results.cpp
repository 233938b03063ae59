#include "fem/export/calculix_results.hpp"

#include <fstream>
#include <optional>
#include <sstream>

#include "fem/error.hpp"

namespace fem {

namespace {

/// A table's heading: " displacements (vx,vy,vz) for set CORNER and time  0.2500000E+00".
struct Heading {
  std::string quantity;
  std::string set;
  double time = 0.0;
  bool of_elements = false;  ///< "(elem, integ.pnt.,...)": rows per integration point
};

std::optional<Heading> read_heading(const std::string& line) {
  const auto for_set = line.find(" for set ");
  const auto and_time = line.find(" and time ");
  if (for_set == std::string::npos || and_time == std::string::npos) return std::nullopt;
  Heading h;
  std::istringstream head(line);
  head >> h.quantity;
  if (h.quantity == "total") {  // TOTALS=ONLY: "total force (fx,fy,fz) for set ..."
    std::string what;
    head >> what;
    h.quantity += " " + what;
  }
  std::istringstream set(line.substr(for_set + 9, and_time - for_set - 9));
  set >> h.set;
  h.time = std::stod(line.substr(and_time + 10));
  h.of_elements = line.find("integ.pnt.") != std::string::npos;
  return h;
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

std::vector<CalculixElementTable> read_calculix_element_tables(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read CalculiX results '" + path + "'");
  std::vector<CalculixElementTable> tables;
  CalculixElementTable* current = nullptr;
  std::string line;
  while (std::getline(f, line)) {
    if (const std::optional<Heading> h = read_heading(line)) {
      current = nullptr;
      if (!h->of_elements) continue;
      tables.push_back({h->quantity, h->set, h->time, {}});
      current = &tables.back();
      continue;
    }
    if (current == nullptr) continue;
    std::istringstream in(line);
    CalculixElementTable::Row row;
    if (in >> row.element >> row.point) {
      for (double& v : row.values) in >> v;
      if (in) {
        current->rows.push_back(row);
        continue;
      }
    }
    if (!blank(line)) current = nullptr;
  }
  return tables;
}

std::vector<CalculixNodeTable> read_calculix_dat(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read CalculiX results '" + path + "'");
  std::vector<CalculixNodeTable> tables;
  CalculixNodeTable* current = nullptr;
  std::string line;
  while (std::getline(f, line)) {
    if (const std::optional<Heading> h = read_heading(line)) {
      current = nullptr;
      if (h->of_elements) continue;  // read_calculix_element_tables
      tables.push_back({h->quantity, h->set, h->time, {}});
      current = &tables.back();
      continue;
    }
    if (current == nullptr) continue;
    std::istringstream row(line);
    int node = 0;
    std::array<double, 3> v{};
    if (current->quantity.rfind("total ", 0) == 0) {
      std::istringstream sums(line);
      if (sums >> v[0] >> v[1] >> v[2]) current->values[0] = v;
      if (!blank(line)) current = nullptr;
      continue;
    }
    if (row >> node >> v[0] >> v[1] >> v[2]) {
      current->values[node] = v;
    } else if (!blank(line)) {
      current = nullptr;  // another kind of block
    }
  }
  return tables;
}

}  // namespace fem
