// Bad dynamic-relaxation and contact input: one clear message each, at the offending value.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

const std::string kBase = R"(mesh: {generator: box, size: [0.01, 0.01, 0.01], divisions: 2}
materials: {m: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.4}}
blocks: [{element: hex8r, material: m}]
)";

void expect_error(const std::string& yaml, const std::string& text) {
  const InputError e = case_error(kBase + yaml);
  EXPECT_TRUE(mentions(e, text)) << "message: " << e.what() << "\nexpected: " << text;
}

TEST(RelaxationInput, NegativeToleranceIsRefused) {
  expect_error("solver: {type: dynamic_relaxation, tolerance: -1.0e-5}\n",
               "case.yaml:4:47: error: 'tolerance' must be > 0, got -1.0e-5");
}

TEST(RelaxationInput, ExplicitOnlyKeysSayWhy) {
  expect_error("solver: {type: dynamic_relaxation, mass_damping: 10}\n",
               "'mass_damping' does not apply to solver type dynamic_relaxation");
  expect_error("solver: {type: dynamic_relaxation, check_every: 1}\n",
               "'check_every' must be >= 2, got 1");
  expect_error("solver: {type: dynamic_relaxation, max_iterations: 0}\n",
               "'max_iterations' must be >= 1, got 0");
}

TEST(RelaxationInput, InitialVelocitiesAreRefused) {
  expect_error(R"(node_sets: {all: {all: true}}
initial_conditions: [{set: all, velocity: [0, 0, 1]}]
solver: {type: dynamic_relaxation}
)",
               "initial_conditions do not apply to solver type dynamic_relaxation");
}

TEST(ContactInput, UnknownSurfaceType) {
  expect_error(
      "contact: [{type: cylinder}]\nsolver: {end_time: 1}\n",
      "case.yaml:4:18: error: 'type' must be one of plane, sphere, stl, mesh, deformable, got "
      "'cylinder'");
}

TEST(ContactInput, ImplicitOnlyContactIsRefusedByTheExplicitSolvers) {
  expect_error(
      "node_sets: {a: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}\n"
      "contact: [{type: deformable, set: a, surface: a}]\n"
      "solver: {end_time: 1}\n",
      "case.yaml:5:11: error: contact between deformable bodies needs solver type static or "
      "implicit_dynamic, not explicit");
  expect_error(
      "contact: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], penalty: 1e6}]\n"
      "solver: {type: dynamic_relaxation}\n",
      "case.yaml:4:62: error: 'method' and 'penalty' apply to the implicit solvers: solver type "
      "dynamic_relaxation projects penetrating nodes back onto the surface");
  expect_error(
      "contact: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], penetration_tolerance: 1}]\n"
      "solver: {type: static}\n",
      "'penetration_tolerance' applies to method augmented_lagrangian");
}

TEST(ContactInput, KeysOfAnotherSurfaceType) {
  expect_error(
      "contact: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], radius: 2}]\n"
      "solver: {end_time: 1}\n",
      "'radius' does not apply to a contact surface of type 'plane'");
  expect_error(
      "contact: [{type: plane, point: [0, 0, 0], normal: [0, 0, 0]}]\n"
      "solver: {end_time: 1}\n",
      "'normal' must not be the zero vector");
}

TEST(ContactInput, MissingStlFileNamesThePath) {
  const InputError e = case_error(kBase +
                                  "contact: [{type: stl, file: /nonexistent/skull.stl}]\n"
                                  "solver: {end_time: 1}\n");
  EXPECT_TRUE(mentions(e,
                       "case.yaml:4:29: error: cannot open STL file '/nonexistent/skull.stl': "
                       "no such file"))
      << e.what();
}

TEST(ContactInput, UndefinedNodeSet) {
  expect_error(
      "contact: [{type: sphere, center: [0, 0, 0], radius: 1, side: inside, set: rim}]\n"
      "solver: {end_time: 1}\n",
      "uses node set 'rim', which is not defined");
}

}  // namespace
}  // namespace fem::test
