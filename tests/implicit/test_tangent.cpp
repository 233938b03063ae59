// The tangent the implicit solver takes from the materials by dual numbers: its action against
// central finite differences of the internal force, for every element and built-in material;
// its diagonal, node blocks and assembled matrix against the action; rigid-body motions.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "support/backend.hpp"
#include "support/element_types.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

std::string tangent_case(const std::string& element, const std::string& cells,
                         const std::string& material, const std::string& extra = "") {
  // The soft-tissue laws with shear moduli near neo-Hookean's (about 1 kPa) and every term on.
  static const std::map<std::string, std::string> soft_tissue = {
      {"mooney_rivlin", "c10: 350, c01: 150, bulk_modulus: 1e4"},
      {"reduced_polynomial", "c10: 400, c20: -30, c30: 8, bulk_modulus: 1e4"},
      {"ogden", "mu1: 630, alpha1: 1.3, mu2: 1.2, alpha2: 5, mu3: -10, alpha3: -2, d1: 2e-4"},
      {"transversely_isotropic",
       "c1: 300, c2: 50, c3: 20, c4: 15, c5: 8000, lam_max: 1.12, fiber_direction: [1, 1, 0], "
       "bulk_modulus: 1e4"}};
  std::string law;
  if (material == "neo_hookean")
    law = "{type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.45}";
  else if (soft_tissue.count(material) != 0)
    law = "{type: " + material + ", " + soft_tissue.at(material) + "}";
  else
    law = "{type: " + material + ", youngs_modulus: 3000, poisson_ratio: 0.3}";
  return R"(
mesh: {generator: box, cells: )" +
         cells + R"(, size: [1, 1, 1], divisions: [2, 2, 2], distortion: 0.15, seed: 3}
materials: {m: )" +
         law + R"(}
blocks: [{element: )" +
         element + R"(, material: m}]
solver: {type: implicit_dynamic, end_time: 1, time_step: 1}
)" + extra;
}

using TangentCase = std::tuple<std::string, std::string, std::string>;  // element, cells, law

std::vector<TangentCase> tangent_cases() {
  std::vector<TangentCase> cases;
  for (const auto& [element, cells] : {ElementCase{"tet4", "tet4"}, ElementCase{"tet4_anp", "tet4"},
                                       ElementCase{"hex8", "hex8"}, ElementCase{"hex8r", "hex8"}})
    for (const char* law :
         {"neo_hookean", "saint_venant_kirchhoff", "linear_elastic", "mooney_rivlin",
          "reduced_polynomial", "ogden", "transversely_isotropic"})
      if (element != "tet4_anp" || std::string(law) != "saint_venant_kirchhoff")  // no split
        cases.emplace_back(element, cells, law);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<TangentCase>& info) {
  return std::get<0>(info.param) + "_" + std::get<2>(info.param);
}

class Tangent : public ::testing::TestWithParam<TangentCase> {};

TEST_P(Tangent, ActionMatchesCentralDifferencesOfTheInternalForce) {
  const auto& [element, cells, law] = GetParam();
  ImplicitRun run =
      prepare_implicit(tangent_case(element, cells, law), on_backend({{"precision", "double"}}));
  NonlinearOperator& op = run.op();
  LinearAlgebra& la = run.la();
  const std::int64_t n = op.size();
  // A deformed state (strains of ~10 %) and random directions.
  const auto u = device_vector(la, random_vector(n, 0.03, 1));
  ASSERT_TRUE(op.linearize(*u).ok());
  for (unsigned seed = 2; seed < 5; ++seed) {
    const std::vector<double> v_host = random_vector(n, 1.0, seed);
    const auto v = device_vector(la, v_host);
    const auto kv = la.vector(n);
    op.apply(*v, *kv);
    // (f(u + h v) - f(u - h v)) / 2h
    const double h = 1e-6;
    const auto up = la.vector(n), um = la.vector(n), fp = la.vector(n), fm = la.vector(n);
    la.copy(*u, *up);
    la.axpby(h, *v, 1.0, *up);
    la.copy(*u, *um);
    la.axpby(-h, *v, 1.0, *um);
    ASSERT_TRUE(op.internal_forces(*up, *fp).ok());
    ASSERT_TRUE(op.internal_forces(*um, *fm).ok());
    la.axpby(-1.0, *fm, 1.0, *fp);
    la.axpby(0.0, *fp, 0.5 / h, *fp);
    const double error = relative_difference(host_vector(la, *kv), host_vector(la, *fp));
    EXPECT_LT(error, 1e-6) << element << " " << law << " seed " << seed;
  }
}

