// Every built-in material's stress is the derivative of its strain energy, and its
// volumetric/deviatoric split adds up: checked with dual numbers, a few lines per law. The
// material tangent the implicit solver takes from the same duals has the major symmetry of a
// hyperelastic law.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>

// Several material headers in one program: their FEM_MATERIAL lines name nothing here.
#define FEM_MATERIAL(Type)
#include "../../materials/linear_elastic/linear_elastic.hpp"
#include "../../materials/mooney_rivlin/mooney_rivlin.hpp"
#include "../../materials/neo_hookean/neo_hookean.hpp"
#include "../../materials/ogden/ogden.hpp"
#include "../../materials/reduced_polynomial/reduced_polynomial.hpp"
#include "../../materials/saint_venant_kirchhoff/saint_venant_kirchhoff.hpp"
#include "../../materials/transversely_isotropic/transversely_isotropic.hpp"

#include <fem/kernels/averaged_pressure.hpp>

namespace fem {
namespace {

using D = Dual<double>;

/// A deformation gradient near the identity (stretch up to +-25 %), det > 0.
Mat3<double> random_deformation(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.25, 0.25);
  Mat3<double> F = Mat3<double>::identity();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F.m[i][j] += u(rng);
  return F;
}

/// A copy of F with derivative direction E_kl (the unit tensor of entry k, l).
Mat3<D> along(const Mat3<double>& F, int k, int l) {
  Mat3<D> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = D(F.m[i][j], i == k && j == l ? 1.0 : 0.0);
  return r;
}

template <class M>
std::vector<D> dual_params(const double* p) {
  return std::vector<D>(p, p + M::num_params);
}

/// P_kl = dW/dF_kl at random F, relative to the largest stress entry.
template <class M>
void expect_stress_is_energy_derivative(const std::vector<double>& params) {
  std::mt19937 rng(7);
  const std::vector<D> pd = dual_params<M>(params.data());
  for (int sample = 0; sample < 20; ++sample) {
    const Mat3<double> F = random_deformation(rng);
    const Mat3<double> P = M::template stress<double>(params.data(), F, nullptr);
    double scale = 0.0;
    for (int i = 0; i < 9; ++i) scale = std::max(scale, std::abs(P.m[i / 3][i % 3]));
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) {
        const D W = M::template strain_energy<D>(pd.data(), along(F, k, l), nullptr);
        EXPECT_NEAR(W.d, P.m[k][l], 1e-12 * scale) << M::name << " entry " << k << l;
      }
  }
}

/// stress = deviatoric_stress + U'(J) cof(F) (sigma_dev + U'(J) I for small strain), and
/// U' is the derivative of U.
template <class M>
void expect_volumetric_split_adds_up(const std::vector<double>& params) {
  std::mt19937 rng(11);
  for (int sample = 0; sample < 20; ++sample) {
    const Mat3<double> F = random_deformation(rng);
    const double J = kernels::volume_ratio<M, double>(F);
    const Mat3<double> P = M::template stress<double>(params.data(), F, nullptr);
    const Mat3<double> split = kernels::stress_with_pressure<M, double>(
        params.data(), F, nullptr, M::template volumetric_pressure<double>(params.data(), J));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(split.m[i][j], P.m[i][j], 1e-12 * (1.0 + std::abs(P.m[i][j]))) << M::name;
    const std::vector<D> pd = dual_params<M>(params.data());
    EXPECT_NEAR(M::template volumetric_energy<D>(pd.data(), D(J, 1.0)).d,
                M::template volumetric_pressure<double>(params.data(), J), 1e-9)
        << M::name;
  }
}

/// A_iJkL = A_kLiJ: the tangent of a law with a strain energy is symmetric.
template <class M>
void expect_symmetric_tangent(const std::vector<double>& params) {
  std::mt19937 rng(3);
  const std::vector<D> pd = dual_params<M>(params.data());
  const Mat3<double> F = random_deformation(rng);
  double A[9][9];
  for (int kl = 0; kl < 9; ++kl) {
    const Mat3<D> P = M::template stress<D>(pd.data(), along(F, kl / 3, kl % 3), nullptr);
    for (int ij = 0; ij < 9; ++ij) A[ij][kl] = P.m[ij / 3][ij % 3].d;
  }
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b)
      EXPECT_NEAR(A[a][b], A[b][a], 1e-10 * (std::abs(A[a][b]) + 1.0)) << M::name;
}

