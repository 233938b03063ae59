// minres() (framework/src/solver/minres.cpp): symmetric indefinite systems that conjugate
// gradients breaks down on, first algebraic (a shifted 1D Laplacian), then a squeezed cube's
// tangent, then a static run that presses a box past the point where its tangents turn
// indefinite (`linear: {solver: minres}`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fem/plugin_registry.hpp>
#include <fem/solver/linear_solver.hpp>

#include "pressed_cube.hpp"

namespace fem::test {
namespace {

/// y = A x with A = tridiag(-1, 2 - shift, -1) of size n (on the host; the test's operator).
/// shift 0.5: eigenvalues 2 - 2 cos(k pi / (n + 1)) - 0.5 from about -0.5 to 3.5, none near zero
/// closer than ~2.6e-3 at n = 400: symmetric, nonsingular and indefinite.
class ShiftedLaplacian final : public LinearOperator {
 public:
  ShiftedLaplacian(LinearAlgebra& la, double shift) : la_(la), shift_(shift) {}
  void apply(const Vector& x, Vector& y) override {
    std::vector<double> v;
    la_.download(x, v);
    la_.upload(product(v), y);
  }
  [[nodiscard]] std::vector<double> product(const std::vector<double>& v) const {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      out[i] =
          (2.0 - shift_) * v[i] - (i > 0 ? v[i - 1] : 0.0) - (i + 1 < v.size() ? v[i + 1] : 0.0);
    return out;
  }

 private:
  LinearAlgebra& la_;
  double shift_;
};

/// z = d .* r for a fixed diagonal d (positive: symmetric positive definite; otherwise not).
class Diagonal final : public Preconditioner {
 public:
  Diagonal(LinearAlgebra& la, const std::vector<double>& d) : la_(la), d_(device_vector(la, d)) {}
  void setup(NonlinearOperator&, const Vector&) override {}
  void apply(const Vector& r, Vector& z) override { la_.multiply(*d_, r, z); }
  [[nodiscard]] std::string name() const override { return "diagonal"; }

