// Amplitude curves, evaluated as backends evaluate them inside their node passes.
#include <gtest/gtest.h>

#include <fem/amplitude.hpp>

namespace fem {
namespace {

TEST(Amplitude, SmoothStepHasZeroSlopeAtBothEnds) {
  Amplitude a;
  a.kind = AmplitudeKind::SmoothStep;
  a.start = 1.0;
  a.end = 3.0;
  EXPECT_EQ(evaluate(a, 0.5), 0.0);
  EXPECT_EQ(evaluate(a, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(evaluate(a, 2.0), 0.5);
  EXPECT_EQ(evaluate(a, 3.5), 1.0);
  const double h = 1e-6;
  EXPECT_NEAR((evaluate(a, 1.0 + h) - evaluate(a, 1.0)) / h, 0.0, 1e-6);
  EXPECT_NEAR((evaluate(a, 3.0) - evaluate(a, 3.0 - h)) / h, 0.0, 1e-6);
  // xi^3 (10 - 15 xi + 6 xi^2) at xi = 0.25
  EXPECT_NEAR(evaluate(a, 1.5), 0.015625 * (10 - 3.75 + 0.375), 1e-15);
}

TEST(Amplitude, LinearRampAndTable) {
  Amplitude ramp;
  ramp.kind = AmplitudeKind::Linear;
  ramp.start = 0.0;
  ramp.end = 2.0;
  EXPECT_DOUBLE_EQ(evaluate(ramp, 0.5), 0.25);
  EXPECT_EQ(evaluate(ramp, 5.0), 1.0);

  Amplitude table;
  table.kind = AmplitudeKind::Tabular;
  table.num_points = 3;
  const double t[] = {0.0, 1.0, 3.0}, v[] = {0.0, 2.0, -1.0};
  for (int i = 0; i < 3; ++i) {
    table.time[i] = t[i];
    table.value[i] = v[i];
  }
  EXPECT_DOUBLE_EQ(evaluate(table, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(evaluate(table, 2.0), 0.5);
  EXPECT_EQ(evaluate(table, 10.0), -1.0);  // held after the last point
  EXPECT_EQ(evaluate(table, -1.0), 0.0);   // and before the first
}

}  // namespace
}  // namespace fem
