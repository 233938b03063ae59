// The co-rotational voxel solver (seed 004, Dick, Georgii & Westermann 2011; docs/voxels.md):
// linear elasticity whose element stiffness is warped by each voxel's rotation (the polar
// decomposition of its average deformation gradient), implicit Newmark steps (beta 1/4,
// gamma 1/2, lumped mass, mass-proportional damping), each step solved by a few geometric
// multigrid V-cycles on the voxel hierarchy with Galerkin coarse operators and coloured block
// Gauss-Seidel smoothing, all on the backend (fem/voxel/voxel_operator.hpp).
//
// CorotationalSimulation is also the interactive API: create it from a case, change forces and
// fixations between steps, step, and read the displacements of a few nodes without copying the
// mesh (apps/fem_drag is an example).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/voxel/voxel_hierarchy.hpp"
#include "fem/voxel/voxel_operator.hpp"

namespace fem {

/// The 24x24 stiffness of a cube of edge `edge` (trilinear, 2x2x2 Gauss points) for the small-
/// strain tangent `a` (a[9 (3 i + J) + 3 k + L] = dP_iJ / dF_kL at F = I), row-major by
/// (3 corner + component), corners a + 2 b + 4 c.
std::vector<double> voxel_stiffness(const std::array<double, 81>& a, double edge);

/// How one time step went.
struct CorotationalStep {
  std::int64_t step = 0;
  double time = 0.0;
  /// Residual |b - A u| over the free dofs before and after the V-cycles, relative to |b|
  /// (measured when solver.multigrid.residual_every says; negative otherwise).
  double initial_residual = -1.0;
  double final_residual = -1.0;
  int coarsest_iterations = -1;  ///< of the last V-cycle's coarsest solve (measured steps)
  [[nodiscard]] double reduction_per_cycle(int cycles) const;
};

/// Where a step's time goes, verb by verb (CorotationalSimulation::set_timing): seconds.
struct CorotationalPhases {
  double conditions = 0.0;  ///< forces and prescribed values uploaded
  double rotate = 0.0, assemble = 0.0, coarsen = 0.0;
  double smooth = 0.0, transfer = 0.0, coarsest = 0.0;
  double residual = 0.0;  ///< the residual measurements (solver.multigrid.residual_every)
  double newmark = 0.0;
};

class CorotationalSimulation {
 public:
  /// Builds the hierarchy, the voxel stiffness of every block's material, the masses and the
  /// case's conditions, and uploads them. Throws InputError for a model the solver cannot run
  /// (cells that are not equal axis-aligned cubes, a block on other cells).
  CorotationalSimulation(const Model& model, Backend& backend);
  ~CorotationalSimulation();

  [[nodiscard]] const voxel::VoxelHierarchy& hierarchy() const { return hierarchy_; }
  [[nodiscard]] VoxelOperator& grid() { return *operator_; }
  [[nodiscard]] double time() const { return time_; }
  [[nodiscard]] std::int64_t steps_done() const { return step_; }
  [[nodiscard]] double time_step() const { return dt_; }
  /// The coarsest solve's relative residual: the case's, or default_coarsest_tolerance.
  [[nodiscard]] double coarsest_tolerance() const;
  [[nodiscard]] double total_mass() const { return total_mass_; }

  // Interactive changes, in force from the next step on. Nodes are mesh node ids.
  /// A force on a node (N), replacing what set_force gave it before; the case's loads add.
  void set_force(std::int32_t node, const std::array<double, 3>& force);
  /// Prescribes the node's components (all three by default) at displacement u (m), over the
  /// case's conditions there.
  void fix(std::int32_t node, const std::array<double, 3>& u,
           const std::array<bool, 3>& components = {true, true, true});
  /// Undoes fix(): the case's conditions at the node apply again.
  void release(std::int32_t node);

  /// One time step: rotations, the fine equations, the coarse operators, the V-cycles, Newmark.
  /// Throws SolveError when an element inverts or the solution is not finite.
  CorotationalStep step();
  /// With timing on, every verb is followed by a wait for the backend and its wall time added
  /// to phases(): exact on a device, and slower (the waits).
  void set_timing(bool on) { timing_ = on; }
  [[nodiscard]] const CorotationalPhases& phases() const { return phases_; }
  /// Displacements of some nodes after the last step (3 values each).
  void displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u) const;
  /// Velocities of some nodes after the last step (3 values each).
  void velocities(const std::vector<std::int32_t>& nodes, std::vector<double>& v) const;
  /// The force the supports exert at some nodes after the last step (3 values each, N): the
  /// inertial, damping and internal forces there less the loads and gravity, zero at a free dof
  /// to the solve's tolerance. At a fixed or dragged node: what holds it where it is (the force
  /// a haptic handle renders is its opposite).
  void reaction_forces(const std::vector<std::int32_t>& nodes, std::vector<double>& f) const;
  /// Every voxel's results in the current state, per block of the model (BlockResults:
  /// cauchy_stress and green_lagrange, the co-rotated small strain to first order, at the
  /// voxel's centre; strain_energy; min_jacobian: det F at the centre); a pass over every voxel
  /// and a copy of all of it (frames, not every step).
  [[nodiscard]] std::vector<BlockResults> element_results() const;
  /// Displacement and velocity (and acceleration, where `a` is given) of every mesh node (3
  /// values each; 0 at nodes in no voxel).
  void state(std::vector<double>& u, std::vector<double>& v,
             std::vector<double>* a = nullptr) const;
  /// Continues from a state that state() gave after `step` steps at `time` (a checkpoint):
  /// displacement, velocity and acceleration per mesh node.
  void restore(std::int64_t step, double time, const std::vector<double>& u,
               const std::vector<double>& v, const std::vector<double>& a);
  /// A fingerprint of the model the steps depend on (voxels, materials, masses, the case's
  /// conditions and amplitudes; not the solver's settings), for checkpoints: computed when
  /// first asked for.
  [[nodiscard]] std::uint64_t fingerprint() const;

