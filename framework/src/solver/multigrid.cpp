// Geometric multigrid on the hierarchy of a built-in box mesh: the preconditioner
// `solver: {linear: {preconditioner: multigrid}}` of the implicit solvers' conjugate gradients.
//
// Levels are the box at halved divisions (multigrid_hierarchy.hpp), down to about 1,500 dofs or
// to a level with an odd division. Coarse operators are rediscretised, not Galerkin products:
// every coarse level is a Model of its own, with its System and the backend's NonlinearOperator,
// linearized at the fine linearization point injected into its nodes, with the fine operator's
// shift (so the implicit-dynamic mass term is in every level). Transfers are sparse matrices on
// the backend: P, the coarse elements' interpolation, and R = P^T. The smoother is a Chebyshev
// polynomial in D^-1 A (D the diagonal), the coarsest level the direct solver.
//
// One V-cycle per CG iteration. The cycle starts from zero and smooths with the same polynomial
// before and after the coarse correction: it is then a symmetric positive definite operator
// (while the Chebyshev interval covers the spectrum of D^-1 A), which CG needs. Everything but
// the coarsest solve and the setup's diagonal inversion is LinearAlgebra verbs and operator
// actions, so the cycle runs in the backend's memory on every backend.
#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/solver/explicit_system.hpp"
#include "multigrid_hierarchy.hpp"
#include "preconditioner_factories.hpp"

namespace fem {
namespace {

/// Levels are halved until the coarsest has at most this many dofs: its factorization then
/// costs about as much as a few fine-level tangent actions.
constexpr std::int64_t kCoarsestDofs = 1500;
/// Tangent actions of the smoother before, and again after, the coarse correction.
constexpr int kChebyshevDegree = 3;
/// The smoother damps the spectrum of D^-1 A in [lambda_max / 30, lambda_max]: the upper part,
/// which the coarse level cannot represent (the bound of MFEM's OperatorChebyshevSmoother and of
/// hypre's Chebyshev smoother).
constexpr double kChebyshevRange = 30.0;
/// Lanczos steps of the lambda_max estimate, and its safety factor: the estimate approaches the
/// largest eigenvalue from below, and a polynomial whose interval misses part of the spectrum
/// amplifies it.
constexpr int kLanczosSteps = 10;
constexpr double kLambdaSafety = 1.1;
/// Halvings of a coarse linearization point that inverts an element before the reference
/// configuration is taken instead.
constexpr int kLinearizationHalvings = 2;

class Multigrid final : public Preconditioner {
 public:
  Multigrid(const LinearSolverSpec& spec, const PreconditionerContext& context);
  void setup(NonlinearOperator& op, const Vector& u) override;
  void apply(const Vector& r, Vector& z) override { cycle(0, r, z); }
  [[nodiscard]] std::string name() const override;

 private:
  struct Level {
    // Coarse levels own their model, system and operator (declared in the order they depend on
    // each other); the finest level's belong to the solver.
    std::unique_ptr<Model> model;
    std::unique_ptr<System> system;
    std::unique_ptr<NonlinearOperator> coarse_op;
    NonlinearOperator* op = nullptr;
    std::int64_t size = 0;
    // To the next coarser level; none on the coarsest.
    std::unique_ptr<Matrix> prolongation, restriction, injection;
    // Coarse levels: their part of the cycle's right-hand side and solution, and their
    // linearization point.
    std::unique_ptr<Vector> rhs, solution, point;
    std::unique_ptr<Vector> residual, direction, scratch, product;
    std::unique_ptr<Vector> inverse_diagonal;
    std::unique_ptr<Vector> lanczos_start;  ///< random at free dofs, zero at prescribed ones
    double lambda_max = 0.0;                ///< of D^-1 A, with the safety factor
  };

