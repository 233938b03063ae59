// One V-cycle of the voxel multigrid (seed 004, section 4.2), shared by the co-rotational solver's
// time steps and the implicit solver's voxel preconditioner (voxel_preconditioner.cpp).
#pragma once

#include "fem/voxel/voxel_operator.hpp"

namespace fem::voxel {

/// What a verb of the cycle is, for a caller that times them.
enum class CycleVerb { Smooth, Transfer, Coarsest };

/// One V-cycle on `op` from `level` down, from the level's current unknown: `pre` coloured
/// block Gauss-Seidel sweeps, the residual restricted, the coarser levels (the coarsest by
/// conjugate gradients), the correction interpolated, `post` sweeps in the reverse colour
/// order (with pre == post and the coarsest solved exactly the cycle is symmetric). Every verb
/// runs through run(verb kind, verb), which may time it. Returns the coarsest solve's
/// iterations where `report` (a round trip to a device), else -1.
template <class Run>
int v_cycle(VoxelOperator& op, int level, int pre, int post, int coarsest_iterations,
            double coarsest_tolerance, bool report, Run&& run) {
  if (level == op.levels() - 1) {
    int iterations = -1;
    run(CycleVerb::Coarsest, [&] {
      iterations = op.solve_coarsest(coarsest_iterations, coarsest_tolerance, report).iterations;
    });
    return iterations;
  }
  run(CycleVerb::Smooth, [&] { op.smooth(level, pre, false); });
  run(CycleVerb::Transfer, [&] { op.restrict_residual(level); });
  const int iterations =
      v_cycle(op, level + 1, pre, post, coarsest_iterations, coarsest_tolerance, report, run);
  run(CycleVerb::Transfer, [&] { op.interpolate(level); });
  // The reverse colour order after the correction keeps the cycle symmetric.
  run(CycleVerb::Smooth, [&] { op.smooth(level, post, true); });
  return iterations;
}

}  // namespace fem::voxel