 private:
  void update_masks();
  void update_conditions(double t);
  [[nodiscard]] int node_vertex(std::int32_t node) const;
  [[nodiscard]] std::vector<std::int32_t> vertices_of(const std::vector<std::int32_t>& nodes) const;
  void v_cycle(CorotationalStep& out);

  const Model& model_;
  voxel::VoxelHierarchy hierarchy_;
  std::unique_ptr<VoxelOperator> operator_;
  double dt_ = 0.0;
  double time_ = 0.0;
  std::int64_t step_ = 0;
  double total_mass_ = 0.0;
  std::vector<double> mass_;                ///< per fine vertex
  std::vector<std::int64_t> block_voxels_;  ///< per model block
  // The case's conditions per fine vertex: prescribed components with value and amplitude.
  struct Prescribed {
    std::uint8_t components = 0;
    std::array<double, 3> value{};
    std::array<std::int32_t, 3> amplitude{};
  };
  std::map<std::int32_t, Prescribed> case_prescribed_;
  struct Load {
    std::array<double, 3> force{};
    std::int32_t amplitude = -1;
  };
  std::map<std::int32_t, std::vector<Load>> case_loads_;
  std::map<std::int32_t, std::array<double, 3>> user_forces_;
  std::map<std::int32_t, Prescribed> user_fixed_;  ///< amplitude unused: constant
  std::vector<const Amplitude*> amplitudes_;
  std::array<double, 3> gravity_{};
  const Amplitude* gravity_amplitude_ = nullptr;
  bool masks_dirty_ = true;
  /// The conditions last sent to the backend (update_conditions sends only changes).
  struct Uploads {
    std::vector<std::int32_t> prescribed_at, forces_at;
    std::vector<double> prescribed, forces;
  };
  Uploads uploaded_;
  bool timing_ = false;
  std::uint64_t stiffness_hash_ = 0;  ///< of every block's voxel stiffness
  mutable std::optional<std::uint64_t> fingerprint_;
  CorotationalPhases phases_;
  VoxelStepScales last_scales_;  ///< of the last step
  bool recorded_ = false;        ///< the backend holds a recording of a step with last_scales_
};

struct CorotationalRunOptions {
  std::string output_directory;  ///< empty: no files
  /// A checkpoint to continue from (fem run --restart): its output files are cut back to what
  /// it recorded and continued.
  std::string restart_file;
  std::string case_text;  ///< recorded in checkpoints
  std::function<void(std::int64_t, std::int64_t, double)> progress;
  std::function<bool()> stop_requested;
  std::int64_t steps = 0;   ///< 0: the case's (end_time / time_step)
  bool time_verbs = false;  ///< CorotationalSimulation::set_timing
};

struct CorotationalRunReport {
  std::int64_t steps = 0, elements = 0, nodes = 0;
  std::int64_t first_step = 0;  ///< the step a restart continued from (0: from the start)
  std::vector<std::int64_t> level_vertices;  ///< per level, without padding
  double time_step = 0.0;
  std::string backend, execution_space, precision;
  double setup_s = 0.0, step_s = 0.0, output_s = 0.0, total_s = 0.0;
  [[nodiscard]] double steps_per_second() const {
    return step_s > 0 ? static_cast<double>(steps - first_step) / step_s : 0.0;
  }
  /// Over the steps that measured it: the geometric mean and the largest residual reduction
  /// factor per V-cycle.
  double mean_reduction = -1.0, worst_reduction = -1.0;
  double mean_coarsest_iterations = -1.0;  ///< over the measured steps
  double max_displacement = 0.0;
  CorotationalPhases phases;               ///< with time_verbs
  std::vector<double> final_displacement;  ///< per mesh node
  std::vector<std::string> files;
  bool interrupted = false;
  std::string checkpoint;  ///< the last checkpoint written (empty: none)
};

/// Runs a case of solver type corotational: CorotationalSimulation stepped to end_time, frames
/// and summary.json written.
CorotationalRunReport run_corotational(const Model& model, Backend& backend,
                                       const std::string& backend_name,
                                       const CorotationalRunOptions& options);

}  // namespace fem
