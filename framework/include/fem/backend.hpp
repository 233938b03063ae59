// The contract between the host-side solvers in libfem and a compute backend plugin.
//
// The framework prepares everything in double precision on the host (element geometry, lumped
// masses, node-to-element incidence, boundary conditions as per-dof arrays); the backend copies it
// into its own memory and precision and runs fused operations on it: one element pass and one
// node pass per explicit step, with boundary conditions and loads evaluated inside the node pass.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/amplitude.hpp"
#include "fem/config.hpp"
#include "fem/contact/rigid_surface.hpp"
#include "fem/element.hpp"
#include "fem/error.hpp"
#include "fem/host_array.hpp"
#include "fem/material.hpp"
#include "fem/operator.hpp"
#include "fem/pressure_surface.hpp"
#include "fem/voxel/voxel_operator.hpp"

namespace fem {

/// One block (element type + material) as a backend receives it.
struct BlockSystem {
  std::string name;
  Family family = Family::Isoparametric;
  int nodes_per_element = 0;
  int quadrature_points = 0;
  std::int64_t num_elements = 0;
  std::vector<std::int32_t> connectivity;  ///< [e][a]
  /// [e][q][a][k]: dN_a/dX_k in the reference config (HostArray: filled by every core)
  HostArray<double> shape_gradients;
  HostArray<double> quadrature_volumes;  ///< [e][q]: w_q det J_q
  /// Hex8Hourglass: [e][mode][j] = h_mode . X_j, the base vectors projected on the reference
  /// coordinates; with the gradients they give the Flanagan-Belytschko gamma vectors
  /// gamma = (h - (h . X_j) b_j) / 8 (12 numbers per element instead of 32).
  std::vector<double> hourglass_vectors;
  std::vector<double> hourglass_base;       ///< Hex8Hourglass: [mode][a], the element's h vectors
  std::vector<double> hourglass_stiffness;  ///< Hex8Hourglass: [e] k
  const MaterialApi* material = nullptr;    ///< the material plugin's build for this backend
  std::vector<double> material_params;
  /// First slot of this block in the global element-force buffer; element e, node a of the block
  /// writes its force to slot force_offset + e * nodes_per_element + a.
  std::int64_t force_offset = 0;
  /// AveragedNodalPressureTet: first index of this block's elements in the global per-element
  /// pressure buffer (such blocks one after another); -1 for other families.
  std::int64_t pressure_offset = -1;
  /// One part of a partitioned mesh (fem/parallel/), ordered for overlap: the block's first
  /// halo_elements elements are all those touching a node another process receives, so that a
  /// backend can compute them and those nodes first and exchange the halo while it computes the
  /// rest (each node's forces are still summed in the global order). -1: not ordered so.
  std::int64_t halo_elements = -1;
};

/// The model as a backend receives it: blocks, masses, the node-to-slot incidence, boundary
/// conditions and loads as per-dof arrays, contact. Everything an explicit central-difference
/// run needs; the implicit solvers' operators (fem/operator.hpp) are built from it too.
struct System {
  std::int64_t num_nodes = 0;
  std::vector<double> lumped_mass;  ///< per node, kg
  std::vector<BlockSystem> blocks;
  std::int64_t num_force_slots = 0;  ///< sum over blocks of elements * nodes_per_element
  /// Node-to-slot incidence (CSR): the deterministic gather of element forces into nodes.
  std::vector<std::int64_t> incidence_offsets;  ///< num_nodes + 1
  HostArray<std::int64_t> incidence_slots;
  /// Averaged nodal pressure (AveragedNodalPressureTet blocks; empty without them): node-to-
  /// element incidence over the ANP elements of all blocks (CSR; entries index the global
  /// per-element pressure buffer, in block order) and each node's inverse reference volume
  /// 1 / sum_e V_e (0 at nodes without ANP elements, whose nodal pressure is then 0 and unused).
  std::int64_t num_pressure_elements = 0;
  std::vector<std::int64_t> pressure_incidence_offsets;  ///< num_nodes + 1
  std::vector<std::int32_t> pressure_incidence_elements;
  std::vector<double> pressure_inverse_volume;  ///< num_nodes
  /// Per dof (3 * num_nodes). prescribed_amplitude < 0: free; otherwise
  /// u = prescribed_value * amplitude(t).
  HostArray<std::int32_t> prescribed_amplitude;
  HostArray<double> prescribed_value;
  /// Per dof external nodal force: load_value * amplitude(t); load_amplitude < 0: none.
  HostArray<std::int32_t> load_amplitude;
  HostArray<double> load_value;
  /// Follower pressures, on the host only: backends ignore them, the implicit solvers evaluate
  /// them from the current displacement (framework/src/solver/implicit_pressure.hpp). Dead
  /// pressures are part of load_value.
  std::vector<PressureSurface> follower_pressures;
  /// Body acceleration: f_i = m_i * gravity * amplitude(t); gravity_amplitude < 0: none.
  std::array<double, 3> gravity = {0, 0, 0};
  std::int32_t gravity_amplitude = -1;
  std::vector<Amplitude> amplitudes;
  /// The state the first step starts from, per dof: u_0 (prescribed values at t = 0) and
  /// u_{-1} = u_0 - dt v_0 (prescribed values at t = -dt), so that central differences start
  /// with the initial velocity.
  std::vector<double> initial_displacement;
  std::vector<double> initial_previous_displacement;
  double time_step = 0.0;
  /// The step rate-dependent materials advance their history over in each explicit step
  /// (ElementPassArgs::dt): time_step in explicit dynamics, +infinity in dynamic relaxation,
  /// whose pseudo step is no time (the law's long-term response).
  double material_time_step = 0.0;
  double mass_damping = 0.0;  ///< mass-proportional damping coefficient q, 1/s
  bool deterministic = true;  ///< gather through incidence (true) or atomics (backend may ignore)
  /// Mass the node update divides by, per node; empty: lumped_mass. Dynamic relaxation puts its
  /// fictitious mass here; lumped_mass stays the physical mass (gravity, energies, reactions).
  std::vector<double> iteration_mass;
  /// Reference coordinates (3 per node): contact needs the current position X + u, the
  /// implicit solver the rigid-body modes.
  std::vector<double> coordinates;
  std::vector<RigidSurface> surfaces;  ///< rigid contact surfaces; empty: no contact
  /// Per node: bit s set if the node is a contact node of surface s (at most kMaxSurfaces);
  /// empty when there is no contact. Nodes with a prescribed component are never contact nodes.
  std::vector<std::uint8_t> contact_mask;
  /// Per node: 1 where another process owns the node (a run on several processes, one part of a
  /// partitioned mesh, fem/parallel/): the node pass leaves its displacement alone (the halo
  /// exchange sets u_{n+1} there after each step, through set_nodal_displacements), applies no
  /// contact to it and leaves it out of every StepNorms reduction. Empty: every node is owned.
  std::vector<std::uint8_t> ghost;
};

/// Coefficients of the node update, the damped central difference of seed 000 (eqs. 3-5) and
/// the dynamic-relaxation iteration of seed 003 (eqs. 5-6), which have the same form:
///   u(n+1) = (force_scale / m_n) (R - P(u_n)) + b u(n) - c u(n-1)
/// with m_n the iteration mass of the node.
struct NodeUpdate {
  double force_scale = 0.0;  ///< 2 h^2 / (2 + q h)
  double b = 0.0;            ///< 4 / (2 + q h) = 1 + beta
  double c = 0.0;            ///< (2 - q h) / (2 + q h) = beta
};

/// The coefficients for step h and mass-proportional damping q (1/s).
inline NodeUpdate central_difference_update(double h, double q) {
  return {2.0 * h * h / (2.0 + q * h), 4.0 / (2.0 + q * h), (2.0 - q * h) / (2.0 + q * h)};
}

/// Reductions over the last step of advance_measured(), computed inside its node pass. Sums and
/// maxima run over the free dofs (not prescribed) unless said otherwise.
struct StepNorms {
  double increment_max = 0.0;  ///< max |u(n+1) - u(n)|
  double increment_sq = 0.0;   ///< sum (u(n+1) - u(n))^2
  double residual_max = 0.0;   ///< max |R - P(u_n) + contact force|
  double residual_sq = 0.0;    ///< sum of its squares
  double internal_max = 0.0;   ///< max |P(u_n)| over all dofs (a force scale)
  double rayleigh_num = 0.0;   ///< (u_n - u_{n-1}) . (P(u_n) - P(u_{n-1}))
  double rayleigh_den = 0.0;   ///< (u_n - u_{n-1}) . M (u_n - u_{n-1}), iteration mass
  /// Per surface: the sum over its nodes of the contact correction forces, moved / a_n.
  std::array<std::array<double, 3>, kMaxSurfaces> contact_force = {};
  std::int64_t contact_nodes = 0;  ///< node-surface corrections in that step
};

/// How an advance() ended.
struct AdvanceResult {
  enum class Status { Ok, InvertedElement, NotFinite };
  Status status = Status::Ok;
  std::int64_t steps_done = 0;  ///< completed steps; state is after the last completed one
  int block = -1;               ///< offending block and element (block-local index)
  std::int64_t element = -1;
  double value = 0.0;  ///< the offending det F (InvertedElement)
};

/// Per-element results of one block (averaged over quadrature points).
struct BlockResults {
  std::vector<double> cauchy_stress;     ///< [e][6]: xx yy zz xy yz xz
  std::vector<double> green_lagrange;    ///< [e][6]
  std::vector<double> strain_energy;     ///< [e]: joules (integrated over the element)
  std::vector<double> hourglass_energy;  ///< [e]: joules
  std::vector<double> min_jacobian;      ///< [e]: smallest det F over quadrature points
};

/// Whether an energy record without a frame (ExplicitProblem::element_energies) fills a
/// block's hourglass_energy: only hourglass control gives it values other than zero, and every
/// backend and rank decides alike from the family.
[[nodiscard]] constexpr bool energies_include_hourglass(Family family) {
  return family == Family::Hex8Hourglass;
}

/// Cumulative wall time a backend spent in each fused operation.
struct PhaseTimes {
  double element_pass_s = 0.0;
  double node_pass_s = 0.0;
  /// Steps timed as a whole (fused launches, graphs), not split by phase.
  double fused_step_s = 0.0;
  /// A part of a partitioned mesh (fem/parallel/partitioned_problem.hpp): the steps' wall time
  /// beyond the part's own phases (halo exchange, the ranks' agreement, waits for slower ranks
  /// or for a GPU the ranks share), so that the phases add up to the wall time.
  double exchange_s = 0.0;
  /// A part that exchanges its halo GPU to GPU (direct_halo): the device's time from packing its
  /// values to unpacking its neighbours' (copies and waits for the neighbours included), which
  /// fused_step_s leaves out.
  double halo_s = 0.0;
};

/// One neighbour's share of a part's halo lists (ExplicitProblem::set_halo), in nodes: the
/// send-list entries first.. first + count going to it, and the receive-list entries coming from
/// it.
struct HaloLink {
  std::size_t send_first = 0, send_count = 0;
  std::size_t receive_first = 0, receive_count = 0;
};

/// A running explicit problem inside a backend. Step k advances t_k = k dt to t_{k+1}.
class ExplicitProblem {
 public:
  virtual ~ExplicitProblem() = default;

