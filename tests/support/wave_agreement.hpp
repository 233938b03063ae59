// The verbs of the explicit elastodynamic step (block_matrix, indices, wave_step, wave_source,
// gather: fem/operator.hpp) of a backend against the OpenMP reference, written once for every
// backend (tests/gpu/test_cuda_waves.cpp, tests/kokkos/test_kokkos_waves.cpp): 50 steps of a
// solver's loop on random block matrices of 2x2 and 3x3 blocks, with sources of both modes and
// receivers sampled every step. The matrices have what a backend's layout must survive: rows of
// 5 to 27 blocks, empty rows, a run of empty rows as long as a warp, a long row among short ones,
// and a row count that is no multiple of 32.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fem/operator.hpp>
#include <fem/plugin_registry.hpp>

#include "support/implicit_agreement.hpp"  // max_relative_difference
#include "support/implicit_runner.hpp"     // device_vector, host_vector, random_vector
#include "support/pass_through_algebra.hpp"

namespace fem::test {

/// A block matrix of `nodes` block rows in the shape of a mesh's stiffness scaled for the
/// increment form, without its diagonal blocks (kernels::wave_row_product sums K_nj (u_j - u_n)
/// over the others): blocks near k I with k > 0 summing to about 0.5 in a row, a Laplacian that
/// pulls a node towards its neighbours, so that 50 steps oscillate rather than grow and the
/// comparisons stay relative to values of order one. Rows hold 5 to 27 blocks, mostly near the
/// diagonal (a banded, reordered mesh) with a few far away; every 41st row and the rows 64 to 95
/// (a whole warp) are empty, and row 100 holds 60 blocks among rows of at most 27.
inline BlockCsrMatrix random_block_matrix(int block_size, std::int64_t nodes, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> row_length(5, 27);
  std::uniform_int_distribution<std::int64_t> near(-60, 60), far(0, nodes - 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int bs2 = block_size * block_size;
  BlockCsrMatrix m;
  m.block_size = block_size;
  m.rows = nodes;
  m.offsets.push_back(0);
  for (std::int64_t n = 0; n < nodes; ++n) {
    std::vector<std::int32_t> columns;
    const bool empty = n % 41 == 7 || (n >= 64 && n < 96);
    if (!empty) {
      const int length = n == 100 ? 60 : row_length(rng);
      while (static_cast<int>(columns.size()) < length) {
        const std::int64_t c = columns.size() % 5 == 4 ? far(rng) : n + near(rng);
        if (c < 0 || c >= nodes || c == n) continue;
        columns.push_back(static_cast<std::int32_t>(c));
        std::sort(columns.begin(), columns.end());
        columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
      }
    }
    const double k = 0.5 / static_cast<double>(std::max<std::size_t>(columns.size(), 1));
    for (const std::int32_t c : columns) {
      m.columns.push_back(c);
      for (int e = 0; e < bs2; ++e) {
        const bool diagonal_entry = e % (block_size + 1) == 0;
        m.values.push_back(k * ((diagonal_entry ? 1.0 : 0.0) + 0.2 * unit(rng)));
      }
    }
    m.offsets.push_back(static_cast<std::int64_t>(m.columns.size()));
  }
  return m;
}

/// What a run of the wave verbs leaves: the state, and every receiver sample.
struct WaveVerbResults {
  std::vector<double> u, v, samples;
};

/// `steps` steps of a solver's loop on `la`, from random u and v: wave_step, a force source at
/// distinct positions (more than a GPU block's threads), a force source that names a position
/// twice (the repeat must act after the first, as on the host), a prescribed displacement, then
/// the receivers' samples of u_next into one vector (offset by step), and u and u_next swapped.
inline WaveVerbResults run_wave_verbs(LinearAlgebra& la, const BlockCsrMatrix& k, int steps) {
  const std::int64_t nodes = k.rows, size = nodes * k.block_size;
  std::vector<double> damping = random_vector(nodes, 0.05, 11);
  for (double& b : damping) b += 0.95;  // b_n in [0.9, 1]: the damped increment
  const auto matrix = la.block_matrix(k);
  const auto b = device_vector(la, damping);
  auto u = device_vector(la, random_vector(size, 1.0, 12));
  const auto v = device_vector(la, random_vector(size, 0.1, 13));
  auto u_next = la.vector(size);
  la.fill(*u_next, 7.0);  // overwritten by the first step

  std::vector<std::int64_t> spread;  // every 7th dof
  for (std::int64_t d = 3; d < size; d += 7) spread.push_back(d);
  const std::vector<std::int64_t> repeated = {5, size - 1, 5, 2 * k.block_size},
                                  prescribed = {1, size / 2, size / 2 + 1, size - 2},
                                  receivers = {0, 2, size / 3, size / 2 + 1, size - 1, 5};
  const auto spread_at = la.indices(spread), repeated_at = la.indices(repeated),
             prescribed_at = la.indices(prescribed), receivers_at = la.indices(receivers);
  const auto spread_w = device_vector(la, random_vector(std::ssize(spread), 1.0, 14));
  const auto repeated_w = device_vector(la, random_vector(std::ssize(repeated), 1.0, 15));
  const auto prescribed_w = device_vector(la, random_vector(std::ssize(prescribed), 1.0, 16));
  const std::int64_t per_step = std::ssize(receivers);
  const auto samples = la.vector(per_step * steps);

  for (int step = 0; step < steps; ++step) {
    const double t = 0.1 * step;
    la.wave_step(*matrix, *b, *u, *v, *u_next);
    la.wave_source(*spread_at, *spread_w, 0.01 * std::sin(t), SourceMode::Force, *u, *v, *u_next);
    la.wave_source(*repeated_at, *repeated_w, 0.02 * std::cos(t), SourceMode::Force, *u, *v,
                   *u_next);
    la.wave_source(*prescribed_at, *prescribed_w, 0.5 * std::sin(2 * t), SourceMode::Displacement,
                   *u, *v, *u_next);
    la.gather(*u_next, *receivers_at, *samples, per_step * step);
    std::swap(u, u_next);
  }
  return {host_vector(la, *u), host_vector(la, *v), host_vector(la, *samples)};
}

/// The matrices every backend is checked on: 2x2 and 3x3 blocks, row counts no multiple of 32.
inline std::vector<BlockCsrMatrix> wave_test_matrices() {
  return {random_block_matrix(2, 1237, 21), random_block_matrix(3, 4099, 22)};
}

/// The wave verbs of `backend` against OpenMP's in `precision`. A backend that keeps the
/// reference's order of the sums in a row (kernels::wave_row_product) and contracts no FMA
/// gives its bits; the bounds allow round-off: 1e-12 of the largest value in double, 1e-5 in
/// single.
inline void expect_wave_verbs_match_openmp(const std::string& backend, Precision precision) {
  const PluginRegistry plugins;
  auto openmp_backend = plugins.create_backend("openmp");
  auto tested_backend = plugins.create_backend(backend);
  const auto reference = openmp_backend->create_linear_algebra(precision);
  const auto tested = tested_backend->create_linear_algebra(precision);
  ASSERT_EQ(tested->precision(), precision);
  const double tolerance = precision == Precision::Single ? 1e-5 : 1e-12;
  constexpr int kSteps = 50;
  for (const BlockCsrMatrix& k : wave_test_matrices()) {
    SCOPED_TRACE(std::to_string(k.block_size) + "x" + std::to_string(k.block_size) + " blocks, " +
                 std::to_string(k.rows) + " nodes");
    const WaveVerbResults want = run_wave_verbs(*reference, k, kSteps),
                          got = run_wave_verbs(*tested, k, kSteps);
    const double du = max_relative_difference(got.u, want.u),
                 dv = max_relative_difference(got.v, want.v),
                 ds = max_relative_difference(got.samples, want.samples);
    std::printf(
        "[ %s vs openmp, waves ] %dx%d blocks, %lld nodes, %s: u %.2e, v %.2e, "
        "samples %.2e\n",
        backend.c_str(), k.block_size, k.block_size, static_cast<long long>(k.rows),
        precision == Precision::Single ? "single" : "double", du, dv, ds);
    EXPECT_LE(du, tolerance);
    EXPECT_LE(dv, tolerance);
    EXPECT_LE(ds, tolerance);
    // The run did something worth comparing: u moved and stayed of order one.
    double largest = 0.0;
    for (const double x : want.u) largest = std::max(largest, std::abs(x));
    EXPECT_GT(largest, 0.1);
    EXPECT_LT(largest, 100.0);
  }
}

/// The block matrix of a structured grid of side `side`, in lexicographic order: the 26
/// neighbours of a node of a hexahedral mesh (3x3 blocks, 3D) or the 8 of a quadrilateral mesh
/// (2x2 blocks, 2D), without the diagonal block (kernels::wave_row_product). What the bandwidth
/// of the step is measured on.
inline BlockCsrMatrix grid_block_matrix(int block_size, std::int64_t side) {
  const int dims = block_size;
  const std::int64_t nz = dims == 3 ? side : 1;
  BlockCsrMatrix m;
  m.block_size = block_size;
  m.rows = side * side * nz;
  const int bs2 = block_size * block_size;
  const std::int64_t neighbours = dims == 3 ? 26 : 8;
  m.offsets.reserve(static_cast<std::size_t>(m.rows + 1));
  m.columns.reserve(static_cast<std::size_t>(m.rows * neighbours));
  m.values.reserve(static_cast<std::size_t>(m.rows * neighbours * bs2));
  m.offsets.push_back(0);
  const auto inside = [side](std::int64_t i) { return i >= 0 && i < side; };
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < side; ++y)
      for (std::int64_t x = 0; x < side; ++x) {
        const std::int64_t first = static_cast<std::int64_t>(m.columns.size());
        for (std::int64_t dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); ++dz)
          for (std::int64_t dy = -1; dy <= 1; ++dy)
            for (std::int64_t dx = -1; dx <= 1; ++dx)
              if ((dx != 0 || dy != 0 || dz != 0) && (dims == 2 || inside(z + dz)) &&
                  inside(y + dy) && inside(x + dx))
                m.columns.push_back(
                    static_cast<std::int32_t>(((z + dz) * side + y + dy) * side + x + dx));
        const std::int64_t length = static_cast<std::int64_t>(m.columns.size()) - first;
        const double k = 0.5 / static_cast<double>(length);
        for (std::int64_t j = 0; j < length; ++j)
          for (int e = 0; e < bs2; ++e)
            m.values.push_back(e % (block_size + 1) == 0 ? k : 0.1 * k * (e % 2 == 0 ? 1 : -1));
        m.offsets.push_back(static_cast<std::int64_t>(m.columns.size()));
      }
  return m;
}

