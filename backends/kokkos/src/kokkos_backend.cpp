// The Kokkos backend: explicit TLED steps written once for every Kokkos execution space, and the
// operators of the implicit solvers (operators.hpp).
//
// One element pass per block (the material plugin's fused parallel_for) and one fused node pass
// per step (deterministic gather of element forces through the node-to-slot incidence, loads and
// amplitudes, damped central difference, prescribed displacements), as in the OpenMP reference.
// Failures are recorded on the device (FailureSlot) and read once per advance(), so a device
// space runs its steps without a host round trip.
#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <fem/cuda/devices.hpp>  // the CUDA backend's listing of the GPUs
#endif

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fem/backend.hpp>
#include <fem/contact/rigid_surface.hpp>
#include <fem/error.hpp>
#include <fem/kernels/material_table.hpp>
#include <fem/kokkos/element_kernels.hpp>
#include <fem/plugin.hpp>

#include "element_blocks.hpp"
#include "node_pass.hpp"
#include "operators.hpp"
#include "runtime.hpp"
#include "views.hpp"

namespace fem::kokkos {
namespace {

template <class Space, class T>
class ExplicitProblemImpl final : public ExplicitProblem {
 public:
  explicit ExplicitProblemImpl(const System& s) try : sys_(s), blocks_(s) {
    allocate();
  } catch (const std::runtime_error& e) {
    rethrow_allocation_failure<Space>(e);
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

  void set_node_update(const NodeUpdate& update) override {
    force_scale_ = update.force_scale;
    b_ = static_cast<T>(update.b);
    c_ = static_cast<T>(update.c);
    std::vector<double> acoef(static_cast<std::size_t>(sys_.num_nodes));
    for (std::int64_t i = 0; i < sys_.num_nodes; ++i)
      acoef[i] = update.force_scale * inverse_mass_host_[i];
    if (acoef_.extent(0) == 0)
      acoef_ = upload<Space, T>("fem::acoef", acoef);
    else
      copy_in(acoef_, acoef);
  }

  void displacement(std::vector<double>& u) const override { copy_out(current(), u); }
  void previous_displacement(std::vector<double>& u) const override { copy_out(previous(), u); }
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override {
    copy_in(current(), u);
    copy_in(previous(), u_prev);
  }

  void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                               const std::vector<double>& u) override {
    put_at_nodes(set_displacements_, nodes, u, current().data());
  }
  void set_nodal_loads(const std::vector<std::int32_t>& nodes,
                       const std::vector<double>& forces) override {
    put_at_nodes(set_loads_, nodes, forces, load_value_.data());
  }

  void material_state(std::size_t block, std::vector<double>& state) const override {
    copy_out(blocks_.blocks()[block].state, state);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    copy_in(blocks_.blocks()[block].state, state);
  }

  void nodal_displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u,
                           std::vector<double>& u_prev) const override {
    const auto count = static_cast<std::int64_t>(nodes.size());
    // Histories read the same nodes at every sample, follower loads at every step: the list and
    // the picked values stay in the space's memory (no allocation per call).
    if (nodes != picked_.nodes_host) {
      picked_.nodes = upload<Space, std::int32_t>("fem::nodes", nodes);
      picked_.nodes_host = nodes;
    }
    if (picked_.u.extent(0) != 3 * nodes.size()) {
      picked_.u = View<Space, double>("fem::u_at_nodes", 3 * nodes.size());
      picked_.u_prev = View<Space, double>("fem::u_prev_at_nodes", 3 * nodes.size());
    }
    Kokkos::parallel_for(
        "fem::kokkos::pick_nodes", Range<Space>(0, count),
        detail::PickNodes<T>{picked_.nodes.data(), current().data(), previous().data(),
                             picked_.u.data(), picked_.u_prev.data()});
    copy_out(picked_.u, u);
    copy_out(picked_.u_prev, u_prev);
  }

  void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                             std::vector<double>& out) const override {
    const auto d_nodes = upload<Space, std::int32_t>("fem::nodes", nodes);
    View<Space, double> d_out("fem::forces_at_nodes", 3 * nodes.size());
    Kokkos::parallel_for("fem::kokkos::gather_nodes",
                         Range<Space>(0, static_cast<std::int64_t>(nodes.size())),
                         detail::GatherForces<T>{d_nodes.data(), offsets_.data(), slots_.data(),
                                                 data_or_null(forces_), data_or_null(node_forces_),
                                                 kNodeForceStride, d_out.data()});
    copy_out(d_out, out);
  }

