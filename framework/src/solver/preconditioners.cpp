// The preconditioners of the conjugate-gradient solver: Jacobi and 3x3 block Jacobi from the
// operator's diagonal verbs, and a sparse direct factorization of the assembled tangent
// (CHOLMOD where built in, else Eigen) for small problems. The multilevel ones are in multigrid.cpp
// and amg.cpp.
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#if FEM_WITH_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <cmath>
#include <string>
#include <vector>

#include "blas_threads.hpp"
#include "fem/error.hpp"
#include "fem/solver/linear_solver.hpp"
#include "preconditioner_factories.hpp"

namespace fem {
namespace {

class Identity final : public Preconditioner {
 public:
  explicit Identity(LinearAlgebra& la) : la_(la) {}
  void setup(NonlinearOperator&, const Vector&) override {}
  void apply(const Vector& r, Vector& z) override { la_.copy(r, z); }
  [[nodiscard]] std::string name() const override { return "none"; }

 private:
  LinearAlgebra& la_;
};

/// z = D^-1 r. The inverse diagonal is formed on the host once per setup (3 numbers per node).
class Jacobi final : public Preconditioner {
 public:
  explicit Jacobi(LinearAlgebra& la) : la_(la) {}
  void setup(NonlinearOperator& op, const Vector&) override {
    if (!diagonal_ || diagonal_->size() != op.size()) diagonal_ = la_.vector(op.size());
    op.diagonal(*diagonal_);
    la_.invert_pivots(*diagonal_);
  }
  void apply(const Vector& r, Vector& z) override { la_.multiply(*diagonal_, r, z); }
  [[nodiscard]] std::string name() const override { return "jacobi"; }
  [[nodiscard]] bool recordable() const override { return true; }
  [[nodiscard]] const Vector* scaling() const override { return diagonal_.get(); }

 private:
  LinearAlgebra& la_;
  std::unique_ptr<Vector> diagonal_;  // inverted
};

/// z_n = B_n^-1 r_n with B_n the tangent's 3x3 block of node n: the coupling of a node's three
/// components (strong in nearly incompressible or anisotropic material) stays in the
/// preconditioner.
class BlockJacobi final : public Preconditioner {
 public:
  explicit BlockJacobi(LinearAlgebra& la) : la_(la) {}
  void setup(NonlinearOperator& op, const Vector&) override {
    if (!blocks_ || blocks_->size() != 3 * op.size()) blocks_ = la_.vector(3 * op.size());
    op.block_diagonal(*blocks_);
    std::vector<double> b;
    la_.download(*blocks_, b);
    for (std::size_t n = 0; 9 * n < b.size(); ++n) invert(&b[9 * n]);
    la_.upload(b, *blocks_);
  }
  void apply(const Vector& r, Vector& z) override { la_.block_multiply(*blocks_, r, z); }
  [[nodiscard]] std::string name() const override { return "block_jacobi"; }
  [[nodiscard]] bool recordable() const override { return true; }

 private:
  static void invert(double* m) {
    const double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8],
                 c02 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    if (!(std::abs(det) > 0.0) || !std::isfinite(det)) {  // singular block: leave it alone
      for (int i = 0; i < 9; ++i) m[i] = i % 4 == 0 ? 1.0 : 0.0;
      return;
    }
    const double s = 1.0 / det;
    const double inv[9] = {
        c00 * s, (m[2] * m[7] - m[1] * m[8]) * s, (m[1] * m[5] - m[2] * m[4]) * s,
        c01 * s, (m[0] * m[8] - m[2] * m[6]) * s, (m[2] * m[3] - m[0] * m[5]) * s,
        c02 * s, (m[1] * m[6] - m[0] * m[7]) * s, (m[0] * m[4] - m[1] * m[3]) * s};
    for (int i = 0; i < 9; ++i) m[i] = inv[i];
  }