/// The effective bandwidth of wave_step on `la`: the bytes a step must move at least (each
/// block and its column once, each node's row length, b, u and v read, v and u_next written:
/// the gathered neighbours of u from cache) over its time, in GB/s; and a device-to-device copy
/// of as many bytes (read and written) on the same algebra, the ceiling it is measured against.
struct WaveBandwidth {
  double step_seconds = 0.0, step_gbs = 0.0, copy_gbs = 0.0;
};

inline WaveBandwidth measure_wave_step(LinearAlgebra& la, const BlockCsrMatrix& k, int steps) {
  const std::int64_t nodes = k.rows, size = nodes * k.block_size;
  const double scalar = la.precision() == Precision::Single ? 4.0 : 8.0;
  const double bytes =
      static_cast<double>(k.blocks()) * (k.block_size * k.block_size * scalar + 4) +
      static_cast<double>(nodes) * (4 + scalar) + static_cast<double>(size) * 4 * scalar;
  const auto matrix = la.block_matrix(k);
  const auto b = device_vector(la, std::vector<double>(static_cast<std::size_t>(nodes), 0.99));
  auto u = device_vector(la, random_vector(size, 1.0, 12));
  const auto v = la.vector(size);
  auto u_next = la.vector(size);
  const auto timed = [&](const auto& work, int repeats) {
    la.set_timing(false);  // no wait per verb: the device runs the steps back to back
    work();                // warm-up
    la.synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) work();
    la.synchronize();
    la.set_timing(true);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
           repeats;
  };
  WaveBandwidth out;
  out.step_seconds = timed(
      [&] {
        la.wave_step(*matrix, *b, *u, *v, *u_next);
        std::swap(u, u_next);
      },
      steps);
  out.step_gbs = bytes / out.step_seconds / 1e9;
  const auto x = la.vector(static_cast<std::int64_t>(bytes / (2 * scalar))),
             y = la.vector(x->size());
  const double copy_seconds = timed([&] { la.copy(*x, *y); }, steps);
  out.copy_gbs = 2.0 * static_cast<double>(x->size()) * scalar / copy_seconds / 1e9;
  return out;
}

