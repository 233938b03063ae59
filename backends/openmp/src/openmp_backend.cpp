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
#include <fem/error.hpp>
#include <fem/kernels/material_table.hpp>
#include <fem/openmp/element_kernels.hpp>
#include <fem/plugin.hpp>

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
std::vector<T> convert(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
struct BlockData {
  const BlockSystem* system;
  std::vector<std::int32_t> connectivity;
  std::vector<T> gradients, volumes, hourglass_vectors, hourglass_base, hourglass_stiffness, params,
      state;
  int num_state = 0;
  ForceLoop<T> forces = nullptr;
  EvaluateLoop<T> evaluate = nullptr;
  PressureLoop<T> pressure = nullptr;  ///< averaged-nodal-pressure blocks only
};

template <class T>
class ExplicitProblemImpl final : public ExplicitProblem {
 public:
  explicit ExplicitProblemImpl(const ExplicitSystem& s) : sys_(s) {
    for (const BlockSystem& b : s.blocks) {
      const MaterialKernels& table =
          kernels::checked_material_kernels<MaterialKernels>(b, "openmp");
      BlockData<T> d;
      d.system = &b;
      d.connectivity = b.connectivity;
      d.gradients = convert<T>(b.shape_gradients);
      d.volumes = convert<T>(b.quadrature_volumes);
      d.hourglass_vectors = convert<T>(b.hourglass_vectors);
      d.hourglass_base = convert<T>(b.hourglass_base);
      d.hourglass_stiffness = convert<T>(b.hourglass_stiffness);
      d.params = convert<T>(b.material_params);
      d.num_state = b.material->host.num_state;
      d.state.assign(static_cast<std::size_t>(b.num_elements * b.quadrature_points * d.num_state),
                     T(0));
      const KernelShape shape = kernel_shape(b.family, b.nodes_per_element, b.quadrature_points);
      if constexpr (std::is_same_v<T, float>) {
        d.forces = kernels::required_kernel(table.forces_single[shape], b);
        d.evaluate = kernels::required_kernel(table.evaluate_single[shape], b);
        if (b.pressure_offset >= 0) d.pressure = kernels::required_kernel(table.pressure_single, b);
      } else {
        d.forces = kernels::required_kernel(table.forces_double[shape], b);
        d.evaluate = kernels::required_kernel(table.evaluate_double[shape], b);
        if (b.pressure_offset >= 0) d.pressure = kernels::required_kernel(table.pressure_double, b);
      }
      blocks_.push_back(std::move(d));
    }
    // Central-difference coefficients with mass-proportional damping q (seed 000, eq. 4-5).
    const double dt = s.time_step, q = s.mass_damping;
    dt_ = dt;
    b_ = static_cast<T>(4.0 / (2.0 + q * dt));
    c_ = static_cast<T>((2.0 - q * dt) / (2.0 + q * dt));
    const double force_scale = 2.0 * dt * dt / (2.0 + q * dt);
    gravity_scale_ = force_scale;
    a_.resize(s.num_nodes);
    for (std::int64_t i = 0; i < s.num_nodes; ++i)
      a_[i] = static_cast<T>(force_scale / s.lumped_mass[i]);
    forces_.assign(static_cast<std::size_t>(3 * s.num_force_slots), T(0));
    prescribed_value_ = convert<T>(s.prescribed_value);
    load_value_ = convert<T>(s.load_value);
    amp_now_.resize(s.amplitudes.size());
    amp_next_.resize(s.amplitudes.size());
    u_ = convert<T>(s.initial_displacement);
    u_prev_ = convert<T>(s.initial_previous_displacement);
    if (s.num_pressure_elements > 0) {
      element_pressure_.assign(static_cast<std::size_t>(s.num_pressure_elements), T(0));
      element_volume_ratio_.assign(static_cast<std::size_t>(s.num_pressure_elements), T(0));
      nodal_pressure_.assign(static_cast<std::size_t>(s.num_nodes), T(0));
      pressure_inverse_volume_ = convert<T>(s.pressure_inverse_volume);
    }
  }

  AdvanceResult advance(std::int64_t first_step, std::int64_t num_steps) override {
    flush_denormals_in_all_threads();  // also in workers the pool created since the last call
    AdvanceResult result;
    for (std::int64_t k = 0; k < num_steps; ++k) {
      const double t = static_cast<double>(first_step + k) * dt_;
      const double t0 = omp_get_wtime();
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
      node_pass(t);
      times_.node_pass_s += omp_get_wtime() - t1;
      result.steps_done = k + 1;
    }
    return result;
  }

  void displacement(std::vector<double>& u) const override { u.assign(u_.begin(), u_.end()); }
  void previous_displacement(std::vector<double>& u) const override {
    u.assign(u_prev_.begin(), u_prev_.end());
  }
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override {
    u_.assign(u.begin(), u.end());
    u_prev_.assign(u_prev.begin(), u_prev.end());
  }

  std::array<double, 3> internal_force_sum(const std::vector<std::int32_t>& nodes) const override {
    std::array<double, 3> sum = {0, 0, 0};
    for (const std::int32_t n : nodes)
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i)
          sum[i] += static_cast<double>(forces_[3 * sys_.incidence_slots[j] + i]);
    return sum;
  }

  void internal_forces(const std::vector<double>& u, std::vector<double>& out) override {
    const std::vector<T> saved = forces_;
    const std::vector<T> ut(u.begin(), u.end());
    element_pass(ut);
    out.assign(3 * sys_.num_nodes, 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n)
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i)
          out[3 * n + i] += static_cast<double>(forces_[3 * sys_.incidence_slots[j] + i]);
    forces_ = saved;
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const std::vector<T> ut(u.begin(), u.end());
    pressure_passes(ut.data(), true);  // every step recomputes the nodal pressures it uses
    out.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const std::int64_t ne = blocks_[b].system->num_elements;
      BlockResults& r = out[b];
      r.cauchy_stress.assign(6 * ne, 0.0);
      r.green_lagrange.assign(6 * ne, 0.0);
      r.strain_energy.assign(ne, 0.0);
      r.hourglass_energy.assign(ne, 0.0);
      r.min_jacobian.assign(ne, 0.0);
      const ElementResultsOut results{r.cauchy_stress.data(), r.green_lagrange.data(),
                                      r.strain_energy.data(), r.hourglass_energy.data(),
                                      r.min_jacobian.data()};
      ElementPassArgs<T> args = pass_args(blocks_[b], ut.data());
      args.nodal_volume_ratio = nodal_volume_ratio_.empty() ? nullptr : nodal_volume_ratio_.data();
      blocks_[b].evaluate(args, results);
    }
  }

  [[nodiscard]] PhaseTimes phase_times() const override {
    return times_;
  }

 private:
  ElementPassArgs<T> pass_args(BlockData<T>& b, const T* u) {
    const BlockSystem& s = *b.system;
    return ElementPassArgs<T>{
        s.num_elements,
        s.nodes_per_element,
        s.quadrature_points,
        b.connectivity.data(),
        b.gradients.data(),
        b.volumes.data(),
        b.hourglass_vectors.empty() ? nullptr : b.hourglass_vectors.data(),
        b.hourglass_base.empty() ? nullptr : b.hourglass_base.data(),
        b.hourglass_stiffness.empty() ? nullptr : b.hourglass_stiffness.data(),
        b.params.data(),
        b.state.empty() ? nullptr : b.state.data(),
        b.num_state,
        u,
        forces_.data() + 3 * s.force_offset,
        nullptr,  // always deterministic: the node pass gathers per-slot forces
        3,
        s.pressure_offset >= 0 ? element_pressure_.data() + s.pressure_offset : nullptr,
        nullptr,
        nodal_pressure_.empty() ? nullptr : nodal_pressure_.data(),
        nullptr};
  }

  /// Averaged nodal pressure, passes 1 and 2 (fem/kernels/averaged_pressure.hpp): each ANP
  /// element's V_e U'(J_e), then every node's volume-weighted mean. With volume_ratio (results)
  /// also the nodal mean volume ratios, for the volumetric energy.
  void pressure_passes(const T* u, bool volume_ratio) {
    if (sys_.num_pressure_elements == 0) return;
    for (BlockData<T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u);
      if (volume_ratio)
        args.element_volume_ratio = element_volume_ratio_.data() + b.system->pressure_offset;
      b.pressure(args);
    }
    nodal_average(element_pressure_, nodal_pressure_);
    if (volume_ratio) {
      nodal_volume_ratio_.resize(nodal_pressure_.size());
      nodal_average(element_volume_ratio_, nodal_volume_ratio_);
    }
  }

  void nodal_average(const std::vector<T>& element_values, std::vector<T>& nodal) const {
    const std::int64_t* offsets = sys_.pressure_incidence_offsets.data();
    const std::int32_t* elements = sys_.pressure_incidence_elements.data();
    const T* values = element_values.data();
    const T* inverse_volume = pressure_inverse_volume_.data();
    T* out = nodal.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n)
      out[n] = kernels::nodal_average(n, offsets, elements, values, inverse_volume);
  }

  AdvanceResult element_pass(const std::vector<T>& u) {
    AdvanceResult r;
    pressure_passes(u.data(), false);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const BadElement<T> bad = blocks_[b].forces(pass_args(blocks_[b], u.data()));
      if (bad.element >= 0 && r.status == AdvanceResult::Status::Ok) {
        r.status = kernels::is_finite(bad.value) ? AdvanceResult::Status::InvertedElement
                                                 : AdvanceResult::Status::NotFinite;
        r.block = static_cast<int>(b);
        r.element = bad.element;
        r.value = static_cast<double>(bad.value);
      }
    }
    return r;
  }

  /// Gather forces, central-difference update, loads and prescribed displacements: one pass.
  void node_pass(double t) {
    for (std::size_t i = 0; i < sys_.amplitudes.size(); ++i) {
      amp_now_[i] = static_cast<T>(evaluate(sys_.amplitudes[i], t));
      amp_next_[i] = static_cast<T>(evaluate(sys_.amplitudes[i], t + dt_));
    }
    T gravity[3] = {0, 0, 0};
    if (sys_.gravity_amplitude >= 0)
      for (int i = 0; i < 3; ++i)
        gravity[i] =
            static_cast<T>(gravity_scale_ * sys_.gravity[i]) * amp_now_[sys_.gravity_amplitude];
    const std::int64_t* offsets = sys_.incidence_offsets.data();
    const std::int64_t* slots = sys_.incidence_slots.data();
    const std::int32_t* pamp = sys_.prescribed_amplitude.data();
    const std::int32_t* lamp = sys_.load_amplitude.data();
    const T* f = forces_.data();
    T* u = u_.data();
    T* u_prev = u_prev_.data();  // overwritten with u_{n+1}
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n) {
      T p[3] = {T(0), T(0), T(0)};
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) p[i] += f[3 * slots[j] + i];
      for (int i = 0; i < 3; ++i) {
        const std::int64_t d = 3 * n + i;
        T next;
        if (pamp[d] >= 0) {
          next = prescribed_value_[d] * amp_next_[pamp[d]];
        } else {
          T r = -p[i];
          if (lamp[d] >= 0) r += load_value_[d] * amp_now_[lamp[d]];
          next = a_[n] * r + gravity[i] + b_ * u[d] - c_ * u_prev[d];
        }
        u_prev[d] = next;
      }
    }
    u_.swap(u_prev_);
  }

  const ExplicitSystem& sys_;
  std::vector<BlockData<T>> blocks_;
  std::vector<T> a_, forces_, u_, u_prev_, prescribed_value_, load_value_, amp_now_, amp_next_;
  // Averaged nodal pressure: per ANP element (global order) and per node.
  std::vector<T> element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_,
      pressure_inverse_volume_;
  double dt_ = 0.0, gravity_scale_ = 0.0;
  T b_ = 0, c_ = 0;
  PhaseTimes times_;
};

class OpenMpBackend final : public Backend {
 public:
  [[nodiscard]] std::string execution_space() const override {
    return "OpenMP, " + std::to_string(omp_get_max_threads()) + " threads";
  }
  std::unique_ptr<ExplicitProblem> create_explicit(const ExplicitSystem& system,
                                                   Precision precision) override {
    if (precision == Precision::Single) return std::make_unique<ExplicitProblemImpl<float>>(system);
    return std::make_unique<ExplicitProblemImpl<double>>(system);
  }
};

Backend* create(char* /*why*/, int /*why_size*/) {
  return new OpenMpBackend();
}

const BackendApi kApi = {sizeof(BackendApi), "CPU reference backend (OpenMP)", &create};

}  // namespace
}  // namespace fem::openmp

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_BACKEND, "openmp", FEM_VERSION_STRING, "openmp",
                        &fem::openmp::kApi)
