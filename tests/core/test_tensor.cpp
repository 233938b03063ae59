// The small host/device tensor helpers the material laws are written with.
#include <gtest/gtest.h>

#include <cmath>

#include <fem/tensor.hpp>

namespace fem {
namespace {

TEST(CubeRoot, MatchesLibraryCbrtToTheLastBits) {
  double worst_d = 0.0, worst_f = 0.0;
  for (double x = 1e-12; x < 1e12; x *= 1.0137) {
    worst_d = std::max(worst_d, std::abs(cube_root(x) - std::cbrt(x)) / std::cbrt(x));
    const float xf = static_cast<float>(x);
    worst_f = std::max(
        worst_f, static_cast<double>(std::abs(cube_root(xf) - std::cbrt(xf)) / std::cbrt(xf)));
  }
  EXPECT_LT(worst_d, 4 * 2.2e-16);
  EXPECT_LT(worst_f, 4 * 1.2e-7);
  EXPECT_EQ(cube_root(0.0), 0.0);
  EXPECT_EQ(cube_root(27.0f), 3.0f);
  EXPECT_TRUE(std::isnan(cube_root(std::nan(""))));
}

TEST(Mat3, InverseAndDeterminant) {
  Mat3<double> a = Mat3<double>::identity();
  a(0, 1) = 0.3;
  a(2, 0) = -0.2;
  a(1, 1) = 2.0;
  const Mat3<double> i = a * inverse(a);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(i(r, c), r == c ? 1.0 : 0.0, 1e-15);
  EXPECT_NEAR(det(a), 2.0, 1e-15);  // [[1, .3, 0], [0, 2, 0], [-.2, 0, 1]]
  EXPECT_NEAR(det(a * a), det(a) * det(a), 1e-14);
}

TEST(Mat3, CofactorIsDeterminantTimesInverseTranspose) {
  Mat3<double> a;
  const double v[9] = {1.1, 0.2, -0.3, 0.05, 0.9, 0.4, -0.2, 0.1, 1.3};
  for (int k = 0; k < 9; ++k) a(k / 3, k % 3) = v[k];
  const Mat3<double> c = cofactor(a), expected = det(a) * transpose(inverse(a));
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) EXPECT_NEAR(c(r, s), expected(r, s), 1e-15);
  // d det(a) / d a_ij = cof(a)_ij, checked by central differences.
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) {
      Mat3<double> hi = a, lo = a;
      hi(r, s) += 1e-6;
      lo(r, s) -= 1e-6;
      EXPECT_NEAR((det(hi) - det(lo)) / 2e-6, c(r, s), 1e-9);
    }
}

}  // namespace
}  // namespace fem