/// A pair of steps recorded once and replayed (LinearAlgebra::record: a CUDA graph) gives the
/// bits of the same verbs run one by one; recording fails where a verb waits for the device or
/// copies to the host, so this also checks that the wave verbs only enqueue work. Returns
/// whether the algebra records at all (false: nothing checked).
inline bool expect_recorded_wave_steps_match(LinearAlgebra& la, const BlockCsrMatrix& k) {
  const std::int64_t nodes = k.rows, size = nodes * k.block_size;
  std::vector<double> damping = random_vector(nodes, 0.05, 11);
  for (double& b : damping) b += 0.95;
  const auto matrix = la.block_matrix(k);
  const auto b = device_vector(la, damping);
  const std::vector<std::int64_t> at = {3, size / 2, 3, size - 1}, receivers = {0, size / 3};
  const auto source_at = la.indices(at), receivers_at = la.indices(receivers);
  const auto weights = device_vector(la, random_vector(std::ssize(at), 1.0, 14));
  constexpr int kPairs = 5;
  struct State {
    std::unique_ptr<Vector> u, v, u_next, samples;
  };
  const auto start = [&] {
    return State{device_vector(la, random_vector(size, 1.0, 12)),
                 device_vector(la, random_vector(size, 0.1, 13)), la.vector(size),
                 la.vector(2 * std::ssize(receivers))};
  };
  const auto pair = [&](State& s) {
    la.wave_step(*matrix, *b, *s.u, *s.v, *s.u_next);
    la.wave_source(*source_at, *weights, 0.3, SourceMode::Force, *s.u, *s.v, *s.u_next);
    la.gather(*s.u_next, *receivers_at, *s.samples, 0);
    la.wave_step(*matrix, *b, *s.u_next, *s.v, *s.u);
    la.wave_source(*source_at, *weights, 0.3, SourceMode::Displacement, *s.u_next, *s.v, *s.u);
    la.gather(*s.u, *receivers_at, *s.samples, std::ssize(receivers));
  };
  State direct = start(), replayed = start();
  la.synchronize();
  la.set_timing(false);  // record() records only untimed work
  const auto recording = la.record([&] { pair(replayed); });
  la.set_timing(true);
  if (!recording) return false;
  for (int p = 0; p < kPairs; ++p) {
    pair(direct);
    la.replay(*recording);
  }
  EXPECT_EQ(host_vector(la, *replayed.u), host_vector(la, *direct.u));
  EXPECT_EQ(host_vector(la, *replayed.v), host_vector(la, *direct.v));
  EXPECT_EQ(host_vector(la, *replayed.samples), host_vector(la, *direct.samples));
  return true;
}