  void cycle(std::size_t l, const Vector& b, Vector& x);
  void smooth(Level& level, const Vector& b, Vector& x, bool from_zero);
  /// Returns whether the point had to be scaled down.
  bool linearize_coarse(Level& level, double shift_stiffness, double shift_mass);
  void invert_diagonal(Level& level);
  double estimate_lambda_max(Level& level);

  LinearAlgebra& la_;
  std::vector<std::unique_ptr<Level>> levels_;
  std::unique_ptr<Preconditioner> coarsest_;
  int setups_ = 0;
  int scaled_setups_ = 0;  ///< setups where a coarse level fell back (name())
};

std::string list(const std::array<int, 3>& d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "]";
}

bool halvable(const std::array<int, 3>& divisions) {
  return divisions[0] % 2 == 0 && divisions[1] % 2 == 0 && divisions[2] % 2 == 0;
}

Multigrid::Multigrid(const LinearSolverSpec& spec, const PreconditionerContext& context)
    : la_(context.algebra) {
  const Model& fine = context.model;
  const MeshSpec& box = fine.spec.mesh;
  if (!box.file.empty() || box.file_mesh || box.generator != "box")
    throw InputError(spec.where,
                     "multigrid needs a mesh from the box generator (mesh.generator: box) or of "
                     "equal axis-aligned cubes (voxels)",
                     "use amg, block_jacobi or jacobi");
  if (!halvable(box.divisions))
    throw InputError(spec.where,
                     "multigrid needs at least two levels, made by halving every box division, "
                     "but mesh.divisions " +
                         list(box.divisions) + " has an odd one",
                     "use even divisions (every further halving that keeps them even adds a "
                     "level, down to about " +
                         std::to_string(kCoarsestDofs) +
                         " dofs), cubic hex8 cells (the voxel multigrid coarsens those), or amg, "
                         "block_jacobi or jacobi");

  auto finest = std::make_unique<Level>();
  finest->op = &context.op;
  finest->size = context.op.size();
  levels_.push_back(std::move(finest));
  const Model* finer_model = &fine;
  const System* finer_system = &context.op.system();
  multigrid::BoxGrid finer_grid = multigrid::box_grid(fine);
  for (;;) {
    multigrid::CoarseModel coarse = multigrid::coarsen(*finer_model, finer_grid);
    auto level = std::make_unique<Level>();
    level->model = std::move(coarse.model);
    level->system = std::make_unique<System>(std::move(setup_explicit(*level->model).system));
    level->coarse_op = context.backend.create_operator(*level->system, la_);
    level->op = level->coarse_op.get();
    level->size = level->op->size();
    Level& finer = *levels_.back();
    const CsrMatrix p =
        multigrid::prolongation(box.cells, finer_grid, *finer_system, coarse.grid, *level->system);
    finer.prolongation = la_.matrix(p);
    finer.restriction = la_.matrix(multigrid::transpose(p));
    finer.injection = la_.matrix(multigrid::injection(coarse.fine_node, finer_grid.num_nodes()));
    finer_model = level->model.get();
    finer_system = level->system.get();
    finer_grid = std::move(coarse.grid);
    levels_.push_back(std::move(level));
    if (3 * finer_grid.num_nodes() <= kCoarsestDofs || !halvable(finer_grid.divisions())) break;
  }

  std::mt19937 random(12345);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    Level& level = *levels_[l];
    for (auto* v : {&level.residual, &level.direction, &level.scratch, &level.product})
      *v = la_.vector(level.size);
    if (l > 0)
      for (auto* v : {&level.rhs, &level.solution, &level.point}) *v = la_.vector(level.size);
    if (l + 1 == levels_.size()) continue;
    level.inverse_diagonal = la_.vector(level.size);
    std::vector<double> start(static_cast<std::size_t>(level.size));
    for (std::int64_t d = 0; d < level.size; ++d)
      start[d] = level.op->system().prescribed_amplitude[d] < 0 ? uniform(random) : 0.0;
    level.lanczos_start = la_.vector(level.size);
    la_.upload(start, *level.lanczos_start);
  }
  coarsest_ = make_direct_preconditioner(la_);
}

void Multigrid::setup(NonlinearOperator& op, const Vector& u) {
  levels_.front()->op = &op;
  bool scaled = false;
  const Vector* finer_point = &u;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    Level& level = *levels_[l];
    if (l > 0) {
      la_.multiply(*levels_[l - 1]->injection, *finer_point, *level.point);
      // The fine increment's step: a rate-dependent law's algorithmic tangent depends on it
      // (the coarse levels' history stays at its initial value, which a preconditioner may).
      level.op->set_time_step(op.time_step());
      scaled |= linearize_coarse(level, op.shift_stiffness(), op.shift_mass());
      finer_point = level.point.get();
    }
    if (l + 1 == levels_.size()) {
      coarsest_->setup(*level.op, *level.point);
    } else {
      invert_diagonal(level);
      level.lambda_max = kLambdaSafety * estimate_lambda_max(level);
    }
  }
  ++setups_;
  if (scaled) ++scaled_setups_;
}

