// A model's blocks in device memory, shared by the explicit problem and the implicit operator:
// the upload of each block's element arrays (component-major by default, tuning.hpp), the
// arguments of its element passes, the node-to-slot incidence that the deterministic gathers
// read, and pass 2 of the averaged nodal pressure.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fem/backend.hpp>
#include <fem/cuda/check.hpp>
#include <fem/cuda/element_kernels.cuh>
#include <fem/kernels/averaged_pressure.hpp>
#include <fem/kernels/material_table.hpp>

#include "device_array.cuh"

namespace fem::cuda {

/// Threads per block of the kernels that run one thread per node.
constexpr int kNodeThreads = 256;

/// Row stride of the component-major layout: the element count rounded up to 32, so that every
/// row starts on a 128-byte line and a warp's 32 elements read whole lines.
inline std::int64_t element_row_stride(std::int64_t elements) {
  return (elements + 31) / 32 * 32;
}

/// Elements [first, first + count) of the pass `a`: every per-element array offset (records or
/// component-major rows alike; material state and per-slot forces are records).
template <class T>
ElementPassArgs<T> element_range(ElementPassArgs<T> a, std::int64_t first, std::int64_t count) {
  const std::int64_t npe = a.nodes_per_element, nqp = a.quadrature_points;
  const auto offset = [&](auto* p, std::int64_t size) {
    return p ? p + (a.element_stride ? first : first * size) : p;
  };
  a.connectivity = offset(a.connectivity, npe);
  a.gradients = offset(a.gradients, nqp * npe * 3);
  a.volumes = offset(a.volumes, nqp);
  a.hourglass_vectors = offset(a.hourglass_vectors, 12);
  if (a.hourglass_stiffness) a.hourglass_stiffness += first;
  if (a.state) a.state += first * nqp * a.num_state;
  if (a.trial_state) a.trial_state += first * nqp * a.num_state;
  if (a.forces) a.forces += 3 * first * npe;
  if (a.element_pressure) a.element_pressure += first;
  if (a.element_volume_ratio) a.element_volume_ratio += first;
  a.num_elements = count;
  return a;
}

/// One block's element data in device memory, in precision T, with its material's passes.
template <class T>
struct DeviceBlock {
  const BlockSystem* system = nullptr;
  const kernels::PrecisionPasses<Passes, T>* passes = nullptr;  ///< the material's, this precision
  KernelShape shape = kernels::kGeneric;
  DeviceArray<std::int32_t> connectivity;
  DeviceArray<T> gradients, volumes, hourglass_vectors, hourglass_base, hourglass_stiffness, params,
      state;
  typename Passes<T>::Force forces = nullptr;
  typename Passes<T>::Evaluate evaluate = nullptr;
  typename Passes<T>::Pressure pressure = nullptr;  ///< averaged-nodal-pressure blocks only
  /// ElementPassArgs::element_stride of the arrays above (0: records).
  std::int64_t element_stride = 0;

  /// Block b uploaded, its material's kernels checked; component-major (structure of arrays)
  /// or as the host's records. Material state starts at zero.
  static DeviceBlock upload(const BlockSystem& b, bool component_major_layout) {
    const MaterialKernels& table = kernels::checked_material_kernels<MaterialKernels>(b, "cuda");
    DeviceBlock d;
    d.system = &b;
    d.passes = &table.passes.template of<T>();
    if (component_major_layout) {
      d.element_stride = element_row_stride(b.num_elements);
      d.connectivity.upload_rows(b.connectivity, b.num_elements, d.element_stride);
      d.gradients.upload_rows(b.shape_gradients, b.num_elements, d.element_stride);
      d.volumes.upload_rows(b.quadrature_volumes, b.num_elements, d.element_stride);
      d.hourglass_vectors.upload_rows(b.hourglass_vectors, b.num_elements, d.element_stride);
    } else {
      d.connectivity.upload(b.connectivity);
      d.gradients.upload(b.shape_gradients);
      d.volumes.upload(b.quadrature_volumes);
      d.hourglass_vectors.upload(b.hourglass_vectors);
    }
    d.hourglass_base.upload(b.hourglass_base);
    d.hourglass_stiffness.upload(b.hourglass_stiffness);
    d.params.upload(b.material_params);
    d.state.resize(static_cast<std::size_t>(d.state_entries()));
    if (!d.state.empty()) {
      FEM_CUDA_CHECK(cudaMemset(d.state.data(), 0, d.state.bytes()));
      FEM_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // before any stream reads it
    }
    d.shape = kernel_shape(b.family, b.nodes_per_element, b.quadrature_points);
    d.forces = kernels::required_kernel(d.passes->forces[d.shape], b);
    d.evaluate = kernels::required_kernel(d.passes->evaluate[d.shape], b);
    if (b.pressure_offset >= 0) d.pressure = kernels::required_kernel(d.passes->pressure, b);
    return d;
  }

  [[nodiscard]] int num_state() const { return system->material->host.num_state; }
  /// Entries of the material state, [e][q][num_state].
  [[nodiscard]] std::int64_t state_entries() const {
    return system->num_elements * system->quadrature_points * num_state();
  }