const std::vector<double> kNeoHookean = {1.0e3, 5.0e4};  // mu, kappa
const std::vector<double> kLame = {2.0e4, 1.0e3};        // lambda, mu
// The soft-tissue laws, with every term of each switched on (parameters as stored: 1/D_i).
const std::vector<double> kMooneyRivlin = {350.0, 150.0, 2.5e4};         // c10, c01, 1/d1
const std::vector<double> kYeoh = {400.0, -30.0, 8.0, 2.5e4, 1e3, 1e2};  // c10..c30, 1/d1..3
const std::vector<double> kOgden = {630.0, 1.3, 1.2, 5.0, -10.0, -2.0, 2.5e4, 1e3, 1e2};
// c1, c2, c3, c4, c5, lam_max, c6 (continuity), fibre (0.6, 0.8, 0), 1/d1: the random F reach
// the fibres' toe and linear regions and compression.
const std::vector<double> kTransverselyIsotropic = {
    300.0, 50.0, 20.0, 15.0, 8000.0, 1.12, 20.0 * std::expm1(15.0 * 0.12) - 8000.0 * 1.12,
    0.6,   0.8,  0.0,  2.5e4};

TEST(MaterialLaws, StressIsTheDerivativeOfTheStrainEnergy) {
  expect_stress_is_energy_derivative<materials::NeoHookean>(kNeoHookean);
  expect_stress_is_energy_derivative<materials::SaintVenantKirchhoff>(kLame);
  expect_stress_is_energy_derivative<materials::LinearElastic>(kLame);
  expect_stress_is_energy_derivative<materials::MooneyRivlin>(kMooneyRivlin);
  expect_stress_is_energy_derivative<materials::ReducedPolynomial>(kYeoh);
  expect_stress_is_energy_derivative<materials::Ogden>(kOgden);
  expect_stress_is_energy_derivative<materials::TransverselyIsotropic>(kTransverselyIsotropic);
}

TEST(MaterialLaws, VolumetricSplitAddsUpToTheStress) {
  expect_volumetric_split_adds_up<materials::NeoHookean>(kNeoHookean);
  expect_volumetric_split_adds_up<materials::LinearElastic>(kLame);
  expect_volumetric_split_adds_up<materials::MooneyRivlin>(kMooneyRivlin);
  expect_volumetric_split_adds_up<materials::ReducedPolynomial>(kYeoh);
  expect_volumetric_split_adds_up<materials::Ogden>(kOgden);
  expect_volumetric_split_adds_up<materials::TransverselyIsotropic>(kTransverselyIsotropic);
}

TEST(MaterialLaws, TangentFromDualNumbersHasMajorSymmetry) {
  expect_symmetric_tangent<materials::NeoHookean>(kNeoHookean);
  expect_symmetric_tangent<materials::SaintVenantKirchhoff>(kLame);
  expect_symmetric_tangent<materials::LinearElastic>(kLame);
  expect_symmetric_tangent<materials::MooneyRivlin>(kMooneyRivlin);
  expect_symmetric_tangent<materials::ReducedPolynomial>(kYeoh);
  expect_symmetric_tangent<materials::Ogden>(kOgden);
  expect_symmetric_tangent<materials::TransverselyIsotropic>(kTransverselyIsotropic);
}