bool Multigrid::linearize_coarse(Level& level, double shift_stiffness, double shift_mass) {
  // At large strains the injected point can invert a coarse element that no fine element
  // inverts: a coarse element sees only its corners, not the fine nodes between them. Its
  // tangent then means nothing (not finite, or not positive definite) and would spoil the cycle.
  // A coarse level need only approximate the fine tangent's smooth modes, so it falls back to
  // the injection halved (twice), and then to the reference configuration, which is valid.
  NonlinearOperator& op = *level.op;
  int halvings = 0;
  for (; !op.internal_forces(*level.point, *level.product).ok(); ++halvings) {
    if (halvings == kLinearizationHalvings) {
      la_.fill(*level.point, 0.0);
      break;
    }
    la_.axpby(0.5, *level.point, 0.0, *level.point);
  }
  op.linearize(*level.point);
  op.set_shift(shift_stiffness, shift_mass);
  return halvings > 0;
}

void Multigrid::invert_diagonal(Level& level) {
  level.op->diagonal(*level.inverse_diagonal);
  std::vector<double> d;
  la_.download(*level.inverse_diagonal, d);
  for (double& x : d) x = x > 0.0 && std::isfinite(x) ? 1.0 / x : 1.0;
  la_.upload(d, *level.inverse_diagonal);
}

/// The largest eigenvalue of D^-1 A by Lanczos: the tridiagonal matrix of a few steps of
/// Jacobi-preconditioned CG has eigenvalues that approach D^-1 A's extreme ones (much faster
/// than the power method's).
double Multigrid::estimate_lambda_max(Level& level) {
  Vector &r = *level.residual, &z = *level.scratch, &p = *level.direction, &q = *level.product;
  la_.copy(*level.lanczos_start, r);
  la_.multiply(*level.inverse_diagonal, r, z);
  la_.copy(z, p);
  double rz = la_.dot(r, z);
  std::vector<double> alpha, beta;
  for (int step = 0; step < kLanczosSteps && rz > 0.0; ++step) {
    level.op->apply(p, q);
    const double pq = la_.dot(p, q);
    if (!(pq > 0.0)) break;  // not positive definite in this direction: keep what is known
    alpha.push_back(rz / pq);
    la_.axpby(-alpha.back(), q, 1.0, r);
    la_.multiply(*level.inverse_diagonal, r, z);
    const double rz_next = la_.dot(r, z);
    beta.push_back(rz_next / rz);
    rz = rz_next;
    la_.axpby(1.0, z, beta.back(), p);
  }
  const auto m = static_cast<Eigen::Index>(alpha.size());
  // Without a single step the tangent is not positive definite: CG breaks down on it anyway,
  // and 2 bounds D^-1 A for diagonally dominant matrices.
  if (m == 0) return 2.0;
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    t(j, j) = 1.0 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0.0);
    if (j + 1 < m) t(j, j + 1) = t(j + 1, j) = std::sqrt(beta[j]) / alpha[j];
  }
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t, Eigen::EigenvaluesOnly)
      .eigenvalues()
      .maxCoeff();
}