  /// The arguments of a pass over this block at displacement u: its arrays, everything the
  /// caller points at (outputs, pressures, the direction) null.
  ElementPassArgs<T> args(const T* u) {
    const BlockSystem& s = *system;
    ElementPassArgs<T> a{s.num_elements,
                         s.nodes_per_element,
                         s.quadrature_points,
                         connectivity.data(),
                         gradients.data(),
                         volumes.data(),
                         hourglass_vectors.data_or_null(),
                         hourglass_base.data_or_null(),
                         hourglass_stiffness.data_or_null(),
                         params.data_or_null(),
                         state.data_or_null(),
                         num_state(),
                         u,
                         nullptr};
    a.element_stride = element_stride;
    return a;
  }

  /// Stress, strain and energies of every element of the block (`args`: its pass at the
  /// displacement wanted, nodal pressures set), downloaded into `out` once computed.
  /// With `fields` false only the energies are computed and copied back (an energy record
  /// without a frame: 2 of the 15 doubles an element has, which on a 73 M-element model is the
  /// difference between 1.2 and 8.8 GB through PCIe), the other arrays of `out` left empty.
  void results(const ElementPassArgs<T>& args, cudaStream_t stream, BlockResults& out,
               bool fields = true) {
    const auto ne = static_cast<std::size_t>(system->num_elements);
    const std::size_t nf = fields ? ne : 0;
    // Without hourglass control the energies alone leave hourglass_energy empty (all zero):
    // half of what a tetrahedral model's energy record copies back.
    const std::size_t nh = fields || energies_include_hourglass(system->family) ? ne : 0;
    DeviceArray<double> cauchy(6 * nf), strain(6 * nf), energy(ne), hourglass(nh), min_j(nf);
    const ElementResultsOut r{cauchy.data_or_null(), strain.data_or_null(), energy.data(),
                              hourglass.data_or_null(), min_j.data_or_null()};
    evaluate(args, r, stream);
    cauchy.download(out.cauchy_stress, stream);
    strain.download(out.green_lagrange, stream);
    energy.download(out.strain_energy, stream);
    hourglass.download(out.hourglass_energy, stream);
    min_j.download(out.min_jacobian, stream);
  }

  [[nodiscard]] std::size_t bytes() const {
    return connectivity.bytes() + gradients.bytes() + volumes.bytes() + hourglass_vectors.bytes() +
           hourglass_base.bytes() + hourglass_stiffness.bytes() + params.bytes() + state.bytes();
  }
};

/// The node-to-slot incidence (System::incidence_*) in 32 bits, half the index bytes of a
/// gather; a model with more slots is refused with `hint`.
inline void upload_slot_incidence(const System& s, DeviceArray<std::int32_t>& offsets,
                                  DeviceArray<std::int32_t>& slots, const std::string& hint) {
  if (s.num_force_slots > std::numeric_limits<std::int32_t>::max())
    throw Error(
        "the CUDA backend's deterministic assembly indexes element-node forces in 32 bits: "
        "this model has " +
        std::to_string(s.num_force_slots) + " (elements x nodes per element); " + hint);
  offsets.upload(s.incidence_offsets);
  slots.upload(s.incidence_slots);
}

/// Averaged nodal pressure, pass 2: every node's volume-weighted mean of its ANP elements' values.
template <class T>
__global__ void __launch_bounds__(kNodeThreads)
    nodal_average_kernel(std::int64_t num_nodes, const std::int64_t* offsets,
                         const std::int32_t* elements, const T* element_values,
                         const T* inverse_volume, T* out, const Failure* failure) {
  if (failure && failure->element != kNoFailure) return;
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < num_nodes)
    out[n] = kernels::nodal_average(n, offsets, elements, element_values, inverse_volume);
}

/// The averaged nodal pressure's node-to-element incidence (System::pressure_incidence_*) and
/// inverse nodal volumes in device memory; empty without ANP blocks.
template <class T>
struct DevicePressureIncidence {
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int32_t> elements;
  DeviceArray<T> inverse_volume;

  void upload(const System& s) {
    if (s.num_pressure_elements == 0) return;
    offsets.upload(s.pressure_incidence_offsets);
    elements.upload(s.pressure_incidence_elements);
    inverse_volume.upload(s.pressure_inverse_volume);
  }

  /// Enqueues pass 2: nodal[n] = the mean of element_values over node n's ANP elements.
  void average(std::int64_t num_nodes, const T* element_values, T* nodal, const Failure* failure,
               cudaStream_t stream) const {
    if (num_nodes == 0) return;
    nodal_average_kernel<T><<<grid_for(num_nodes, kNodeThreads), kNodeThreads, 0, stream>>>(
        num_nodes, offsets.data(), elements.data(), element_values, inverse_volume.data(), nodal,
        failure);
    FEM_CUDA_CHECK_LAUNCH();
  }

  [[nodiscard]] std::size_t bytes() const {
    return offsets.bytes() + elements.bytes() + inverse_volume.bytes();
  }
};

}  // namespace fem::cuda
