// The voxel multigrid of seed 004 as the implicit solvers' preconditioner (`linear:
// {preconditioner: multigrid}`) on meshes of equal axis-aligned cubes that the box multigrid
// (multigrid.cpp) cannot coarsen: voxels from an image or the voxels generator, a box with an odd
// division. At every setup the operator assembles its tangent (node-major CSR, identity rows and
// columns at prescribed dofs), which becomes the fine level's 27-block stencil rows; the coarse
// levels are its Galerkin products on the voxel hierarchy (VoxelOperator::coarsen, seed eqs.
// 10-11), on the backend. Each application is one V-cycle from zero: coloured block Gauss-Seidel,
// as many sweeps after the coarse correction (in the reverse colour order) as before, and the
// coarsest level solved to round-off, so that the cycle is symmetric positive definite, as
// conjugate gradients need. The residual and the correction cross to the host at each
// application (the stencil rows at each setup): node and vertex numbering differ.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../preconditioner_factories.hpp"
#include "fem/backend.hpp"
#include "fem/error.hpp"
#include "fem/kernels/voxel_kernels.hpp"
#include "fem/model.hpp"
#include "fem/voxel/voxel_hierarchy.hpp"
#include "fem/voxel/voxel_operator.hpp"
#include "model_hexahedra.hpp"
#include "voxel_cycle.hpp"

namespace fem {
namespace {

/// Sweeps before and after the coarse correction: equal, for a symmetric cycle.
constexpr int kSweeps = 2;
/// Coarsen until the coarsest level has at most this many vertices; solve it to about the
/// precision's round-off (conjugate gradients: the tangent must be positive definite, as the
/// conjugate gradients around the preconditioner need anyway).
constexpr std::int64_t kCoarsestVertices = 512;
constexpr int kCoarsestIterations = 2000;
double coarsest_tolerance(Precision p) {
  return p == Precision::Single ? 1.0e-5 : 1.0e-12;
}

class VoxelMultigrid final : public Preconditioner {
 public:
  VoxelMultigrid(const PreconditionerContext& context, voxel::VoxelHierarchy hierarchy)
      : la_(context.algebra),
        h_(std::move(hierarchy)),
        coarsest_tolerance_(coarsest_tolerance(context.model.spec.precision)) {
    // The operator's own stiffness and masses stay zero: its fine equations are the tangent's.
    VoxelMaterials none;
    none.stiffness.assign(
        static_cast<std::size_t>(kernels::voxel::kElementDofs * kernels::voxel::kElementDofs), 0.0);
    none.element_material.assign(static_cast<std::size_t>(h_.elements), 0);
    none.mass.assign(static_cast<std::size_t>(h_.levels[0].vertices), 0.0);
    grid_ = context.backend.create_voxel_operator(h_, none, context.model.spec.precision);
    const std::size_t n = 3 * static_cast<std::size_t>(h_.levels[0].vertices);
    b_.assign(n, 0.0);
    zero_.assign(n, 0.0);
  }

