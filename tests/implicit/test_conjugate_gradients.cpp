// conjugate_gradients() over an algebra that reads its scalars only now and then (a device's
// cg_progress_interval() > 1): the answer and the iteration count are those of reading after
// every iteration, with far fewer reads.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <fem/plugin_registry.hpp>
#include <fem/solver/linear_solver.hpp>

#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

/// OpenMP's vectors and verbs with the default (host) CG scalars, read every `interval`
/// iterations or so, counting the reads.
class SparselyReadAlgebra final : public LinearAlgebra {
 public:
  SparselyReadAlgebra(LinearAlgebra& inner, int interval) : inner_(inner), interval_(interval) {}
  [[nodiscard]] Precision precision() const override { return inner_.precision(); }
  [[nodiscard]] int cg_progress_interval() const override { return interval_; }
  int reads = 0;

 protected:
  std::unique_ptr<Vector> do_vector(std::int64_t size) override { return inner_.vector(size); }
  void do_upload(const std::vector<double>& host, Vector& x) override { inner_.upload(host, x); }
  void do_download(const Vector& x, std::vector<double>& host) override {
    inner_.download(x, host);
  }
  void do_fill(Vector& x, double value) override { inner_.fill(x, value); }
  void do_axpby(double a, const Vector& x, double b, Vector& y) override {
    inner_.axpby(a, x, b, y);
  }
  void do_multiply(const Vector& x, const Vector& y, Vector& z) override {
    inner_.multiply(x, y, z);
  }
  double do_dot(const Vector& x, const Vector& y) override { return inner_.dot(x, y); }
  CgProgress do_cg_progress(CgScalars& s) override {
    ++reads;
    return LinearAlgebra::do_cg_progress(s);
  }

 private:
  LinearAlgebra& inner_;
  int interval_;
};

/// y = A x for the 1D Laplacian plus a small shift: a few hundred CG iterations at n = 400.
class Laplacian final : public LinearOperator {
 public:
  explicit Laplacian(LinearAlgebra& la) : la_(la) {}
  void apply(const Vector& x, Vector& y) override {
    std::vector<double> v, out;
    la_.download(x, v);
    out.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      out[i] = 2.01 * v[i] - (i > 0 ? v[i - 1] : 0.0) - (i + 1 < v.size() ? v[i + 1] : 0.0);
    la_.upload(out, y);
  }

 private:
  LinearAlgebra& la_;
};

class Unpreconditioned final : public Preconditioner {
 public:
  explicit Unpreconditioned(LinearAlgebra& la) : la_(la) {}
  void setup(NonlinearOperator&, const Vector&) override {}
  void apply(const Vector& r, Vector& z) override { la_.copy(r, z); }
  [[nodiscard]] std::string name() const override { return "none"; }

 private:
  LinearAlgebra& la_;
};

struct Solve {
  KrylovResult result;
  std::vector<double> x;
  int reads = 0;
};

Solve solve(LinearAlgebra& openmp, int interval, int max_iterations) {
  SparselyReadAlgebra la(openmp, interval);
  Laplacian a(la);
  Unpreconditioned none(la);
  const std::int64_t n = 400;
  const auto b = la.vector(n), x = la.vector(n);
  la.upload(random_vector(n, 1.0, 7), *b);
  Solve s;
  s.result = conjugate_gradients(la, a, none, *b, *x, 1e-8, max_iterations);
  la.download(*x, s.x);
  s.reads = la.reads;
  return s;
}

TEST(ConjugateGradients, ReadingTheScalarsLateChangesNothingButTheNumberOfReads) {
  const PluginRegistry plugins;
  const auto backend = plugins.create_backend("openmp");
  const auto openmp = backend->create_linear_algebra(Precision::Double);
  const Solve every = solve(*openmp, 1, 2000);
  ASSERT_TRUE(every.result.converged);
  ASSERT_GT(every.result.iterations, 100);
  EXPECT_EQ(every.reads, every.result.iterations);
  const Solve sparse = solve(*openmp, 8, 2000);
  EXPECT_TRUE(sparse.result.converged);
  EXPECT_EQ(sparse.result.iterations, every.result.iterations);
  EXPECT_EQ(sparse.result.relative_residual, every.result.relative_residual);
  EXPECT_EQ(sparse.x, every.x);
  EXPECT_LT(sparse.reads, every.result.iterations / 6) << "read every 8 iterations or so";
  // The iteration limit is honoured whatever the schedule, and the last iteration is read.
  const Solve cut = solve(*openmp, 8, 37);
  EXPECT_FALSE(cut.result.converged);
  EXPECT_EQ(cut.result.iterations, 37);
  const Solve cut_every = solve(*openmp, 1, 37);
  EXPECT_EQ(cut.x, cut_every.x);
  EXPECT_EQ(cut.result.relative_residual, cut_every.result.relative_residual);
}

}  // namespace
}  // namespace fem::test
