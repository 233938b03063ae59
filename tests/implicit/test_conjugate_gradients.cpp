// conjugate_gradients() over an algebra that reads its scalars only now and then (a device's
// cg_progress_interval() > 1): the answer and the iteration count are those of reading after
// every iteration, with far fewer reads; and recording the iteration once and replaying it
// (LinearAlgebra::record, CUDA graphs) changes nothing either.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <fem/plugin_registry.hpp>
#include <fem/solver/linear_solver.hpp>

#include "support/implicit_runner.hpp"
#include "support/pass_through_algebra.hpp"

namespace fem::test {
namespace {

/// A recording that keeps the work and runs it again, counting the runs.
class HostRecording final : public Recording {
 public:
  HostRecording(std::function<void()> work, int& runs) : work_(std::move(work)), runs_(runs) {}

 protected:
  void run() override {
    ++runs_;
    work_();
  }

 private:
  std::function<void()> work_;
  int& runs_;
};

/// OpenMP's vectors and verbs with the default (host) CG scalars, read every `interval`
/// iterations or so, counting the reads; with `records`, it records work (without running it)
/// and counts the recordings and their replays.
class SparselyReadAlgebra final : public PassThroughAlgebra {
 public:
  SparselyReadAlgebra(LinearAlgebra& inner, int interval, bool records = false)
      : PassThroughAlgebra(inner), interval_(interval), records_(records) {}
  [[nodiscard]] int cg_progress_interval() const override { return interval_; }
  int reads = 0;
  int recordings = 0;
  int replays = 0;

 protected:
  CgProgress do_cg_progress(CgScalars& s) override {
    ++reads;
    return LinearAlgebra::do_cg_progress(s);
  }
  std::unique_ptr<Recording> do_record(const std::function<void()>& enqueue) override {
    if (!records_) return nullptr;
    ++recordings;
    return std::make_unique<HostRecording>(enqueue, replays);
  }

 private:
  int interval_;
  bool records_;
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
  /// Not on a device (it reads x on the host), but the test's recordings only call it again.
  [[nodiscard]] bool recordable() const override { return true; }

 private:
  LinearAlgebra& la_;
};

class Unpreconditioned final : public Preconditioner {
 public:
  explicit Unpreconditioned(LinearAlgebra& la) : la_(la) {}
  void setup(NonlinearOperator&, const Vector&) override {}
  void apply(const Vector& r, Vector& z) override { la_.copy(r, z); }
  [[nodiscard]] std::string name() const override { return "none"; }
  [[nodiscard]] bool recordable() const override { return true; }

 private:
  LinearAlgebra& la_;
};

struct Solve {
  KrylovResult result;
  std::vector<double> x;
  int reads = 0;
  int recordings = 0;
  int replays = 0;
};

Solve solve(LinearAlgebra& openmp, int interval, int max_iterations, bool records = false) {
  SparselyReadAlgebra la(openmp, interval, records);
  la.set_timing(false);  // as in a run without --time-verbs: recording allowed
  Laplacian a(la);
  Unpreconditioned none(la);
  const std::int64_t n = 400;
  const auto b = la.vector(n), x = la.vector(n);
  la.upload(random_vector(n, 1.0, 7), *b);
  Solve s;
  s.result = conjugate_gradients(la, a, none, *b, *x, 1e-8, max_iterations);
  la.download(*x, s.x);
  s.reads = la.reads;
  s.recordings = la.recordings;
  s.replays = la.replays;
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

TEST(ConjugateGradients, ReplayingTheRecordedIterationGivesTheSameSolve) {
  const PluginRegistry plugins;
  const auto backend = plugins.create_backend("openmp");
  const auto openmp = backend->create_linear_algebra(Precision::Double);
  const Solve plain = solve(*openmp, 8, 2000);
  const Solve replayed = solve(*openmp, 8, 2000, /*records=*/true);
  ASSERT_TRUE(replayed.result.converged);
  EXPECT_EQ(replayed.result.iterations, plain.result.iterations);
  EXPECT_EQ(replayed.result.relative_residual, plain.result.relative_residual);
  EXPECT_EQ(replayed.x, plain.x);
  // Recorded once, after the first iteration; every later iteration is a replay (a few more
  // may run between the last reads, doing nothing once converged).
  EXPECT_EQ(replayed.recordings, 1);
  EXPECT_GE(replayed.replays, replayed.result.iterations - 1);
  EXPECT_LT(replayed.replays, replayed.result.iterations + 8);
  // Nothing is recorded where the progress is read after every iteration (host memory), nor
  // while verbs are timed exactly.
  EXPECT_EQ(solve(*openmp, 1, 2000, true).recordings, 0);
  SparselyReadAlgebra timed(*openmp, 8, true);
  EXPECT_EQ(timed.record([] {}), nullptr);
  EXPECT_EQ(timed.recordings, 0);
}

}  // namespace
}  // namespace fem::test
