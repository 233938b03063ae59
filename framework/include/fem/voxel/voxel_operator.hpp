// The structured-grid verbs of the backend contract (../shared/DESIGN.md, "Operators"): what a
// backend offers the co-rotated voxel multigrid (seed 004; docs/voxels.md). The operator holds
// the hierarchy, the per-vertex equations of every level and the Newmark state in the backend's
// memory and precision; the solver (framework/src/solver/voxel/) composes the verbs into time
// steps and V-cycles and never touches a kernel. Every backend runs the same kernels
// (fem/kernels/voxel_kernels.hpp) through fem/voxel/voxel_operator_impl.hpp; only the way they
// are run in parallel differs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "fem/config.hpp"
#include "fem/voxel/voxel_hierarchy.hpp"

namespace fem {

/// The material data of a voxel model: one 24x24 element stiffness per material (row-major by
/// 3 corner + component, for a voxel of the hierarchy's edge), each element's material, and
/// the lumped mass of every fine vertex (kg; 0 at padding).
struct VoxelMaterials {
  std::vector<double> stiffness;  ///< 576 per material
  /// The small-strain tangent of each material, 81 values (a[9 (3 i + j) + 3 k + l]), for the
  /// stresses of element_results; may be empty where none are asked for.
  std::vector<double> tangent;
  std::vector<std::uint8_t> element_material;  ///< per element
  std::vector<double> mass;                    ///< per fine vertex
};

/// The time step's scalars (kernels::voxel::StepScales) in double.
struct VoxelStepScales {
  double mass_shift = 0.0;      ///< 4 / dt^2 + 2 alpha / dt
  double velocity_scale = 0.0;  ///< 4 / dt + alpha
  std::array<double, 3> gravity{};
  double time_step = 0.0;
};

/// How the coarsest level's solve went.
struct CoarsestSolve {
  int iterations = 0;
  double relative_residual = 0.0;
};

/// The verbs, on vectors of 3 values per vertex of a level (padding included). Level 0 is the
/// finest. Vectors named here: u (the level's unknown: the displacement at level 0, the
/// correction below), b (right-hand side), r (residual).
class VoxelOperator {
 public:
  virtual ~VoxelOperator() = default;
  VoxelOperator() = default;
  VoxelOperator(const VoxelOperator&) = delete;
  VoxelOperator& operator=(const VoxelOperator&) = delete;

  [[nodiscard]] virtual Precision precision() const = 0;
  [[nodiscard]] virtual int levels() const = 0;

  // State (fine level; 3 values per fine vertex, padding included).
  /// Sets u_old, v_old, a_old (the last step's state) and u (the next solve's start) = u_old.
  virtual void set_state(const std::vector<double>& u, const std::vector<double>& v,
                         const std::vector<double>& a) = 0;
  virtual void state(std::vector<double>& u, std::vector<double>& v,
                     std::vector<double>& a) const = 0;
  /// u at the given fine vertices (3 values each): what an interactive caller reads.
  virtual void displacements(const std::vector<std::int32_t>& vertices,
                             std::vector<double>& u) const = 0;
  /// The velocity at the given fine vertices (3 values each).
  virtual void velocities(const std::vector<std::int32_t>& vertices,
                          std::vector<double>& v) const = 0;
  /// The force the supports exert at the given fine vertices after the last step (3 values
  /// each, N): m (a + mass_damping v) + f_int(u) - f - m gravity there, with that step's
  /// rotations and forces (kernels::voxel::support_force; zero at free dofs to the solve's
  /// tolerance).
  virtual void support_forces(const std::vector<std::int32_t>& vertices, double mass_damping,
                              const std::array<double, 3>& gravity,
                              std::vector<double>& f) const = 0;

  /// Every voxel's results in the current state (kernels::voxel::voxel_results: Cauchy
  /// stress, co-rotated strain, strain energy, det F; kResultValues each, voxel after voxel).
  /// Needs the materials' tangents.
  virtual void element_results(std::vector<double>& values) const = 0;