  void internal_forces(const std::vector<double>& u, std::vector<double>& out) override {
    const auto d_u = upload<Space, T>("fem::u", u);
    View<Space, T> scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem::scratch_forces"),
                           static_cast<std::size_t>(3 * sys_.num_force_slots));
    Kokkos::View<FailureSlot, typename Space::memory_space> failure("fem::scratch_failure");
    Kokkos::deep_copy(failure, FailureSlot{kNoFailure, kNoFailure});
    // The history is not advanced (it goes to the blocks' trial state), and no time passes:
    // the forces of the accepted state.
    blocks_.set_time_step(0.0);
    blocks_.forces(d_u.data(), scratch.data(), nullptr, 3, failure.data(), true);
    blocks_.set_time_step(sys_.material_time_step);
    View<Space, double> d_out("fem::internal_forces", static_cast<std::size_t>(3 * sys_.num_nodes));
    Kokkos::parallel_for("fem::kokkos::gather_all", Range<Space>(0, sys_.num_nodes),
                         detail::GatherForces<T>{nullptr, offsets_.data(), slots_.data(),
                                                 scratch.data(), nullptr, 3, d_out.data()});
    copy_out(d_out, out);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const auto d_u = upload<Space, T>("fem::u", u);
    blocks_.evaluate(d_u.data(), out);
  }
  void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const auto d_u = upload<Space, T>("fem::u", u);
    blocks_.evaluate(d_u.data(), out, false);
  }

  [[nodiscard]] PhaseTimes phase_times() const override { return times_; }

  /// What the problem holds in the execution space's memory (device memory on Kokkos-CUDA): the
  /// per-block element arrays and the per-node and per-slot arrays of the step (`fem bench`).
  [[nodiscard]] std::size_t memory_bytes() const override {
    return blocks_.memory_bytes() + view_bytes(acoef_, forces_, node_forces_, prescribed_value_,
                                               load_value_, u_[0], u_[1], offsets_, slots_,
                                               dof_flags_, prescribed_amplitude_, load_amplitude_,
                                               amplitudes_, gravity_weight_, saved_forces_, coords_,
                                               contact_mask_, inverse_mass_);
  }

 private:
  /// Steps first_step.. first_step + num_steps - 1; norms: the last one is measured; keep_last:
  /// the last one keeps P(u_n) for a measured step in the next call (advance_step).
  AdvanceResult run_steps(std::int64_t first_step, std::int64_t num_steps, StepNorms* norms,
                          bool keep_last = false) {
    flush_denormals<Space>();
    Kokkos::deep_copy(failure_, FailureSlot{kNoFailure, kNoFailure});
    FailureSlot* failure = failure_.data();
    Kokkos::Timer total;
    std::int64_t launched = 0;
    for (std::int64_t k = 0; k < num_steps; ++k) {
      const std::int64_t step = first_step + k;
      Kokkos::Timer phase;
      element_pass(current().data(), failure);
      if constexpr (kRunsOnHost<Space>) {
        // Synchronous here: stop at once, like the reference.
        times_.element_pass_s += phase.seconds();
        if (failure->key != kNoFailure) {
          failure->step = static_cast<unsigned long long>(step);
          break;
        }
        phase.reset();
      }
      // Measured: the step before the last keeps P(u_{n-1}); the last one reduces the norms.
      node_pass(step, failure, (norms && k + 2 == num_steps) || (keep_last && k + 1 == num_steps),
                norms && k + 1 == num_steps ? norms : nullptr);
      if constexpr (kRunsOnHost<Space>) times_.node_pass_s += phase.seconds();
      parity_ ^= 1;
      ++launched;
    }
    FailureSlot slot{};
    Kokkos::deep_copy(slot, failure_);  // waits for the steps
    if constexpr (!kRunsOnHost<Space>) times_.fused_step_s += total.seconds();

    AdvanceResult r;
    if (slot.step == kNoFailure) {
      r.steps_done = num_steps;
      return r;
    }
    // The failing step's element pass flagged and everything after it returned: the state is
    // u_{bad} and u_{bad-1}. Undo the buffer flips of the passes that did not run.
    r.steps_done = static_cast<std::int64_t>(slot.step) - first_step;
    parity_ ^= static_cast<int>((launched - r.steps_done) & 1);
    r.block = static_cast<int>(slot.key >> kBlockShift);
    r.element = static_cast<std::int64_t>(slot.key & ((1ull << kBlockShift) - 1));
    r.value = static_cast<double>(blocks_.det_f(r.block, r.element, current().data()));
    r.status = kernels::is_finite(r.value) ? AdvanceResult::Status::InvertedElement
                                           : AdvanceResult::Status::NotFinite;
    return r;
  }

  /// Atomic assembly on a GPU in single precision: node forces as [node][4], so that an element
  /// adds a node's force with one vector atomic (kernels::detail::atomic_add_force), as the CUDA
  /// backend does.
  static constexpr int kNodeForceStride = sizeof(T) == sizeof(float) && !kRunsOnHost<Space> ? 4 : 3;

  void allocate() {
    const System& s = sys_;
    // Node-update coefficients: central differences with mass-proportional damping q (seed 000,
    // eqs. 4-5); dynamic relaxation changes them through set_node_update().
    dt_ = s.time_step;
    const std::vector<double>& mass = s.iteration_mass.empty() ? s.lumped_mass : s.iteration_mass;
    inverse_mass_host_.resize(static_cast<std::size_t>(s.num_nodes));
    for (std::int64_t i = 0; i < s.num_nodes; ++i) inverse_mass_host_[i] = 1.0 / mass[i];
    inverse_mass_ = upload<Space, double>("fem::inverse_mass", inverse_mass_host_);
    if (!s.iteration_mass.empty()) {
      std::vector<double> weight(static_cast<std::size_t>(s.num_nodes));
      for (std::int64_t i = 0; i < s.num_nodes; ++i)
        weight[i] = s.lumped_mass[i] / s.iteration_mass[i];
      gravity_weight_ = upload<Space, T>("fem::gravity_weight", weight);
    }
    set_node_update(central_difference_update(s.time_step, s.mass_damping));
    blocks_.set_time_step(s.material_time_step);
    if (!s.contact_mask.empty()) upload_contact(s);
    offsets_ = upload<Space, std::int64_t>("fem::incidence_offsets", s.incidence_offsets);
    slots_ = upload<Space, std::int64_t>("fem::incidence_slots", s.incidence_slots);
    // Deterministic assembly keeps every element-node force and gathers per node; atomic
    // assembly adds into node forces directly (less memory traffic, summation order varies).
    if (s.deterministic)
      forces_ =
          View<Space, T>("fem::element_forces", static_cast<std::size_t>(3 * s.num_force_slots));
    else
      node_forces_ = View<Space, T>("fem::node_forces",
                                    static_cast<std::size_t>(kNodeForceStride * s.num_nodes));
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(s.num_nodes), 0);
    for (std::int64_t n = 0; n < s.num_nodes; ++n)
      for (int i = 0; i < 3; ++i) {
        if (s.prescribed_amplitude[3 * n + i] >= 0) flags[n] |= static_cast<std::uint8_t>(1u << i);
        if (s.load_amplitude[3 * n + i] >= 0) flags[n] |= static_cast<std::uint8_t>(8u << i);
        if (!s.contact_mask.empty() && s.contact_mask[n]) flags[n] |= 64u;
      }
    for (std::size_t n = 0; n < s.ghost.size(); ++n)
      if (s.ghost[n]) flags[n] |= detail::kGhostNode;
    dof_flags_ = upload<Space, std::uint8_t>("fem::dof_flags", flags);
    prescribed_amplitude_ =
        upload<Space, std::int32_t>("fem::prescribed_amplitude", s.prescribed_amplitude);
    prescribed_value_ = upload<Space, T>("fem::prescribed_value", s.prescribed_value);
    load_amplitude_ = upload<Space, std::int32_t>("fem::load_amplitude", s.load_amplitude);
    load_value_ = upload<Space, T>("fem::load_value", s.load_value);
    amplitudes_ = upload<Space, Amplitude>("fem::amplitudes", s.amplitudes);
    failure_ = Kokkos::View<FailureSlot, typename Space::memory_space>("fem::failure");
    for (auto& u : u_) u = View<Space, T>("fem::u", static_cast<std::size_t>(3 * s.num_nodes));
    set_displacement(s.initial_displacement, s.initial_previous_displacement);
  }

  View<Space, T>& current() { return u_[parity_]; }
  View<Space, T>& previous() { return u_[1 - parity_]; }
  const View<Space, T>& current() const { return u_[parity_]; }
  const View<Space, T>& previous() const { return u_[1 - parity_]; }

  void element_pass(const T* u, FailureSlot* failure) {
    T* node_forces = data_or_null(node_forces_);
    if (node_forces) Kokkos::deep_copy(Space(), node_forces_, T(0));
    blocks_.forces(u, data_or_null(forces_), node_forces, kNodeForceStride, failure, false);
  }

  void node_pass(std::int64_t step, FailureSlot* failure, bool keep, StepNorms* norms) {
    const double t = static_cast<double>(step) * dt_;
    T gravity[3] = {T(0), T(0), T(0)};
    if (sys_.gravity_amplitude >= 0) {
      const T amp = static_cast<T>(evaluate(sys_.amplitudes[sys_.gravity_amplitude], t));
      for (int i = 0; i < 3; ++i) gravity[i] = static_cast<T>(force_scale_ * sys_.gravity[i]) * amp;
    }
    if ((keep || norms) && saved_forces_.extent(0) == 0)
      saved_forces_ =
          View<Space, T>("fem::saved_forces", static_cast<std::size_t>(3 * sys_.num_nodes));
    detail::NodePass<T> pass{static_cast<unsigned long long>(step),
                             t,
                             t + dt_,
                             offsets_.data(),
                             slots_.data(),
                             data_or_null(forces_),
                             data_or_null(node_forces_),
                             kNodeForceStride,
                             acoef_.data(),
                             b_,
                             c_,
                             dof_flags_.data(),
                             prescribed_amplitude_.data(),
                             data_or_null(prescribed_value_),
                             load_amplitude_.data(),
                             data_or_null(load_value_),
                             data_or_null(amplitudes_),
                             {gravity[0], gravity[1], gravity[2]},
                             data_or_null(gravity_weight_),
                             inverse_mass_.data(),
                             current().data(),
                             previous().data(),
                             failure,
                             data_or_null(contact_mask_),
                             data_or_null(coords_),
                             data_or_null(surfaces_),
                             data_or_null(saved_forces_),
                             keep};
    const bool kept_before = forces_kept_;
    forces_kept_ = keep;
    if (!norms) {
      Kokkos::parallel_for("fem::kokkos::node_pass", Range<Space>(0, sys_.num_nodes), pass);
      return;
    }
    detail::NormAccumulator acc{};
    Kokkos::parallel_reduce("fem::kokkos::node_pass_measured", Range<Space>(0, sys_.num_nodes),
                            pass, acc);
    *norms = StepNorms{acc.inc_max, acc.inc_sq, acc.res_max, acc.res_sq,       acc.int_max,
                       acc.num,     acc.den,    {},          acc.contact_nodes};
    for (int k = 0; k < kMaxSurfaces; ++k)
      for (int i = 0; i < 3; ++i) norms->contact_force[k][i] = acc.contact[3 * k + i];
    // Without P(u_{n-1}) from the step before there is no quotient.
    if (!kept_before) norms->rayleigh_num = norms->rayleigh_den = 0.0;
  }

  /// Surfaces as views into this space's memory (triangle arrays copied once: rigid surfaces).
  void upload_contact(const System& s) {
    contact_mask_ = upload<Space, std::uint8_t>("fem::contact_mask", s.contact_mask);
    coords_ = upload<Space, T>("fem::coordinates", s.coordinates);
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
        SurfaceArrays& d = surface_arrays_.emplace_back();
        d.vertices = upload<Space, T>("fem::stl_vertices", m.vertices);
        d.face_normals = upload<Space, T>("fem::stl_face_normals", m.face_normals);
        d.edge_normals = upload<Space, T>("fem::stl_edge_normals", m.edge_normals);
        d.vertex_normals = upload<Space, T>("fem::stl_vertex_normals", m.vertex_normals);
        d.triangles = upload<Space, std::int32_t>("fem::stl_triangles", m.triangles);
        d.cell_offsets = upload<Space, std::int32_t>("fem::stl_cell_offsets", m.cell_offsets);
        d.cell_triangles = upload<Space, std::int32_t>("fem::stl_cell_triangles", m.cell_triangles);
        v.mesh = {d.vertices.data(),
                  d.triangles.data(),
                  d.face_normals.data(),
                  d.edge_normals.data(),
                  d.vertex_normals.data(),
                  {static_cast<T>(m.grid_origin[0]), static_cast<T>(m.grid_origin[1]),
                   static_cast<T>(m.grid_origin[2])},
                  static_cast<T>(m.cell_size),
                  {m.grid_dims[0], m.grid_dims[1], m.grid_dims[2]},
                  d.cell_offsets.data(),
                  d.cell_triangles.data()};
      }
      views.push_back(v);
    }
    surfaces_ = View<Space, contact::SurfaceView<T>>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem::surfaces"), views.size());
    const auto h = Kokkos::create_mirror_view(surfaces_);
    for (std::size_t i = 0; i < views.size(); ++i) h(i) = views[i];
    Kokkos::deep_copy(surfaces_, h);
  }

  RuntimeRef runtime_;  // first member: outlives the Views below
  const System& sys_;
  ElementBlocks<Space, T> blocks_;
  View<Space, T> acoef_, forces_, node_forces_, prescribed_value_, load_value_;
  View<Space, T> u_[2];
  int parity_ = 0;  // u_[parity_] holds the current displacement
  View<Space, std::int64_t> offsets_, slots_;
  View<Space, std::uint8_t> dof_flags_;
  View<Space, std::int32_t> prescribed_amplitude_, load_amplitude_;
  View<Space, Amplitude> amplitudes_;
  Kokkos::View<FailureSlot, typename Space::memory_space> failure_;
  double dt_ = 0.0, force_scale_ = 0.0;
  T b_ = 0, c_ = 0;
  /// The last node pass kept P(u_n) in saved_forces_ (a measured pass next has its quotient).
  bool forces_kept_ = false;
  /// Values the host sets at the same nodes again and again (a halo exchange after every step,
  /// follower loads before every step): the last list of nodes (host and space copy) and a View
  /// for the values, so that neither is allocated again.
  struct NodeValues {
    std::vector<std::int32_t> nodes_host;
    View<Space, std::int32_t> nodes;
    View<Space, double> values;
  };
  NodeValues set_displacements_, set_loads_;
  /// nodal_displacements: the last list of nodes (host and space copy) and the values it picked.
  mutable struct {
    std::vector<std::int32_t> nodes_host;
    View<Space, std::int32_t> nodes;
    View<Space, double> u, u_prev;
  } picked_;
  /// target[3 n + i] = values[3 k + i] for the k-th node n of `nodes`, through `buffer`.
  void put_at_nodes(NodeValues& buffer, const std::vector<std::int32_t>& nodes,
                    const std::vector<double>& values, T* target) {
    if (nodes.empty()) return;
    if (nodes != buffer.nodes_host) {
      buffer.nodes = upload<Space, std::int32_t>("fem::set_nodes", nodes);
      buffer.nodes_host = nodes;
    }
    if (buffer.values.extent(0) != values.size())
      buffer.values = View<Space, double>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem::set_values"), values.size());
    copy_in(buffer.values, values);
    Kokkos::parallel_for("fem::kokkos::put_nodes",
                         Range<Space>(0, static_cast<std::int64_t>(nodes.size())),
                         detail::PutNodes<T>{buffer.nodes.data(), buffer.values.data(), target});
  }
  std::vector<double> inverse_mass_host_;
  View<Space, double> inverse_mass_;
  View<Space, T> gravity_weight_, saved_forces_, coords_;
  View<Space, std::uint8_t> contact_mask_;
  struct SurfaceArrays {
    View<Space, T> vertices, face_normals, edge_normals, vertex_normals;
    View<Space, std::int32_t> triangles, cell_offsets, cell_triangles;
  };
  std::vector<SurfaceArrays> surface_arrays_;
  View<Space, contact::SurfaceView<T>> surfaces_;
  PhaseTimes times_;
};

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

