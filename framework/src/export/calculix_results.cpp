#include "fem/export/calculix_results.hpp"

#include <fstream>
#include <sstream>

#include "fem/error.hpp"

namespace fem {

std::vector<CalculixNodeTable> read_calculix_dat(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read CalculiX results '" + path + "'");
  std::vector<CalculixNodeTable> tables;
  CalculixNodeTable* current = nullptr;
  std::string line;
  while (std::getline(f, line)) {
    // Heading: " displacements (vx,vy,vz) for set CORNER and time  0.2500000E+00"
    const auto for_set = line.find(" for set ");
    const auto and_time = line.find(" and time ");
    if (for_set != std::string::npos && and_time != std::string::npos) {
      CalculixNodeTable t;
      std::istringstream head(line);
      head >> t.quantity;
      if (t.quantity == "total") {  // TOTALS=ONLY: "total force (fx,fy,fz) for set ..."
        std::string what;
        head >> what;
        t.quantity += " " + what;
      }
      std::istringstream set(line.substr(for_set + 9, and_time - for_set - 9));
      set >> t.set;
      t.time = std::stod(line.substr(and_time + 10));
      tables.push_back(std::move(t));
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
      if (line.find_first_not_of(" \t\r") != std::string::npos) current = nullptr;
      continue;
    }
    if (row >> node >> v[0] >> v[1] >> v[2]) {
      current->values[node] = v;
    } else if (line.find_first_not_of(" \t\r") != std::string::npos) {
      current = nullptr;  // another kind of block (element tables, totals)
    }
  }
  return tables;
}

}  // namespace fem