/// The probing defaults of the operator contract, over the backend's own required verbs.
class Probing final : public NonlinearOperator {
 public:
  explicit Probing(NonlinearOperator& inner) : NonlinearOperator(inner.system()), inner_(inner) {}
  LinearAlgebra& algebra() override { return inner_.algebra(); }
  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    inner_.element_results(u, out);
  }

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override {
    return inner_.internal_forces(u, f);
  }
  ElementCheck do_linearize(const Vector& u) override { return inner_.linearize(u); }
  void do_apply(const Vector& v, Vector& y) override {
    inner_.set_shift(shift_stiffness(), shift_mass());
    inner_.apply(v, y);
  }

 private:
  NonlinearOperator& inner_;
};

TEST_P(Tangent, DiagonalBlocksAndAssemblyMatchTheAction) {
  const auto& [element, cells, law] = GetParam();
  // Some prescribed dofs, so that the eliminated rows and columns are checked too.
  ImplicitRun run = prepare_implicit(tangent_case(element, cells, law, R"(
node_sets: {bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}
boundary_conditions: [{set: bottom, fixed: [x, z]}]
)"),
                                     on_backend({{"precision", "double"}}));
  NonlinearOperator& op = run.op();
  LinearAlgebra& la = run.la();
  const std::int64_t n = op.size();
  const auto u = device_vector(la, random_vector(n, 0.03, 1));
  ASSERT_TRUE(op.linearize(*u).ok());
  op.set_shift(0.7, 2.5);  // a Newmark-like shift: K scaled, lumped mass added
  Probing probing(op);
  probing.set_shift(0.7, 2.5);
  const double tolerance = 1e-11;

  const auto d = la.vector(n), dp = la.vector(n);
  op.diagonal(*d);
  probing.diagonal(*dp);
  EXPECT_LT(relative_difference(host_vector(la, *d), host_vector(la, *dp)), tolerance);

  const auto b = la.vector(3 * n), bp = la.vector(3 * n);
  op.block_diagonal(*b);
  probing.block_diagonal(*bp);
  EXPECT_LT(relative_difference(host_vector(la, *b), host_vector(la, *bp)), tolerance);

  CsrMatrix a, ap;
  op.assemble(a);
  probing.assemble(ap);
  ASSERT_EQ(a.offsets, ap.offsets);
  ASSERT_EQ(a.columns, ap.columns);
  EXPECT_LT(relative_difference(a.values, ap.values), tolerance);

  // The assembled matrix on the backend times a vector that is zero at prescribed dofs equals
  // the action (exact families).
  std::vector<double> v_host = random_vector(n, 1.0, 9);
  for (std::int64_t i = 0; i < n; ++i)
    if (run.solver->setup().system.prescribed_amplitude[i] >= 0) v_host[i] = 0.0;
  const auto v = device_vector(la, v_host);
  const auto y = la.vector(n), ym = la.vector(n);
  op.apply(*v, *y);
  const auto matrix = la.matrix(a);
  la.multiply(*matrix, *v, *ym);
  EXPECT_LT(relative_difference(host_vector(la, *ym), host_vector(la, *y)), 1e-12);
  // Symmetric (hyperelastic laws and the mass shift; averaged nodal pressure with a linear
  // U'(J), as every built-in law has).
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t j = a.offsets[r]; j < a.offsets[r + 1]; ++j)
      dense(r, a.columns[j]) = a.values[j];
  EXPECT_LT((dense - dense.transpose()).norm(), 1e-10 * dense.norm());
}

