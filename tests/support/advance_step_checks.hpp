// What a run on several processes asks of a backend (issue 16), checked on one process: single
// steps (advance_step) give the bits of advance_measured; ghost nodes, whose u_{n+1} the halo
// exchange sets (set_nodal_displacements), change nothing at the owned nodes and stay out of the
// norms; nodal_internal_forces add up to internal_force_sum. The same bodies run on every backend
// (tests/physics on the one FEM_TEST_BACKEND names, tests/gpu on CUDA).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_system.hpp>

namespace fem::test {

struct StepCase {
  std::string name;  ///< relax or explicit
  std::string precision;
};

inline void PrintTo(const StepCase& c, std::ostream* os) {
  *os << c.name << ' ' << c.precision;
}

inline std::string step_case_name(const ::testing::TestParamInfo<StepCase>& i) {
  return i.param.name + "_" + i.param.precision;
}

/// Dynamic relaxation with contact, nodal loads and gravity (every StepNorms field is non-zero),
/// and an explicit run with a prescribed displacement, damping and gravity, each in both
/// precisions.
inline std::vector<StepCase> step_cases() {
  std::vector<StepCase> cases;
  for (const char* name : {"relax", "explicit"})
    for (const char* precision : {"single", "double"}) cases.push_back({name, precision});
  return cases;
}

inline std::string step_case_yaml(const StepCase& c) {
  if (c.name == "relax")
    return R"(
mesh: {generator: box, size: [0.02, 0.02, 0.02], origin: [-0.01, -0.01, 0], divisions: 4}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.4}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.02], normal: [0, 0, 1]}}
boundary_conditions: [{set: top, fixed: [x, y]}]
loads: [{set: top, force: [0, 0, -0.004]}]
gravity: {acceleration: [0, 0, -9.81]}
contact: [{name: floor, type: plane, point: [0, 0, 0], normal: [0, 0, 1], set: bottom}]
solver: {type: dynamic_relaxation, tolerance: 1.0e-8, force_tolerance: 1.0e-4}
)";
  return R"(
mesh: {generator: box, cells: tet4, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: tet4, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.002, z: -0.01}, amplitude: {type: linear, start: 0, end: 0.01}}
gravity: {acceleration: [0, 0, -9.81]}
solver: {end_time: 0.1, mass_damping: 5}
)";
}

/// A case's model and explicit setup, built for `backend`; problems are made from `setup.system`
/// (or a copy of it that outlives them).
struct StepModel {
  Model model;
  ExplicitSetup setup;
  Precision precision = Precision::Double;
};

inline StepModel step_model(PluginRegistry& plugins, const std::string& backend,
                            const StepCase& c) {
  StepModel m;
  // Built for the backend under test: it resolves the material plugin built for that backend.
  m.model = build_model(
      parse_case(step_case_yaml(c), "<test>", {{"backend", backend}, {"precision", c.precision}}),
      plugins);
  m.setup = setup_explicit(m.model);
  m.precision = m.model.spec.precision;
  return m;
}

/// Bit-for-bit equality (EXPECT_EQ would take -0 for 0).
inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

inline void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b,
                             const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  std::size_t differ = 0, first = a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) {
      ++differ;
      first = std::min(first, i);
    }
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " values differ, the first at " << first
                        << " (" << a[first] << " vs " << b[first] << ")";
}

inline std::vector<double> norm_fields(const StepNorms& n) {
  std::vector<double> v = {
      n.increment_max, n.increment_sq, n.residual_max, n.residual_sq,
      n.internal_max,  n.rayleigh_num, n.rayleigh_den, static_cast<double>(n.contact_nodes)};
  for (const auto& f : n.contact_force) v.insert(v.end(), f.begin(), f.end());
  return v;
}

/// u_n and u_{n-1} of two problems are the same bits.
inline void expect_same_state(const ExplicitProblem& a, const ExplicitProblem& b,
                              const std::string& what) {
  std::vector<double> ua, ub;
  a.displacement(ua);
  b.displacement(ub);
  expect_same_bits(ua, ub, what + ", u_n");
  a.previous_displacement(ua);
  b.previous_displacement(ub);
  expect_same_bits(ua, ub, what + ", u_{n-1}");
}

/// Dynamic relaxation changes its damping between blocks of steps, as the solver does.
inline void next_damping(ExplicitProblem& p, const StepModel& m, int block) {
  if (m.setup.system.iteration_mass.empty()) return;
  p.set_node_update(central_difference_update(m.setup.system.time_step,
                                              m.setup.system.mass_damping * (1.0 + 0.3 * block)));
}

