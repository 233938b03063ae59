// The CUDA backend: explicit TLED steps entirely on the GPU, and the operators of the implicit
// solvers (linear_algebra.cu, nonlinear_operator.cu beside this file).
//
// Each step is two launches: the material plugin's element kernel per block and the fused node
// kernel (node_kernel.cuh: force gather or read, loads, damped central difference, prescribed
// displacements, contact, the step counter); two more with averaged-nodal-pressure blocks (their
// element pressures and the nodal averages, before the element kernels), and in atomic assembly
// a fill of the node forces where that measured faster (tuning.hpp). Steps between outputs are
// replayed from captured CUDA graphs, with one amplitude-table kernel per graph, so the host
// neither launches per step nor copies anything until the next output.
//
// A part of a partitioned mesh whose halo goes GPU to GPU overlaps the exchange with its steps:
// each step runs as two graphs, first the elements that touch a node the neighbours receive and
// the update of those nodes, then the rest, while a second stream packs, sends and unpacks the
// halo (docs/parallel.md, "Overlap").
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <fem/amplitude.hpp>
#include <fem/backend.hpp>
#include <fem/contact/rigid_surface.hpp>
#include <fem/cuda/check.hpp>
#include <fem/cuda/devices.hpp>
#include <fem/cuda/element_kernels.cuh>
#include <fem/kernels/material_table.hpp>
#include <fem/plugin.hpp>

#include "device_array.cuh"
#include "device_blocks.cuh"
#include "ipc_halo.cuh"
#include "node_kernel.cuh"
#include "nonlinear_operator.cuh"
#include "tuning.hpp"
#include "voxel_operator.cuh"

namespace fem::cuda {
namespace {

constexpr std::int64_t kGraphSteps = 64;  // steps captured in one replayable graph

/// acoef[n] = force_scale * inverse_mass[n], rounded once (as the OpenMP backend does).
template <class T>
__global__ void scale_kernel(std::int64_t count, const double* inverse_mass, double force_scale,
                             T* acoef) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < count) acoef[n] = static_cast<T>(force_scale * inverse_mass[n]);
}

/// out[3k + i] = sum of element forces at nodes[k] (the per-node gather, for a subset of nodes).
/// With node_forces (atomic assembly) the sums are already there.
template <class T>
__global__ void gather_kernel(std::int64_t count, const std::int32_t* nodes,
                              const std::int32_t* offsets, const std::int32_t* slots,
                              const T* forces, const T* node_forces, int node_force_stride,
                              double* out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const std::int64_t n = nodes ? nodes[k] : k;
  double p[3] = {0, 0, 0};
  if (node_forces) {
    for (int i = 0; i < 3; ++i) p[i] = static_cast<double>(node_forces[node_force_stride * n + i]);
  } else {
    for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
      for (int i = 0; i < 3; ++i)
        p[i] += static_cast<double>(forces[3 * static_cast<std::int64_t>(slots[j]) + i]);
  }
  for (int i = 0; i < 3; ++i) out[3 * k + i] = p[i];
}

/// u and u_prev (when out_prev is not null) at a list of nodes, in double.
template <class T>
__global__ void pick_nodes_kernel(std::int64_t count, const std::int32_t* nodes, const T* u,
                                  const T* u_prev, double* out_u, double* out_prev) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  for (int i = 0; i < 3; ++i) {
    out_u[3 * k + i] = static_cast<double>(u[3 * static_cast<std::int64_t>(nodes[k]) + i]);
    if (out_prev)
      out_prev[3 * k + i] =
          static_cast<double>(u_prev[3 * static_cast<std::int64_t>(nodes[k]) + i]);
  }
}

/// u at a list of nodes set from double values (the receiving half of a halo exchange).
template <class T>
__global__ void put_nodes_kernel(std::int64_t count, const std::int32_t* nodes,
                                 const double* values, T* u) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  for (int i = 0; i < 3; ++i)
    u[3 * static_cast<std::int64_t>(nodes[k]) + i] = static_cast<T>(values[3 * k + i]);
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

/// Which elements and nodes an enqueued step covers: all, or one of the two halves of an
/// overlapped step (BlockSystem::halo_elements): the elements touching a node the halo sends and
/// those nodes, or the other elements and the other owned nodes.
enum class StepPart { All, Halo, Interior };

/// What one enqueued step does besides the step itself. Atomic assembly needs the node forces
/// zero when an element pass starts; inside a graph each step's node pass clears them after
/// reading (clear_after), so the next step need not (forces_clear). A graph's last step leaves
/// its forces for internal_force_sum, and the next graph's first step fills the array again.
struct StepPlan {
  bool measure = false;       ///< reduce the step norms (the node kernel's Measure variant)
  bool keep = false;          ///< keep P(u_n) for the next, measured, step
  bool forces_clear = false;  ///< the node forces are already zero
  bool clear_after = false;   ///< the node pass zeroes them once read
  int index = 0;  ///< position in the run of steps enqueue_amplitudes prepared (its table row)
  StepPart part = StepPart::All;
};

/// An L2 access-policy window that keeps [base, base + bytes) resident (as much as the device
/// sets aside for persisting lines), with that much L2 reserved. The reservation is the device's
/// (cudaLimitPersistingL2CacheSize); the problem gives it back when it is destroyed.
cudaAccessPolicyWindow persisting_window(const cudaDeviceProp& prop, void* base,
                                         std::size_t bytes) {
  const std::size_t reserve =
      std::min(bytes, static_cast<std::size_t>(prop.persistingL2CacheMaxSize));
  if (reserve == 0) return cudaAccessPolicyWindow{};  // no persisting L2 on this device
  FEM_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, reserve));
  cudaAccessPolicyWindow w{};
  w.base_ptr = base;
  w.num_bytes = std::min(bytes, static_cast<std::size_t>(prop.accessPolicyMaxWindowSize));
  w.hitRatio = static_cast<float>(std::min(1.0, static_cast<double>(reserve) / w.num_bytes));
  w.hitProp = cudaAccessPropertyPersisting;
  w.missProp = cudaAccessPropertyStreaming;
  return w;
}

/// The GPU a backend created without a device runs on: FEM_CUDA_DEVICE if set; otherwise,
/// under an MPI launcher, the rank's place on its node modulo the GPUs there (one rank per GPU,
/// ranks sharing them round robin when there are more); otherwise the first GPU.
int default_device(int count) {
  const char* env = std::getenv("FEM_CUDA_DEVICE");
  if (env && *env) return std::atoi(env);
  for (const char* local_rank : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* value = std::getenv(local_rank); value && *value && count > 0)
      return std::atoi(value) % count;
  return 0;
}

