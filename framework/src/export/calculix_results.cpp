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
  if (h.of_elements) {  // every word before the parenthesis: "internal energy density"
    const std::size_t first = line.find_first_not_of(' ');
    const std::size_t paren = line.find(" (");
    if (first != std::string::npos && paren != std::string::npos && paren > first)
      h.quantity = line.substr(first, paren - first);
  }
  return h;
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

/// The tables of one kind (element tables or node tables) of the file, in file order: a heading
/// starts one, and read_row(line, table) takes its rows while it returns true; a line it does not
/// take ends the table, unless the line is blank.
template <class Table, class ReadRow>
std::vector<Table> read_tables(const std::string& path, bool of_elements, ReadRow read_row) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read CalculiX results '" + path + "'");
  std::vector<Table> tables;
  Table* current = nullptr;
  std::string line;
  while (std::getline(f, line)) {
    if (const std::optional<Heading> h = read_heading(line)) {
      current = nullptr;
      if (h->of_elements != of_elements) continue;
      tables.push_back({h->quantity, h->set, h->time, {}});
      current = &tables.back();
    } else if (current != nullptr && !read_row(line, *current) && !blank(line)) {
      current = nullptr;  // another kind of block
    }
  }
  return tables;
}

}  // namespace

std::vector<CalculixElementTable> read_calculix_element_tables(const std::string& path) {
  return read_tables<CalculixElementTable>(
      path, true, [](const std::string& line, CalculixElementTable& table) {
        std::istringstream in(line);
        CalculixElementTable::Row row;
        if (!(in >> row.element >> row.point)) return false;
        while (row.count < static_cast<int>(row.values.size()) && in >> row.values[row.count])
          ++row.count;
        if (row.count == 0) return false;
        table.rows.push_back(row);
        return true;
      });
}

std::vector<CalculixNodeTable> read_calculix_dat(const std::string& path) {
  return read_tables<CalculixNodeTable>(path, false,
                                        [](const std::string& line, CalculixNodeTable& table) {
                                          std::istringstream in(line);
                                          std::array<double, 3> v{};
                                          if (table.quantity.rfind("total ", 0) == 0) {
                                            // TOTALS=ONLY: one line of sums (kept under node 0),
                                            // which ends the table.
                                            if (in >> v[0] >> v[1] >> v[2]) table.values[0] = v;
                                            return false;
                                          }
                                          int node = 0;
                                          if (!(in >> node >> v[0] >> v[1] >> v[2])) return false;
                                          table.values[node] = v;
                                          return true;
                                        });
}

}  // namespace fem
