// The OpenMP backend: the readable CPU reference for every other backend.
//
// One element pass per block (the material plugin's fused kernel) and one node pass per step that
// gathers element forces through the node-to-slot incidence, applies loads, advances the damped
// central-difference update of seed 000 (eqs. 3-5) and imposes prescribed displacements.
#include <omp.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fem/backend.hpp>
#include <fem/contact/rigid_surface.hpp>
#include <fem/error.hpp>
#include <fem/kernels/material_table.hpp>
#include <fem/openmp/element_kernels.hpp>
#include <fem/plugin.hpp>
#include <fem/voxel/voxel_operator_impl.hpp>

#include "element_blocks.hpp"
#include "linear_algebra.hpp"
#include "nonlinear_operator.hpp"
#include "voxel_exec.hpp"

namespace fem::openmp {
namespace {

/// Flush denormals to zero in every OpenMP worker. Ahead of a wave front displacements and
/// forces decay through the denormal range, where x86 arithmetic is up to 100x slower: single
/// precision runs otherwise spend most of their early steps there. Values below 1e-38 do not
/// change any result that matters.
void flush_denormals_in_all_threads() {
#if defined(__SSE__)
#pragma omp parallel
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
#endif
}

template <class T>
class ExplicitProblemImpl final : public ExplicitProblem {
 public:
  explicit ExplicitProblemImpl(const System& s) : sys_(s), blocks_(s) {
    dt_ = s.time_step;
    const std::vector<double>& mass = s.iteration_mass.empty() ? s.lumped_mass : s.iteration_mass;
    inverse_mass_.resize(s.num_nodes);
    for (std::int64_t i = 0; i < s.num_nodes; ++i) inverse_mass_[i] = 1.0 / mass[i];
    if (!s.iteration_mass.empty()) {
      // Gravity is a force m g on the physical mass; the update divides by the iteration mass.
      gravity_weight_.resize(s.num_nodes);
      for (std::int64_t i = 0; i < s.num_nodes; ++i)
        gravity_weight_[i] = static_cast<T>(s.lumped_mass[i] / s.iteration_mass[i]);
    }
    set_node_update(central_difference_update(s.time_step, s.mass_damping));
    blocks_.set_time_step(s.material_time_step);
    if (!s.contact_mask.empty()) {
      coords_ = convert<T>(s.coordinates);
      surface_arrays_.reserve(s.surfaces.size());
      for (const RigidSurface& surf : s.surfaces) surfaces_.push_back(surface_data(surf));
    }
    forces_.assign(static_cast<std::size_t>(3 * s.num_force_slots), T(0));
    prescribed_value_ = convert<T>(s.prescribed_value);
    load_value_ = convert<T>(s.load_value);
    amp_now_.resize(s.amplitudes.size());
    amp_next_.resize(s.amplitudes.size());
    u_ = convert<T>(s.initial_displacement);
    u_prev_ = convert<T>(s.initial_previous_displacement);
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
    gravity_scale_ = update.force_scale;
    b_ = static_cast<T>(update.b);
    c_ = static_cast<T>(update.c);
    a_.resize(sys_.num_nodes);
    for (std::int64_t i = 0; i < sys_.num_nodes; ++i)
      a_[i] = static_cast<T>(update.force_scale * inverse_mass_[i]);
  }

  void displacement(std::vector<double>& u) const override { u.assign(u_.begin(), u_.end()); }
  void previous_displacement(std::vector<double>& u) const override {
    u.assign(u_prev_.begin(), u_prev_.end());
  }
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override {
    u_.assign(u.begin(), u.end());
    u_prev_.assign(u_prev.begin(), u_prev.end());
  }
  void pack_halo() override {
    for (std::size_t k = 0; k < halo_send_.size(); ++k)
      for (int i = 0; i < 3; ++i)
        halo_send_values_[3 * k + i] =
            static_cast<double>(u_[3 * static_cast<std::size_t>(halo_send_[k]) + i]);
  }

  void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                               const std::vector<double>& u) override {
    put_at_nodes(nodes, u, u_);
  }
  void set_nodal_loads(const std::vector<std::int32_t>& nodes,
                       const std::vector<double>& forces) override {
    put_at_nodes(nodes, forces, load_value_);
  }

  void material_state(std::size_t block, std::vector<double>& state) const override {
    const std::vector<T>& s = blocks_.blocks()[block].state;
    state.assign(s.begin(), s.end());
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    blocks_.blocks()[block].state = convert<T>(state);
  }

