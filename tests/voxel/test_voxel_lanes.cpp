// The voxel kernels' split of a stencil row among lanes (kernels/voxel_kernels.hpp), on the host:
// each lane's share computed in turn and the shares added must give the whole row, for every lane
// count a device uses, in row_product (the sweeps) and row_product_in_flight (the coarsest CG).
// The backends' tests check the same on a GPU, where the lanes are threads of a warp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <fem/kernels/voxel_kernels.hpp>

namespace fem::test {
namespace {

namespace kv = kernels::voxel;

/// One lane of `count`, run on its own: sum() leaves its share alone, the test adds the shares.
struct SerialLane {
  int lane_ = 0, count_ = 1;
  [[nodiscard]] int lane() const { return lane_; }
  [[nodiscard]] int count() const { return count_; }
  template <class T, int N>
  void sum(T (&)[N]) const {}
};

/// Rows of `vertices` vertices with random blocks, some neighbours missing (-1).
struct RandomRows {
  std::int64_t vertices = 40;
  std::vector<std::int32_t> neighbours;
  std::vector<double> a, u;
  kv::StencilLayout layout;
  RandomRows() {
    std::mt19937 random(7);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::uniform_int_distribution<std::int32_t> vertex(-1, static_cast<std::int32_t>(vertices) - 1);
    neighbours.resize(static_cast<std::size_t>(kv::kSlots * vertices));
    for (std::int64_t v = 0; v < vertices; ++v)
      for (int s = 0; s < kv::kSlots; ++s)
        neighbours[kv::kSlots * v + s] =
            s == kv::kCentre ? static_cast<std::int32_t>(v) : vertex(random);
    a.resize(static_cast<std::size_t>(kv::kRowEntries * vertices));
    for (double& x : a) x = value(random);
    u.resize(static_cast<std::size_t>(3 * vertices));
    for (double& x : u) x = value(random);
  }
};

/// The sum of the lanes' shares of vertex v's row, by `product(v, lane, acc)`.
template <class Product>
std::array<double, 3> added_shares(std::int64_t v, int count, Product&& product) {
  std::array<double, 3> total{};
  for (int lane = 0; lane < count; ++lane) {
    double share[3];
    product(v, SerialLane{lane, count}, share);
    for (int i = 0; i < 3; ++i) total[i] += share[i];
  }
  return total;
}

void expect_whole_row(const RandomRows& rows, std::int64_t v, const std::array<double, 3>& shares,
                      bool skip_centre) {
  double whole[3];
  kv::row_product(v, rows.neighbours.data(), rows.a.data(), rows.layout, rows.u.data(), skip_centre,
                  kv::OneLane{}, whole);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(shares[i], whole[i], 1e-12) << "vertex " << v;
}

TEST(VoxelLanes, TheSharesOfARowAddUpToTheRowForEveryLaneCount) {
  const RandomRows rows;
  for (const int count : {1, 2, 4, 8, 16})
    for (const bool skip_centre : {false, true}) {
      SCOPED_TRACE(testing::Message() << count << " lanes, skip centre " << skip_centre);
      for (std::int64_t v = 0; v < rows.vertices; ++v)
        expect_whole_row(rows, v,
                         added_shares(v, count,
                                      [&](std::int64_t x, const SerialLane& lane, double(&acc)[3]) {
                                        kv::row_product(x, rows.neighbours.data(), rows.a.data(),
                                                        rows.layout, rows.u.data(), skip_centre,
                                                        lane, acc);
                                      }),
                         skip_centre);
    }
}

TEST(VoxelLanes, TheInFlightSharesAddUpToTheRowForEveryLaneCount) {
  const RandomRows rows;
  for (const int count : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(testing::Message() << count << " lanes");
    for (std::int64_t v = 0; v < rows.vertices; ++v)
      expect_whole_row(rows, v,
                       added_shares(v, count,
                                    [&](std::int64_t x, const SerialLane& lane, double(&acc)[3]) {
                                      kv::with_lanes_constant(count, [&](auto constant) {
                                        kv::row_product_in_flight<decltype(constant)::value>(
                                            x, rows.neighbours.data(), rows.a.data(), rows.layout,
                                            rows.u.data(), lane, acc);
                                      });
                                    }),
                       false);
  }
}

TEST(VoxelLanes, ATeamGivesEveryVertexItsGroupOfLanesInOneRound) {
  for (const std::int64_t threads : {128, 512, 1024})
    for (std::int64_t vertices = 1; vertices <= 2 * threads; ++vertices) {
      const int count = kv::team_lanes(vertices, threads);
      ASSERT_TRUE(count == 1 || count == 2 || count == 4 || count == 8 || count == 16);
      // More than one lane only where the groups cover the vertices at once...
      if (count > 1) {
        EXPECT_GE(threads / count, vertices) << vertices << " of " << threads;
      }
      // ...and as many as still leave twice the threads the groups need.
      if (count < 16) {
        EXPECT_GT(2 * 2 * count * vertices, threads) << vertices << " of " << threads;
      }
    }
  EXPECT_EQ(kv::team_lanes(125, 512), 4);  // the 262 k cube's coarsest level
  EXPECT_EQ(kv::team_lanes(271, 512), 1);  // the 267 k bunny's
}

}  // namespace
}  // namespace fem::test