  // Conditions.
  /// Which dofs are prescribed, per level (voxel::level_masks), and every fine vertex's
  /// prescribed values (3 each): when fixations change.
  virtual void set_masks(const std::vector<std::vector<std::uint8_t>>& masks,
                         const std::vector<double>& prescribed) = 0;
  /// Prescribed values at some fine vertices (3 each), between steps.
  virtual void set_prescribed(const std::vector<std::int32_t>& vertices,
                              const std::vector<double>& values) = 0;
  /// External forces at some fine vertices (3 each, N); the others keep theirs.
  virtual void set_forces(const std::vector<std::int32_t>& vertices,
                          const std::vector<double>& values) = 0;

  // The time step (seed section 4.2).
  /// Element rotations from u_old. Returns the first element whose det F <= 0 (-1: none) and
  /// that det F.
  virtual std::pair<std::int64_t, double> rotate() = 0;
  /// The fine level's equations A u = b of the Newmark step; u starts at u_old with the
  /// prescribed values.
  virtual void assemble(const VoxelStepScales& scales) = 0;
  /// Level `level`'s Galerkin operator from level - 1's (level >= 1). After assemble(), level 1
  /// is summed from the voxels themselves (the same operator without reading the fine rows:
  /// kernels::voxel, "Level 1 cell by cell"); after set_equations(), from the rows given.
  virtual void coarsen(int level) = 0;
  /// assemble(), then coarsen() for every coarser level: the step's operators on every level.
  /// A backend may form the coarse levels alongside the fine one and the verbs on level 0 that
  /// follow (smooth, restrict_residual, residual_norms), waiting for them at the first verb on
  /// a coarser level.
  virtual void assemble_levels(const VoxelStepScales& scales) {
    assemble(scales);
    for (int l = 1; l < levels(); ++l) coarsen(l);
  }
  /// Coloured block Gauss-Seidel sweeps on level's u (colours 0..7; reversed: 7..0).
  virtual void smooth(int level, int sweeps, bool reversed) = 0;
  /// r = b - A u on level, then b = P^T r and u = 0 on level + 1.
  virtual void restrict_residual(int level) = 0;
  /// u += P u(level + 1) on level.
  virtual void interpolate(int level) = 0;
  /// The coarsest level's A u = b by block-Jacobi conjugate gradients from its u (zero after
  /// restrict_residual; the last step's displacement on a one-level hierarchy). With `report`,
  /// waits for it and says how it went (a round trip); otherwise returns {-1, -1} at once.
  virtual CoarsestSolve solve_coarsest(int max_iterations, double tolerance, bool report) = 0;
  /// |b - A u| on the level's free dofs, and |b| there (a round trip).
  virtual std::array<double, 2> residual_norms(int level) = 0;
  /// The new velocity and acceleration from u; u becomes u_old.
  virtual void newmark(double time_step) = 0;

  /// The level's equations to the host (tests): A (243 per vertex, slot-major within a vertex)
  /// and b (3 per vertex).
  virtual void equations(int level, std::vector<double>& a, std::vector<double>& b) const = 0;
  /// Sets the level's equations (tests: a coarse operator from given fine rows; the implicit
  /// solvers' preconditioner: the tangent's rows at level 0).
  virtual void set_equations(int level, const std::vector<double>& a,
                             const std::vector<double>& b) = 0;
  /// The level's right-hand side b from the host (a preconditioner's residual).
  virtual void set_right_hand_side(int level, const std::vector<double>& b) = 0;
  /// The level's u to and from the host (tests, a preconditioner's correction).
  virtual void unknown(int level, std::vector<double>& u) const = 0;
  virtual void set_unknown(int level, const std::vector<double>& u) = 0;

  /// Records the verbs `enqueue` issues, without running them, so that replay() runs them again
  /// in one go (CUDA: a graph launched at once instead of a launch per kernel, where launches
  /// cost more than a small model's kernels). Only for verbs that neither wait for the backend
  /// nor transfer (no residual_norms, no rotate, no report from solve_coarsest), with the same
  /// scalar arguments every time. Returns false, without calling `enqueue`, where the backend
  /// does not record (the default).
  virtual bool record(const std::function<void()>& /*enqueue*/) { return false; }
  /// Runs the last recording again.
  virtual void replay() {}
  virtual void synchronize() {}
  /// Bytes held in the backend's memory.
  [[nodiscard]] virtual std::size_t memory_bytes() const = 0;
};

}  // namespace fem