  void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                             std::vector<double>& out) const override {
    // A node's slots in incidence order, summed in double.
    out.assign(3 * nodes.size(), 0.0);
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const std::int32_t n = nodes[k];
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i)
          out[3 * k + i] += static_cast<double>(forces_[3 * sys_.incidence_slots[j] + i]);
    }
  }

  void internal_forces(const std::vector<double>& u, std::vector<double>& out) override {
    std::vector<T> scratch(forces_.size(), T(0));
    const std::vector<T> ut(u.begin(), u.end());
    // History is not advanced, and no time passes: the forces of the accepted state.
    blocks_.set_time_step(0.0);
    blocks_.forces(ut.data(), scratch.data(), true);
    blocks_.set_time_step(sys_.material_time_step);
    blocks_.gather(scratch, out);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const std::vector<T> ut(u.begin(), u.end());
    blocks_.evaluate(ut.data(), out);
  }
  void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const std::vector<T> ut(u.begin(), u.end());
    blocks_.evaluate(ut.data(), out, false);
  }

  [[nodiscard]] PhaseTimes phase_times() const override { return times_; }

  [[nodiscard]] std::size_t memory_bytes() const override {
    std::size_t bytes = blocks_.memory_bytes();
    const auto add = [&bytes](const auto&... v) { ((bytes += v.size() * sizeof(v[0])), ...); };
    add(a_, forces_, u_, u_prev_, prescribed_value_, load_value_, amp_now_, amp_next_);
    return bytes;
  }

 private:
  /// target[3 n + i] = values[3 k + i] for the k-th node n of `nodes`.
  static void put_at_nodes(const std::vector<std::int32_t>& nodes,
                           const std::vector<double>& values, std::vector<T>& target) {
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (int i = 0; i < 3; ++i)
        target[3 * static_cast<std::size_t>(nodes[k]) + i] = static_cast<T>(values[3 * k + i]);
  }

  /// Steps first_step.. first_step + num_steps - 1; norms: the last one is measured; keep_last:
  /// the last one keeps P(u_n) for a measured step in the next call (advance_step).
  AdvanceResult run_steps(std::int64_t first_step, std::int64_t num_steps, StepNorms* norms,
                          bool keep_last = false) {
    flush_denormals_in_all_threads();  // also in workers the pool created since the last call
    AdvanceResult result;
    for (std::int64_t k = 0; k < num_steps; ++k) {
      const double t = static_cast<double>(first_step + k) * dt_;
      const double t0 = omp_get_wtime();
      // The step before the measured one keeps P(u_{n-1}) for the Rayleigh quotient.
      const bool keep = (norms && k + 2 == num_steps) || (keep_last && k + 1 == num_steps);
      const bool measure = norms && k + 1 == num_steps;
      const AdvanceResult bad = element_pass(u_);
      const double t1 = omp_get_wtime();
      times_.element_pass_s += t1 - t0;
      if (bad.status != AdvanceResult::Status::Ok) {
        result.status = bad.status;
        result.block = bad.block;
        result.element = bad.element;
        result.value = bad.value;
        return result;
      }
      if (measure)
        node_pass<true>(t, norms, keep);
      else
        node_pass<false>(t, nullptr, keep);
      times_.node_pass_s += omp_get_wtime() - t1;
      result.steps_done = k + 1;
    }
    return result;
  }

  AdvanceResult element_pass(const std::vector<T>& u) {
    AdvanceResult r;
    const PassFailure bad = blocks_.forces(u.data(), forces_.data());
    if (bad.failed()) {
      r.status =
          bad.finite ? AdvanceResult::Status::InvertedElement : AdvanceResult::Status::NotFinite;
      r.block = bad.block;
      r.element = bad.element;
      r.value = bad.value;
    }
    return r;
  }

  /// A surface in this backend's precision; triangle data stays in `surface_arrays_`.
  contact::SurfaceView<T> surface_data(const RigidSurface& s) {
    contact::SurfaceView<T> v{};
    v.kind = static_cast<int>(s.kind);
    for (int i = 0; i < 3; ++i) {
      v.point[i] = static_cast<T>(s.point[i]);
      v.normal[i] = static_cast<T>(s.normal[i]);
      v.translation[i] = static_cast<T>(s.translation[i]);
    }
    v.radius = static_cast<T>(s.radius);
    v.side = s.side;
    v.amplitude = s.amplitude;
    if (s.kind == SurfaceKind::Triangles) {
      const TriangleMesh& m = s.mesh;
      auto& arrays = surface_arrays_.emplace_back();
      arrays.vertices = convert<T>(m.vertices);
      arrays.face_normals = convert<T>(m.face_normals);
      arrays.edge_normals = convert<T>(m.edge_normals);
      arrays.vertex_normals = convert<T>(m.vertex_normals);
      v.mesh.vertices = arrays.vertices.data();
      v.mesh.triangles = m.triangles.data();
      v.mesh.face_normals = arrays.face_normals.data();
      v.mesh.edge_normals = arrays.edge_normals.data();
      v.mesh.vertex_normals = arrays.vertex_normals.data();
      for (int i = 0; i < 3; ++i) {
        v.mesh.origin[i] = static_cast<T>(m.grid_origin[i]);
        v.mesh.dims[i] = m.grid_dims[i];
      }
      v.mesh.cell_size = static_cast<T>(m.cell_size);
      v.mesh.cell_offsets = m.cell_offsets.data();
      v.mesh.cell_triangles = m.cell_triangles.data();
    }
    return v;
  }

  /// Gather forces, central-difference update, loads, prescribed displacements and contact: one
  /// pass. Measure: also the reductions of StepNorms; keep: store P(u_n) for the next step's
  /// Rayleigh quotient.
  template <bool Measure>
  void node_pass(double t, StepNorms* norms, bool keep) {
    for (std::size_t i = 0; i < sys_.amplitudes.size(); ++i) {
      amp_now_[i] = static_cast<T>(evaluate(sys_.amplitudes[i], t));
      amp_next_[i] = static_cast<T>(evaluate(sys_.amplitudes[i], t + dt_));
    }
    T gravity[3] = {0, 0, 0};
    if (sys_.gravity_amplitude >= 0)
      for (int i = 0; i < 3; ++i)
        gravity[i] =
            static_cast<T>(gravity_scale_ * sys_.gravity[i]) * amp_now_[sys_.gravity_amplitude];
    if ((keep || Measure) && saved_forces_.size() != u_.size())
      saved_forces_.assign(u_.size(), T(0));
    const std::int64_t* offsets = sys_.incidence_offsets.data();
    const std::int64_t* slots = sys_.incidence_slots.data();
    const std::int32_t* pamp = sys_.prescribed_amplitude.data();
    const std::int32_t* lamp = sys_.load_amplitude.data();
    const std::uint8_t* cmask = sys_.contact_mask.empty() ? nullptr : sys_.contact_mask.data();
    const std::uint8_t* ghost = sys_.ghost.empty() ? nullptr : sys_.ghost.data();
    const T* gweight = gravity_weight_.empty() ? nullptr : gravity_weight_.data();
    const contact::SurfaceView<T>* surfaces = surfaces_.data();
    const T* f = forces_.data();
    T* u = u_.data();
    T* u_prev = u_prev_.data();  // overwritten with u_{n+1}
    T* saved = saved_forces_.empty() ? nullptr : saved_forces_.data();
    double inc_max = 0, inc_sq = 0, res_max = 0, res_sq = 0, int_max = 0, num = 0, den = 0;
    double cf[3 * kMaxSurfaces] = {};
    std::int64_t touched = 0;
#pragma omp parallel for schedule(static) if (sys_.num_nodes >= kMinParallelNodes) \
    reduction(max : inc_max, res_max, int_max)                                          \
    reduction(+ : inc_sq, res_sq, num, den, touched, cf[:3 * kMaxSurfaces])
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n) {
      // Another process owns a ghost node and sends its u_{n+1} after the step: nothing of it is
      // written here (u_prev, which receives u_{n+1}, keeps u_{n-1} until then) and it stays out
      // of this process's norms.
      if (ghost && ghost[n]) continue;
      T p[3] = {T(0), T(0), T(0)};
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) p[i] += f[3 * slots[j] + i];
      const T g = gweight ? gweight[n] : T(1);
      T next[3], r[3];
      for (int i = 0; i < 3; ++i) {
        const std::int64_t d = 3 * n + i;
        if (pamp[d] >= 0) {
          next[i] = prescribed_value_[d] * amp_next_[pamp[d]];
          r[i] = T(0);
        } else {
          r[i] = -p[i];
          if (lamp[d] >= 0) r[i] += load_value_[d] * amp_now_[lamp[d]];
          next[i] = a_[n] * r[i] + gravity[i] * g + b_ * u[d] - c_ * u_prev[d];
        }
      }
      if (cmask && cmask[n]) {
        for (int s = 0; s < kMaxSurfaces; ++s) {
          if (!(cmask[n] & (1u << s))) continue;
          const contact::SurfaceView<T>& surf = surfaces[s];
          T moved[3];
          const T amp = surf.amplitude >= 0 ? amp_next_[surf.amplitude] : T(0);
          if (!contact::correct_node(surf, amp, coords_.data() + 3 * n, next, moved)) continue;
          if constexpr (Measure) {
            ++touched;
            for (int i = 0; i < 3; ++i) {
              const double force = static_cast<double>(moved[i]) / static_cast<double>(a_[n]);
              cf[3 * s + i] += force;
              r[i] += static_cast<T>(force);
            }
          }
        }
      }
      for (int i = 0; i < 3; ++i) {
        const std::int64_t d = 3 * n + i;
        if constexpr (Measure) {
          int_max = std::max(int_max, std::abs(static_cast<double>(p[i])));
          if (pamp[d] < 0) {
            const double inc = static_cast<double>(next[i]) - static_cast<double>(u[d]);
            const double du = static_cast<double>(u[d]) - static_cast<double>(u_prev[d]);
            // Gravity is part of R: the update applies it as a_n m g.
            const double res = static_cast<double>(r[i]) +
                               static_cast<double>(gravity[i] * g) / static_cast<double>(a_[n]);
            inc_max = std::max(inc_max, std::abs(inc));
            inc_sq += inc * inc;
            res_max = std::max(res_max, std::abs(res));
            res_sq += res * res;
            num += du * (static_cast<double>(p[i]) - static_cast<double>(saved[d]));
            den += du * du / inverse_mass_[n];
          }
        }
        if (keep) saved[d] = p[i];
        u_prev[d] = next[i];
      }
    }
    u_.swap(u_prev_);
    const bool kept_before = forces_kept_;
    forces_kept_ = keep;
    if constexpr (Measure) {
      *norms = StepNorms{inc_max, inc_sq, res_max, res_sq, int_max, num, den, {}, touched};
      for (int s = 0; s < kMaxSurfaces; ++s)
        for (int i = 0; i < 3; ++i) norms->contact_force[s][i] = cf[3 * s + i];
      // Without P(u_{n-1}) from the step before there is no quotient.
      if (!kept_before) norms->rayleigh_num = norms->rayleigh_den = 0.0;
    }
  }

  const System& sys_;
  ElementBlocks<T> blocks_;
  std::vector<T> a_, forces_, u_, u_prev_, prescribed_value_, load_value_, amp_now_, amp_next_;
  std::vector<T> gravity_weight_, saved_forces_, coords_;
  std::vector<double> inverse_mass_;
  struct SurfaceArrays {
    std::vector<T> vertices, face_normals, edge_normals, vertex_normals;
  };
  std::vector<SurfaceArrays> surface_arrays_;  // reserved up front: views point into it
  std::vector<contact::SurfaceView<T>> surfaces_;
  double dt_ = 0.0, gravity_scale_ = 0.0;
  T b_ = 0, c_ = 0;
  /// The last node pass kept P(u_n) in saved_forces_ (a measured pass next has its quotient).
  bool forces_kept_ = false;
  PhaseTimes times_;
};