TEST(MaterialLaws, SinglePrecisionTangentMatchesDouble) {
  // The dual evaluation in float (single-precision operators) against double.
  std::mt19937 rng(5);
  const Mat3<double> F = random_deformation(rng);
  const std::vector<D> pd = dual_params<materials::NeoHookean>(kNeoHookean.data());
  const std::vector<Dual<float>> pf(kNeoHookean.begin(), kNeoHookean.end());
  Mat3<Dual<float>> Ff;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      Ff.m[i][j] = Dual<float>(static_cast<float>(F.m[i][j]), i == 0 && j == 1 ? 1.0f : 0.0f);
  const Mat3<D> Pd = materials::NeoHookean::stress<D>(pd.data(), along(F, 0, 1), nullptr);
  const Mat3<Dual<float>> Pf = materials::NeoHookean::stress<Dual<float>>(pf.data(), Ff, nullptr);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(Pf.m[i][j].d, Pd.m[i][j].d, 2e-4 * std::abs(Pd.m[0][1].d) + 1e-2);
}

/// The worst relative error (against the largest entry) of law M's stress in float, from
/// displacement gradients of size `strain` (rounded to float, then the same values in double),
/// computed by stress_from_gradient and, for comparison, by stress(I + H) with I + H rounded to
/// float as a kernel without the gradient hook would.
template <class M>
std::array<double, 2> float_stress_errors(const std::vector<double>& params, double strain) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::vector<float> pf(params.begin(), params.end());
  std::array<double, 2> worst = {0.0, 0.0};
  for (int sample = 0; sample < 200; ++sample) {
    Mat3<float> Hf;
    Mat3<double> Hd;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Hd.m[i][j] = Hf.m[i][j] = static_cast<float>(strain * u(rng));
    const Mat3<double> Pd = M::template stress_from_gradient<double>(params.data(), Hd, nullptr);
    Mat3<float> Ff = Hf;
    for (int i = 0; i < 3; ++i) Ff.m[i][i] += 1.0f;
    const Mat3<float> from_gradient = material_stress<M, float>(pf.data(), Hf, nullptr);
    const Mat3<float> from_f = M::template stress<float>(pf.data(), Ff, nullptr);
    double scale = 0.0, diff_gradient = 0.0, diff_f = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        scale = std::max(scale, std::abs(Pd.m[i][j]));
        diff_gradient = std::max(diff_gradient,
                                 std::abs(static_cast<double>(from_gradient.m[i][j]) - Pd.m[i][j]));
        diff_f = std::max(diff_f, std::abs(static_cast<double>(from_f.m[i][j]) - Pd.m[i][j]));
      }
    worst[0] = std::max(worst[0], diff_gradient / scale);
    worst[1] = std::max(worst[1], diff_f / scale);
  }
  return worst;
}

/// stress_from_gradient(H) = stress(I + H) in double, relative to the largest entry.
template <class M>
void expect_gradient_form_is_the_stress(const std::vector<double>& params) {
  std::mt19937 rng(3);
  for (int sample = 0; sample < 20; ++sample) {
    const Mat3<double> F = random_deformation(rng);
    const Mat3<double> P = M::template stress<double>(params.data(), F, nullptr);
    const Mat3<double> from_h = M::template stress_from_gradient<double>(
        params.data(), F - Mat3<double>::identity(), nullptr);
    double scale = 0.0;
    for (int i = 0; i < 9; ++i) scale = std::max(scale, std::abs(P.m[i / 3][i % 3]));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(from_h.m[i][j], P.m[i][j], 1e-12 * scale) << M::name << " entry " << i << j;
  }
}

TEST(MaterialLaws, StressFromTheDisplacementGradientIsTheStress) {
  expect_gradient_form_is_the_stress<materials::NeoHookean>(kNeoHookean);
  expect_gradient_form_is_the_stress<materials::SaintVenantKirchhoff>(kLame);
  expect_gradient_form_is_the_stress<materials::LinearElastic>(kLame);
  expect_gradient_form_is_the_stress<materials::MooneyRivlin>(kMooneyRivlin);
  expect_gradient_form_is_the_stress<materials::ReducedPolynomial>(kYeoh);
  expect_gradient_form_is_the_stress<materials::Ogden>(kOgden);
  expect_gradient_form_is_the_stress<materials::TransverselyIsotropic>(kTransverselyIsotropic);
}

