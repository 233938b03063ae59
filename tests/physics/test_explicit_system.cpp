// The explicit system's setup (setup_explicit): the node-to-slot incidence and the lumped masses
// are built on every core, and must be exactly what one pass over the elements gives, on any
// number of threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_system.hpp>

#include "support/backend.hpp"

namespace fem::test {
namespace {

/// Each node's slots (System::incidence_*), built by one pass over the blocks in slot order.
std::vector<std::vector<std::int64_t>> serial_incidence(const System& sys) {
  std::vector<std::vector<std::int64_t>> slots(static_cast<std::size_t>(sys.num_nodes));
  for (const BlockSystem& b : sys.blocks)
    for (std::size_t s = 0; s < b.connectivity.size(); ++s)
      slots[static_cast<std::size_t>(b.connectivity[s])].push_back(b.force_offset +
                                                                   static_cast<std::int64_t>(s));
  return slots;
}

/// The lumped masses added element by element, block by block: the order the setup's per-node
/// gather must reproduce bit for bit (and, with `relaxation_step` > 0, iteration masses).
void expect_element_order_masses(const Model& model, const System& sys, double relaxation_step) {
  std::vector<double> mass(static_cast<std::size_t>(sys.num_nodes), 0.0);
  for (std::size_t k = 0; k < sys.blocks.size(); ++k) {
    const BlockSystem& b = sys.blocks[k];
    const ModelBlock& mb = model.blocks[k];
    const double density = mb.material_spec->density;
    for (std::int64_t e = 0; e < b.num_elements; ++e) {
      double volume = 0.0;
      for (int q = 0; q < b.quadrature_points; ++q)
        volume += b.quadrature_volumes[static_cast<std::size_t>(e * b.quadrature_points + q)];
      for (int a = 0; a < b.nodes_per_element; ++a) {
        const auto n = static_cast<std::size_t>(b.connectivity[e * b.nodes_per_element + a]);
        mass[n] += density * volume * mb.element->lumped_mass_weights[a];
      }
    }
  }
  for (std::int64_t n = 0; n < sys.num_nodes; ++n)
    ASSERT_EQ(sys.lumped_mass[static_cast<std::size_t>(n)], mass[static_cast<std::size_t>(n)])
        << "node " << n;
  if (relaxation_step > 0.0) {
    ASSERT_EQ(sys.iteration_mass.size(), sys.lumped_mass.size());
    for (std::int64_t n = 0; n < sys.num_nodes; ++n)
      ASSERT_GT(sys.iteration_mass[static_cast<std::size_t>(n)], 0.0) << "node " << n;
  }
}

void expect_serial_incidence(const System& sys) {
  const auto expected = serial_incidence(sys);
  ASSERT_EQ(sys.incidence_offsets.size(), static_cast<std::size_t>(sys.num_nodes + 1));
  for (std::int64_t n = 0; n < sys.num_nodes; ++n) {
    const std::vector<std::int64_t> got(
        sys.incidence_slots.begin() + sys.incidence_offsets[static_cast<std::size_t>(n)],
        sys.incidence_slots.begin() + sys.incidence_offsets[static_cast<std::size_t>(n) + 1]);
    ASSERT_EQ(got, expected[static_cast<std::size_t>(n)]) << "node " << n;
  }
}

/// setup_explicit on 1 and 3 threads: the same system, bit for bit.
void expect_thread_independent_system(const Model& model) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ExplicitSetup one = setup_explicit(model);
  omp_set_num_threads(3);
  const ExplicitSetup three = setup_explicit(model);
  omp_set_num_threads(threads);
  const System &a = one.system, &b = three.system;
  EXPECT_EQ(a.lumped_mass, b.lumped_mass);
  EXPECT_EQ(a.iteration_mass, b.iteration_mass);
  EXPECT_EQ(a.incidence_offsets, b.incidence_offsets);
  EXPECT_TRUE(a.incidence_slots == b.incidence_slots);
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (std::size_t k = 0; k < a.blocks.size(); ++k) {
    EXPECT_TRUE(a.blocks[k].shape_gradients == b.blocks[k].shape_gradients) << "block " << k;
    EXPECT_TRUE(a.blocks[k].quadrature_volumes == b.blocks[k].quadrature_volumes) << "block " << k;
  }
  EXPECT_EQ(one.critical_time_step, three.critical_time_step);
  EXPECT_EQ(one.critical_element, three.critical_element);
}

TEST(ExplicitSystem, ParallelSetupGivesTheElementOrderMassesAndIncidence) {
  // 48,000 tetrahedra (192,000 slots): large enough for the parallel incidence and masses.
  // Dynamic relaxation adds the iteration masses; the distortion makes every element differ.
  const std::string yaml = R"(
mesh: {generator: box, cells: tet4, size: [1, 1, 1], divisions: [20, 20, 20], distortion: 0.2}
materials: {m: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}}
blocks: [{element: tet4, material: m}]
node_sets: {bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}
boundary_conditions: [{set: bottom, fixed: all}]
solver: {type: dynamic_relaxation, max_iterations: 10}
)";
  PluginRegistry plugins;
  const Model model = build_model(parse_case(yaml, "<test>", on_backend()), plugins);
  const ExplicitSetup setup = setup_explicit(model);
  ASSERT_GE(setup.system.num_force_slots, 65536);
  expect_serial_incidence(setup.system);
  expect_element_order_masses(model, setup.system, 1.0);
  expect_thread_independent_system(model);
}

TEST(ExplicitSystem, MixedBlocksGatherTheirMassesInBlockOrder) {
  // Four blocks (hex8r, averaged-pressure and plain tetrahedra) sharing nodes: a node's slots
  // run over several blocks, whose element arrays each node's gather must find.
  PluginRegistry plugins;
  const Model model =
      build_model(load_case(FEM_SOURCE_DIR "/cases/brain_shift_mixed.yaml", on_backend()), plugins);
  ASSERT_GE(model.blocks.size(), 2u);
  const ExplicitSetup setup = setup_explicit(model);
  expect_serial_incidence(setup.system);
  expect_element_order_masses(model, setup.system, 1.0);
  expect_thread_independent_system(model);
}

}  // namespace
}  // namespace fem::test
