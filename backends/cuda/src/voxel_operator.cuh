// The CUDA backend's voxel multigrid verbs (voxel_operator.cu).
#pragma once

#include <memory>

#include <fem/voxel/voxel_operator.hpp>

namespace fem::cuda {

std::unique_ptr<VoxelOperator> make_voxel_operator(const voxel::VoxelHierarchy& h,
                                                   const VoxelMaterials& materials,
                                                   Precision precision);

}  // namespace fem::cuda