/// An algebra with only the required verbs (those of `inner`): the wave verbs are the
/// LinearAlgebra defaults, which take the vectors through the host.
class DefaultWaveAlgebra final : public PassThroughAlgebra {
 public:
  using PassThroughAlgebra::PassThroughAlgebra;
};

/// The OpenMP backend's wave verbs against the LinearAlgebra defaults (the host loop over
/// kernels::wave_node_step in double): the same arithmetic in the same order, so the same bits.
inline void expect_openmp_waves_match_defaults() {
  const PluginRegistry plugins;
  auto openmp_backend = plugins.create_backend("openmp");
  const auto openmp = openmp_backend->create_linear_algebra(Precision::Double);
  const auto inner = openmp_backend->create_linear_algebra(Precision::Double);
  DefaultWaveAlgebra defaults(*inner);
  for (const BlockCsrMatrix& k : wave_test_matrices()) {
    SCOPED_TRACE(std::to_string(k.block_size) + "x" + std::to_string(k.block_size) + " blocks");
    const WaveVerbResults want = run_wave_verbs(defaults, k, 50),
                          got = run_wave_verbs(*openmp, k, 50);
    EXPECT_EQ(got.u, want.u);
    EXPECT_EQ(got.v, want.v);
    EXPECT_EQ(got.samples, want.samples);
  }
}

}  // namespace fem::test