/// Blocks of advance_step calls (the step before the last keeps its forces, the last is
/// measured) against advance_measured over the same steps: the same state and norms, bit for bit.
/// Then one measured step after a step that kept nothing: its quotient is 0, as
/// advance_measured's with one step.
inline void expect_steps_match_advance_measured(PluginRegistry& plugins, Backend& backend,
                                                const std::string& name, const StepCase& c) {
  const StepModel m = step_model(plugins, name, c);
  auto measured = backend.create_explicit(m.setup.system, m.precision);
  auto stepped = backend.create_explicit(m.setup.system, m.precision);
  constexpr std::int64_t kBlock = 9;
  for (int block = 0; block < 3; ++block) {
    const std::int64_t first = block * kBlock;
    StepNorms expected, got;
    EXPECT_EQ(measured->advance_measured(first, kBlock, expected).steps_done, kBlock);
    for (std::int64_t k = 0; k < kBlock; ++k)
      EXPECT_EQ(stepped->advance_step(first + k, k + 2 == kBlock, k + 1 == kBlock ? &got : nullptr)
                    .steps_done,
                1);
    const std::string what = "block " + std::to_string(block);
    expect_same_state(*measured, *stepped, what);
    expect_same_bits(norm_fields(got), norm_fields(expected), what + ", norms");
    EXPECT_GT(got.increment_sq, 0.0) << what;
    EXPECT_GT(got.residual_sq, 0.0) << what;
    EXPECT_GT(got.internal_max, 0.0) << what;
    EXPECT_GT(got.rayleigh_den, 0.0) << what;
    EXPECT_NE(got.rayleigh_num, 0.0) << what;
    if (c.name == "relax") {
      EXPECT_GT(got.contact_nodes, 0) << what;
    }
    next_damping(*measured, m, block);
    next_damping(*stepped, m, block);
  }
  const std::int64_t next = 3 * kBlock;
  StepNorms expected, got;
  EXPECT_EQ(measured->advance(next, 1).steps_done, 1);
  EXPECT_EQ(measured->advance_measured(next + 1, 1, expected).steps_done, 1);
  EXPECT_EQ(stepped->advance_step(next, false, nullptr).steps_done, 1);
  EXPECT_EQ(stepped->advance_step(next + 1, false, &got).steps_done, 1);
  expect_same_state(*measured, *stepped, "single measured step");
  expect_same_bits(norm_fields(got), norm_fields(expected), "single measured step, norms");
  EXPECT_EQ(got.rayleigh_num, 0.0);
  EXPECT_EQ(got.rayleigh_den, 0.0);
  EXPECT_GT(got.increment_sq, 0.0);
}

/// The nodes left of the mesh's middle in x (one half of a two-way partition).
inline std::vector<std::uint8_t> left_half(const Model& model) {
  double lo = 1e300, hi = -1e300;
  for (std::int64_t n = 0; n < model.mesh.num_nodes(); ++n) {
    lo = std::min(lo, model.mesh.node(n)[0]);
    hi = std::max(hi, model.mesh.node(n)[0]);
  }
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(model.mesh.num_nodes()), 0);
  for (std::int64_t n = 0; n < model.mesh.num_nodes(); ++n)
    mask[n] = model.mesh.node(n)[0] < 0.5 * (lo + hi) ? 1 : 0;
  return mask;
}

inline std::vector<std::int32_t> marked(const std::vector<std::uint8_t>& mask) {
  std::vector<std::int32_t> nodes;
  for (std::size_t n = 0; n < mask.size(); ++n)
    if (mask[n]) nodes.push_back(static_cast<std::int32_t>(n));
  return nodes;
}

inline std::vector<double> at_nodes(const std::vector<double>& u,
                                    const std::vector<std::int32_t>& nodes) {
  std::vector<double> out;
  for (const std::int32_t n : nodes)
    for (int i = 0; i < 3; ++i) out.push_back(u[3 * static_cast<std::size_t>(n) + i]);
  return out;
}