  /// Runs num_steps steps starting at step first_step. Stops at the first step whose element
  /// pass meets det F <= 0 or a non-finite value; the state is then the last good one.
  /// Returns only when the work is complete (a device backend synchronises), so that host clocks
  /// around it measure the steps (`fem bench` relies on this).
  virtual AdvanceResult advance(std::int64_t first_step, std::int64_t num_steps) = 0;
  /// advance(), and the node pass of the last step also computes `norms` (the one before it keeps
  /// P(u_{n-1}) for the Rayleigh quotient; with num_steps == 1 that quotient is left 0). Costs
  /// one reduction, not a copy of the state.
  virtual AdvanceResult advance_measured(std::int64_t first_step, std::int64_t num_steps,
                                         StepNorms& norms) = 0;
  /// One step (step `step`), for a caller that exchanges ghost displacements between steps (a
  /// run on several processes). keep_forces: the node pass saves P(u_n) for the Rayleigh quotient
  /// of the next step; norms (non-null): the node pass computes them, its Rayleigh quotient from
  /// the forces the step before saved (0 if it saved none). A sequence of advance_step() calls
  /// gives the same bits as one advance() or advance_measured() over the same steps.
  virtual AdvanceResult advance_step(std::int64_t /*step*/, bool /*keep_forces*/,
                                     StepNorms* /*norms*/) {
    throw Error(
        "this backend cannot run one part of a partitioned mesh (advance_step)\n  hint: run "
        "the case on one process, or on the openmp, kokkos or cuda backend");
  }
  /// Steps first_step .. first_step + num_steps - 1 (as advance() does) with `after_step` called
  /// on the host once per step, after the step: a partitioned run's halo exchange. It is called
  /// for every step, also for those after a failed one (which do not run), so that processes
  /// exchanging with this one stay paired. A backend that queues work (a GPU) queues each step
  /// and what after_step queues without waiting in between; the default runs advance_step.
  virtual AdvanceResult advance_exchanging(std::int64_t first_step, std::int64_t num_steps,
                                           const std::function<void()>& after_step) {
    AdvanceResult result;
    result.steps_done = num_steps;
    for (std::int64_t k = 0; k < num_steps; ++k) {
      if (result.status == AdvanceResult::Status::Ok) {
        const AdvanceResult r = advance_step(first_step + k, false, nullptr);
        if (r.status != AdvanceResult::Status::Ok) {
          result = r;
          result.steps_done = k;
        }
      }
      after_step();
    }
    return result;
  }
  /// Replaces the node-update coefficients (dynamic relaxation changes its damping as it learns
  /// the lowest eigenvalue). The initial ones are central_difference_update(dt, mass_damping).
  virtual void set_node_update(const NodeUpdate& update) = 0;