template <class Space>
std::string describe() {
  std::string s = "Kokkos " + kokkos_version() + ", " + Space::name();
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, Space().cuda_device()) == cudaSuccess)
      s += ", " + std::string(p.name) + " (sm_" + std::to_string(p.major) +
           std::to_string(p.minor) + ")";
    // Which GPU, as the CUDA backend says it: what `--device N` chose.
    s += ", device " + std::to_string(Space().cuda_device());
  }
#endif
  if constexpr (kRunsOnHost<Space>)
    if (Space().concurrency() > 1) s += ", " + std::to_string(Space().concurrency()) + " threads";
  return s;
}

class KokkosBackend final : public Backend {
 public:
  KokkosBackend(bool on_host, int device)
      : runtime_(device), on_host_(on_host && kSeparateHostSpace) {}

  [[nodiscard]] std::string execution_space() const override {
    return on_host_ ? describe<HostSpace>() : describe<DeviceSpace>();
  }
  [[nodiscard]] std::vector<ComputeDevice> devices() const override {
#if defined(KOKKOS_ENABLE_CUDA)
    if (!on_host_) return cuda::visible_devices(Kokkos::Cuda().cuda_device());
#endif
    return {};
  }

  std::unique_ptr<ExplicitProblem> create_explicit(const System& system,
                                                   Precision precision) override {
    if constexpr (kSeparateHostSpace)
      if (on_host_) return make<HostSpace>(system, precision);
    return make<DeviceSpace>(system, precision);
  }

