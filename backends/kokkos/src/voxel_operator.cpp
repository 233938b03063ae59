// How the Kokkos backend runs the voxel multigrid's kernels (fem/voxel/voxel_operator_impl.hpp)
// on an execution space: Views, parallel_for and parallel_reduce over 64-bit ranges, and the
// coarsest level's conjugate gradients as one team. Stencils are entry-major where the space's
// memory is a device's (coalesced, as in the CUDA backend) and vertex-major on the host.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <fem/kokkos/spaces.hpp>
#include <fem/voxel/voxel_operator_impl.hpp>

#include "operators.hpp"

namespace fem::kokkos {
namespace {

/// Where the calling thread sits in its warp: Kokkos puts a team's vector lanes along
/// threadIdx.x on CUDA and the team's threads along y.
KOKKOS_INLINE_FUNCTION unsigned thread_in_warp() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return (threadIdx.x + blockDim.x * threadIdx.y) % 32u;
#else
  return 0u;
#endif
}

template <class Space>
struct VoxelExec {
  using ExecutionSpace = typename Space::execution_space;
  static constexpr bool kEntryMajor = !kRunsOnHost<Space>;

  template <class U>
  struct Array {
    Kokkos::View<U*, typename Space::memory_space> values;
    U* data() const { return values.data(); }
    [[nodiscard]] std::size_t size() const { return values.extent(0); }
  };
  template <class U>
  static Array<U> make(std::int64_t n) {
    return Array<U>{Kokkos::View<U*, typename Space::memory_space>("voxel", n)};
  }
  template <class U>
  static void upload(Array<U>& a, const U* host, std::int64_t n, std::int64_t offset = 0) {
    if (n <= 0) return;
    Kokkos::View<const U*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> from(host,
                                                                                            n);
    Kokkos::deep_copy(Kokkos::subview(a.values, std::make_pair(offset, offset + n)), from);
  }
  template <class U>
  static void download(const Array<U>& a, U* host, std::int64_t n, std::int64_t offset = 0) {
    if (n <= 0) return;
    Kokkos::View<U*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> to(host, n);
    Kokkos::deep_copy(to, Kokkos::subview(a.values, std::make_pair(offset, offset + n)));
  }
  template <class F>
  static void for_each(std::int64_t begin, std::int64_t end, const F& f) {
    if (end <= begin) return;
    Kokkos::parallel_for("fem::voxel", Range<ExecutionSpace>(begin, end), f);
  }
  /// On Kokkos' Cuda space a team's vector lanes, consecutive threads of a warp; one thread
  /// elsewhere.
  using Lanes = kernels::voxel::WarpLanes;
  /// As the CUDA backend's lanes_for: on Kokkos' Cuda space the fewest lanes (at most 16) that
  /// give a launch half the threads the GPU holds; one elsewhere.
  static int lanes_for(std::int64_t n) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      static const std::int64_t target = ExecutionSpace().concurrency() / 2;
      int lanes = 1;
      while (lanes < 16 && n * lanes < target) lanes *= 2;
      return lanes;
    }
#endif
    (void)n;
    return 1;
  }
  /// Several lanes an index are a team's vector lanes (threadIdx.x on CUDA), each team a
  /// block's worth of indices.
  template <class F>
  static void for_each_lanes(std::int64_t begin, std::int64_t end, const F& f) {
    if (end <= begin) return;
    const int lanes = lanes_for(end - begin);
    if (lanes == 1) {
      Kokkos::parallel_for(
          "fem::voxel", Range<ExecutionSpace>(begin, end),
          KOKKOS_LAMBDA(std::int64_t i) { f(i, Lanes{}); });
      return;
    }
    const int team = 256 / lanes;
    const auto league = static_cast<int>((end - begin + team - 1) / team);
    Kokkos::parallel_for(
        "fem::voxel_lanes", Kokkos::TeamPolicy<ExecutionSpace>(league, team, lanes),
        KOKKOS_LAMBDA(const Member& m) {
          const std::int64_t i =
              begin + static_cast<std::int64_t>(m.league_rank()) * m.team_size() + m.team_rank();
          if (i >= end) return;  // a whole group of lanes
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, lanes),
                               [&](int lane) { f(i, Lanes::of(lane, lanes, thread_in_warp())); });
        });
  }
  template <class F>
  static double sum(std::int64_t n, const F& f) {
    double s = 0.0;
    if (n <= 0) return s;
    Kokkos::parallel_reduce(
        "fem::voxel_sum", Range<ExecutionSpace>(0, n),
        KOKKOS_LAMBDA(std::int64_t i, double& acc) { acc += f(i); }, s);
    return s;
  }
  using Member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  struct Team {
    const Member* member;
    KOKKOS_FUNCTION int rank() const { return member->team_rank(); }
    KOKKOS_FUNCTION int size() const { return member->team_size(); }
    KOKKOS_FUNCTION void barrier() const { member->team_barrier(); }
    KOKKOS_FUNCTION double sum(double x) const {
      double total = x;
      member->team_reduce(Kokkos::Sum<double>(total));
      return total;
    }
    /// One thread a vertex (a team's size need not be a power of two).
    KOKKOS_FUNCTION kernels::voxel::OneLane lanes(int /*count*/) const { return {}; }
  };
  template <class F>
  static void team(const F& f) {
    Kokkos::parallel_for(
        "fem::voxel_team", Kokkos::TeamPolicy<ExecutionSpace>(1, Kokkos::AUTO),
        KOKKOS_LAMBDA(const Member& m) { f(Team{&m}); });
  }
  /// Not recorded (Kokkos' graphs would be the way): the verbs run one by one.
  using Recording = std::shared_ptr<void>;
  template <class F>
  static Recording record(const F& /*enqueue*/) {
    return nullptr;
  }
  static void replay(const Recording& /*r*/) {}
  static void synchronize() {
    Kokkos::fence();
  }
  /// The verbs run in order on the default execution space instance (a second instance, on
  /// Cuda a second stream, would let the coarse levels run alongside as in the CUDA backend).
  static void fork() {}
  static void unfork() {}
  static void join() {}
};

template <class Space>
std::unique_ptr<VoxelOperator> voxel_operator_on(const voxel::VoxelHierarchy& h,
                                                 const VoxelMaterials& materials,
                                                 Precision precision) {
  if (precision == Precision::Single)
    return std::make_unique<voxel::VoxelOperatorOn<VoxelExec<Space>, float>>(h, materials);
  return std::make_unique<voxel::VoxelOperatorOn<VoxelExec<Space>, double>>(h, materials);
}

}  // namespace

std::unique_ptr<VoxelOperator> make_voxel_operator(bool on_host, const voxel::VoxelHierarchy& h,
                                                   const VoxelMaterials& materials,
                                                   Precision precision) {
  if constexpr (kSeparateHostSpace)
    if (on_host) return voxel_operator_on<HostSpace>(h, materials, precision);
  (void)on_host;
  return voxel_operator_on<DeviceSpace>(h, materials, precision);
}

}  // namespace fem::kokkos
