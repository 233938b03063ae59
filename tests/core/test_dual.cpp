// Forward-mode dual numbers (fem/dual.hpp): the derivatives the implicit solver's tangent is
// made of.
#include <gtest/gtest.h>

#include <cmath>

#include <fem/dual.hpp>
#include <fem/tensor.hpp>

namespace fem {
namespace {

using D = Dual<double>;

/// d/dx of f at x by the dual number x + eps.
template <class F>
double derivative(const F& f, double x) {
  return f(D(x, 1.0)).d;
}

TEST(Dual, ArithmeticFollowsTheRulesOfDifferentiation) {
  const double x = 0.7;
  // (x^3 + 2x - 1) / (1 + x^2)
  const auto f = [](auto y) { return (y * y * y + 2.0 * y - 1) / (1 + y * y); };
  const double num = x * x * x + 2 * x - 1, den = 1 + x * x;
  const double exact = ((3 * x * x + 2) * den - num * 2 * x) / (den * den);
  EXPECT_NEAR(f(D(x, 1.0)).v, num / den, 1e-15);
  EXPECT_NEAR(derivative(f, x), exact, 1e-14);
  // Compound assignment and unary minus.
  D y(x, 1.0);
  y *= y;
  y -= D(1.0);
  y /= D(2.0, 0.0);
  EXPECT_NEAR(y.d, x, 1e-15);
  EXPECT_EQ((-y).d, -y.d);
}

TEST(Dual, ElementaryFunctionsAndCubeRoot) {
  const double x = 1.9;
  EXPECT_NEAR(derivative([](auto y) { return fem::sqrt(y); }, x), 0.5 / std::sqrt(x), 1e-15);
  EXPECT_NEAR(derivative([](auto y) { return fem::exp(y); }, x), std::exp(x), 1e-14);
  EXPECT_NEAR(derivative([](auto y) { return fem::log(y); }, x), 1 / x, 1e-15);
  EXPECT_NEAR(derivative([](auto y) { return cube_root(y); }, x), 1.0 / (3.0 * std::cbrt(x * x)),
              1e-15);
  EXPECT_EQ(cube_root(D(0.0, 1.0)).d, 0.0);  // no division by zero at the origin
  EXPECT_NEAR(derivative([](auto y) { return fem::abs(y); }, -x), -1.0, 0.0);
}

TEST(Dual, ComparisonsAndConversionsSeeTheValue) {
  const D a(1.0, 5.0), b(2.0, -5.0);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a == 1.0);
  EXPECT_TRUE(2 > a);
  EXPECT_EQ(static_cast<int>(D(3.7, 1.0)), 3);
  EXPECT_EQ(value_of(b), 2.0);
  EXPECT_EQ(value_of(2.5), 2.5);
  static_assert(std::is_same_v<real_t<Dual<float>>, float>);
  static_assert(std::is_same_v<real_t<double>, double>);
}

TEST(Dual, SinglePrecisionDualsStaySingle) {
  const Dual<float> x(2.0f, 1.0f);
  const Dual<float> y = 0.5 * x * x;  // a double constant converts to float
  static_assert(std::is_same_v<decltype(y.v), float>);
  EXPECT_EQ(y.d, 2.0f);
}

TEST(Dual, DeterminantDerivativeIsTheCofactor) {
  // d det(F)[dF] = cof(F) : dF (Jacobi's formula), through Mat3 of duals.
  const double v[9] = {1.1, 0.2, -0.3, 0.05, 0.9, 0.4, -0.2, 0.1, 1.3};
  const double w[9] = {0.3, -0.1, 0.2, 0.7, 0.1, -0.4, 0.05, 0.6, -0.2};
  Mat3<double> F, dF;
  Mat3<D> Fd;
  for (int i = 0; i < 9; ++i) {
    F.m[i / 3][i % 3] = v[i];
    dF.m[i / 3][i % 3] = w[i];
    Fd.m[i / 3][i % 3] = D(v[i], w[i]);
  }
  EXPECT_NEAR(det(Fd).d, ddot(cofactor(F), dF), 1e-14);
}

}  // namespace
}  // namespace fem
