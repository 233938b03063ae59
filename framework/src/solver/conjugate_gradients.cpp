// Preconditioned conjugate gradients over the operator contract, its scalars kept where the
// vectors are (LinearAlgebra::cg_*): the host enqueues iterations and reads where the solve
// stands only now and then, so that on a GPU an iteration is a few launches and no round trip.
#include <algorithm>
#include <cmath>
#include <memory>

#include "fem/solver/linear_solver.hpp"

namespace fem {
namespace {

/// The iteration after which to read the progress next. Where reads are free (interval 1),
/// after every iteration. Otherwise the residual's rate since the last read predicts how many
/// iterations remain; the next read comes after half of them (CG speeds up as it goes, and a
/// late read wastes iterations where an early one wastes only a round trip), at most `interval`
/// iterations on. The answer does not depend on this: a converged solve stops changing x.
int next_read(int interval, const CgProgress& now, int last_iterations, double last_rr,
              double stop_rr) {
  if (interval <= 1) return now.iterations + 1;
  int stride = interval;
  if (now.rr > 0.0 && last_rr > now.rr && stop_rr > 0.0 && now.iterations > last_iterations) {
    const double log_rate = std::log(now.rr / last_rr) / (now.iterations - last_iterations);
    const double remaining = std::log(stop_rr / now.rr) / log_rate;
    if (std::isfinite(remaining))
      stride = static_cast<int>(std::clamp(std::ceil(remaining / 2.0), 1.0, double(interval)));
  }
  return now.iterations + stride;
}

}  // namespace

KrylovResult conjugate_gradients(LinearAlgebra& la, LinearOperator& a, Preconditioner& m,
                                 const Vector& b, Vector& x, double tolerance, int max_iterations) {
  KrylovResult result;
  const std::int64_t n = b.size();
  // From x = 0: the caller's right-hand side is the whole residual.
  la.fill(x, 0.0);
  const double bb = la.dot(b, b);
  const double b_norm = std::sqrt(bb);
  result.initial_residual = b_norm;
  if (!(b_norm > 0.0)) {
    result.converged = b_norm == 0.0;
    result.breakdown = !result.converged;  // NaN in b
    return result;
  }
  const auto r = la.vector(n);
  const auto z = la.vector(n);
  const auto p = la.vector(n);
  const auto ap = la.vector(n);
  const auto scalars = la.cg_scalars();
  la.copy(b, *r);
  m.apply(*r, *z);
  la.copy(*z, *p);
  const double stop_rr = tolerance * b_norm * (tolerance * b_norm);
  la.cg_start(*r, *z, bb, stop_rr, *scalars);
  const int interval = la.cg_progress_interval();
  CgProgress progress{CgProgress::State::Running, 0, bb};
  int read_at = 1;
  const Vector* scaling = m.scaling();
  const auto iteration = [&] {
    a.apply(*p, *ap);
    if (scaling) {
      la.cg_descend_scale_turn(*ap, *scaling, x, *r, *z, *p, *scalars);
      return;
    }
    la.cg_descend(*p, *ap, x, *r, *scalars);
    m.apply(*r, *z);
    la.cg_turn(*r, *z, *p, *scalars);
  };
  // Where the progress is read only now and then (a device), a solve that goes on after its
  // first iteration (which also makes whatever buffers the verbs keep) records the iteration
  // and replays it from then on: one launch per iteration instead of one per verb.
  const bool record = interval > 1 && a.recordable() && m.recordable();
  std::unique_ptr<Recording> recorded;
  for (int k = 1; k <= max_iterations; ++k) {
    if (record && k == 2) recorded = la.record(iteration);
    if (recorded)
      la.replay(*recorded);
    else
      iteration();
    if (k < read_at && k < max_iterations) continue;
    const CgProgress last = progress;
    progress = la.cg_progress(*scalars);
    if (progress.state != CgProgress::State::Running) break;
    read_at = next_read(interval, progress, last.iterations, last.rr, stop_rr);
  }
  result.iterations = progress.iterations;
  result.converged = progress.state == CgProgress::State::Converged;
  result.breakdown = progress.state == CgProgress::State::Breakdown;
  result.relative_residual = std::sqrt(progress.rr) / b_norm;
  return result;
}

}  // namespace fem