TEST(MaterialLaws, SinglePrecisionStressFromTheDisplacementGradientKeepsItsDigits) {
  // In single precision the element kernels pass H = F - I (material_stress): the built-in
  // laws form J - 1 and their strains from H, so float keeps about 6 digits at every strain,
  // where stress(I + H) with I + H rounded to float loses them as the strain shrinks. Measured
  // (200 random H per strain, worst relative error, neo-Hookean / St Venant-Kirchhoff / linear
  // elastic): from H 0.4-1.7e-6 at every strain from 1e-1 to 1e-6; from I + H 1-3e-5 at 1e-1,
  // 3-7e-3 at 1e-3, 0.14-0.34 at 1e-5 and 0.7-0.9 at 1e-6.
  static_assert(has_gradient_stress<materials::NeoHookean> &&
                has_gradient_stress<materials::SaintVenantKirchhoff> &&
                has_gradient_stress<materials::LinearElastic>);
  for (const double strain : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) {
    const auto neo = float_stress_errors<materials::NeoHookean>(kNeoHookean, strain);
    const auto svk = float_stress_errors<materials::SaintVenantKirchhoff>(kLame, strain);
    const auto lin = float_stress_errors<materials::LinearElastic>(kLame, strain);
    std::printf(
        "[ float stress ] strain %.0e: from H %.1e %.1e %.1e, from I + H %.1e %.1e %.1e "
        "(neo-Hookean, St Venant-Kirchhoff, linear elastic)\n",
        strain, neo[0], svk[0], lin[0], neo[1], svk[1], lin[1]);
    for (const double e : {neo[0], svk[0], lin[0]}) EXPECT_LT(e, 5e-6) << "strain " << strain;
    if (strain <= 1e-4) {
      EXPECT_GT(neo[1], 100.0 * neo[0]) << "stress(I + H) lost no digits?";
    }
  }
}

TEST(MaterialLaws, SoftTissueLawsKeepTheirDigitsInSinglePrecision) {
  // The soft-tissue laws write their isochoric stresses with dev() of E (and Ogden's principal
  // powers with expm1/log1p of E's eigenvalues) and take E and J - 1 from H in single precision,
  // as the laws above do. Measured (worst relative error of 200 random H per strain, the four
  // laws): from H 0.6-2.8e-6 at every strain from 1e-1 to 1e-6; from I + H 3-4e-5 at 1e-1,
  // 0.7-1.1e-2 at 1e-3, 0.33-0.42 at 1e-5 and 0.90-0.94 at 1e-6, as neo-Hookean's F form.
  static_assert(has_gradient_stress<materials::MooneyRivlin> &&
                has_gradient_stress<materials::ReducedPolynomial> &&
                has_gradient_stress<materials::Ogden> &&
                has_gradient_stress<materials::TransverselyIsotropic>);
  for (const double strain : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) {
    const auto mr = float_stress_errors<materials::MooneyRivlin>(kMooneyRivlin, strain);
    const auto yeoh = float_stress_errors<materials::ReducedPolynomial>(kYeoh, strain);
    const auto og = float_stress_errors<materials::Ogden>(kOgden, strain);
    const auto ti =
        float_stress_errors<materials::TransverselyIsotropic>(kTransverselyIsotropic, strain);
    std::printf(
        "[ float stress ] strain %.0e: from H %.1e %.1e %.1e %.1e, from I + H %.1e %.1e %.1e "
        "%.1e (Mooney-Rivlin, Yeoh, Ogden, transversely isotropic)\n",
        strain, mr[0], yeoh[0], og[0], ti[0], mr[1], yeoh[1], og[1], ti[1]);
    for (const double e : {mr[0], yeoh[0], og[0], ti[0]}) EXPECT_LT(e, 5e-6) << "strain " << strain;
    if (strain <= 1e-4) {
      for (const auto& e : {mr, yeoh, og, ti})
        EXPECT_GT(e[1], 100.0 * e[0]) << "stress(I + H) lost no digits?";
    }
  }
}

}  // namespace
}  // namespace fem