  /// Current displacement u_n and the one before, u_{n-1} (3 per node, double).
  virtual void displacement(std::vector<double>& u) const = 0;
  virtual void previous_displacement(std::vector<double>& u) const = 0;
  virtual void set_displacement(const std::vector<double>& u,
                                const std::vector<double>& u_prev) = 0;

  /// Material history of block b, [e][q][num_state] in double; what a checkpoint saves besides
  /// u_n and u_{n-1}, and what a restart puts back. Called only for blocks whose material has
  /// state (MaterialHostApi::num_state > 0); a backend that cannot read or set it says so.
  virtual void material_state(std::size_t /*block*/, std::vector<double>& /*state*/) const {
    throw Error(
        "this backend cannot read material history state: checkpoints and restarts of materials "
        "with state are not supported on it\n  hint: run the case on the openmp or kokkos "
        "backend");
  }
  virtual void set_material_state(std::size_t /*block*/, const std::vector<double>& /*state*/) {
    throw Error(
        "this backend cannot set material history state: restarts of materials with state are "
        "not supported on it\n  hint: run the case on the openmp or kokkos backend");
  }

  /// u_n and u_{n-1} at the given nodes only (3 per node, in the order given): what histories
  /// need, without copying the whole state off a device.
  virtual void nodal_displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u,
                                   std::vector<double>& u_prev) const {
    std::vector<double> all, all_prev;
    displacement(all);
    previous_displacement(all_prev);
    u.resize(3 * nodes.size());
    u_prev.resize(3 * nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (int i = 0; i < 3; ++i) {
        u[3 * k + i] = all[3 * static_cast<std::size_t>(nodes[k]) + i];
        u_prev[3 * k + i] = all_prev[3 * static_cast<std::size_t>(nodes[k]) + i];
      }
  }

  /// Sets u_n at the given nodes (3 values per node, in the order given) and leaves u_{n-1}: the
  /// receiving half of a halo exchange. The default goes through the whole state; backends
  /// override it with a copy of the few values.
  virtual void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                                       const std::vector<double>& u) {
    std::vector<double> all, all_prev;
    displacement(all);
    previous_displacement(all_prev);
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (int i = 0; i < 3; ++i) all[3 * static_cast<std::size_t>(nodes[k]) + i] = u[3 * k + i];
    set_displacement(all, all_prev);
  }

