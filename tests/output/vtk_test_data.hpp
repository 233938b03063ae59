// The mesh, frames and comparisons the output tests share.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"
#include "output/scratch_dir.hpp"

namespace fem::test {

constexpr std::uint8_t kVtkTetra = 10;
constexpr std::uint8_t kVtkHexahedron = 12;

/// A unit hexahedron and a tetrahedron on its top face (nodes 4, 5, 7 shared) with an apex.
/// Coordinates are not round numbers so that a lossy float conversion would show.
inline OutputMesh hex_and_tet() {
  OutputMesh mesh;
  const double t = 1.0 / 3.0;
  mesh.points = {0, 0, 0,
                 1, 0, 0,
                 1, 1, 0,
                 0, 1, 0,  // bottom face of the hex
                 0, 0, 1,
                 1, 0, 1,
                 1, 1, 1,
                 0, 1, 1,                      // top face
                 t, t, 1.0 + std::sqrt(2.0)};  // apex of the tet
  mesh.cell_types = {kVtkHexahedron, kVtkTetra};
  mesh.offsets = {0, 8, 12};
  mesh.connectivity = {0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 7, 8};
  return mesh;
}

/// Values chosen to catch rounding, sign and range losses: thirds, -0.0, a denormal, 1e300.
inline double value(int frame, int i) {
  switch (i % 5) {
    case 0:
      return frame + i / 3.0;
    case 1:
      return -0.0;
    case 2:
      return std::numeric_limits<double>::denorm_min() * (i + 1);
    case 3:
      return -1e300 / (frame + 1);
    default:
      return std::nextafter(1.0, 2.0) * (i - frame);
  }
}

inline Field make_field(const std::string& name, int components, std::size_t tuples, int frame,
                        int salt) {
  Field f{name, components, {}};
  for (std::size_t k = 0; k < tuples * static_cast<std::size_t>(components); ++k) {
    f.values.push_back(value(frame, static_cast<int>(k) + salt));
  }
  return f;
}

inline OutputFrame make_frame(int frame, double time) {
  OutputFrame f;
  f.time = time;
  f.step = 10 * frame;
  f.point_fields = {make_field("displacement", 3, 9, frame, 0)};
  f.cell_fields = {make_field("stress", 6, 2, frame, 7), make_field("von_mises", 1, 2, frame, 3)};
  return f;
}

/// Bitwise equality: -0.0 must stay -0.0, and every bit of the mantissa must survive.
inline void expect_same_values(const std::vector<double>& expected,
                               const std::vector<double>& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(expected[i]), std::bit_cast<std::uint64_t>(actual[i]))
        << what << "[" << i << "]: expected " << expected[i] << ", read " << actual[i];
  }
}

inline const Field* find_field(const std::vector<Field>& fields, const std::string& name) {
  for (const Field& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

inline void expect_same_fields(const std::vector<Field>& expected,
                               const std::vector<Field>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (const Field& e : expected) {
    const Field* a = find_field(actual, e.name);
    ASSERT_NE(a, nullptr) << "field '" << e.name << "' missing";
    EXPECT_EQ(e.components, a->components) << e.name;
    expect_same_values(e.values, a->values, e.name);
  }
}

inline void expect_same_mesh(const OutputMesh& expected, const OutputMesh& actual) {
  expect_same_values(expected.points, actual.points, "points");
  EXPECT_EQ(expected.cell_types, actual.cell_types);
  EXPECT_EQ(expected.offsets, actual.offsets);
  EXPECT_EQ(expected.connectivity, actual.connectivity);
  EXPECT_EQ(expected.point_ids, actual.point_ids);
  EXPECT_EQ(expected.cell_ids, actual.cell_ids);
}

struct PvdEntry {
  double time;
  std::string file;
};

/// The entries of the .pvd at `path`, which must be a complete index.
inline std::vector<PvdEntry> parse_pvd(const std::string& path) {
  const std::string xml = read_text(path);
  EXPECT_NE(xml.find("<VTKFile type=\"Collection\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("</Collection>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("</VTKFile>"), std::string::npos) << xml;
  const std::regex dataset(R"re(<DataSet\s+timestep="([^"]*)"[^>]*\sfile="([^"]*)"\s*/>)re");
  std::vector<PvdEntry> entries;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), dataset);
       it != std::sregex_iterator(); ++it) {
    entries.push_back({std::stod((*it)[1].str()), (*it)[2].str()});
  }
  return entries;
}

}  // namespace fem::test
