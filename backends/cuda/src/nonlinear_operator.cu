// The CUDA backend's nonlinear operator (fem/operator.hpp), the GPU form of the OpenMP
// reference (backends/openmp/src/nonlinear_operator.hpp), verb for verb:
//
//  - internal_forces: the material's force kernels write every element-node force to its slot,
//    one gather kernel sums each node's slots in a fixed order (the explicit step's
//    deterministic assembly; with solver.assembly: atomic the forces are added into f instead);
//  - linearize: copies u, and with averaged nodal pressure its nodal pressures, into buffers of
//    the operator's own: an internal_forces() between two tangent verbs recomputes the
//    pressures the force pass reads;
//  - apply: the pressures' derivative along v (pass 1 of the tangent and the nodal average),
//    the dual-number tangent kernels into the slots, then one gather kernel that writes
//    y = s_K K v + s_M M v at free dofs and y = v at prescribed ones;
//  - diagonal and block_diagonal: the element matrices' diagonal 3x3 blocks into the slots, one
//    gather kernel, and the averaged-nodal-pressure coupling (a host round trip per
//    linearization, below);
//  - assemble: element matrices on the device, assembled on the host by operator_assembly.hpp.
//
// Everything is enqueued on the algebra's stream; the host waits only where a verb returns
// something (internal_forces' element check, assemble) or in the verb timers' synchronize().
// With the same build flags as the explicit path (no FMA contraction) and the same summation
// orders, apply() and internal_forces() give the OpenMP backend's bits.
#include "nonlinear_operator.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fem/cuda/check.hpp>
#include <fem/cuda/element_kernels.cuh>
#include <fem/error.hpp>
#include <fem/operator_assembly.hpp>

#include "device_array.cuh"
#include "device_blocks.cuh"
#include "tuning.hpp"

namespace fem::cuda {
namespace {

/// Elements per launch of the full element matrices in assemble(): bounds the device buffer
/// (64 blocks of 9 entries per hexahedron: 64 Ki hexahedra are 300 MB in double precision).
constexpr std::int64_t kMatrixChunkElements = 1 << 16;

/// What the node gathers read: element-node values (3 per slot for forces and the tangent
/// action, 9 for the diagonal blocks) summed per node through the node-to-slot incidence.
template <class T>
struct GatherArgs {
  std::int64_t num_nodes;
  const std::int32_t* offsets;
  const std::int32_t* slots;
  const T* slot_values;
  /// The tangent verbs: per node, bit i set where dof i is prescribed; the lumped mass, the
  /// shift A = s_K K + s_M M, and (apply) the direction v.
  const std::uint8_t* fixed;
  const T* mass;
  T stiffness_shift;
  T mass_shift;
  const T* direction;
  /// Node blocks: the averaged-nodal-pressure coupling's 3x3 node blocks [node][9], or null.
  const T* pressure_blocks;
  T* out;
};

/// out[d] for dof d = 3n + i: the sum of component i of node n's slots (internal forces); with
/// TANGENT the operator's action: s_K sum + s_M m_n v at free dofs, v at prescribed ones. The
/// summation order and the expressions are the OpenMP operator's. One thread per dof rather than
/// per node: the three threads of a node read its slot list together (one load for the warp) and
/// adjacent values, and a small mesh (seed 001's 1,331 nodes) fills three times as many SMs:
/// the gather is latency-bound there, a chain of dependent loads per thread.
template <class T, bool TANGENT>
__global__ void __launch_bounds__(kNodeThreads) gather_kernel(const GatherArgs<T> g) {
  const std::int64_t d = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (d >= 3 * g.num_nodes) return;
  const std::int64_t n = d / 3;
  const int i = static_cast<int>(d - 3 * n);
  T sum = T(0);
  for (std::int32_t j = g.offsets[n]; j < g.offsets[n + 1]; ++j)
    sum += g.slot_values[3 * static_cast<std::int64_t>(g.slots[j]) + i];
  if constexpr (TANGENT)
    g.out[d] = ((g.fixed[n] >> i) & 1u)
                   ? g.direction[d]
                   : g.stiffness_shift * sum + g.mass_shift * g.mass[n] * g.direction[d];
  else
    g.out[d] = sum;
}

/// The 3x3 node blocks of A = s_K K + s_M M from the element blocks in the slots (9 each) and the
/// pressure coupling, identity rows and columns at prescribed dofs: [node][9], or with DIAGONAL
/// only their diagonals, [node][3].
template <class T, bool DIAGONAL>
__global__ void __launch_bounds__(kNodeThreads) node_blocks_kernel(const GatherArgs<T> g) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= g.num_nodes) return;
  T sum[9] = {};
  for (std::int32_t j = g.offsets[n]; j < g.offsets[n + 1]; ++j) {
    const std::int64_t slot = g.slots[j];
    for (int c = 0; c < 9; ++c) sum[c] += g.slot_values[9 * slot + c];
  }
  if (g.pressure_blocks)
    for (int c = 0; c < 9; ++c) sum[c] += g.pressure_blocks[9 * n + c];
  const unsigned fixed = g.fixed[n];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      if (DIAGONAL && i != k) continue;
      const bool held = (((fixed >> i) | (fixed >> k)) & 1u) != 0;
      const T value =
          held ? (i == k ? T(1) : T(0))
               : g.stiffness_shift * sum[3 * i + k] + (i == k ? g.mass_shift * g.mass[n] : T(0));
      if constexpr (DIAGONAL)
        g.out[3 * n + i] = value;
      else
        g.out[9 * n + 3 * i + k] = value;
    }
}