  /// Replaces the external force at the given nodes (3 values per node, in the order given,
  /// newtons) from the next step on: the step adds load_value there as it does everywhere, now
  /// these values. The host recomputes loads that depend on the deformation (follower pressures,
  /// fem/solver/follower_pressure_problem.hpp) and sets them before every step. Only dofs whose
  /// System::load_amplitude is a constant curve take the values as they are, so the system
  /// given to create_explicit() says which dofs the host sets.
  virtual void set_nodal_loads(const std::vector<std::int32_t>& /*nodes*/,
                               const std::vector<double>& /*forces*/) {
    throw Error(
        "this backend cannot set nodal loads between steps, which follower pressures in "
        "explicit and relaxation runs need\n  hint: run the case on the openmp, kokkos or cuda "
        "backend, or write follower: false on its pressures");
  }

  /// The halo exchange of one part of a partitioned mesh (fem/parallel/). set_halo once: the
  /// owned nodes whose u_n other processes need (send) and the ghost nodes whose u_n they send
  /// (receive), in this part's node ids. Then after every step: pack_halo writes u_n at the send
  /// nodes into halo_send_buffer() (3 doubles per node, in list order), the caller sends that
  /// and receives the ghosts' values into halo_receive_buffer(), and unpack_halo sets them. The
  /// buffers are host memory the problem owns (page-locked on a GPU, so that each copy is one
  /// DMA and MPI reads and writes them in place). The defaults go through nodal_displacements
  /// and set_nodal_displacements.
  virtual void set_halo(const std::vector<std::int32_t>& send,
                        const std::vector<std::int32_t>& receive) {
    halo_send_ = send;
    halo_receive_ = receive;
    halo_send_values_.resize(3 * send.size());
    halo_receive_values_.resize(3 * receive.size());
  }
  virtual double* halo_send_buffer() { return halo_send_values_.data(); }
  virtual double* halo_receive_buffer() { return halo_receive_values_.data(); }
  virtual void pack_halo() {
    std::vector<double> u_prev;
    nodal_displacements(halo_send_, halo_send_values_, u_prev);
  }
  virtual void unpack_halo() { set_nodal_displacements(halo_receive_, halo_receive_values_); }