 private:
  LinearAlgebra& la_;
  std::unique_ptr<Vector> d_;
};

struct Solved {
  KrylovResult result;
  double true_residual = 0.0;  ///< |b - A x| / |b|, computed here on the host
};

enum class Method { Cg, Minres };

Solved solve(Method method, double shift, const std::vector<double>& d, int max_iterations,
             double tolerance = 1e-10) {
  const PluginRegistry plugins;
  const auto backend = plugins.create_backend("openmp");
  const auto la = backend->create_linear_algebra(Precision::Double);
  ShiftedLaplacian a(*la, shift);
  Diagonal m(*la, d);
  const std::vector<double> b_host = random_vector(static_cast<std::int64_t>(d.size()), 1.0, 11);
  const auto b = device_vector(*la, b_host), x = la->vector(static_cast<std::int64_t>(d.size()));
  Solved s;
  s.result = method == Method::Minres
                 ? minres(*la, a, m, *b, *x, tolerance, max_iterations)
                 : conjugate_gradients(*la, a, m, *b, *x, tolerance, max_iterations);
  std::vector<double> r = a.product(host_vector(*la, *x));
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = b_host[i] - r[i];
  s.true_residual = norm2(r) / norm2(b_host);
  return s;
}

constexpr int kSize = 400;

std::vector<double> graded_diagonal() {  // symmetric positive definite, from 1 to 1/2
  std::vector<double> d(kSize);
  for (int i = 0; i < kSize; ++i) d[i] = 1.0 / (1.0 + static_cast<double>(i) / kSize);
  return d;
}

TEST(Minres, SolvesASymmetricIndefiniteSystemThatConjugateGradientsBreaksDownOn) {
  const std::vector<double> identity(kSize, 1.0);
  const Solved cg = solve(Method::Cg, 0.5, identity, 2000);
  EXPECT_TRUE(cg.result.breakdown) << "CG should meet p . A p <= 0 on an indefinite operator";
  const Solved plain = solve(Method::Minres, 0.5, identity, 2000);
  ASSERT_TRUE(plain.result.converged) << plain.result.iterations << " iterations";
  EXPECT_LT(plain.true_residual, 1e-9);
  // The reported residual is the true one, not the recurrence's estimate.
  EXPECT_NEAR(plain.result.relative_residual, plain.true_residual, 1e-12);
  // With a positive definite preconditioner the tolerance holds in its norm, so the 2-norm
  // residual is within sqrt(max d / min d) = 1.4 of it.
  const Solved preconditioned = solve(Method::Minres, 0.5, graded_diagonal(), 2000);
  ASSERT_TRUE(preconditioned.result.converged);
  EXPECT_LT(preconditioned.true_residual, 1.5e-10);
}

TEST(Minres, NeedsNoMoreIterationsThanConjugateGradientsOnAPositiveDefiniteSystem) {
  // It minimizes the residual over the same Krylov space from which CG takes its iterate: with
  // the identity as preconditioner both stop on the 2-norm, and MINRES gets there first or with
  // CG (round-off may cost it one more iteration).
  const std::vector<double> identity(kSize, 1.0);
  const Solved cg = solve(Method::Cg, -0.01, identity, 2000, 1e-8);
  const Solved mr = solve(Method::Minres, -0.01, identity, 2000, 1e-8);
  ASSERT_TRUE(cg.result.converged);
  ASSERT_TRUE(mr.result.converged);
  EXPECT_LE(mr.result.iterations, cg.result.iterations + 1);
  EXPECT_GT(mr.result.iterations, 50);
  EXPECT_LT(mr.true_residual, 1e-8);
}

TEST(Minres, APreconditionerThatIsNotPositiveDefiniteIsABreakdown) {
  std::vector<double> d(kSize, 1.0);
  std::fill(d.begin(), d.begin() + kSize / 2, -1.0);  // r . M r < 0 for most r
  const Solved s = solve(Method::Minres, 0.5, d, 2000);
  EXPECT_TRUE(s.result.breakdown);
  EXPECT_FALSE(s.result.converged);
}

TEST(Minres, StopsAtTheIterationLimit) {
  const Solved s = solve(Method::Minres, 0.5, std::vector<double>(kSize, 1.0), 25);
  EXPECT_EQ(s.result.iterations, 25);
  EXPECT_FALSE(s.result.converged);
  EXPECT_FALSE(s.result.breakdown);
  EXPECT_LT(s.true_residual, 1.0);  // MINRES's residual never grows
  EXPECT_NEAR(s.result.relative_residual, s.true_residual, 1e-12);
}

TEST(Minres, SolvesTheTangentOfACubeSqueezedWithoutBulging) {
  // The pressed cube's tangent at a uniform 10 % squeeze with the sides held has negative
  // eigenvalues (test_multigrid.cpp): Jacobi-preconditioned CG breaks down on it, MINRES with
  // the same preconditioner solves it.
  SqueezedCube cube("{preconditioner: jacobi}", 9, 0.1);
  ASSERT_TRUE(cube.linearized);
  LinearAlgebra& la = cube.run.la();
  NonlinearOperator& op = cube.run.op();
  Preconditioner& jacobi = *cube.preconditioner;
  TangentOperator a(op);
  const std::vector<double> b_host = zero_at_prescribed(op, random_vector(op.size(), 1.0, 5));
  const auto b = device_vector(la, b_host), x = la.vector(op.size());
  const KrylovResult cg = conjugate_gradients(la, a, jacobi, *b, *x, 1e-8, 5000);
  EXPECT_TRUE(cg.breakdown) << "converged " << cg.converged << " in " << cg.iterations;
  const KrylovResult mr = minres(la, a, jacobi, *b, *x, 1e-8, 5000);
  ASSERT_TRUE(mr.converged) << mr.iterations << " iterations, residual " << mr.relative_residual;
  EXPECT_FALSE(mr.breakdown);
  EXPECT_LT(mr.relative_residual, 1e-7);
  // The residual again, through the operator: x solves A x = b.
  const auto ax = la.vector(op.size());
  a.apply(*x, *ax);
  la.axpby(1.0, *b, -1.0, *ax);
  EXPECT_LT(std::sqrt(la.dot(*ax, *ax)) / norm2(b_host), 1e-7);
}

/// The 9^3 box pressed to half its height, its top free to slide, solved with `linear`.
ImplicitRunReport press_box(const std::string& linear) {
  std::string yaml = clamped_cube("hex8", "hex8", 9,
                                  "{type: static, end_time: 1, newton: {residual_tolerance: "
                                  "1.0e-10}, linear: " +
                                      linear + "}",
                                  "-0.025");
  yaml.replace(yaml.find("  - {set: top, fixed: [x, y]}\n"), 30, "");
  ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
  const ImplicitRunReport report = run_implicit(run);
  EXPECT_NEAR(report.time_reached, 1.0, 1e-12) << linear;
  EXPECT_GE(report.increments, 5) << linear;
  const std::vector<double> u = run.solver->displacement();
  double lowest = 0.0;
  for (std::size_t d = 2; d < u.size(); d += 3) lowest = std::min(lowest, u[d]);
  EXPECT_NEAR(lowest, -0.025, 1e-12) << linear;  // the top went all the way down
  return report;
}

TEST(Minres, PressesABoxPastWhereItsTangentsTurnIndefinite) {
  // The tangent is indefinite from about 80 % of the press on (the direct solver's Cholesky
  // fails there; docs/implicit.md). Jacobi-CG alone stalled Newton near t = 0.99 and cut back to
  // the minimum increment (measured, 2026-11-29); MINRES with the same preconditioner goes to
  // the end.
  EXPECT_EQ(press_box("{solver: minres, preconditioner: jacobi}").minres_solves, 0);
}

TEST(Minres, RedoesTheSolvesThatConjugateGradientsBreaksDownOn) {
  // The default linear solver, CG: where it breaks down, MINRES solves the system again.
  EXPECT_GE(press_box("{preconditioner: jacobi}").minres_solves, 1);
}

}  // namespace
}  // namespace fem::test