template <class T>
class NonlinearOperatorImpl final : public NonlinearOperator {
 public:
  NonlinearOperatorImpl(const System& s, LinearAlgebraImpl<T>& algebra)
      : NonlinearOperator(s),
        algebra_(algebra),
        sys_(s),
        stream_(algebra.stream()),
        atomic_mode_(atomic_mode()),
        host_failures_(std::max<std::size_t>(1, s.blocks.size())) {
    const bool layout = component_major_elements();
    for (const BlockSystem& b : s.blocks) blocks_.push_back(DeviceBlock<T>::upload(b, layout));
    trial_state_.resize(blocks_.size());
    upload_slot_incidence(s, offsets_, slots_,
                          "the implicit operator gathers its tangent through them");
    slot_values_.resize(static_cast<std::size_t>(3 * s.num_force_slots));
    mass_.upload(s.lumped_mass);
    std::vector<std::uint8_t> fixed(static_cast<std::size_t>(s.num_nodes), 0);
    for (std::int64_t n = 0; n < s.num_nodes; ++n)
      for (int i = 0; i < 3; ++i)
        if (s.prescribed_amplitude[3 * n + i] >= 0) fixed[n] |= static_cast<std::uint8_t>(1u << i);
    fixed_.upload(fixed);
    failures_.resize(blocks_.size());
    if (s.num_pressure_elements > 0) {
      const auto elements = static_cast<std::size_t>(s.num_pressure_elements);
      const auto nodes = static_cast<std::size_t>(s.num_nodes);
      element_pressure_.resize(elements);
      element_volume_ratio_.resize(elements);
      for (DeviceArray<T>* a : {&nodal_pressure_, &nodal_volume_ratio_, &linearized_pressure_,
                                &nodal_pressure_derivative_})
        a->resize(nodes);
      pressure_incidence_.upload(s);
    }
  }

  [[nodiscard]] LinearAlgebra& algebra() override { return algebra_; }