class OpenMpBackend final : public Backend {
 public:
  [[nodiscard]] std::string execution_space() const override {
    return "OpenMP, " + std::to_string(omp_get_max_threads()) + " threads";
  }
  std::unique_ptr<ExplicitProblem> create_explicit(const System& system,
                                                   Precision precision) override {
    if (precision == Precision::Single) return std::make_unique<ExplicitProblemImpl<float>>(system);
    return std::make_unique<ExplicitProblemImpl<double>>(system);
  }
  std::unique_ptr<LinearAlgebra> create_linear_algebra(Precision precision) override {
    flush_denormals_in_all_threads();
    if (precision == Precision::Single) return std::make_unique<LinearAlgebraImpl<float>>();
    return std::make_unique<LinearAlgebraImpl<double>>();
  }
  std::unique_ptr<NonlinearOperator> create_operator(const System& system,
                                                     LinearAlgebra& algebra) override {
    if (auto* single = dynamic_cast<LinearAlgebraImpl<float>*>(&algebra))
      return std::make_unique<NonlinearOperatorImpl<float>>(system, *single);
    if (auto* dbl = dynamic_cast<LinearAlgebraImpl<double>*>(&algebra))
      return std::make_unique<NonlinearOperatorImpl<double>>(system, *dbl);
    throw Error("openmp backend: the operator's vectors must come from this backend");
  }
  std::unique_ptr<VoxelOperator> create_voxel_operator(const voxel::VoxelHierarchy& h,
                                                       const VoxelMaterials& materials,
                                                       Precision precision) override {
    flush_denormals_in_all_threads();
    if (precision == Precision::Single)
      return std::make_unique<voxel::VoxelOperatorOn<VoxelExec, float>>(h, materials);
    return std::make_unique<voxel::VoxelOperatorOn<VoxelExec, double>>(h, materials);
  }
};

/// Runs on the host's cores: there is no device to choose (`device` is ignored).
Backend* create(int /*device*/, char* /*why*/, int /*why_size*/) {
  return new OpenMpBackend();
}

const BackendApi kApi = {sizeof(BackendApi), "CPU reference backend (OpenMP)", &create};

}  // namespace
}  // namespace fem::openmp

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_BACKEND, "openmp", FEM_VERSION_STRING, "openmp",
                        &fem::openmp::kApi)