INSTANTIATE_TEST_SUITE_P(EveryElementAndLaw, Tangent, ::testing::ValuesIn(tangent_cases()),
                         case_name);

class RigidMotion : public ::testing::TestWithParam<ElementCase> {};

void expect_rigid_motion_is_free(const std::string& element, const std::string& cells,
                                 const std::string& law);

TEST_P(RigidMotion, RotationGivesNoForceAndTheTangentKeepsRigidModesFree) {
  const auto& [element, cells] = GetParam();
  // Ogden too: a rotation gives C = I, three coincident principal stretches.
  for (const char* law : {"neo_hookean", "ogden"}) {
    SCOPED_TRACE(law);
    expect_rigid_motion_is_free(element, cells, law);
  }
}

void expect_rigid_motion_is_free(const std::string& element, const std::string& cells,
                                 const std::string& law) {
  ImplicitRun run =
      prepare_implicit(tangent_case(element, cells, law), on_backend({{"precision", "double"}}));
  NonlinearOperator& op = run.op();
  LinearAlgebra& la = run.la();
  const std::int64_t n = op.size();
  const std::vector<double>& X = run.model.mesh.coords;
  // A finite rotation of 40 degrees about an oblique axis: u = (R - I) X.
  const Eigen::Matrix3d R =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 0.5).normalized()).toRotationMatrix();
  std::vector<double> u(static_cast<std::size_t>(n));
  for (std::int64_t a = 0; a < n / 3; ++a) {
    const Eigen::Vector3d x(X[3 * a], X[3 * a + 1], X[3 * a + 2]);
    const Eigen::Vector3d d = R * x - x;
    for (int i = 0; i < 3; ++i) u[3 * a + i] = d[i];
  }
  const auto du = device_vector(la, u);
  const auto f = la.vector(n);
  ASSERT_TRUE(op.internal_forces(*du, *f).ok());
  // Reference force scale: the same body stretched by 1 % along x.
  std::vector<double> stretch(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t a = 0; a < n / 3; ++a) stretch[3 * a] = 0.01 * X[3 * a];
  const auto ds = device_vector(la, stretch);
  const auto fs = la.vector(n);
  ASSERT_TRUE(op.internal_forces(*ds, *fs).ok());
  EXPECT_LT(norm2(host_vector(la, *f)), 1e-10 * norm2(host_vector(la, *fs)));
  // K(u) w = 0 for the six rigid modes about the rotated configuration x = X + u.
  ASSERT_TRUE(op.linearize(*du).ok());
  for (int mode = 0; mode < 6; ++mode) {
    std::vector<double> w(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t a = 0; a < n / 3; ++a) {
      const Eigen::Vector3d x(X[3 * a] + u[3 * a], X[3 * a + 1] + u[3 * a + 1],
                              X[3 * a + 2] + u[3 * a + 2]);
      const Eigen::Vector3d m =
          mode < 3 ? Eigen::Vector3d::Unit(mode) : Eigen::Vector3d::Unit(mode - 3).cross(x);
      for (int i = 0; i < 3; ++i) w[3 * a + i] = m[i];
    }
    const auto wv = device_vector(la, w);
    const auto kw = la.vector(n);
    op.apply(*wv, *kw);
    // Against the tangent's action on a deformation mode of the same size.
    const auto sv = device_vector(la, stretch);
    const auto ks = la.vector(n);
    op.apply(*sv, *ks);
    EXPECT_LT(norm2(host_vector(la, *kw)),
              1e-9 * norm2(host_vector(la, *ks)) * norm2(w) / norm2(stretch))
        << "mode " << mode;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryElement, RigidMotion, all_element_types(), element_name);

}  // namespace
}  // namespace fem::test