  void commit() override {
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      if (blocks_[b].num_state() > 0 && trial_state_[b].size() == blocks_[b].state.size())
        std::swap(blocks_[b].state, trial_state_[b]);
  }
  /// The committed material history of block b (a checkpoint's), and its restoration.
  void material_state(std::size_t block, std::vector<double>& state) const override {
    blocks_[block].state.download(state, stream_);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    blocks_[block].state.upload(state, stream_);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    DeviceArray<T> d_u;
    d_u.upload(u, stream_);
    pressure_passes(d_u.data(), nodal_pressure_.data_or_null(), true);
    out.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      ElementPassArgs<T> args = pass_args(blocks_[b], d_u.data(), nodal_pressure_.data_or_null());
      args.nodal_volume_ratio = nodal_volume_ratio_.data_or_null();
      blocks_[b].results(args, stream_, out[b]);
    }
  }

  [[nodiscard]] std::size_t memory_bytes() const override {
    std::size_t bytes = pressure_incidence_.bytes();
    for (const DeviceBlock<T>& b : blocks_) bytes += b.bytes();
    for (const DeviceArray<T>& t : trial_state_) bytes += t.bytes();
    const auto add = [&bytes](const auto&... v) { ((bytes += v.bytes()), ...); };
    add(offsets_, slots_, fixed_, failures_, slot_values_, element_blocks_, element_matrices_,
        mass_, linearization_, element_pressure_, element_volume_ratio_, nodal_pressure_,
        nodal_volume_ratio_, linearized_pressure_, nodal_pressure_derivative_, pressure_blocks_,
        coupling_device_);
    return bytes;
  }

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override {
    const T* us = device_data<T>(u);
    // Every failure slot to kNoFailure (all bits set).
    FEM_CUDA_CHECK(cudaMemsetAsync(failures_.data(), 0xff, failures_.bytes(), stream_));
    pressure_passes(us, nodal_pressure_.data_or_null(), false);
    // Atomic assembly adds straight into f (3 per node: the single-precision vector atomic
    // needs 4, which f does not have); deterministic assembly writes the slots, then gathers.
    T* node_forces = sys_.deterministic ? nullptr : device_data<T>(f);
    if (node_forces)
      FEM_CUDA_CHECK(
          cudaMemsetAsync(node_forces, 0, static_cast<std::size_t>(f.size()) * sizeof(T), stream_));
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      DeviceBlock<T>& block = blocks_[b];
      ElementPassArgs<T> args = pass_args(block, us, nodal_pressure_.data_or_null());
      if (node_forces) {
        args.node_forces = node_forces;
        args.node_force_stride = 3;
        args.warp_aggregated_atomics = warp_aggregated_atomics<T>(atomic_mode_, *block.system);
      } else {
        args.forces = slot_values_.data() + 3 * block.system->force_offset;
      }
      if (block.num_state() > 0) {  // the history goes to the trial state until commit()
        trial_state_[b].resize(block.state.size());
        args.trial_state = trial_state_[b].data();
      }
      block.forces(args, static_cast<int>(b), failures_.data() + b, stream_);
    }
    if (!node_forces) gather<false>(nullptr, device_data<T>(f));
    // The element check is what this verb returns: the one wait.
    if (!blocks_.empty())
      FEM_CUDA_CHECK(cudaMemcpyAsync(host_failures_.data(), failures_.data(), failures_.bytes(),
                                     cudaMemcpyDeviceToHost, stream_));
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ElementCheck check;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const Failure& bad = host_failures_[b];
      if (bad.element == kNoFailure) continue;
      check.status = kernels::is_finite(bad.value) ? ElementCheck::Status::InvertedElement
                                                   : ElementCheck::Status::NotFinite;
      check.block = static_cast<int>(b);
      check.element = static_cast<std::int64_t>(bad.element);
      check.value = bad.value;
      break;
    }
    return check;
  }

  ElementCheck do_linearize(const Vector& u) override {
    linearization_.resize(static_cast<std::size_t>(u.size()));
    if (u.size() > 0)
      FEM_CUDA_CHECK(cudaMemcpyAsync(linearization_.data(), device_data<T>(u),
                                     linearization_.bytes(), cudaMemcpyDeviceToDevice, stream_));
    // internal_forces() between two tangent verbs recomputes nodal_pressure_: the tangent
    // verbs read the linearization's own.
    pressure_passes(linearization_.data(), linearized_pressure_.data_or_null(), false);
    linearized_ = true;
    coupling_.clear();
    pressure_blocks_ready_ = false;
    return {};
  }

  void do_apply(const Vector& v, Vector& y) override {
    require_linearization();
    const T* vs = device_data<T>(v);
    if (sys_.num_pressure_elements > 0) {
      // Pass 1 of the tangent into the element scratch, then its nodal average.
      for (DeviceBlock<T>& b : blocks_) {
        if (!b.pressure) continue;
        ElementPassArgs<T> args = pass_args(b, linearization_.data(), linearized_pressure_.data());
        args.direction = vs;
        kernels::required_kernel(b.passes->pressure_tangent, *b.system)(args, nullptr, stream_);
      }
      pressure_incidence_.average(sys_.num_nodes, element_pressure_.data(),
                                  nodal_pressure_derivative_.data(), nullptr, stream_);
    }
    for (DeviceBlock<T>& b : blocks_) {
      ElementPassArgs<T> args =
          pass_args(b, linearization_.data(), linearized_pressure_.data_or_null());
      args.direction = vs;
      args.forces = slot_values_.data() + 3 * b.system->force_offset;
      args.nodal_pressure_derivative = nodal_pressure_derivative_.data_or_null();
      kernels::required_kernel(b.passes->tangent[b.shape], *b.system)(args, stream_);
    }
    gather<true>(vs, device_data<T>(y));
  }

  void do_diagonal(Vector& d) override { node_blocks<true>(device_data<T>(d)); }

  void do_block_diagonal(Vector& blocks) override { node_blocks<false>(device_data<T>(blocks)); }

  void do_assemble(CsrMatrix& a) override {
    require_linearization();
    if (graph_.offsets.empty()) graph_ = tangent_graph(sys_);
    a = tangent_matrix_pattern(sys_, graph_);
    std::vector<T> matrices;
    for (DeviceBlock<T>& b : blocks_) {
      element_matrices(b, matrices);
      add_element_matrices(sys_, graph_, *b.system, matrices.data(), shift_stiffness(), a);
    }
    add_pressure_coupling(sys_, graph_, coupling(), shift_stiffness(), a);
    finish_tangent_matrix(sys_, graph_, shift_mass(), a);
  }

 private:
  void require_linearization() const {
    if (!linearized_) throw Error("cuda backend: a tangent verb before linearize() (solver bug)");
  }

  /// The arguments of block b's passes at u, reading the nodal pressures `nodal_pressure`
  /// (averaged-nodal-pressure blocks; pass 1 writes the element scratch element_pressure_).
  ElementPassArgs<T> pass_args(DeviceBlock<T>& b, const T* u, const T* nodal_pressure) {
    ElementPassArgs<T> a = b.args(u);
    const std::int64_t offset = b.system->pressure_offset;
    a.element_pressure = offset >= 0 ? element_pressure_.data() + offset : nullptr;
    a.nodal_pressure = nodal_pressure;
    a.dt = static_cast<T>(time_step());  // rate-dependent laws (NonlinearOperator::set_time_step)
    return a;
  }

  /// Averaged nodal pressure, passes 1 and 2 at u, the nodal values into `nodal`; with
  /// volume_ratio (results) also the nodal mean volume ratios.
  void pressure_passes(const T* u, T* nodal, bool volume_ratio) {
    if (sys_.num_pressure_elements == 0) return;
    for (DeviceBlock<T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u, nullptr);
      if (volume_ratio)
        args.element_volume_ratio = element_volume_ratio_.data() + b.system->pressure_offset;
      b.pressure(args, nullptr, stream_);
    }
    pressure_incidence_.average(sys_.num_nodes, element_pressure_.data(), nodal, nullptr, stream_);
    if (volume_ratio)
      pressure_incidence_.average(sys_.num_nodes, element_volume_ratio_.data(),
                                  nodal_volume_ratio_.data(), nullptr, stream_);
  }

  GatherArgs<T> gather_args(const T* slot_values, T* out) const {
    return GatherArgs<T>{sys_.num_nodes,
                         offsets_.data(),
                         slots_.data(),
                         slot_values,
                         fixed_.data(),
                         mass_.data(),
                         static_cast<T>(shift_stiffness()),
                         static_cast<T>(shift_mass()),
                         nullptr,
                         nullptr,
                         out};
  }

  /// Enqueues the gather of the slots into `out` (TANGENT: the operator's action on
  /// `direction`).
  template <bool TANGENT>
  void gather(const T* direction, T* out) {
    if (sys_.num_nodes == 0) return;
    GatherArgs<T> g = gather_args(slot_values_.data(), out);
    g.direction = direction;
    gather_kernel<T, TANGENT>
        <<<grid_for(3 * sys_.num_nodes, kNodeThreads), kNodeThreads, 0, stream_>>>(g);
    FEM_CUDA_CHECK_LAUNCH();
  }

  /// The node blocks of A into `out` ([node][9], or DIAGONAL: [node][3]).
  template <bool DIAGONAL>
  void node_blocks(T* out) {
    require_linearization();
    element_blocks_.resize(static_cast<std::size_t>(9 * sys_.num_force_slots));
    for (DeviceBlock<T>& b : blocks_) {
      const ElementPassArgs<T> args =
          pass_args(b, linearization_.data(), linearized_pressure_.data_or_null());
      kernels::required_kernel(b.passes->diagonal_blocks[b.shape], *b.system)(
          args, element_blocks_.data() + 9 * b.system->force_offset, stream_);
    }
    if (sys_.num_nodes == 0) return;
    GatherArgs<T> g = gather_args(element_blocks_.data(), out);
    g.pressure_blocks = pressure_blocks();
    node_blocks_kernel<T, DIAGONAL>
        <<<grid_for(sys_.num_nodes, kNodeThreads), kNodeThreads, 0, stream_>>>(g);
    FEM_CUDA_CHECK_LAUNCH();
  }

  /// Averaged nodal pressure: kernels::pressure_coupling at the linearization point, [ANP
  /// element][13] in double on the host (empty without ANP blocks). Computed on the device and
  /// downloaded, once per linearization.
  const std::vector<double>& coupling() {
    if (coupling_.empty() && sys_.num_pressure_elements > 0) {
      coupling_device_.resize(static_cast<std::size_t>(13 * sys_.num_pressure_elements));
      for (DeviceBlock<T>& b : blocks_) {
        if (!b.pressure) continue;
        const ElementPassArgs<T> args = pass_args(b, linearization_.data(), nullptr);
        kernels::required_kernel(b.passes->pressure_coupling, *b.system)(
            args, coupling_device_.data() + 13 * b.system->pressure_offset, stream_);
      }
      coupling_device_.download(coupling_, stream_);
    }
    return coupling_;
  }

  /// The pressure coupling's 3x3 node blocks in device memory, or null without ANP blocks. A host
  /// round trip per linearization: the coupling is downloaded, its rank-one node terms added up
  /// by operator_assembly.hpp's add_pressure_coupling_blocks on the host, and the blocks
  /// uploaded (13 values per ANP element down, 9 per node up); the diagonal verbs run once per
  /// linearization, so a device version of those sums would not pay for its code yet.
  const T* pressure_blocks() {
    if (sys_.num_pressure_elements == 0) return nullptr;
    if (!pressure_blocks_ready_) {
      std::vector<double> blocks(static_cast<std::size_t>(9 * sys_.num_nodes), 0.0);
      add_pressure_coupling_blocks(sys_, coupling(), 1.0, blocks);
      pressure_blocks_.upload(blocks, stream_);
      pressure_blocks_ready_ = true;
    }
    return pressure_blocks_.data();
  }

  /// All npe^2 stiffness blocks of every element of block b at the linearization point,
  /// computed on the device in chunks of kMatrixChunkElements and downloaded into `out`
  /// ([e][a][b][9], element_matrix's layout).
  void element_matrices(DeviceBlock<T>& b, std::vector<T>& out) {
    const BlockSystem& s = *b.system;
    const std::int64_t size =
        9 * static_cast<std::int64_t>(s.nodes_per_element) * s.nodes_per_element;
    out.resize(static_cast<std::size_t>(s.num_elements * size));
    const std::int64_t chunk = std::min(s.num_elements, kMatrixChunkElements);
    element_matrices_.resize(static_cast<std::size_t>(chunk * size));
    const ElementPassArgs<T> args =
        pass_args(b, linearization_.data(), linearized_pressure_.data_or_null());
    const auto launch = kernels::required_kernel(b.passes->matrix[b.shape], s);
    for (std::int64_t first = 0; first < s.num_elements; first += chunk) {
      const std::int64_t count = std::min(chunk, s.num_elements - first);
      launch(element_range(args, first, count), element_matrices_.data(), stream_);
      FEM_CUDA_CHECK(cudaMemcpyAsync(out.data() + first * size, element_matrices_.data(),
                                     static_cast<std::size_t>(count * size) * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream_));
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
  }

  LinearAlgebraImpl<T>& algebra_;
  const System& sys_;
  const cudaStream_t stream_;     ///< the algebra's
  const AtomicMode atomic_mode_;  ///< FEM_CUDA_ATOMICS (solver.assembly: atomic only)
  std::vector<DeviceBlock<T>> blocks_;
  /// Per block: the material history of the last internal_forces(), committed by commit().
  std::vector<DeviceArray<T>> trial_state_;
  DeviceArray<std::int32_t> offsets_, slots_;  ///< the node-to-slot incidence
  DeviceArray<std::uint8_t> fixed_;            ///< per node: bit i set where dof i is prescribed
  DeviceArray<Failure> failures_;              ///< per block, of the last internal_forces()
  PinnedArray<Failure> host_failures_;
  /// Element-node values: forces or the tangent action [slot][3]; diagonal blocks [slot][9];
  /// full element matrices of one chunk of elements (assemble).
  DeviceArray<T> slot_values_, element_blocks_, element_matrices_;
  DeviceArray<T> mass_, linearization_;
  bool linearized_ = false;
  // Averaged nodal pressure. element_pressure_ is every pass 1's output (the pressures or their
  // derivative), nodal_pressure_ internal_forces' and results' nodal values, linearized_pressure_
  // the linearization's.
  DeviceArray<T> element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_,
      linearized_pressure_, nodal_pressure_derivative_, pressure_blocks_, coupling_device_;
  DevicePressureIncidence<T> pressure_incidence_;
  std::vector<double> coupling_;  ///< at the linearization point, on the host
  bool pressure_blocks_ready_ = false;
  NodeGraph graph_;
};

}  // namespace

std::unique_ptr<NonlinearOperator> make_nonlinear_operator(const System& system,
                                                           LinearAlgebra& algebra) {
  if (auto* single = dynamic_cast<LinearAlgebraImpl<float>*>(&algebra))
    return std::make_unique<NonlinearOperatorImpl<float>>(system, *single);
  if (auto* dbl = dynamic_cast<LinearAlgebraImpl<double>*>(&algebra))
    return std::make_unique<NonlinearOperatorImpl<double>>(system, *dbl);
  throw Error("cuda backend: the operator's vectors must come from this backend");
}

}  // namespace fem::cuda