  void setup(NonlinearOperator& op, const Vector& /*u*/) override {
    CsrMatrix a;
    op.assemble(a);
    constexpr int kSlots = kernels::voxel::kSlots, kEntries = kernels::voxel::kRowEntries;
    const voxel::VoxelLevel& fine = h_.levels[0];
    std::vector<double> rows(static_cast<std::size_t>(kEntries * fine.vertices), 0.0);
    std::vector<std::uint8_t> fixed(static_cast<std::size_t>(fine.vertices), 0);
    for (std::int64_t v = 0; v < fine.vertices; ++v) {
      const std::int32_t node = h_.vertex_node[v];
      if (node < 0) {  // padding: an identity row, prescribed
        for (int i = 0; i < 3; ++i) rows[kEntries * v + 9 * kernels::voxel::kCentre + 4 * i] = 1.0;
        fixed[v] = 7;
        continue;
      }
      // The vertex's neighbours by vertex number, to find each column's stencil slot.
      std::array<std::pair<std::int32_t, int>, kSlots> slots{};
      int count = 0;
      for (int s = 0; s < kSlots; ++s)
        if (const std::int32_t w = fine.neighbours[kSlots * v + s]; w >= 0) slots[count++] = {w, s};
      std::sort(slots.begin(), slots.begin() + count);
      for (int i = 0; i < 3; ++i) {
        const std::int64_t row = 3 * static_cast<std::int64_t>(node) + i;
        const std::int64_t begin = a.offsets[row], end = a.offsets[row + 1];
        // A prescribed dof's row: 1 on the diagonal and (structural) zeros elsewhere.
        bool identity = true;
        for (std::int64_t k = begin; k < end && identity; ++k)
          identity = a.values[k] == (a.columns[k] == row ? 1.0 : 0.0);
        if (identity) fixed[v] |= static_cast<std::uint8_t>(1u << i);
        for (std::int64_t k = begin; k < end; ++k) {
          const std::int32_t w = h_.node_vertex[a.columns[k] / 3];
          const auto at = std::lower_bound(slots.begin(), slots.begin() + count,
                                           std::pair<std::int32_t, int>{w, -1});
          if (w < 0 || at == slots.begin() + count || at->first != w)
            throw Error("voxel multigrid: the tangent couples node " + std::to_string(node) +
                        " with a node outside its voxels (solver bug)");
          rows[kEntries * v + 9 * at->second + 3 * i + a.columns[k] % 3] = a.values[k];
        }
      }
    }
    grid_->set_masks(voxel::level_masks(h_, fixed), zero_);
    grid_->set_equations(0, rows, zero_);
    for (int l = 1; l < grid_->levels(); ++l) grid_->coarsen(l);
  }

  void apply(const Vector& r, Vector& z) override {
    la_.download(r, node_values_);
    for (std::size_t v = 0; v < h_.vertex_node.size(); ++v)
      if (const std::int32_t n = h_.vertex_node[v]; n >= 0)
        for (int c = 0; c < 3; ++c)
          b_[3 * v + c] = node_values_[3 * static_cast<std::size_t>(n) + c];
    grid_->set_right_hand_side(0, b_);
    grid_->set_unknown(0, zero_);
    voxel::v_cycle(*grid_, 0, kSweeps, kSweeps, kCoarsestIterations, coarsest_tolerance_, false,
                   [](voxel::CycleVerb, const auto& verb) { verb(); });
    grid_->unknown(0, x_);
    // Nodes in no voxel (none in a mesh of voxels alone) keep the residual: the identity.
    for (std::size_t v = 0; v < h_.vertex_node.size(); ++v)
      if (const std::int32_t n = h_.vertex_node[v]; n >= 0)
        for (int c = 0; c < 3; ++c)
          node_values_[3 * static_cast<std::size_t>(n) + c] = x_[3 * v + c];
    la_.upload(node_values_, z);
  }

  [[nodiscard]] std::string name() const override {
    return "multigrid (" + std::to_string(grid_->levels()) + " levels, voxel Galerkin)";
  }

 private:
  LinearAlgebra& la_;
  voxel::VoxelHierarchy h_;
  double coarsest_tolerance_;
  std::unique_ptr<VoxelOperator> grid_;
  std::vector<double> b_, x_, zero_, node_values_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_voxel_multigrid_preconditioner(
    const PreconditionerContext& context) {
  const std::vector<std::int32_t> cells = voxel::model_hexahedra(context.model).cells;
  if (cells.empty()) return nullptr;
  voxel::VoxelHierarchy h;
  try {
    h = voxel::build_voxel_hierarchy(context.model.mesh, cells, kCoarsestVertices);
  } catch (const Error&) {
    return nullptr;  // not equal axis-aligned cubes
  }
  if (h.levels.size() < 2) return nullptr;
  return std::make_unique<VoxelMultigrid>(context, std::move(h));
}

}  // namespace fem
