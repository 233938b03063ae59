// `fem export`: a case's model written for another code (Abaqus / CalculiX input deck).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace fem::cli {

struct ExportOptions {
  std::string case_file;
  std::string format = "abaqus";
  std::string output;
  std::string step = "static";
  int intervals = 20;
  std::vector<std::string> sets;
};

void add_export_options(CLI::App& cmd, ExportOptions& options);
int export_command(const ExportOptions& options);

}  // namespace fem::cli