/// Two problems that each own one half of the nodes (the other half ghost) and receive the
/// ghosts' u_{n+1} from an unpartitioned run after every step, as a halo exchange would: both
/// stay the unpartitioned run bit for bit (owned nodes computed alike, ghosts as set), and the
/// two halves' norms add up to the whole's (maxima exactly). With every node ghost the norms are
/// 0.
inline void expect_ghosts_follow_the_exchange(PluginRegistry& plugins, Backend& backend,
                                              const std::string& name, const StepCase& c) {
  const StepModel m = step_model(plugins, name, c);
  System left = m.setup.system, right = m.setup.system, none = m.setup.system;
  left.ghost = left_half(m.model);
  right.ghost = left.ghost;
  for (std::uint8_t& g : right.ghost) g = g ? 0 : 1;
  none.ghost.assign(left.ghost.size(), 1);
  const std::vector<std::int32_t> left_nodes = marked(left.ghost),
                                  right_nodes = marked(right.ghost);
  ASSERT_FALSE(left_nodes.empty());
  ASSERT_FALSE(right_nodes.empty());
  auto whole = backend.create_explicit(m.setup.system, m.precision);
  auto owns_right = backend.create_explicit(left, m.precision);
  auto owns_left = backend.create_explicit(right, m.precision);
  auto owns_nothing = backend.create_explicit(none, m.precision);

  constexpr std::int64_t kSteps = 12;
  StepNorms all, part_right, part_left, nothing;
  std::vector<double> u;
  for (std::int64_t k = 0; k < kSteps; ++k) {
    const bool keep = k + 2 == kSteps, measure = k + 1 == kSteps;
    EXPECT_EQ(whole->advance_step(k, keep, measure ? &all : nullptr).steps_done, 1);
    EXPECT_EQ(owns_right->advance_step(k, keep, measure ? &part_right : nullptr).steps_done, 1);
    EXPECT_EQ(owns_left->advance_step(k, keep, measure ? &part_left : nullptr).steps_done, 1);
    EXPECT_EQ(owns_nothing->advance_step(k, keep, measure ? &nothing : nullptr).steps_done, 1);
    whole->displacement(u);
    owns_right->set_nodal_displacements(left_nodes, at_nodes(u, left_nodes));
    owns_left->set_nodal_displacements(right_nodes, at_nodes(u, right_nodes));
    const std::string what = "step " + std::to_string(k);
    expect_same_state(*owns_right, *whole, what + ", left half ghost");
    expect_same_state(*owns_left, *whole, what + ", right half ghost");
  }
  for (const double v : norm_fields(nothing)) EXPECT_EQ(v, 0.0) << "every node ghost";
  EXPECT_GT(part_left.increment_sq, 0.0);
  EXPECT_GT(part_right.increment_sq, 0.0);
  if (c.name == "relax") {
    EXPECT_GT(part_left.contact_nodes, 0);
    EXPECT_GT(part_right.contact_nodes, 0);
  }
  // Maxima exactly; sums to the rounding of a different order of addition.
  EXPECT_TRUE(
      same_bits(std::max(part_left.increment_max, part_right.increment_max), all.increment_max));
  EXPECT_TRUE(
      same_bits(std::max(part_left.residual_max, part_right.residual_max), all.residual_max));
  EXPECT_TRUE(
      same_bits(std::max(part_left.internal_max, part_right.internal_max), all.internal_max));
  // Sums to the rounding of their terms; the tangential contact forces cancel to almost nothing,
  // so theirs is relative to the surface's whole force.
  const auto expect_sum = [](double a, double b, double whole_value, double scale,
                             const char* field) {
    EXPECT_NEAR(a + b, whole_value, 1e-12 * scale + 1e-300) << field;
  };
  const auto sum_scale = [](double a, double b) { return std::abs(a) + std::abs(b); };
  expect_sum(part_left.increment_sq, part_right.increment_sq, all.increment_sq,
             sum_scale(part_left.increment_sq, part_right.increment_sq), "increment_sq");
  expect_sum(part_left.residual_sq, part_right.residual_sq, all.residual_sq,
             sum_scale(part_left.residual_sq, part_right.residual_sq), "residual_sq");
  expect_sum(part_left.rayleigh_num, part_right.rayleigh_num, all.rayleigh_num,
             sum_scale(part_left.rayleigh_num, part_right.rayleigh_num), "rayleigh_num");
  expect_sum(part_left.rayleigh_den, part_right.rayleigh_den, all.rayleigh_den,
             sum_scale(part_left.rayleigh_den, part_right.rayleigh_den), "rayleigh_den");
  EXPECT_EQ(part_left.contact_nodes + part_right.contact_nodes, all.contact_nodes);
  for (int s = 0; s < kMaxSurfaces; ++s) {
    const auto& f = all.contact_force[s];
    const double scale = std::abs(f[0]) + std::abs(f[1]) + std::abs(f[2]);
    for (int i = 0; i < 3; ++i)
      expect_sum(part_left.contact_force[s][i], part_right.contact_force[s][i], f[i], scale,
                 "contact_force");
  }
}

