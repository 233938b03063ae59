// The scalar steps of conjugate gradients (LinearAlgebra::cg_* in fem/operator.hpp), written
// once for the host default and the device backends, which run them in the finishing thread of
// a reduction so that the scalars never leave the device. The scalars of a solve are an array of
// kSlots doubles; the state slot holds a CgProgress::State as a double.
#pragma once

#include <cstdint>

#include "fem/config.hpp"
#include "fem/operator.hpp"

namespace fem::kernels::cg {

enum Slot { kRz, kStopRr, kAlpha, kBeta, kRr, kIterations, kState, kSlots };

inline constexpr double kRunning = static_cast<double>(CgProgress::State::Running);
inline constexpr double kConverged = static_cast<double>(CgProgress::State::Converged);
inline constexpr double kBreakdown = static_cast<double>(CgProgress::State::Breakdown);

FEM_INLINE bool running(const double* s) {
  return s[kState] == kRunning;
}

/// A solve from residual r (r . r = rr) and preconditioned residual z (r . z = rz).
FEM_INLINE void start(double* s, double rz, double rr, double stop_rr) {
  s[kRz] = rz;
  s[kStopRr] = stop_rr;
  s[kAlpha] = 0.0;
  s[kBeta] = 0.0;
  s[kRr] = rr;
  s[kIterations] = 0.0;
  s[kState] = kRunning;
}

/// From p . Ap: alpha = r . z / p . Ap, or a breakdown where p . Ap <= 0 (A not positive
/// definite) or r . z is not finite (inf - inf and NaN - NaN are NaN: a test that holds on the
/// host and the device alike).
FEM_INLINE void descend(double* s, double pap) {
  if (!running(s)) return;
  const double rz = s[kRz];
  if (!(pap > 0.0) || !(rz - rz == 0.0))
    s[kState] = kBreakdown;
  else
    s[kAlpha] = rz / pap;
}

/// From the new residual's r . z and r . r: the iteration counted, then converged where
/// r . r <= stop_rr, otherwise beta = r . z new / r . z old.
FEM_INLINE void turn(double* s, double rz, double rr) {
  if (!running(s)) return;
  s[kIterations] += 1.0;
  s[kRr] = rr;
  if (rr <= s[kStopRr]) {
    s[kState] = kConverged;
    return;
  }
  s[kBeta] = rz / s[kRz];
  s[kRz] = rz;
}

// What the finishing thread of a device reduction does with its results (the backends' reduce
// kernels call finish(results)): cg_start, cg_descend and cg_turn's scalar steps.

struct StartFinish {
  double* s;
  double rr, stop_rr;
  FEM_INLINE void operator()(const double (&rz)[1]) const { start(s, rz[0], rr, stop_rr); }
};

struct DescendFinish {
  double* s;
  FEM_INLINE void operator()(const double (&pap)[1]) const { descend(s, pap[0]); }
};

struct TurnFinish {
  double* s;
  FEM_INLINE void operator()(const double (&rz_rr)[2]) const { turn(s, rz_rr[0], rz_rr[1]); }
};

/// Entry i of cg_descend's update: x += alpha p, r -= alpha Ap, in the expressions of the host
/// default's axpby (so that a backend's kernel gives its bits), unless the solve has stopped.
template <class T>
FEM_INLINE void descend_entry(const double* s, std::int64_t i, const T* p, const T* ap, T* x,
                              T* r) {
  if (!running(s)) return;
  const T alpha = static_cast<T>(s[kAlpha]);
  x[i] = alpha * p[i] + T(1) * x[i];
  r[i] = -alpha * ap[i] + T(1) * r[i];
}

/// Entry i of cg_turn's update: p = z + beta p (axpby's expression), unless the solve has
/// stopped.
template <class T>
FEM_INLINE void turn_entry(const double* s, std::int64_t i, const T* z, T* p) {
  if (!running(s)) return;
  p[i] = T(1) * z[i] + static_cast<T>(s[kBeta]) * p[i];
}

/// What cg_progress() returns, from a host copy of the scalars.
inline CgProgress progress(const double* s) {
  CgProgress p;
  p.state = static_cast<CgProgress::State>(static_cast<int>(s[kState]));
  p.iterations = static_cast<int>(s[kIterations]);
  p.rr = s[kRr];
  return p;
}

}  // namespace fem::kernels::cg