template <class T>
class ExplicitProblemImpl final : public ExplicitProblem {
 public:
  /// `device`: the properties of the GPU it runs on (CudaBackend queried them once).
  ExplicitProblemImpl(const System& s, const cudaDeviceProp& device)
      : sys_(s), atomic_mode_(atomic_mode()), fused_clear_(fused_force_clear<T>()) {
    check_memory();
    const bool layout = component_major_elements();
    for (const BlockSystem& b : s.blocks) blocks_.push_back(DeviceBlock<T>::upload(b, layout));
    dt_ = s.time_step;
    const std::vector<double>& mass = s.iteration_mass.empty() ? s.lumped_mass : s.iteration_mass;
    std::vector<double> inverse_mass(s.num_nodes);
    for (std::int64_t i = 0; i < s.num_nodes; ++i) inverse_mass[i] = 1.0 / mass[i];
    inverse_mass_.upload(inverse_mass);
    acoef_.resize(static_cast<std::size_t>(s.num_nodes));
    coef_.resize(kNumCoef);
    if (!s.iteration_mass.empty()) {
      // Gravity is a force m g on the physical mass; the update divides by the iteration mass.
      std::vector<double> weight(s.num_nodes);
      for (std::int64_t i = 0; i < s.num_nodes; ++i)
        weight[i] = s.lumped_mass[i] / s.iteration_mass[i];
      gravity_weight_.upload(weight);
    }
    FEM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // The overlapped halo's stream: its small kernels and copies go ahead of the element blocks.
    int lowest = 0, highest = 0;
    FEM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    FEM_CUDA_CHECK(cudaStreamCreateWithPriority(&halo_stream_, cudaStreamNonBlocking, highest));
    FEM_CUDA_CHECK(cudaEventCreateWithFlags(&halo_ready_, cudaEventDisableTiming));
    FEM_CUDA_CHECK(cudaEventCreateWithFlags(&halo_done_, cudaEventDisableTiming));
    set_node_update(central_difference_update(s.time_step, s.mass_damping));
    if (!s.contact_mask.empty()) upload_contact(s);
    // The node-to-slot incidence in 32 bits: the deterministic gather reads it every step.
    upload_slot_incidence(s, offsets_, slots_, "use solver.assembly: atomic");
    // Deterministic assembly keeps every element-node force and gathers per node; atomic
    // assembly adds into node forces directly (less memory traffic, summation order varies).
    const std::size_t gather_limit = gather_blocks(s);  // read (and checked) in either mode
    if (s.deterministic) {
      forces_.resize(static_cast<std::size_t>(3 * s.num_force_slots));
      FEM_CUDA_CHECK(cudaMemset(forces_.data(), 0, forces_.size() * sizeof(T)));
      if (gather_limit > 0) limit_gather_residency(gather_limit);
    } else {
      node_forces_.resize(static_cast<std::size_t>(node_force_stride_ * s.num_nodes));
      FEM_CUDA_CHECK(cudaMemset(node_forces_.data(), 0, node_forces_.size() * sizeof(T)));
      if (persist_node_forces(node_forces_.bytes(), static_cast<std::size_t>(device.l2CacheSize)))
        persist_window_ = persisting_window(device, node_forces_.data(), node_forces_.bytes());
    }
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(s.num_nodes), 0);
    for (std::int64_t n = 0; n < s.num_nodes; ++n)
      for (int i = 0; i < 3; ++i) {
        if (s.prescribed_amplitude[3 * n + i] >= 0) flags[n] |= static_cast<std::uint8_t>(1u << i);
        if (s.load_amplitude[3 * n + i] >= 0) flags[n] |= static_cast<std::uint8_t>(8u << i);
        if (!s.contact_mask.empty() && s.contact_mask[n]) flags[n] |= 64u;
      }
    for (std::size_t n = 0; n < s.ghost.size(); ++n)
      if (s.ghost[n]) flags[n] |= kGhostNode;
    dof_flags_.upload(flags);
    prescribed_amplitude_.upload(s.prescribed_amplitude);
    prescribed_value_.upload(s.prescribed_value);
    load_amplitude_.upload(s.load_amplitude);
    load_value_.upload(s.load_value);
    amplitudes_.upload(s.amplitudes);
    steps_.resize(2);
    amplitude_table_.resize(static_cast<std::size_t>(2 * kGraphSteps) *
                            std::max<std::size_t>(1, s.amplitudes.size()));
    failure_.resize(1);
    scratch_failure_.resize(1);
    reset_failure(failure_);

    if (s.num_pressure_elements > 0) {
      element_pressure_.resize(static_cast<std::size_t>(s.num_pressure_elements));
      element_volume_ratio_.resize(static_cast<std::size_t>(s.num_pressure_elements));
      nodal_pressure_.resize(static_cast<std::size_t>(s.num_nodes));
      nodal_volume_ratio_.resize(static_cast<std::size_t>(s.num_nodes));
      pressure_incidence_.upload(s);
    }

