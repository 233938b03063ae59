#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/history.hpp"
#include "output/scratch_dir.hpp"

namespace fem {
namespace {

using test::ScratchDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

double parse_double(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  EXPECT_EQ(*end, '\0') << "not a whole number: '" << s << "'";
  return v;
}

TEST(CsvHistory, HeaderAndRowsAreWrittenAndFlushedAtOnce) {
  ScratchDir dir;
  CsvHistory history(dir / "tip.csv", {"ux", "uy", "uz"});
  EXPECT_EQ(history.path(), dir / "tip.csv");
  EXPECT_EQ(test::read_text(dir / "tip.csv"), "time,step,ux,uy,uz\n");

  history.append(0.5, 10, {1.0, 2.0, 3.0});
  history.append(1.0, 20, {-1.0, 0.0, 4.5});
  // Read while the history is still open: each row must already be on disk.
  const std::vector<std::string> lines = lines_of(test::read_text(dir / "tip.csv"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "time,step,ux,uy,uz");
  EXPECT_EQ(split(lines[1]), (std::vector<std::string>{"0.5", "10", "1", "2", "3"}));
  EXPECT_EQ(split(lines[2]), (std::vector<std::string>{"1", "20", "-1", "0", "4.5"}));
}

TEST(CsvHistory, ValuesRoundTripExactly) {
  ScratchDir dir;
  const std::vector<double> values = {0.1,
                                      1.0 / 3.0,
                                      std::nextafter(1.0, 2.0),
                                      -2.5e17,
                                      1e-300,
                                      std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::max()};
  const double time = 0.1 + 0.2;
  const long long step = 123456789012LL;
  {
    std::vector<std::string> columns;
    for (std::size_t i = 0; i < values.size(); ++i) columns.push_back(std::to_string(i) + "c");
    CsvHistory history(dir / "h.csv", columns);
    history.append(time, step, values);
  }
  const std::vector<std::string> lines = lines_of(test::read_text(dir / "h.csv"));
  ASSERT_EQ(lines.size(), 2u);
  const std::vector<std::string> cells = split(lines[1]);
  ASSERT_EQ(cells.size(), values.size() + 2);
  EXPECT_EQ(parse_double(cells[0]), time);
  EXPECT_EQ(cells[1], std::to_string(step));
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(parse_double(cells[i + 2]), values[i])
        << "column " << i << ": '" << cells[i + 2] << "'";
  }
}

TEST(CsvHistory, WrongNumberOfValuesIsAnError) {
  ScratchDir dir;
  CsvHistory history(dir / "h.csv", {"a", "b"});
  try {
    history.append(0.0, 0, {1.0});
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("h.csv"), std::string::npos) << what;
    EXPECT_NE(what.find("1 values for 2 columns"), std::string::npos) << what;
  }
  EXPECT_THROW(history.append(0.0, 0, {1.0, 2.0, 3.0}), Error);
  // Nothing of a rejected row reaches the file.
  EXPECT_EQ(test::read_text(dir / "h.csv"), "time,step,a,b\n");
}

TEST(CsvHistory, ColumnNamesWithCommasAreQuoted) {
  ScratchDir dir;
  CsvHistory history(dir / "h.csv", {"set,x", "say \"hi\""});
  EXPECT_EQ(test::read_text(dir / "h.csv"), "time,step,\"set,x\",\"say \"\"hi\"\"\"\n");
}

TEST(CsvHistory, UnopenableFileIsAnErrorWithPathAndReason) {
  ScratchDir dir;
  const std::string path = dir / "missing_folder/h.csv";
  try {
    CsvHistory history(path, {"a"});
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace fem