  /// The halo exchanged device to device between processes of one host (GPU to GPU), instead of
  /// through halo_send_buffer() and halo_receive_buffer(); optional. After set_halo:
  /// open_direct_halo(links, endpoints) gives, per neighbour, the bytes that neighbour needs to
  /// reach this part (where its values land, what to wait for before reading this part's), or
  /// returns false when the backend cannot. connect_direct_halo(peers) takes each neighbour's
  /// bytes for this part; false (nothing connected) when one cannot be reached (another host,
  /// no peer access). Then after every step send_direct_halo(exchange) and, once every neighbour
  /// has sent (the caller's handshake), receive_direct_halo(exchange); `exchange` counts from 0
  /// alike on every part. Neighbours list each other and exchange every step, also when one
  /// direction has no nodes, which is what lets the device buffers be reused safely.
  virtual bool open_direct_halo(const std::vector<HaloLink>& /*links*/,
                                std::vector<std::vector<char>>& /*endpoints*/) {
    return false;
  }
  virtual bool connect_direct_halo(const std::vector<std::vector<char>>& /*peers*/) {
    return false;
  }
  /// Undoes open and connect (a part whose neighbours could not connect).
  virtual void close_direct_halo() {}
  virtual void send_direct_halo(std::uint64_t /*exchange*/) {}
  virtual void receive_direct_halo(std::uint64_t /*exchange*/) {}
  /// How the direct halo travels ("GPU to GPU (CUDA IPC)"); "" when it is not connected.
  [[nodiscard]] virtual std::string direct_halo_path() const { return ""; }