    set_displacement(s.initial_displacement, s.initial_previous_displacement);
    FEM_CUDA_CHECK(cudaEventCreate(&start_));
    FEM_CUDA_CHECK(cudaEventCreate(&stop_));
  }

  ~ExplicitProblemImpl() override {
    for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
    if (halo_stream_) cudaStreamDestroy(halo_stream_);
    if (halo_ready_) cudaEventDestroy(halo_ready_);
    if (halo_done_) cudaEventDestroy(halo_done_);
    if (persist_window_.num_bytes > 0) {  // give back the L2 set aside (persisting_window)
      cudaCtxResetPersistingL2Cache();
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
  }

  AdvanceResult advance(std::int64_t first_step, std::int64_t num_steps) override {
    return run_steps(first_step, num_steps, nullptr);
  }

  AdvanceResult advance_measured(std::int64_t first_step, std::int64_t num_steps,
                                 StepNorms& norms) override {
    norms = StepNorms{};
    forces_kept_ = false;  // its Rayleigh quotient uses forces kept within this call only
    return run_steps(first_step, num_steps, &norms);
  }

  AdvanceResult advance_step(std::int64_t step, bool keep_forces, StepNorms* norms) override {
    if (norms) *norms = StepNorms{};
    return run_steps(step, 1, norms, keep_forces);
  }

  /// One-step graphs, each followed by what after_step queues, with no wait in between.
  AdvanceResult advance_exchanging(std::int64_t first_step, std::int64_t num_steps,
                                   const std::function<void()>& after_step) override {
    return run_steps(first_step, num_steps, nullptr, false, &after_step);
  }

  void set_node_update(const NodeUpdate& update) override {
    scale_kernel<T><<<grid_for(sys_.num_nodes, kNodeThreads), kNodeThreads, 0, stream_>>>(
        sys_.num_nodes, inverse_mass_.data(), update.force_scale, acoef_.data());
    FEM_CUDA_CHECK_LAUNCH();
    std::vector<T> coef(kNumCoef);
    coef[kCoefB] = static_cast<T>(update.b);
    coef[kCoefC] = static_cast<T>(update.c);
    for (int i = 0; i < 3; ++i)
      coef[kCoefGravity + i] = static_cast<T>(update.force_scale * sys_.gravity[i]);
    FEM_CUDA_CHECK(cudaMemcpyAsync(coef_.data(), coef.data(), kNumCoef * sizeof(T),
                                   cudaMemcpyHostToDevice, stream_));
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  /// Steps first_step.. first_step + num_steps - 1; norms: the last one is measured; keep_last:
  /// the last one keeps P(u_n) for a measured step in the next call (advance_step).
  /// after_step (non-null): called on the host after each step is queued (steps go one graph
  /// each).
  AdvanceResult run_steps(std::int64_t first_step, std::int64_t num_steps, StepNorms* norms,
                          bool keep_last = false,
                          const std::function<void()>* after_step = nullptr) {
    const long long before = first_step - 1;
    const long long counters[2] = {before, before};
    FEM_CUDA_CHECK(
        cudaMemcpyAsync(steps_.data(), counters, sizeof counters, cudaMemcpyHostToDevice, stream_));
    FEM_CUDA_CHECK(cudaEventRecord(start_, stream_));
    // Measured: the last two steps are launched directly (keep P, then reduce), as is a last step
    // that keeps P for the next call; the rest replays graphs (which keep nothing).
    const std::int64_t direct = std::min<std::int64_t>(num_steps, norms ? 2 : keep_last ? 1 : 0);
    std::int64_t left = num_steps - direct;
    if (left > 0) forces_kept_ = false;
    while (left > 0 && after_step && overlapping()) {
      // The halo's half, then the interior's; the exchange queued on the halo stream after the
      // first runs beside the second, and the next step waits for both.
      FEM_CUDA_CHECK(cudaGraphLaunch(graph_for(1, StepPart::Halo), stream_));
      FEM_CUDA_CHECK(cudaEventRecord(halo_ready_, stream_));
      FEM_CUDA_CHECK(cudaGraphLaunch(graph_for(1, StepPart::Interior), stream_));
      FEM_CUDA_CHECK(cudaStreamWaitEvent(halo_stream_, halo_ready_, 0));
      parity_ ^= 1;
      --left;
      exchange_beside_ = true;
      (*after_step)();
      exchange_beside_ = false;
      FEM_CUDA_CHECK(cudaEventRecord(halo_done_, halo_stream_));
      ipc_halo_.begin(stream_);  // times what the interior's half did not hide
      FEM_CUDA_CHECK(cudaStreamWaitEvent(stream_, halo_done_, 0));
      ipc_halo_.end(stream_);
    }
    while (left > 0) {
      const std::int64_t n = std::min(left, after_step ? std::int64_t{1} : kGraphSteps);
      FEM_CUDA_CHECK(cudaGraphLaunch(graph_for(n), stream_));
      parity_ ^= static_cast<int>(n & 1);
      left -= n;
      if (after_step) (*after_step)();
    }
    if (norms) {
      FEM_CUDA_CHECK(
          cudaMemsetAsync(contact_sums_.data(), 0, contact_sums_.size() * sizeof(double), stream_));
      FEM_CUDA_CHECK(
          cudaMemsetAsync(contact_count_.data(), 0, sizeof(unsigned long long), stream_));
    }
    bool quotient = false;  // the measured step finds P(u_{n-1}) kept by the step before
    if (direct > 0) enqueue_amplitudes(parity_, direct);
    for (std::int64_t k = 0; k < direct; ++k) {
      const bool measure = norms && k + 1 == direct;
      const bool keep = (norms && k + 2 == direct) || (keep_last && k + 1 == direct);
      if (measure) quotient = forces_kept_;
      enqueue_step(parity_, StepPlan{measure, keep, false, false, static_cast<int>(k)});
      forces_kept_ = keep;
      parity_ ^= 1;
    }
    if (norms) {
      const int blocks = grid_for(sys_.num_nodes, kNodeThreads);
      finish_norms_kernel<<<1, kNodeThreads, 0, stream_>>>(partials_.data(), blocks,
                                                           norm_out_.data());
      FEM_CUDA_CHECK_LAUNCH();
    }
    FEM_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    Failure failure{};
    long long counters_after[2] = {0, 0};
    FEM_CUDA_CHECK(cudaMemcpyAsync(&failure, failure_.data(), sizeof failure,
                                   cudaMemcpyDeviceToHost, stream_));
    FEM_CUDA_CHECK(cudaMemcpyAsync(counters_after, steps_.data(), sizeof counters_after,
                                   cudaMemcpyDeviceToHost, stream_));
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const long long last = std::max(counters_after[0], counters_after[1]);  // last completed
    float ms = 0.0f;
    FEM_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    // The direct halo's exchanges queued among the steps are timed apart (halo_s).
    times_.fused_step_s += 1e-3 * ms - ipc_halo_.collect();
    if (norms) {
      std::vector<double> out, forces;
      norm_out_.download(out);
      contact_sums_.download(forces);
      unsigned long long count = 0;
      FEM_CUDA_CHECK(
          cudaMemcpy(&count, contact_count_.data(), sizeof count, cudaMemcpyDeviceToHost));
      *norms = StepNorms{out[kNormIncMax],
                         out[kNormIncSq],
                         out[kNormResMax],
                         out[kNormResSq],
                         out[kNormIntMax],
                         out[kNormNum],
                         out[kNormDen],
                         {},
                         static_cast<std::int64_t>(count)};
      if (!quotient) norms->rayleigh_num = norms->rayleigh_den = 0.0;
      for (int k = 0; k < kMaxSurfaces; ++k)
        for (int i = 0; i < 3; ++i) norms->contact_force[k][i] = forces[3 * k + i];
    }

    AdvanceResult r;
    if (failure.element == kNoFailure) {
      r.steps_done = num_steps;
      return r;
    }
    // The failing step's element pass flagged, and every kernel after it returned: the state is
    // u_{bad} and u_{bad-1}, the counter holds the last completed step, and the buffers flipped
    // once per completed step. Undo the parity of the steps that did not run.
    r.steps_done = last - before;
    parity_ ^= static_cast<int>((num_steps - r.steps_done) & 1);
    r.status = kernels::is_finite(failure.value) ? AdvanceResult::Status::InvertedElement
                                                 : AdvanceResult::Status::NotFinite;
    r.block = failure.block;
    r.element = static_cast<std::int64_t>(failure.element);
    const int num_blocks = static_cast<int>(blocks_.size());
    if (r.block >= num_blocks) {  // an interior half's element pass (enqueue_step)
      r.block -= num_blocks;
      r.element += halo_split(static_cast<std::size_t>(r.block));
    }
    r.value = failure.value;
    return r;
  }

 public:
  void displacement(std::vector<double>& u) const override { current().download(u); }
  void previous_displacement(std::vector<double>& u) const override { previous().download(u); }
  /// A new state: a failure recorded for the old one (which stops every step kernel until it
  /// is cleared) no longer holds (dynamic relaxation goes back after an inverted element).
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override {
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    current().upload(u);
    previous().upload(u_prev);
    reset_failure(failure_);
  }

  /// The material history of block b, [e][q][num_state], in double (a checkpoint's), after the
  /// steps queued before.
  void material_state(std::size_t block, std::vector<double>& state) const override {
    blocks_[block].state.download(state, stream_);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    blocks_[block].state.upload(state, stream_);
  }

  void nodal_displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u,
                           std::vector<double>& u_prev) const override {
    const auto count = static_cast<std::int64_t>(nodes.size());
    // Histories read the same nodes at every sample, follower loads at every step: the list and
    // the picked values stay on the device (no allocation per call).
    if (nodes != picked_.nodes_host) {
      picked_.nodes.upload(nodes, stream_);
      picked_.nodes_host = nodes;
    }
    picked_.u.resize(3 * nodes.size());
    picked_.u_prev.resize(3 * nodes.size());
    if (count > 0) {
      pick_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream_>>>(
          count, picked_.nodes.data(), current().data(), previous().data(), picked_.u.data(),
          picked_.u_prev.data());
      FEM_CUDA_CHECK_LAUNCH();
    }
    picked_.u.download(u, stream_);
    picked_.u_prev.download(u_prev, stream_);
  }

  void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                               const std::vector<double>& u) override {
    put_at_nodes(set_displacements_, nodes, u, current().data());
  }
  void set_nodal_loads(const std::vector<std::int32_t>& nodes,
                       const std::vector<double>& forces) override {
    put_at_nodes(set_loads_, nodes, forces, load_value_.data());
  }

  /// The halo's lists stay on the device, its values pass through page-locked buffers that MPI
  /// reads and writes in place: one copy each way per step, no allocation.
  void set_halo(const std::vector<std::int32_t>& send,
                const std::vector<std::int32_t>& receive) override {
    halo_send_ = send;
    halo_receive_ = receive;
    halo_send_nodes_.upload(send, stream_);
    halo_receive_nodes_.upload(receive, stream_);
    halo_send_device_.resize(3 * send.size());
    halo_receive_device_.resize(3 * receive.size());
    halo_send_host_ =
        std::make_unique<PinnedArray<double>>(std::max<std::size_t>(1, 3 * send.size()));
    halo_receive_host_ =
        std::make_unique<PinnedArray<double>>(std::max<std::size_t>(1, 3 * receive.size()));
    // An overlapped step updates the nodes the halo sends first, then the other owned nodes.
    const bool ordered = sys_.num_pressure_elements == 0 &&
                         std::all_of(sys_.blocks.begin(), sys_.blocks.end(),
                                     [](const BlockSystem& b) { return b.halo_elements >= 0; });
    overlap_ready_ = false;
    if (ordered && !send.empty()) {
      std::vector<std::uint8_t> sent(static_cast<std::size_t>(sys_.num_nodes), 0);
      for (const std::int32_t n : send) sent[n] = 1;
      std::vector<std::int32_t> first, rest;
      for (std::int64_t n = 0; n < sys_.num_nodes; ++n) {
        if (!sys_.ghost.empty() && sys_.ghost[n]) continue;
        (sent[n] ? first : rest).push_back(static_cast<std::int32_t>(n));
      }
      halo_nodes_.upload(first, stream_);
      interior_nodes_.upload(rest, stream_);
      overlap_ready_ = true;
    }
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  double* halo_send_buffer() override { return halo_send_host_->data(); }
  double* halo_receive_buffer() override { return halo_receive_host_->data(); }

  void pack_halo() override {
    const auto count = static_cast<std::int64_t>(halo_send_.size());
    if (count == 0) return;
    pick_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream_>>>(
        count, halo_send_nodes_.data(), current().data(), nullptr, halo_send_device_.data(),
        nullptr);
    FEM_CUDA_CHECK_LAUNCH();
    FEM_CUDA_CHECK(cudaMemcpyAsync(halo_send_host_->data(), halo_send_device_.data(),
                                   3 * halo_send_.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                   stream_));
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  bool open_direct_halo(const std::vector<HaloLink>& links,
                        std::vector<std::vector<char>>& endpoints) override {
    return ipc_halo_.open(links, 3 * halo_receive_.size(), endpoints);
  }
  bool connect_direct_halo(const std::vector<std::vector<char>>& peers) override {
    return ipc_halo_.connect(peers);
  }
  void close_direct_halo() override {
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ipc_halo_.close();
  }
  std::string direct_halo_path() const override {
    if (!ipc_halo_.connected()) return "";
    return overlapping() ? "GPU to GPU (CUDA IPC), beside the interior elements"
                         : "GPU to GPU (CUDA IPC)";
  }
  /// Packs u_n at the send nodes and queues the copies to the neighbours, no wait (on the halo
  /// stream within an overlapped step, which run_steps has made wait for the step's first half).
  void send_direct_halo(std::uint64_t exchange) override {
    const cudaStream_t stream = exchange_beside_ ? halo_stream_ : stream_;
    if (!exchange_beside_) ipc_halo_.begin(stream_);
    const auto count = static_cast<std::int64_t>(halo_send_.size());
    if (count > 0) {
      pick_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream>>>(
          count, halo_send_nodes_.data(), current().data(), nullptr, halo_send_device_.data(),
          nullptr);
      FEM_CUDA_CHECK_LAUNCH();
    }
    ipc_halo_.send(stream, static_cast<int>(exchange & 1), halo_send_device_.data());
  }
  /// Queues the wait for the neighbours' copies and the unpacking, no wait. Overlapping, the
  /// unpacking writes u_{n+1} at ghost nodes while the interior's half writes it at its own.
  void receive_direct_halo(std::uint64_t exchange) override {
    const cudaStream_t stream = exchange_beside_ ? halo_stream_ : stream_;
    const int parity = static_cast<int>(exchange & 1);
    ipc_halo_.wait(stream, parity);
    const auto count = static_cast<std::int64_t>(halo_receive_.size());
    if (count > 0) {
      put_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream>>>(
          count, halo_receive_nodes_.data(), ipc_halo_.received(parity), current().data());
      FEM_CUDA_CHECK_LAUNCH();
    }
    if (!exchange_beside_) ipc_halo_.end(stream_);
  }

  /// Queued on the stream without waiting: the next step follows it there, and the buffer is
  /// written again only after the next pack_halo has waited for the stream.
  void unpack_halo() override {
    const auto count = static_cast<std::int64_t>(halo_receive_.size());
    if (count == 0) return;
    FEM_CUDA_CHECK(cudaMemcpyAsync(halo_receive_device_.data(), halo_receive_host_->data(),
                                   3 * halo_receive_.size() * sizeof(double),
                                   cudaMemcpyHostToDevice, stream_));
    put_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream_>>>(
        count, halo_receive_nodes_.data(), halo_receive_device_.data(), current().data());
    FEM_CUDA_CHECK_LAUNCH();
  }

  void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                             std::vector<double>& forces) const override {
    DeviceArray<std::int32_t> d_nodes;
    d_nodes.upload(nodes);
    DeviceArray<double> out(3 * nodes.size());
    if (!nodes.empty()) {
      gather_kernel<T><<<grid_for(static_cast<std::int64_t>(nodes.size()), kNodeThreads),
                         kNodeThreads, 0, stream_>>>(
          static_cast<std::int64_t>(nodes.size()), d_nodes.data(), offsets_.data(), slots_.data(),
          forces_.data(), node_forces_.data_or_null(), node_force_stride_, out.data());
      FEM_CUDA_CHECK_LAUNCH();
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    out.download(forces);
  }

  void internal_forces(const std::vector<double>& u, std::vector<double>& out) override {
    DeviceArray<T> d_u;
    d_u.upload(u);
    DeviceArray<T> scratch(static_cast<std::size_t>(3 * sys_.num_force_slots));
    reset_failure(scratch_failure_);
    pressure_passes(d_u.data(), nullptr, false);  // every step recomputes what it uses
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      blocks_[b].forces(pass_args(blocks_[b], d_u.data(), scratch.data(), nullptr),
                        static_cast<int>(b), scratch_failure_.data(), stream_);
    DeviceArray<double> d_out(static_cast<std::size_t>(3 * sys_.num_nodes));
    gather_kernel<T><<<grid_for(sys_.num_nodes, kNodeThreads), kNodeThreads, 0, stream_>>>(
        sys_.num_nodes, nullptr, offsets_.data(), slots_.data(), scratch.data(), nullptr, 3,
        d_out.data());
    FEM_CUDA_CHECK_LAUNCH();
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    d_out.download(out);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    evaluate_elements(u, out, true);
  }
  void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    evaluate_elements(u, out, false);
  }

  [[nodiscard]] PhaseTimes phase_times() const override {
    PhaseTimes times = times_;
    times.halo_s = ipc_halo_.seconds();
    return times;
  }

  [[nodiscard]] std::size_t memory_bytes() const override {
    std::size_t bytes = 0;
    const auto add = [&bytes](const auto&... v) { ((bytes += v.bytes()), ...); };
    for (const DeviceBlock<T>& b : blocks_) bytes += b.bytes();
    add(acoef_, forces_, node_forces_, prescribed_value_, load_value_, u_[0], u_[1], offsets_,
        slots_, dof_flags_, prescribed_amplitude_, load_amplitude_, amplitudes_, steps_, failure_,
        scratch_failure_);
    return bytes;
  }

 private:
  void evaluate_elements(const std::vector<double>& u, std::vector<BlockResults>& out,
                         bool fields) {
    DeviceArray<T> d_u;
    d_u.upload(u);
    pressure_passes(d_u.data(), nullptr, true);
    out.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      ElementPassArgs<T> args = pass_args(blocks_[b], d_u.data(), nullptr, nullptr);
      args.nodal_volume_ratio = nodal_volume_ratio_.data_or_null();
      blocks_[b].results(args, stream_, out[b], fields);
    }
  }

  /// Where an overlapped step splits block b's elements: after the halo's elements, rounded up
  /// to whole warps of elements, so that the interior's half reads its component-major rows from
  /// the start of a 128-byte line, as a whole pass does (elements after the halo's may go first).
  [[nodiscard]] std::int64_t halo_split(std::size_t b) const {
    const BlockSystem& s = sys_.blocks[b];
    return std::min(s.num_elements, (s.halo_elements + 31) / 32 * 32);
  }

  /// Steps exchanging through the direct halo run in two halves with the exchange beside the
  /// second (BlockSystem::halo_elements ordered the part, the halo is GPU to GPU).
  [[nodiscard]] bool overlapping() const { return overlap_ready_ && ipc_halo_.connected(); }

  DeviceArray<T>& current() { return u_[parity_]; }
  DeviceArray<T>& previous() { return u_[1 - parity_]; }
  const DeviceArray<T>& current() const { return u_[parity_]; }
  const DeviceArray<T>& previous() const { return u_[1 - parity_]; }

  void reset_failure(DeviceArray<Failure>& f) {
    const Failure none{kNoFailure, -1, 0.0};
    FEM_CUDA_CHECK(cudaMemcpy(f.data(), &none, sizeof none, cudaMemcpyHostToDevice));
  }

  ElementPassArgs<T> pass_args(DeviceBlock<T>& b, const T* u, T* forces, T* node_forces) {
    const BlockSystem& s = *b.system;
    ElementPassArgs<T> a = b.args(u);
    a.forces = forces ? forces + 3 * s.force_offset : nullptr;
    a.node_forces = node_forces;
    a.node_force_stride = node_force_stride_;
    a.element_pressure =
        s.pressure_offset >= 0 ? element_pressure_.data() + s.pressure_offset : nullptr;
    a.nodal_pressure = nodal_pressure_.data_or_null();
    a.warp_aggregated_atomics = warp_aggregated_atomics<T>(atomic_mode_, s);
    return a;
  }

  /// Averaged nodal pressure, passes 1 and 2 (fem/kernels/averaged_pressure.hpp), enqueued on
  /// the stream: each ANP element's V_e U'(J_e), then every node's volume-weighted mean. With
  /// volume_ratio (results) also the nodal mean volume ratios, for the volumetric energy.
  void pressure_passes(const T* u, const Failure* failure, bool volume_ratio) {
    if (sys_.num_pressure_elements == 0) return;
    for (DeviceBlock<T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u, nullptr, nullptr);
      if (volume_ratio)
        args.element_volume_ratio = element_volume_ratio_.data() + b.system->pressure_offset;
      b.pressure(args, failure, stream_);
    }
    pressure_incidence_.average(sys_.num_nodes, element_pressure_.data(), nodal_pressure_.data(),
                                failure, stream_);
    if (volume_ratio)
      pressure_incidence_.average(sys_.num_nodes, element_volume_ratio_.data(),
                                  nodal_volume_ratio_.data(), failure, stream_);
  }

  /// At most `blocks` resident blocks per SM for every gather variant of the node kernel: each
  /// block asks for a share of a 32 KB shared-memory carve-out that one more block would exceed
  /// (1 KB per block is the system's), and the L1 keeps the rest (224 KB). The kernel does not
  /// touch the memory.
  void limit_gather_residency(std::size_t blocks) {
    gather_smem_ = kGatherCarveout / blocks - 1536;
    const auto kernels = node_kernels<T>(std::make_integer_sequence<int, kNumNodeVariants>{});
    for (int variant = 0; variant < kNumNodeVariants; ++variant)
      if (variant & kNodeGather)
        FEM_CUDA_CHECK(cudaFuncSetAttribute(kernels[variant],
                                            cudaFuncAttributePreferredSharedMemoryCarveout,
                                            kGatherCarveoutPercent));
  }

  int num_curves() const { return static_cast<int>(sys_.amplitudes.size()); }

  /// Enqueues the amplitude table of the next `count` steps (at most kGraphSteps), the first
  /// reading u_[from].
  void enqueue_amplitudes(int from, std::int64_t count) {
    if (num_curves() == 0) return;
    const int entries = static_cast<int>(count) * num_curves();
    amplitude_table_kernel<<<grid_for(entries, kNodeThreads), kNodeThreads, 0, stream_>>>(
        steps_.data(), from, static_cast<int>(count), dt_, amplitudes_.data(), num_curves(),
        amplitude_table_.data());
    FEM_CUDA_CHECK_LAUNCH();
  }

  /// Enqueues one step reading u_[from] and writing u_[1 - from].
  /// plan.part: the whole step, or one half of an overlapped one (no averaged nodal pressure
  /// there, set_halo; the interior's half reports its failures as block + blocks, run_steps).
  void enqueue_step(int from, const StepPlan& plan) {
    const bool whole = plan.part == StepPart::All;
    if (whole) pressure_passes(u_[from].data(), failure_.data(), false);
    T* node_forces = node_forces_.data_or_null();
    if (node_forces && plan.part != StepPart::Interior && !(fused_clear_ && plan.forces_clear))
      FEM_CUDA_CHECK(cudaMemsetAsync(node_forces, 0, node_forces_.size() * sizeof(T), stream_));
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      ElementPassArgs<T> args = pass_args(blocks_[b], u_[from].data(),
                                          node_forces ? nullptr : forces_.data(), node_forces);
      args.dt = static_cast<T>(sys_.material_time_step);  // the step's history advance
      int block = static_cast<int>(b);
      if (!whole) {
        const std::int64_t halo = halo_split(b);
        const bool first = plan.part == StepPart::Halo;
        args = element_range(args, first ? 0 : halo, first ? halo : args.num_elements - halo);
        if (args.num_elements == 0) continue;
        if (!first) block += static_cast<int>(blocks_.size());
      }
      blocks_[b].forces(args, block, failure_.data(), stream_);
    }
    const bool measure = plan.measure, keep = plan.keep;
    if ((measure || keep) && saved_forces_.empty()) {
      saved_forces_.resize(static_cast<std::size_t>(3 * sys_.num_nodes));
      FEM_CUDA_CHECK(
          cudaMemsetAsync(saved_forces_.data(), 0, saved_forces_.size() * sizeof(T), stream_));
      partials_.resize(static_cast<std::size_t>(grid_for(sys_.num_nodes, kNodeThreads)) *
                       kNumNorms);
    }
    NodePassArgs<T> a{sys_.num_nodes,
                      offsets_.data(),
                      slots_.data(),
                      forces_.data_or_null(),
                      node_forces_.data_or_null(),
                      node_force_stride_,
                      node_forces != nullptr && fused_clear_ && plan.clear_after,
                      acoef_.data(),
                      coef_.data(),
                      gravity_weight_.data_or_null(),
                      inverse_mass_.data(),
                      dof_flags_.data(),
                      prescribed_amplitude_.data(),
                      prescribed_value_.data(),
                      load_amplitude_.data(),
                      load_value_.data(),
                      sys_.gravity_amplitude,
                      amplitude_table_.data() + 2 * plan.index * num_curves(),
                      steps_.data(),
                      from,
                      u_[from].data(),
                      u_[1 - from].data(),
                      failure_.data(),
                      contact_mask_.data_or_null(),
                      coords_.data_or_null(),
                      surfaces_.data_or_null(),
                      saved_forces_.data_or_null(),
                      keep,
                      partials_.data_or_null(),
                      contact_sums_.data(),
                      contact_count_.data()};
    std::int64_t threads = sys_.num_nodes;
    if (!whole) {
      const DeviceArray<std::int32_t>& listed =
          plan.part == StepPart::Halo ? halo_nodes_ : interior_nodes_;
      a.nodes = listed.data();
      a.num_listed = threads = static_cast<std::int64_t>(listed.size());
      a.clear_node_forces = false;  // the halo's half filled them with zeros
      if (threads == 0) return;
    }
    const int grid = grid_for(threads, kNodeThreads);
    const bool contact = !sys_.contact_mask.empty();
    const int variant = (measure ? kNodeMeasure : 0) | (contact ? kNodeContact : 0) |
                        (node_forces ? 0 : kNodeGather);
    const auto kernels = node_kernels<T>(std::make_integer_sequence<int, kNumNodeVariants>{});
    const std::size_t smem = (variant & kNodeGather) ? gather_smem_ : 0;
    kernels[variant]<<<grid, kNodeThreads, smem, stream_>>>(a);
    FEM_CUDA_CHECK_LAUNCH();
  }

  /// Surfaces as device views: triangle arrays are copied once (the surface is rigid).
  void upload_contact(const System& s) {
    contact_mask_.upload(s.contact_mask);
    coords_.upload(s.coordinates);
    triangles_.reserve(s.surfaces.size());
    std::vector<contact::SurfaceView<T>> views;
    for (const RigidSurface& surf : s.surfaces) {
      contact::SurfaceView<T> v{};
      v.kind = static_cast<int>(surf.kind);
      for (int i = 0; i < 3; ++i) {
        v.point[i] = static_cast<T>(surf.point[i]);
        v.normal[i] = static_cast<T>(surf.normal[i]);
        v.translation[i] = static_cast<T>(surf.translation[i]);
      }
      v.radius = static_cast<T>(surf.radius);
      v.side = surf.side;
      v.amplitude = surf.amplitude;
      if (surf.kind == SurfaceKind::Triangles) {
        const TriangleMesh& m = surf.mesh;
        DeviceTriangles& d = triangles_.emplace_back();
        d.vertices.upload(m.vertices);
        d.triangles.upload(m.triangles);
        d.face_normals.upload(m.face_normals);
        d.edge_normals.upload(m.edge_normals);
        d.vertex_normals.upload(m.vertex_normals);
        d.cell_offsets.upload(m.cell_offsets);
        d.cell_triangles.upload(m.cell_triangles);
        v.mesh.vertices = d.vertices.data();
        v.mesh.triangles = d.triangles.data();
        v.mesh.face_normals = d.face_normals.data();
        v.mesh.edge_normals = d.edge_normals.data();
        v.mesh.vertex_normals = d.vertex_normals.data();
        v.mesh.cell_offsets = d.cell_offsets.data();
        v.mesh.cell_triangles = d.cell_triangles.data();
        for (int i = 0; i < 3; ++i) {
          v.mesh.origin[i] = static_cast<T>(m.grid_origin[i]);
          v.mesh.dims[i] = m.grid_dims[i];
        }
        v.mesh.cell_size = static_cast<T>(m.cell_size);
      }
      views.push_back(v);
    }
    surfaces_.resize(views.size());
    FEM_CUDA_CHECK(cudaMemcpy(surfaces_.data(), views.data(),
                              views.size() * sizeof(contact::SurfaceView<T>),
                              cudaMemcpyHostToDevice));
  }

  /// A graph of n steps starting from the current buffer parity, captured once and replayed;
  /// or (part not All, n = 1) one half of an overlapped step, the halo's half filling the
  /// amplitude row that the interior's half reads.
  cudaGraphExec_t graph_for(std::int64_t n, StepPart part = StepPart::All) {
    const std::tuple<std::int64_t, int, StepPart> key{n, parity_, part};
    if (const auto it = graphs_.find(key); it != graphs_.end()) return it->second;
    cudaGraph_t graph = nullptr;
    FEM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    int from = parity_;
    if (part != StepPart::Interior) enqueue_amplitudes(from, n);
    for (std::int64_t k = 0; k < n; ++k) {
      // The first step finds the forces as the last step before the graph left them; the last
      // leaves its own for internal_force_sum.
      enqueue_step(from, StepPlan{false, false, k > 0, k + 1 < n, static_cast<int>(k), part});
      from = 1 - from;
    }
    FEM_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    if (persist_window_.num_bytes > 0) {
      std::size_t count = 0;
      FEM_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
      std::vector<cudaGraphNode_t> nodes(count);
      FEM_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
      cudaKernelNodeAttrValue value{};
      value.accessPolicyWindow = persist_window_;
      for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type;
        FEM_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeKernel)
          FEM_CUDA_CHECK(cudaGraphKernelNodeSetAttribute(
              node, cudaKernelNodeAttributeAccessPolicyWindow, &value));
      }
    }
    FEM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    FEM_CUDA_CHECK(cudaGraphDestroy(graph));
    graphs_[key] = exec;
    return exec;
  }

  /// Refuses, with numbers, a case that does not fit in the GPU's free memory.
  void check_memory() const {
    const System& s = sys_;
    double bytes = 0.0;
    for (const BlockSystem& b : s.blocks) {
      bytes += 4.0 * static_cast<double>(b.connectivity.size());
      bytes += sizeof(T) *
               static_cast<double>(b.shape_gradients.size() + b.quadrature_volumes.size() +
                                   b.hourglass_vectors.size() + b.hourglass_stiffness.size());
      bytes += sizeof(T) * static_cast<double>(b.num_elements * b.quadrature_points *
                                               b.material->host.num_state);
    }
    bytes += sizeof(T) * 3.0 * static_cast<double>(s.num_force_slots) * 2.0;  // forces + scratch
    bytes += 4.0 * static_cast<double>(s.incidence_offsets.size() + s.incidence_slots.size());
    bytes += static_cast<double>(3 * s.num_nodes) * (2.0 * sizeof(T) + 2.0 * 4 + 2.0 * sizeof(T));
    bytes += static_cast<double>(s.num_nodes) * sizeof(T);
    if (s.num_pressure_elements > 0)  // averaged nodal pressure
      bytes += 2.0 * sizeof(T) * static_cast<double>(s.num_pressure_elements) +
               (3.0 * sizeof(T) + 8.0) * static_cast<double>(s.num_nodes) +
               4.0 * static_cast<double>(s.pressure_incidence_elements.size());
    std::size_t free_bytes = 0, total_bytes = 0;
    FEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > 0.95 * static_cast<double>(free_bytes))
      throw Error("the case needs about " + gib(bytes) + " of GPU memory, but the GPU has " +
                  gib(static_cast<double>(free_bytes)) + " free of " +
                  gib(static_cast<double>(total_bytes)) + kGpuMemoryHint);
  }

  const System& sys_;
  const AtomicMode atomic_mode_;  ///< FEM_CUDA_ATOMICS, read once per problem
  /// L2 window of the node forces, applied to every kernel of the step graphs; num_bytes 0: none
  /// (persist_node_forces).
  cudaAccessPolicyWindow persist_window_{};
  /// Atomic assembly: the node pass clears the forces it reads (StepPlan); false with
  /// FEM_CUDA_FORCE_CLEAR=fill, which fills the whole array before every element pass instead.
  const bool fused_clear_;
  /// Shared memory each block of the deterministic gather asks for, only to limit how many are
  /// resident (limit_gather_residency); 0: no limit.
  std::size_t gather_smem_ = 0;

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<DeviceBlock<T>> blocks_;
  DeviceArray<T> acoef_, coef_, gravity_weight_, forces_, node_forces_, prescribed_value_,
      load_value_, saved_forces_, coords_;
  DeviceArray<double> inverse_mass_, partials_, norm_out_{kNumNorms},
      contact_sums_{3 * kMaxSurfaces};
  DeviceArray<unsigned long long> contact_count_{1};
  DeviceArray<std::uint8_t> contact_mask_;
  struct DeviceTriangles {
    DeviceArray<T> vertices, face_normals, edge_normals, vertex_normals;
    DeviceArray<std::int32_t> triangles, cell_offsets, cell_triangles;
  };
  std::vector<DeviceTriangles> triangles_;  // reserved: views hold their pointers
  DeviceArray<contact::SurfaceView<T>> surfaces_;
  /// Atomic assembly: node forces as [node][4] in single precision, so that an element adds a
  /// node's force with one vector atomic (see kernels::detail::atomic_add_force).