/// x = x + p(D^-1 A) D^-1 (b - A x), p the Chebyshev polynomial of the interval (Saad, Iterative
/// Methods for Sparse Linear Systems, algorithm 12.1); from_zero: x = p(D^-1 A) D^-1 b, without
/// reading x.
void Multigrid::smooth(Level& level, const Vector& b, Vector& x, bool from_zero) {
  NonlinearOperator& op = *level.op;
  Vector &r = *level.residual, &d = *level.direction, &t = *level.scratch;
  const double upper = level.lambda_max, lower = upper / kChebyshevRange;
  const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower), sigma = theta / delta;
  if (from_zero) {
    la_.copy(b, r);
  } else {
    op.apply(x, r);
    la_.axpby(1.0, b, -1.0, r);
  }
  la_.multiply(*level.inverse_diagonal, r, t);
  la_.axpby(1.0 / theta, t, 0.0, d);
  if (from_zero)
    la_.copy(d, x);
  else
    la_.axpby(1.0, d, 1.0, x);
  double rho = 1.0 / sigma;
  for (int step = 1; step < kChebyshevDegree; ++step) {
    op.apply(d, t);
    la_.axpby(-1.0, t, 1.0, r);
    const double rho_next = 1.0 / (2.0 * sigma - rho);
    la_.multiply(*level.inverse_diagonal, r, t);
    la_.axpby(2.0 * rho_next / delta, t, rho_next * rho, d);
    la_.axpby(1.0, d, 1.0, x);
    rho = rho_next;
  }
}

void Multigrid::cycle(std::size_t l, const Vector& b, Vector& x) {
  Level& level = *levels_[l];
  if (l + 1 == levels_.size()) {
    coarsest_->apply(b, x);
    return;
  }
  Level& coarse = *levels_[l + 1];
  smooth(level, b, x, true);
  level.op->apply(x, *level.product);
  la_.axpby(1.0, b, -1.0, *level.product);  // the residual b - A x
  la_.multiply(*level.restriction, *level.product, *coarse.rhs);
  cycle(l + 1, *coarse.rhs, *coarse.solution);
  la_.multiply(*level.prolongation, *coarse.solution, *level.product);
  la_.axpby(1.0, *level.product, 1.0, x);
  smooth(level, b, x, false);
}

std::string Multigrid::name() const {
  std::ostringstream s;
  s << "multigrid (" << levels_.size() << " levels: ";
  for (std::size_t l = 0; l < levels_.size(); ++l) s << (l > 0 ? ", " : "") << levels_[l]->size;
  s << " dofs; Chebyshev degree " << kChebyshevDegree;
  if (scaled_setups_ > 0)
    s << "; coarse levels linearized at a scaled-down state in " << scaled_setups_ << " of "
      << setups_ << " setups";
  s << ")";
  return s.str();
}

}  // namespace

std::unique_ptr<Preconditioner> make_multigrid_preconditioner(
    const LinearSolverSpec& spec, const PreconditionerContext& context) {
  // A box whose divisions halve takes the rediscretised hierarchy; other meshes of cubes the
  // voxel multigrid's Galerkin one; the rest is refused (the constructor says why).
  const MeshSpec& mesh = context.model.spec.mesh;
  const bool box =
      mesh.file.empty() && !mesh.file_mesh && mesh.generator == "box" && halvable(mesh.divisions);
  if (!box)
    if (std::unique_ptr<Preconditioner> voxels = make_voxel_multigrid_preconditioner(context))
      return voxels;
  return std::make_unique<Multigrid>(spec, context);
}

}  // namespace fem