  std::unique_ptr<LinearAlgebra> create_linear_algebra(Precision precision) override {
    return make_linear_algebra(on_host_, precision);
  }

  std::unique_ptr<NonlinearOperator> create_operator(const System& system,
                                                     LinearAlgebra& algebra) override {
    return make_nonlinear_operator(on_host_, system, algebra);
  }
  std::unique_ptr<VoxelOperator> create_voxel_operator(const voxel::VoxelHierarchy& h,
                                                       const VoxelMaterials& materials,
                                                       Precision precision) override {
    return make_voxel_operator(on_host_, h, materials, precision);
  }

 private:
  template <class Space>
  static std::unique_ptr<ExplicitProblem> make(const System& system, Precision precision) {
    if (precision == Precision::Single)
      return std::make_unique<ExplicitProblemImpl<Space, float>>(system);
    return std::make_unique<ExplicitProblemImpl<Space, double>>(system);
  }

  RuntimeRef runtime_;
  bool on_host_;
};

/// Why this machine cannot run the device space on `device` (-1: Kokkos' choice), or empty.
std::string device_problem([[maybe_unused]] int device) {
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
    return std::string(
               "this Kokkos was built for CUDA, but there is no usable CUDA device "
               "(cudaGetDeviceCount: ") +
           cudaGetErrorString(status) + ")";
  if (count == 0) return "this Kokkos was built for CUDA, but no CUDA device is visible";
  if (device != kDefaultDevice) return cuda::device_out_of_range(device, count);
#endif
  return {};
}

Backend* create(int device, char* why, int why_size) {
  std::string reason;
  const char* env = std::getenv("FEM_KOKKOS_SPACE");
  const std::string space = env && *env ? env : "device";
  if (space != "device" && space != "host")
    reason = "FEM_KOKKOS_SPACE='" + space +
             "': expected 'device' (Kokkos' default space) or "
             "'host' (its default host space)";
  if (reason.empty()) reason = device_problem(device);
  if (reason.empty()) {
    try {
      return new KokkosBackend(space == "host", device);
    } catch (const std::exception& e) {
      reason = e.what();
    }
  }
  std::snprintf(why, static_cast<std::size_t>(why_size), "%s", reason.c_str());
  return nullptr;
}

const BackendApi kApi = {sizeof(BackendApi),
                         "portable backend (Kokkos: Serial, OpenMP or CUDA, as Kokkos was built)",
                         &create};

}  // namespace
}  // namespace fem::kokkos

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_BACKEND, "kokkos", FEM_VERSION_STRING, "kokkos",
                        &fem::kokkos::kApi)
