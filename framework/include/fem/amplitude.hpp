// Amplitude curves: the time functions that scale prescribed displacements and loads.
//
// Plain data plus one host/device evaluation function, so that a backend can evaluate the curve
// inside its fused node kernel without calling back into the host.
#pragma once

#include "fem/config.hpp"

namespace fem {

enum class AmplitudeKind : int {
  Constant = 0,    ///< a(t) = 1
  Linear = 1,      ///< 0 before start, linear ramp to 1 at end, 1 after
  SmoothStep = 2,  ///< Abaqus SMOOTH STEP: xi^3 (10 - 15 xi + 6 xi^2), xi = (t-start)/(end-start)
  Tabular = 3,     ///< piecewise linear through (time, value) points; held constant outside
};

/// Maximum number of points of a tabular amplitude (keeps the struct trivially copyable).
inline constexpr int kMaxAmplitudePoints = 64;

struct Amplitude {
  AmplitudeKind kind = AmplitudeKind::Constant;
  double start = 0.0;
  double end = 0.0;
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
  }
  return 0.0;
}

}  // namespace fem