  /// The internal force of the last element pass (evaluated at u_{n-1}) at each of the given
  /// nodes (3 per node, in the order given, in double): each node's element-node slots summed in
  /// incidence order, the same on every backend.
  virtual void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                                     std::vector<double>& forces) const = 0;

  /// Sum of the internal forces of the last element pass over the nodes: their
  /// nodal_internal_forces added in the order given, so that backends and partitioned runs
  /// agree bit for bit.
  [[nodiscard]] std::array<double, 3> internal_force_sum(
      const std::vector<std::int32_t>& nodes) const {
    std::vector<double> forces;
    nodal_internal_forces(nodes, forces);
    std::array<double, 3> sum = {0, 0, 0};
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (int i = 0; i < 3; ++i) sum[i] += forces[3 * k + i];
    return sum;
  }

  /// Internal nodal forces P(u) (one element pass plus gather); does not change the state.
  virtual void internal_forces(const std::vector<double>& u, std::vector<double>& forces) = 0;
  /// Stress, strain and energies of every element at displacement u.
  virtual void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) = 0;
  /// What an energy record without a frame needs: BlockResults' strain_energy and
  /// hourglass_energy at u, the same values element_results() gives (its other arrays may be
  /// left empty, and hourglass_energy too for a block whose family has no hourglass control:
  /// its values are zero). The default is element_results(); a GPU backend copies back only
  /// the energies.
  virtual void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) {
    element_results(u, out);
  }

  [[nodiscard]] virtual PhaseTimes phase_times() const { return {}; }

  /// Bytes this problem holds in the backend's own memory (device memory for a GPU backend, host
  /// arrays for a CPU one); 0 when the backend does not say.
  [[nodiscard]] virtual std::size_t memory_bytes() const { return 0; }

 protected:
  std::vector<std::int32_t> halo_send_, halo_receive_;          ///< set_halo's lists
  std::vector<double> halo_send_values_, halo_receive_values_;  ///< the default buffers
};

/// A device a backend can run on (a GPU), as `fem plugins` lists it.
struct ComputeDevice {
  int index = 0;        ///< the number `device:` and `--device` take (after CUDA_VISIBLE_DEVICES)
  std::string name;     ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string details;  ///< e.g. "sm_90, 132 SMs, 79.10 GiB, PCI 0000:19:00.0"
  bool in_use = false;  ///< the device this backend runs on
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// Where it runs, e.g. "OpenMP, 2 threads" or "CUDA, NVIDIA H100 (sm_90)".
  [[nodiscard]] virtual std::string execution_space() const = 0;
  /// Every device this backend could run on, the one it runs on marked; empty for a backend that
  /// runs on the host's cores (there is nothing to choose, and `device:` is ignored).
  [[nodiscard]] virtual std::vector<ComputeDevice> devices() const { return {}; }
  /// Throws fem::Error with a clear message if the system cannot run here.
  virtual std::unique_ptr<ExplicitProblem> create_explicit(const System& system,
                                                           Precision precision) = 0;
  /// Vectors and their verbs in this backend's memory and precision (fem/operator.hpp).
  virtual std::unique_ptr<LinearAlgebra> create_linear_algebra(Precision /*precision*/) {
    throw Error("backend '" + execution_space() +
                "' has no operators for implicit solvers\n  hint: run the case on the openmp, "
                "kokkos or cuda backend");
  }
  /// The nonlinear elasticity operator of `system` on vectors of `algebra`, which this backend
  /// made. The system must outlive the operator.
  virtual std::unique_ptr<NonlinearOperator> create_operator(const System& /*system*/,
                                                             LinearAlgebra& /*algebra*/) {
    throw Error("backend '" + execution_space() +
                "' has no operators for implicit solvers\n  hint: run the case on the openmp, "
                "kokkos or cuda backend");
  }
  /// The structured-grid verbs of the co-rotated voxel multigrid (fem/voxel/voxel_operator.hpp)
  /// on hierarchy `h`, in this backend's memory and precision.
  virtual std::unique_ptr<VoxelOperator> create_voxel_operator(const voxel::VoxelHierarchy& /*h*/,
                                                               const VoxelMaterials& /*materials*/,
                                                               Precision /*precision*/) {
    throw Error("backend '" + execution_space() +
                "' has no voxel multigrid\n  hint: run the case on the openmp, kokkos or cuda "
                "backend");
  }
};

/// The `device` of BackendApi::create that leaves the choice to the backend (for CUDA:
/// FEM_CUDA_DEVICE, else the MPI local rank, else the first GPU).
inline constexpr int kDefaultDevice = -1;

/// What a backend plugin's descriptor points at.
struct BackendApi {
  std::uint32_t struct_size;
  const char* description;
  /// Creates the backend on device `device` (the case's `device:`, `--device`), or on the
  /// backend's own default when `device` is kDefaultDevice; returns nullptr and fills `why` (up to
  /// 512 bytes) when it cannot run on this machine (no device, no such device, driver too old...).
  /// A backend without devices ignores `device`.
  Backend* (*create)(int device, char* why, int why_size);
};

}  // namespace fem