  LinearAlgebra& la_;
  std::unique_ptr<Vector> blocks_;  // inverted
};

/// The assembled tangent factorized on the host: exact, for problems small enough to factorize.
/// Vectors go through the host. Where CHOLMOD is built in (cmake/femLinearSolvers.cmake), its
/// supernodal Cholesky factorizes (dense kernels on the supernodes: several times faster than a
/// simplicial factorization on 3D meshes); a tangent that is not positive definite (past a
/// limit point, or a softening law) falls back to Eigen's sparse LDL^T, which also factors
/// indefinite matrices. Without CHOLMOD, LDL^T always. Both order by approximate minimum degree
/// (CHOLMOD tries METIS too and keeps the sparser factor).
class Direct final : public Preconditioner {
 public:
  explicit Direct(LinearAlgebra& la) : la_(la) {
    prefer_single_threaded_blas();
#if FEM_WITH_CHOLMOD
    // A tangent that is not positive definite is expected (and handled): CHOLMOD must not print
    // a warning for it.
    cholesky_.cholmod().print = 0;
#endif
  }
  void setup(NonlinearOperator& op, const Vector&) override {
    CsrMatrix a;
    op.assemble(a);
    Eigen::SparseMatrix<double, Eigen::RowMajor> m(a.rows, a.cols);
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(a.values.size());
    for (std::int64_t r = 0; r < a.rows; ++r)
      for (std::int64_t j = a.offsets[r]; j < a.offsets[r + 1]; ++j)
        // Zeros too: the pattern, analysed once, must not change between linearizations.
        entries.emplace_back(r, a.columns[j], a.values[j]);
    m.setFromTriplets(entries.begin(), entries.end());
    const Eigen::SparseMatrix<double> column_major = m;
#if FEM_WITH_CHOLMOD
    if (!cholesky_analysed_) {
      cholesky_.analyzePattern(column_major);
      cholesky_analysed_ = true;
    }
    cholesky_.factorize(column_major);
    ++factorizations_;
    use_cholesky_ = cholesky_.info() == Eigen::Success;
    if (use_cholesky_) return;
    ++indefinite_tangents_;
#endif
    if (!ldlt_analysed_) {
      ldlt_.analyzePattern(column_major);
      ldlt_analysed_ = true;
    }
    ldlt_.factorize(column_major);
    if (ldlt_.info() != Eigen::Success)
      throw SolveError(
          "the direct solver could not factorize the tangent (it is singular or indefinite)\n"
          "  hint: check that the supports prevent every rigid-body motion, or use "
          "linear: {solver: cg}");
  }
  void apply(const Vector& r, Vector& z) override {
    la_.download(r, host_);
    const Eigen::Map<const Eigen::VectorXd> rhs(host_.data(),
                                                static_cast<Eigen::Index>(host_.size()));
#if FEM_WITH_CHOLMOD
    const Eigen::VectorXd x =
        use_cholesky_ ? Eigen::VectorXd(cholesky_.solve(rhs)) : Eigen::VectorXd(ldlt_.solve(rhs));
#else
    const Eigen::VectorXd x = ldlt_.solve(rhs);
#endif
    la_.upload(std::vector<double>(x.data(), x.data() + x.size()), z);
  }
  [[nodiscard]] std::string name() const override {
#if FEM_WITH_CHOLMOD
    if (indefinite_tangents_ == 0) return "direct (CHOLMOD supernodal Cholesky)";
    return "direct (CHOLMOD supernodal Cholesky; Eigen sparse LDL^T for " +
           std::to_string(indefinite_tangents_) + " of " + std::to_string(factorizations_) +
           " tangents, not positive definite)";
#else
    return "direct (Eigen sparse LDL^T)";
#endif
  }
  [[nodiscard]] bool exact() const override {
    return true;
  }

 private:
  LinearAlgebra& la_;
#if FEM_WITH_CHOLMOD
  Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>> cholesky_;
  bool cholesky_analysed_ = false;
  bool use_cholesky_ = false;  // the last factorization: Cholesky (true) or LDL^T
  int factorizations_ = 0;
  int indefinite_tangents_ = 0;
#endif
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
  bool ldlt_analysed_ = false;
  std::vector<double> host_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_direct_preconditioner(LinearAlgebra& la) {
  return std::make_unique<Direct>(la);
}

std::unique_ptr<Preconditioner> make_preconditioner(const LinearSolverSpec& spec,
                                                    const PreconditionerContext& context) {
  LinearAlgebra& la = context.algebra;
  if (spec.solver == "direct") return make_direct_preconditioner(la);
  const std::string& p = spec.preconditioner;
  if (p == "none") return std::make_unique<Identity>(la);
  if (p == "jacobi") return std::make_unique<Jacobi>(la);
  if (p == "block_jacobi") return std::make_unique<BlockJacobi>(la);
  if (p == "multigrid") return make_multigrid_preconditioner(spec, context);
  if (p == "amg") return make_amg_preconditioner(spec, context);
  throw InputError(spec.where, "unknown preconditioner '" + p + "'");
}

}  // namespace fem
