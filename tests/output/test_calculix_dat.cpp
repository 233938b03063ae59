// CalculiX's .dat layout (output.calculix_dat): times as Fortran's E14.7, tables that fem's
// reader of CalculiX's files reads back, and a restart that cuts the file back to its time.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "fem/export/calculix_results.hpp"
#include "fem/output/calculix_dat.hpp"
#include "output/scratch_dir.hpp"

namespace fem {
namespace {

using test::ScratchDir;

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CalculixDat, TimesAreWrittenAsFortranE14_7) {
  EXPECT_EQ(fortran_e14_7(0.005), " 0.5000000E-02");
  EXPECT_EQ(fortran_e14_7(1.0), " 0.1000000E+01");
  EXPECT_EQ(fortran_e14_7(0.25), " 0.2500000E+00");
  EXPECT_EQ(fortran_e14_7(-1234.5678), "-0.1234568E+04");
  EXPECT_EQ(fortran_e14_7(0.0), " 0.0000000E+00");
  // Rounding that carries into the exponent, and a time fem reaches by adding steps.
  EXPECT_EQ(fortran_e14_7(0.99999999), " 0.1000000E+01");
  EXPECT_EQ(fortran_e14_7(1.0099999999999998), " 0.1010000E+01");
  EXPECT_EQ(fortran_e14_7(1.0e-12), " 0.1000000E-11");
}

TEST(CalculixDat, TablesAreCalculixsLayoutAndReadBack) {
  const ScratchDir dir;
  const std::string path = dir / "case.dat";
  {
    CalculixDat dat(path);
    dat.nodes("displacements (vx,vy,vz)", "corner", 0.005,
              {{63, {1.185764e-3, -4.568807e-5, -2.768541e-4}}, {7, {1, 2, 3}}});
    dat.total("total force (fx,fy,fz)", "Top", 0.25, {-2.5, 1.215108e-10, -173.6958});
  }
  // Byte for byte what ccx 2.20 prints (tests/case/test_abaqus_deck_calculix.cpp compares whole
  // runs); nodes in the order of their numbers.
  EXPECT_EQ(text_of(path),
            "\n displacements (vx,vy,vz) for set CORNER and time  0.5000000E-02\n\n"
            "         7  1.000000E+00  2.000000E+00  3.000000E+00\n"
            "        63  1.185764E-03 -4.568807E-05 -2.768541E-04\n"
            "\n total force (fx,fy,fz) for set TOP and time  0.2500000E+00\n\n"
            "       -2.500000E+00  1.215108E-10 -1.736958E+02\n");
  const std::vector<CalculixNodeTable> tables = read_calculix_dat(path);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].quantity, "displacements");
  EXPECT_EQ(tables[0].set, "CORNER");
  EXPECT_DOUBLE_EQ(tables[0].time, 0.005);
  EXPECT_DOUBLE_EQ(tables[0].values.at(63)[1], -4.568807e-5);
  EXPECT_EQ(tables[1].quantity, "total force");
  EXPECT_DOUBLE_EQ(tables[1].values.at(0)[2], -173.6958);
}

TEST(CalculixDat, ElementTablesAreCalculixsLayoutAndReadBack) {
  const ScratchDir dir;
  const std::string path = dir / "case.dat";
  {
    CalculixDat dat(path);
    dat.elements(
        "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz)", "eall", 0.5,
        {{12, {-0.1797065, -0.1797065, -45.09868, 3.560729e-16, 0, 0}}, {3, {1, 2, 3, 4, 5, 6}}});
    dat.elements("internal energy density (elem, integ.pnt.,energy)", "eall", 0.5,
                 {{1, {1.188296}}});
  }
  // Byte for byte what ccx 2.20 prints for one-point elements (C3D8R); elements in the order of
  // their numbers.
  EXPECT_EQ(text_of(path),
            "\n stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz) for set EALL and time  "
            "0.5000000E+00\n\n"
            "         3   1  1.000000E+00  2.000000E+00  3.000000E+00  4.000000E+00  5.000000E+00  "
            "6.000000E+00\n"
            "        12   1 -1.797065E-01 -1.797065E-01 -4.509868E+01  3.560729E-16  0.000000E+00  "
            "0.000000E+00\n"
            "\n internal energy density (elem, integ.pnt.,energy) for set EALL and time  "
            "0.5000000E+00\n\n"
            "         1   1  1.188296E+00\n");
  const std::vector<CalculixElementTable> tables = read_calculix_element_tables(path);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].quantity, "stresses");
  EXPECT_EQ(tables[0].set, "EALL");
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[1].element, 12);
  EXPECT_EQ(tables[0].rows[1].point, 1);
  EXPECT_EQ(tables[0].rows[1].count, 6);
  EXPECT_DOUBLE_EQ(tables[0].rows[1].values[2], -45.09868);
  EXPECT_EQ(tables[1].quantity, "internal energy density");
  ASSERT_EQ(tables[1].rows.size(), 1u);
  EXPECT_EQ(tables[1].rows[0].count, 1);
  EXPECT_DOUBLE_EQ(tables[1].rows[0].values[0], 1.188296);
}

TEST(CalculixDat, ARestartKeepsTheTablesUpToItsTime) {
  const ScratchDir dir;
  const std::string path = dir / "case.dat";
  const auto write = [&](CalculixDat& dat, double from, double to) {
    for (double t = from; t <= to + 1e-12; t += 0.1)
      dat.nodes("displacements (vx,vy,vz)", "top", t, {{1, {t, 0, 0}}});
  };
  {
    CalculixDat dat(path);
    write(dat, 0.1, 0.5);
  }
  const std::string whole = text_of(path);
  {
    CalculixDat dat(path, 0.3);  // the checkpoint's time: 0.4 and 0.5 again
    EXPECT_EQ(read_calculix_dat(path).size(), 3u);
    write(dat, 0.4, 0.5);
  }
  EXPECT_EQ(text_of(path), whole);
  {
    CalculixDat dat(path, 0.0);  // before the first table: nothing kept
  }
  EXPECT_EQ(text_of(path), "");
}

}  // namespace
}  // namespace fem
