// How the CUDA backend runs the voxel multigrid's kernels (fem/voxel/voxel_operator_impl.hpp):
// device arrays, one thread per index of a verb, or a few that split a stencil row where a launch
// would leave the GPU idle (lanes_for), entry-major stencils (so that the threads of a warp read
// and write consecutive addresses: the seed's layout, section 4.3), reductions by
// blocks whose partial sums the host adds in order (the same bits on any device), and the
// coarsest level's conjugate gradients in one thread block (the seed's section 4.2.7).
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <fem/cuda/check.hpp>
#include <fem/voxel/voxel_operator_impl.hpp>

#include "device_array.cuh"
#include "voxel_operator.cuh"

namespace fem::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTeamThreads = 512;
constexpr int kSumBlocks = 512;

template <class F>
__global__ void for_each_kernel(std::int64_t begin, std::int64_t end, F f) {
  const std::int64_t i = begin + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < end) f(i);
}

using kernels::voxel::WarpLanes;

template <int Lanes, class F>
__global__ void for_each_lanes_kernel(std::int64_t begin, std::int64_t end, F f) {
  static_assert(Lanes >= 1 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0 && kThreads % Lanes == 0);
  const std::int64_t i =
      begin + (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / Lanes;
  if (i >= end) return;  // whole groups of lanes leave together
  f(i, WarpLanes::of(static_cast<int>(threadIdx.x % Lanes), Lanes, threadIdx.x % 32));
}

/// Block b sums f(i) over i = b * blockDim + thread, strided by the grid, into partial[b].
template <class F>
__global__ void sum_kernel(std::int64_t n, F f, double* partial) {
  __shared__ double s[kThreads];
  double acc = 0.0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    acc += f(i);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

template <class F>
__global__ void __launch_bounds__(kTeamThreads) team_kernel(F f);

struct VoxelExec {
  static constexpr bool kEntryMajor = true;

  template <class U>
  struct Array {
    DeviceArray<U> values;
    U* data() { return values.data(); }
    const U* data() const { return values.data(); }
    [[nodiscard]] std::size_t size() const { return values.size(); }
  };
  template <class U>
  static Array<U> make(std::int64_t n) {
    Array<U> a;
    a.values.resize(static_cast<std::size_t>(n));
    if (n > 0) FEM_CUDA_CHECK(cudaMemset(a.data(), 0, static_cast<std::size_t>(n) * sizeof(U)));
    return a;
  }
  template <class U>
  static void upload(Array<U>& a, const U* host, std::int64_t n, std::int64_t offset = 0) {
    if (n > 0)
      FEM_CUDA_CHECK(cudaMemcpy(a.data() + offset, host, static_cast<std::size_t>(n) * sizeof(U),
                                cudaMemcpyHostToDevice));
  }
  template <class U>
  static void download(const Array<U>& a, U* host, std::int64_t n, std::int64_t offset = 0) {
    if (n > 0)
      FEM_CUDA_CHECK(cudaMemcpy(host, a.data() + offset, static_cast<std::size_t>(n) * sizeof(U),
                                cudaMemcpyDeviceToHost));
  }
  template <class F>
  static void for_each(std::int64_t begin, std::int64_t end, const F& f) {
    const std::int64_t n = end - begin;
    if (n <= 0) return;
    for_each_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0,
                      stream()>>>(begin, end, f);
    FEM_CUDA_CHECK(cudaGetLastError());
  }
  using Lanes = WarpLanes;
  template <int L, class F>
  static void launch_lanes(std::int64_t begin, std::int64_t end, const F& f) {
    const std::int64_t threads = (end - begin) * L;
    for_each_lanes_kernel<L>
        <<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, stream()>>>(
            begin, end, f);
    FEM_CUDA_CHECK(cudaGetLastError());
  }
  /// Threads for each index of a launch of n: the fewest lanes (a power of two, at most 16) that
  /// give the launch 1,024 threads per multiprocessor, half of what the GPU holds at once. A
  /// colour of a level's vertices, one thread each, leaves most of the GPU idle below ~2 M
  /// voxels, each thread with a whole 27-block row of loads in series; lanes split the row. The
  /// largest levels keep one thread a vertex: their vertices alone fill the GPU, and splitting
  /// them further was measured slower (docs/performance.md, "Several threads a vertex").
  static int lanes_for(std::int64_t n) {
    static const std::int64_t target = [] {
      int device = 0, multiprocessors = 0;
      FEM_CUDA_CHECK(cudaGetDevice(&device));
      FEM_CUDA_CHECK(
          cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
      return static_cast<std::int64_t>(1024) * multiprocessors;
    }();
    int lanes = 1;
    while (lanes < 16 && n * lanes < target) lanes *= 2;
    return lanes;
  }
  template <class F>
  static void for_each_lanes(std::int64_t begin, std::int64_t end, const F& f) {
    if (end <= begin) return;
    switch (lanes_for(end - begin)) {
      case 1:
        return launch_lanes<1>(begin, end, f);
      case 2:
        return launch_lanes<2>(begin, end, f);
      case 4:
        return launch_lanes<4>(begin, end, f);
      case 8:
        return launch_lanes<8>(begin, end, f);
      default:
        return launch_lanes<16>(begin, end, f);
    }
  }
  template <class F>
  static double sum(std::int64_t n, const F& f) {
    static thread_local DeviceArray<double> partial(kSumBlocks);
    const int blocks = static_cast<int>(std::min<std::int64_t>(
        kSumBlocks, std::max<std::int64_t>(1, (n + kThreads - 1) / kThreads)));
    sum_kernel<<<blocks, kThreads, 0, stream()>>>(n, f, partial.data());
    FEM_CUDA_CHECK(cudaGetLastError());
    std::vector<double> host(static_cast<std::size_t>(blocks));
    FEM_CUDA_CHECK(cudaMemcpy(host.data(), partial.data(), host.size() * sizeof(double),
                              cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (const double x : host) s += x;
    return s;
  }
  /// One thread block. The host side of these exists only because the lambdas that use them
  /// are __host__ __device__; it is never run.
  struct Team {
    FEM_HD int rank() const {
#ifdef __CUDA_ARCH__
      return static_cast<int>(threadIdx.x);
#else
      return 0;
#endif
    }
    FEM_HD int size() const {
#ifdef __CUDA_ARCH__
      return static_cast<int>(blockDim.x);
#else
      return 1;
#endif
    }
    FEM_HD void barrier() const {
#ifdef __CUDA_ARCH__
      __syncthreads();
#endif
    }
    /// Groups of `count` consecutive threads (a power of two up to 32; the team's size is a
    /// multiple of it).
    FEM_HD WarpLanes lanes(int count) const {
#ifdef __CUDA_ARCH__
      return WarpLanes::of(static_cast<int>(threadIdx.x) % count, count, threadIdx.x % 32);
#else
      (void)count;
      return {};
#endif
    }
    /// Warp shuffles, then one value a warp through shared memory: two barriers.
    FEM_HD double sum(double x) const {
#ifdef __CUDA_ARCH__
      __shared__ double warp_sums[kTeamThreads / 32];
      for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
      const int lane = static_cast<int>(threadIdx.x) % 32,
                warp = static_cast<int>(threadIdx.x) / 32;
      __syncthreads();  // the previous sum's readers are done with warp_sums
      if (lane == 0) warp_sums[warp] = x;
      __syncthreads();
      double total = 0.0;
      for (int w = 0; w < kTeamThreads / 32; ++w)
        total += warp_sums[w];  // the same order everywhere
      return total;
#else
      return x;
#endif
    }
  };
  template <class F>
  static void team(const F& f) {
    team_kernel<<<1, kTeamThreads, 0, stream()>>>(f);
    FEM_CUDA_CHECK(cudaGetLastError());
  }
  /// The streams kernels go on: the main one, and a side one for what is issued between fork()
  /// and unfork(). Streams can be captured into a graph (the side one joins the capture through
  /// the fork's event), the legacy default stream cannot. Created blocking, so that the copies
  /// on the legacy stream stay ordered with the kernels of both. One pair for every operator:
  /// a fork is joined before another operator's verbs run.
  struct Streams {
    cudaStream_t main = nullptr, side = nullptr;
    cudaEvent_t forked = nullptr, side_done = nullptr;
    bool on_side = false;
  };
  static Streams& streams() {
    static Streams s = [] {
      Streams created;
      FEM_CUDA_CHECK(cudaStreamCreate(&created.main));
      FEM_CUDA_CHECK(cudaStreamCreate(&created.side));
      FEM_CUDA_CHECK(cudaEventCreateWithFlags(&created.forked, cudaEventDisableTiming));
      FEM_CUDA_CHECK(cudaEventCreateWithFlags(&created.side_done, cudaEventDisableTiming));
      return created;
    }();
    return s;
  }
  static cudaStream_t stream() {
    const Streams& s = streams();
    return s.on_side ? s.side : s.main;
  }
  static void fork() {
    Streams& s = streams();
    FEM_CUDA_CHECK(cudaEventRecord(s.forked, s.main));
    FEM_CUDA_CHECK(cudaStreamWaitEvent(s.side, s.forked, 0));
    s.on_side = true;
  }
  static void unfork() {
    Streams& s = streams();
    FEM_CUDA_CHECK(cudaEventRecord(s.side_done, s.side));
    s.on_side = false;
  }
  static void join() {
    const Streams& s = streams();
    FEM_CUDA_CHECK(cudaStreamWaitEvent(s.main, s.side_done, 0));
  }
  /// A captured graph, instantiated.
  using Recording = std::shared_ptr<CUgraphExec_st>;
  template <class F>
  static Recording record(const F& enqueue) {
    FEM_CUDA_CHECK(cudaStreamBeginCapture(streams().main, cudaStreamCaptureModeThreadLocal));
    enqueue();
    cudaGraph_t graph = nullptr;
    FEM_CUDA_CHECK(cudaStreamEndCapture(streams().main, &graph));
    cudaGraphExec_t exec = nullptr;
    FEM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    FEM_CUDA_CHECK(cudaGraphDestroy(graph));
    return Recording(exec, [](cudaGraphExec_t e) { cudaGraphExecDestroy(e); });
  }
  static void replay(const Recording& r) {
    FEM_CUDA_CHECK(cudaGraphLaunch(r.get(), streams().main));
  }
  static void synchronize() {
    FEM_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

template <class F>
__global__ void __launch_bounds__(kTeamThreads) team_kernel(F f) {
  f(VoxelExec::Team{});
}

}  // namespace

std::unique_ptr<VoxelOperator> make_voxel_operator(const voxel::VoxelHierarchy& h,
                                                   const VoxelMaterials& materials,
                                                   Precision precision) {
  if (precision == Precision::Single)
    return std::make_unique<voxel::VoxelOperatorOn<VoxelExec, float>>(h, materials);
  return std::make_unique<voxel::VoxelOperatorOn<VoxelExec, double>>(h, materials);
}

}  // namespace fem::cuda