#ifdef FEM_CUDA_SCALAR_ATOMICS
  static constexpr int node_force_stride_ = 3;
#else
  static constexpr int node_force_stride_ = sizeof(T) == sizeof(float) ? 4 : 3;
#endif
  // Averaged nodal pressure: per ANP element (global order) and per node, and the gather.
  DeviceArray<T> element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_;
  DevicePressureIncidence<T> pressure_incidence_;
  DeviceArray<T> u_[2];
  int parity_ = 0;  // u_[parity_] holds the current displacement
  DeviceArray<std::int32_t> offsets_, slots_;
  DeviceArray<std::uint8_t> dof_flags_;
  DeviceArray<std::int32_t> prescribed_amplitude_, load_amplitude_;
  DeviceArray<Amplitude> amplitudes_;
  DeviceArray<long long> steps_;  ///< NodePassArgs::steps
  DeviceArray<double>
      amplitude_table_;  ///< [step of the graph][curve][2], NodePassArgs::amplitudes
  DeviceArray<Failure> failure_, scratch_failure_;
  double dt_ = 0.0;
  /// The last step kept P(u_n) in saved_forces_ (a measured step next has its quotient).
  bool forces_kept_ = false;
  DeviceArray<std::int32_t> halo_send_nodes_, halo_receive_nodes_;  ///< set_halo's lists
  DeviceArray<double> halo_send_device_, halo_receive_device_;
  std::unique_ptr<PinnedArray<double>> halo_send_host_, halo_receive_host_;
  IpcHalo ipc_halo_;  ///< the halo GPU to GPU (direct_halo), when connected
  /// Values the host sets at the same nodes again and again (a halo exchange after every step,
  /// follower loads before every step): the last list of nodes (host and device) and a device
  /// array for the values, so that neither is allocated again.
  struct NodeValues {
    std::vector<std::int32_t> nodes_host;
    DeviceArray<std::int32_t> nodes;
    DeviceArray<double> values;
  };
  NodeValues set_displacements_, set_loads_;
  /// nodal_displacements: the last list of nodes (host and device) and the values it picked.
  mutable struct {
    std::vector<std::int32_t> nodes_host;
    DeviceArray<std::int32_t> nodes;
    DeviceArray<double> u, u_prev;
  } picked_;
  /// target[3 n + i] = values[3 k + i] for the k-th node n of `nodes`, through `buffer`; copies
  /// ordered on the stream (those on the legacy stream are not, with a non-blocking one).
  void put_at_nodes(NodeValues& buffer, const std::vector<std::int32_t>& nodes,
                    const std::vector<double>& values, T* target) {
    if (nodes.empty()) return;
    const auto count = static_cast<std::int64_t>(nodes.size());
    if (nodes != buffer.nodes_host) {
      buffer.nodes.upload(nodes, stream_);
      buffer.nodes_host = nodes;
    }
    buffer.values.upload(values, stream_);
    put_nodes_kernel<T><<<grid_for(count, kNodeThreads), kNodeThreads, 0, stream_>>>(
        count, buffer.nodes.data(), buffer.values.data(), target);
    FEM_CUDA_CHECK_LAUNCH();
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  std::map<std::tuple<std::int64_t, int, StepPart>, cudaGraphExec_t> graphs_;
  /// The overlapped step (set_halo): the owned nodes the halo sends, the other owned nodes, the
  /// halo's stream and its events (the halo's half done, the exchange done).
  DeviceArray<std::int32_t> halo_nodes_, interior_nodes_;
  bool overlap_ready_ = false;
  bool exchange_beside_ = false;  ///< the exchange being queued goes on the halo stream
  cudaStream_t halo_stream_ = nullptr;
  cudaEvent_t halo_ready_ = nullptr, halo_done_ = nullptr;
  PhaseTimes times_;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device) {
    FEM_CUDA_CHECK(cudaSetDevice(device_));
    FEM_CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
  }
  [[nodiscard]] std::string execution_space() const override {
    return "CUDA, " + std::string(props_.name) + " (sm_" + std::to_string(props_.major) +
           std::to_string(props_.minor) + ", " + std::to_string(props_.multiProcessorCount) +
           " SMs, " + gib(static_cast<double>(props_.totalGlobalMem)) + "), device " +
           std::to_string(device_);
  }
  [[nodiscard]] std::vector<ComputeDevice> devices() const override {
    return visible_devices(device_);
  }
  std::unique_ptr<ExplicitProblem> create_explicit(const System& system,
                                                   Precision precision) override {
    FEM_CUDA_CHECK(cudaSetDevice(device_));
    if (precision == Precision::Single)
      return std::make_unique<ExplicitProblemImpl<float>>(system, props_);
    return std::make_unique<ExplicitProblemImpl<double>>(system, props_);
  }
  std::unique_ptr<LinearAlgebra> create_linear_algebra(Precision precision) override {
    FEM_CUDA_CHECK(cudaSetDevice(device_));
    return make_linear_algebra(precision);
  }
  std::unique_ptr<NonlinearOperator> create_operator(const System& system,
                                                     LinearAlgebra& algebra) override {
    FEM_CUDA_CHECK(cudaSetDevice(device_));
    return make_nonlinear_operator(system, algebra);
  }
  std::unique_ptr<VoxelOperator> create_voxel_operator(const voxel::VoxelHierarchy& h,
                                                       const VoxelMaterials& materials,
                                                       Precision precision) override {
    FEM_CUDA_CHECK(cudaSetDevice(device_));
    return make_voxel_operator(h, materials, precision);
  }

 private:
  int device_;
  cudaDeviceProp props_{};
};

Backend* create(int device, char* why, int why_size) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  const bool chosen = device != kDefaultDevice;
  if (!chosen) device = default_device(count);
  std::string reason;
  if (status != cudaSuccess)
    reason = std::string("no usable CUDA device (cudaGetDeviceCount: ") +
             cudaGetErrorString(status) + ")";
  else if (count == 0)
    reason = "no CUDA device is visible on this machine";
  else
    reason = device_out_of_range(device, count,
                                 chosen ? "" : "FEM_CUDA_DEVICE=" + std::to_string(device));
  if (!reason.empty()) {
    std::snprintf(why, static_cast<std::size_t>(why_size), "%s", reason.c_str());
    return nullptr;
  }
  try {
    return new CudaBackend(device);
  } catch (const std::exception& e) {
    std::snprintf(why, static_cast<std::size_t>(why_size), "%s", e.what());
    return nullptr;
  }
}

const BackendApi kApi = {sizeof(BackendApi), "NVIDIA GPU backend (CUDA)", &create};

}  // namespace
}  // namespace fem::cuda

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_BACKEND, "cuda", FEM_VERSION_STRING, "cuda", &fem::cuda::kApi)
