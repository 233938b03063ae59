// The Kokkos backend's operators for the implicit solvers (fem/operator.hpp), built in their own
// translation unit (operators.cpp): the backend class only picks the space and the precision.
#pragma once

#include <memory>

#include <fem/backend.hpp>
#include <fem/config.hpp>
#include <fem/operator.hpp>

namespace fem::kokkos {

/// Vectors and their verbs on Kokkos' default space, or with `on_host` on its default host space
/// (where that is another space: a CUDA-enabled Kokkos), in `precision`.
std::unique_ptr<LinearAlgebra> make_linear_algebra(bool on_host, Precision precision);

/// The nonlinear operator of `system` on the vectors of `algebra`, which make_linear_algebra made
/// with the same `on_host`.
std::unique_ptr<NonlinearOperator> make_nonlinear_operator(bool on_host, const System& system,
                                                           LinearAlgebra& algebra);

/// The voxel multigrid's verbs (fem/voxel/voxel_operator.hpp) on the same space
/// (voxel_operator.cpp).
std::unique_ptr<VoxelOperator> make_voxel_operator(bool on_host, const voxel::VoxelHierarchy& h,
                                                   const VoxelMaterials& materials,
                                                   Precision precision);

}  // namespace fem::kokkos
