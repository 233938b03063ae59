// Amplitude curves: the time functions that scale prescribed displacements and loads.
//
// Plain data plus one host/device evaluation function, so that a backend can evaluate the curve
// inside its fused node kernel without calling back into the host.
#pragma once

#include <cmath>

#include "fem/config.hpp"

namespace fem {

enum class AmplitudeKind : int {
  Constant = 0,    ///< a(t) = 1
  Linear = 1,      ///< 0 before start, linear ramp to 1 at end, 1 after
  SmoothStep = 2,  ///< Abaqus SMOOTH STEP: xi^3 (10 - 15 xi + 6 xi^2), xi = (t-start)/(end-start)
  Tabular = 3,     ///< piecewise linear through (time, value) points; held constant outside
  /// Hann-windowed tone burst of `cycles` cycles at `frequency` from `start`, 0 outside:
  /// sin(2 pi f tau) (1 - cos(2 pi f tau / cycles)) / 2, tau = t - start.
  ToneBurst = 4,
  /// exp(-(t - start)^2 / (2 width^2)): seed 002's exp(-1000 (t - 0.25)^2) is start 0.25,
  /// width 1 / sqrt(2000).
  Gaussian = 5,
  /// Ricker wavelet (the second derivative of a Gaussian) peaking at `start`:
  /// (1 - 2 a) exp(-a), a = (pi frequency (t - start))^2.
  Ricker = 6,
};

/// Maximum number of points of a tabular amplitude (keeps the struct trivially copyable).
inline constexpr int kMaxAmplitudePoints = 64;

struct Amplitude {
  AmplitudeKind kind = AmplitudeKind::Constant;
  double start = 0.0;
  double end = 0.0;
  double frequency = 0.0;  ///< Hz: ToneBurst, Ricker
  double cycles = 0.0;     ///< ToneBurst
  double width = 0.0;      ///< s: Gaussian
  int num_points = 0;
  double time[kMaxAmplitudePoints] = {};
  double value[kMaxAmplitudePoints] = {};
};

FEM_INLINE double evaluate(const Amplitude& a, double t) {
  switch (a.kind) {
    case AmplitudeKind::Constant:
      return 1.0;
    case AmplitudeKind::Linear: {
      if (t <= a.start) return 0.0;
      if (t >= a.end) return 1.0;
      return (t - a.start) / (a.end - a.start);
    }
    case AmplitudeKind::SmoothStep: {
      if (t <= a.start) return 0.0;
      if (t >= a.end) return 1.0;
      const double xi = (t - a.start) / (a.end - a.start);
      return xi * xi * xi * (10.0 - 15.0 * xi + 6.0 * xi * xi);
    }
    case AmplitudeKind::Tabular: {
      if (a.num_points == 0) return 0.0;
      if (t <= a.time[0]) return a.value[0];
      for (int i = 1; i < a.num_points; ++i) {
        if (t <= a.time[i]) {
          const double w = (t - a.time[i - 1]) / (a.time[i] - a.time[i - 1]);
          return a.value[i - 1] + w * (a.value[i] - a.value[i - 1]);
        }
      }
      return a.value[a.num_points - 1];
    }
    case AmplitudeKind::ToneBurst: {
      const double tau = t - a.start;
      if (tau <= 0.0 || tau >= a.cycles / a.frequency) return 0.0;
      const double phase = 2.0 * 3.14159265358979323846 * a.frequency * tau;
      return sin(phase) * 0.5 * (1.0 - cos(phase / a.cycles));
    }
    case AmplitudeKind::Gaussian: {
      const double x = (t - a.start) / a.width;
      return exp(-0.5 * x * x);
    }
    case AmplitudeKind::Ricker: {
      const double x = 3.14159265358979323846 * a.frequency * (t - a.start);
      return (1.0 - 2.0 * x * x) * exp(-x * x);
    }
  }
  return 0.0;
}

}  // namespace fem
