// The Abaqus deck writer and the CalculiX .dat reader (ccx itself runs in tests/bench).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fem/error.hpp>
#include <fem/export/abaqus_writer.hpp>
#include <fem/export/calculix_results.hpp>
#include <fem/solver/explicit_system.hpp>

#include "support/case_runner.hpp"

namespace {

const char* kCube = R"(
name: deck
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: 2}
materials:
  soft: {type: neo_hookean, density: 1000, shear_modulus: 1000, bulk_modulus: 50000}
blocks: [{name: body, element: hex8r, material: soft}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
  corner: {sphere: {center: [1, 1, 1], radius: 1.0e-6}}
amplitudes:
  ramp: {type: smooth_step, start: 0.0, end: 2.0}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {z: -0.1}, amplitude: ramp}
solver: {end_time: 2.0}
output:
  histories: [{name: corner, set: corner, quantities: [displacement]}]
)";

struct Deck {
  std::string text;
  fem::AbaqusExportReport report;
};

Deck export_deck(const std::vector<fem::CaseOverride>& overrides = {},
                 fem::AbaqusExportOptions options = {}) {
  fem::test::PreparedRun run = fem::test::prepare(kCube, overrides);
  std::ostringstream out;
  Deck d;
  d.report = fem::write_abaqus_deck(run.model, options, out);
  d.text = out.str();
  return d;
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(AbaqusWriter, NeoHookeanConstantsMatchFemsEnergy) {
  const Deck d = export_deck();
  // C10 = mu / 2, D1 = 2 / K.
  EXPECT_TRUE(has(d.text, "*HYPERELASTIC, NEO HOOKE\n500, 4e-05\n")) << d.text;
  EXPECT_TRUE(has(d.text, "*DENSITY\n1000\n"));
  EXPECT_TRUE(has(d.text, "*ELEMENT, TYPE=C3D8R, ELSET=body\n1, ")) << d.text;
  EXPECT_TRUE(has(d.text, "\n8, ")) << d.text;  // 2 x 2 x 2 elements, numbered from 1
  EXPECT_TRUE(has(d.text, "*STEP, NLGEOM"));
  EXPECT_TRUE(has(d.text, "*STATIC, DIRECT\n0.1, 2\n"));
  EXPECT_TRUE(has(d.text, "*BOUNDARY, AMPLITUDE=ramp\ntop, 3, 3, -0.1\n"));
  EXPECT_TRUE(has(d.text, "*NODE PRINT, NSET=corner\nU\n"));
  EXPECT_TRUE(has(d.text, "*EL PRINT, ELSET=corner_ELEMENTS\nS, E\n"));
  // The smooth step is sampled: half way it is 0.5.
  EXPECT_TRUE(has(d.text, "1, 0.5")) << d.text;
}

TEST(AbaqusWriter, ARegionHistoryPrintsItsBlocksElements) {
  const Deck d = export_deck({{"output.histories", "[{name: stress, region: domain}]"}});
  EXPECT_TRUE(has(d.text, "*EL PRINT, ELSET=body\nS, E\n")) << d.text;
  EXPECT_FALSE(has(d.text, "NSET=stress")) << d.text;
}

TEST(AbaqusWriter, StaticStepHoldsOnlyTheFreeRigidBodyMotions) {
  // Bottom held in z only: x, y translation and rotation about z are free.
  EXPECT_EQ(export_deck().report.held_rigid_body_modes, 3);
  EXPECT_EQ(export_deck().report.notes.size(), 1u);
  // Clamped bottom: nothing free, no equations.
  const Deck clamped = export_deck({{"boundary_conditions.0.fixed", "[x, y, z]"}});
  EXPECT_EQ(clamped.report.held_rigid_body_modes, 0);
  EXPECT_FALSE(has(clamped.text, "*EQUATION"));
  // A dynamic step needs no such constraints.
  fem::AbaqusExportOptions dynamic;
  dynamic.step = fem::AbaqusExportOptions::Step::Dynamic;
  const Deck d = export_deck({}, dynamic);
  EXPECT_EQ(d.report.held_rigid_body_modes, 0);
  EXPECT_TRUE(has(d.text, "*DYNAMIC, DIRECT\n"));
}

TEST(AbaqusWriter, TetrahedraAndLinearElasticity) {
  const Deck d = export_deck({{"mesh.cells", "tet4"},
                              {"blocks.0.element", "tet4"},
                              {"materials.soft",
                               "{type: linear_elastic, youngs_modulus: 2500, "
                               "poisson_ratio: 0.25}"}});
  EXPECT_TRUE(has(d.text, "*ELEMENT, TYPE=C3D4, ELSET=body\n")) << d.text;
  EXPECT_TRUE(has(d.text, "*ELASTIC\n2500, 0.25\n")) << d.text;
  EXPECT_FALSE(has(d.text, "NLGEOM"));  // fem's linear law is geometrically linear
}

// A pressure on the top faces becomes *DLOAD lines on the elements under them, face P2 (the top
// of a C3D8); the deck says where fem's dead pressure and the NLGEOM step's differ.
TEST(AbaqusWriter, PressuresBecomeFaceLoads) {
  const Deck d = export_deck({{"boundary_conditions.1", "{set: bottom, fixed: [x, y]}"},
                              {"loads", "[{set: top, pressure: 250, follower: false}]"}});
  EXPECT_TRUE(has(d.text, "*DLOAD, AMPLITUDE=constant\n")) << d.text;
  for (const int e : {5, 6, 7, 8})  // the upper layer of the 2 x 2 x 2 box
    EXPECT_TRUE(has(d.text, "\n" + std::to_string(e) + ", P2, 250\n")) << e << d.text;
  EXPECT_FALSE(has(d.text, ", P1, ")) << d.text;
  EXPECT_TRUE(has(d.text, "** the pressure on set 'top' acts on the reference surface in fem"))
      << d.text;
  ASSERT_FALSE(d.report.notes.empty());
}

TEST(AbaqusWriter, WhatHasNoEquivalentIsRefusedWithTheLocation) {
  try {
    export_deck({{"materials.soft.type", "saint_venant_kirchhoff"}});
    FAIL() << "expected an InputError";
  } catch (const fem::InputError& e) {
    EXPECT_TRUE(has(e.what(), "saint_venant_kirchhoff")) << e.what();
    EXPECT_TRUE(has(e.what(), "<test>:")) << e.what();
  }
}

TEST(CalculixResults, ReadsNodeAndElementTablesApart) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fem_ccx_" + std::to_string(::getpid()) + ".dat"))
          .string();
  std::ofstream(path) << R"(
 displacements (vx,vy,vz) for set CORNER and time  0.2500000E+00

        27  6.028245E-04 -2.077505E-05 -5.000000E-04

 stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz) for set CORNER_ELEMENTS and time  0.2500000E+00

         8   1 -1.0E+01 -2.0E+01 -3.0E+01 0.0E+00 0.0E+00 0.0E+00

 displacements (vx,vy,vz) for set TOP and time  0.5000000E+00

         1  1.0E-03  2.0E-03 -1.0E-03
         2  4.0E-03  5.0E-03 -1.0E-03
)";
  const auto tables = fem::read_calculix_dat(path);
  const auto elements = fem::read_calculix_element_tables(path);
  std::filesystem::remove(path);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].quantity, "displacements");
  EXPECT_EQ(tables[0].set, "CORNER");
  EXPECT_DOUBLE_EQ(tables[0].time, 0.25);
  EXPECT_DOUBLE_EQ(tables[0].values.at(27)[0], 6.028245e-4);
  EXPECT_EQ(tables[0].values.size(), 1u);  // the element table after it is not read as nodes
  EXPECT_EQ(tables[1].values.size(), 2u);
  EXPECT_DOUBLE_EQ(tables[1].values.at(2)[1], 5e-3);
  ASSERT_EQ(elements.size(), 1u);
  EXPECT_EQ(elements[0].quantity, "stresses");
  EXPECT_EQ(elements[0].set, "CORNER_ELEMENTS");
  ASSERT_EQ(elements[0].rows.size(), 1u);
  EXPECT_EQ(elements[0].rows[0].element, 8);
  EXPECT_EQ(elements[0].rows[0].point, 1);
  EXPECT_DOUBLE_EQ(elements[0].rows[0].values[2], -30.0);
  EXPECT_THROW(fem::read_calculix_dat(path), fem::Error);
  EXPECT_THROW(fem::read_calculix_element_tables(path), fem::Error);
}

// An explicit step takes end / (stable step) increments: the deck's INC lets it finish (it was
// 2,000 for any step, and CalculiX stopped with "max. # of increments reached").
TEST(AbaqusWriter, ExplicitStepsMayTakeEveryIncrementTheyNeed) {
  fem::AbaqusExportOptions options;
  options.step = fem::AbaqusExportOptions::Step::Explicit;
  const std::vector<fem::CaseOverride> fine = {{"mesh.divisions", "12"},
                                               {"materials.soft.bulk_modulus", "5.0e7"}};
  const Deck d = export_deck(fine, options);
  fem::test::PreparedRun run = fem::test::prepare(kCube, fine);
  const double critical = fem::setup_explicit(run.model).critical_time_step;
  const std::size_t at = d.text.find("*STEP, NLGEOM, INC=");
  ASSERT_NE(at, std::string::npos) << d.text;
  const long long inc = std::stoll(d.text.substr(at + 19));
  EXPECT_GE(static_cast<double>(inc), 10.0 * 2.0 / critical);  // end_time 2 s
  EXPECT_GT(inc, 2000);
}

}  // namespace