/// nodal_internal_forces, summed in order in double, is internal_force_sum bit for bit (in any
/// order of the nodes), and each node's entry is internal_force_sum of that node alone.
inline void expect_nodal_forces_add_up(PluginRegistry& plugins, Backend& backend,
                                       const std::string& name, const StepCase& c) {
  const StepModel m = step_model(plugins, name, c);
  auto p = backend.create_explicit(m.setup.system, m.precision);
  EXPECT_EQ(p->advance(0, 7).steps_done, 7);
  std::vector<std::int32_t> nodes(m.setup.system.num_nodes);
  for (std::size_t k = 0; k < nodes.size(); ++k)
    nodes[k] = static_cast<std::int32_t>(nodes.size() - 1 - k);  // reversed: order matters
  for (const std::int32_t n : m.model.mesh.node_sets.at("top")) nodes.push_back(n);
  std::vector<double> forces;
  p->nodal_internal_forces(nodes, forces);
  ASSERT_EQ(forces.size(), 3 * nodes.size());
  std::array<double, 3> sum = {0, 0, 0};
  double largest = 0.0;
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (int i = 0; i < 3; ++i) {
      sum[i] += forces[3 * k + i];
      largest = std::max(largest, std::abs(forces[3 * k + i]));
    }
  EXPECT_GT(largest, 0.0);
  const std::array<double, 3> expected = p->internal_force_sum(nodes);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(same_bits(sum[i], expected[i])) << "component " << i;
  for (std::size_t k = 0; k < nodes.size(); k += 7) {
    const std::array<double, 3> one = p->internal_force_sum({nodes[k]});
    for (int i = 0; i < 3; ++i)
      EXPECT_TRUE(same_bits(forces[3 * k + i], one[i])) << "node " << nodes[k] << " " << i;
  }
  p->nodal_internal_forces({}, forces);
  EXPECT_TRUE(forces.empty());
}

/// set_nodal_displacements changes u_n at those nodes only (to the values in the problem's
/// precision), leaves u_{n-1}, and the next steps start from it as from set_displacement.
inline void expect_nodal_displacements_set(PluginRegistry& plugins, Backend& backend,
                                           const std::string& name, const StepCase& c) {
  const StepModel m = step_model(plugins, name, c);
  auto p = backend.create_explicit(m.setup.system, m.precision);
  auto reference = backend.create_explicit(m.setup.system, m.precision);
  EXPECT_EQ(p->advance(0, 5).steps_done, 5);
  EXPECT_EQ(reference->advance(0, 5).steps_done, 5);
  std::vector<double> u0, prev0;
  p->displacement(u0);
  p->previous_displacement(prev0);
  const auto last = static_cast<std::int32_t>(m.setup.system.num_nodes - 1);
  const std::vector<std::int32_t> nodes = {last, 3, 0, 11};
  std::vector<double> values;
  for (std::size_t k = 0; k < 3 * nodes.size(); ++k)
    values.push_back(1e-4 * static_cast<double>(k + 1) / 3.0);  // not exact in float
  p->set_nodal_displacements(nodes, values);
  std::vector<double> expected = u0;
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (int i = 0; i < 3; ++i)
      expected[3 * static_cast<std::size_t>(nodes[k]) + i] =
          m.precision == Precision::Single
              ? static_cast<double>(static_cast<float>(values[3 * k + i]))
              : values[3 * k + i];
  std::vector<double> u, prev;
  p->displacement(u);
  p->previous_displacement(prev);
  expect_same_bits(u, expected, "u_n");
  expect_same_bits(prev, prev0, "u_{n-1}");
  reference->set_displacement(expected, prev0);
  EXPECT_EQ(p->advance(5, 3).steps_done, 3);
  EXPECT_EQ(reference->advance(5, 3).steps_done, 3);
  expect_same_state(*p, *reference, "steps after");
  p->set_nodal_displacements({}, {});
  expect_same_state(*p, *reference, "no nodes");
}

}  // namespace fem::test
