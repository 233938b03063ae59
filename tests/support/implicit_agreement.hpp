// The implicit verbs of a backend against the OpenMP reference, written once for every backend
// (tests/gpu/test_cuda_implicit.cpp, tests/kokkos/test_kokkos_implicit.cpp): the vector verbs,
// every operator verb at one deformed state, and whole static solves. Each test file decides
// whether its backend runs here and how its sums compare with the reference's, and calls these.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <fem/plugin_registry.hpp>

#include "support/element_types.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {

/// max_i |a_i - b_i| / max_i |b_i| (0 when both are zero).
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0.0 ? diff / scale : diff;
}

/// A sparse n x n matrix with up to 7 entries per row at pseudo-random sorted columns.
inline CsrMatrix random_sparse(std::int64_t n) {
  CsrMatrix m;
  m.rows = m.cols = n;
  m.offsets.push_back(0);
  const std::vector<double> pick = random_vector(7 * n, 0.5, 4);
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> columns;
    for (int k = 0; k < 7; ++k)
      columns.push_back(static_cast<std::int64_t>((pick[7 * r + k] + 0.5) * (n - 1)));
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    for (const std::int64_t c : columns) {
      m.columns.push_back(c);
      m.values.push_back(1.0 + 0.001 * static_cast<double>(c % 97));
    }
    m.offsets.push_back(static_cast<std::int64_t>(m.columns.size()));
  }
  return m;
}

/// What every vector verb returns on one LinearAlgebra.
struct VectorVerbResults {
  double dot = 0.0, repeated_dot = 0.0, max_abs = 0.0;
  std::array<double, 2> dot2 = {};
  std::vector<double> axpby, scaled, product, copied, filled, block_product, sparse_product;
  std::vector<double> pivots;  ///< invert_pivots of x with a zero, a negative, inf and NaN
};

inline VectorVerbResults run_vector_verbs(LinearAlgebra& la, std::int64_t n) {
  const std::vector<double> x = random_vector(n, 1.0, 1), y = random_vector(n, 1.0, 2),
                            blocks = random_vector(3 * n, 1.0, 3);
  VectorVerbResults r;
  const auto dx = device_vector(la, x), dy = device_vector(la, y), db = device_vector(la, blocks);
  r.dot = la.dot(*dx, *dy);
  r.repeated_dot = la.dot(*dx, *dy);
  r.dot2 = la.dot2(*dx, *dy, *dy, *dy);
  r.max_abs = la.max_abs(*dx);
  const auto out = la.vector(n);
  la.copy(*dy, *out);
  la.axpby(2.0, *dx, -0.5, *out);
  r.axpby = host_vector(la, *out);
  // b == 0 must not read y: NaN there does not survive.
  la.fill(*out, std::numeric_limits<double>::quiet_NaN());
  la.axpby(3.0, *dx, 0.0, *out);
  r.scaled = host_vector(la, *out);
  la.multiply(*dx, *dy, *out);
  r.product = host_vector(la, *out);
  la.copy(*dx, *out);
  r.copied = host_vector(la, *out);
  la.fill(*out, 7.0);
  r.filled = host_vector(la, *out);
  la.block_multiply(*db, *dx, *out);
  r.block_product = host_vector(la, *out);
  std::vector<double> pivots = x;
  for (double& v : pivots) v = std::abs(v) + 0.1;
  const double bad[] = {0.0, -2.0, std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN()};
  for (std::size_t i = 0; i < pivots.size() && i < std::size(bad); ++i) pivots[i] = bad[i];
  const auto dp = device_vector(la, pivots);
  la.invert_pivots(*dp);
  r.pivots = host_vector(la, *dp);
  const auto a = la.matrix(random_sparse(n));
  la.multiply(*a, *dx, *out);
  r.sparse_product = host_vector(la, *out);
  return r;
}

/// A conjugate-gradient solve of diag(d) x = b composed from the cg_* verbs (no
/// preconditioner): x when the progress first says converged, x after as many iterations again
/// enqueued past that point (a backend that reads its scalars late must not change x), and the
/// progress at both points.
struct CgVerbResults {
  std::vector<double> x, x_late;
  CgProgress progress, progress_late;
};

/// How run_cg_verbs preconditions: not at all, with the scaling z = s .* r by multiply()
/// between cg_descend and cg_turn, or with cg_descend_scale_turn (fused on a device).
enum class CgScaling { None, Separate, Fused };

inline CgVerbResults run_cg_verbs(LinearAlgebra& la, const std::vector<double>& diagonal,
                                  double tolerance, CgScaling scaling = CgScaling::None) {
  const auto n = static_cast<std::int64_t>(diagonal.size());
  const auto d = device_vector(la, diagonal), b = device_vector(la, random_vector(n, 1.0, 5));
  const auto x = la.vector(n), r = la.vector(n), p = la.vector(n), ap = la.vector(n),
             z = la.vector(n);
  // A rough inverse of the diagonal (not exact: CG still iterates).
  std::vector<double> rough(diagonal.size());
  for (std::size_t i = 0; i < rough.size(); ++i) rough[i] = 1.0 / (diagonal[i] + 0.3);
  const auto s = device_vector(la, rough);
  la.copy(*b, *r);
  if (scaling == CgScaling::None)
    la.copy(*r, *z);
  else
    la.multiply(*s, *r, *z);
  la.copy(*z, *p);
  const double bb = la.dot(*b, *b);
  const auto scalars = la.cg_scalars();
  la.cg_start(*r, *z, bb, tolerance * tolerance * bb, *scalars);
  const auto iterate = [&] {
    la.multiply(*d, *p, *ap);
    switch (scaling) {
      case CgScaling::None:
        la.cg_descend(*p, *ap, *x, *r, *scalars);
        la.cg_turn(*r, *r, *p, *scalars);
        break;
      case CgScaling::Separate:
        la.cg_descend(*p, *ap, *x, *r, *scalars);
        la.multiply(*s, *r, *z);
        la.cg_turn(*r, *z, *p, *scalars);
        break;
      case CgScaling::Fused:
        la.cg_descend_scale_turn(*ap, *s, *x, *r, *z, *p, *scalars);
        break;
    }
  };
  CgVerbResults out;
  int k = 0;
  for (; k < 200; ++k) {
    iterate();
    out.progress = la.cg_progress(*scalars);
    if (out.progress.state != CgProgress::State::Running) break;
  }
  out.x = host_vector(la, *x);
  for (int extra = 0; extra <= k; ++extra) iterate();
  out.progress_late = la.cg_progress(*scalars);
  out.x_late = host_vector(la, *x);
  return out;
}

/// The cg_* verbs of `tested` against the reference's: the same iterations, x to round-off,
/// and nothing changes after convergence or a breakdown (an indefinite diagonal).
inline void expect_cg_verbs_match(LinearAlgebra& reference, LinearAlgebra& tested, std::int64_t n,
                                  double entries) {
  std::vector<double> diagonal = random_vector(n, 0.5, 6);
  for (double& v : diagonal) v += 1.5;  // in [1, 2]: converges in about ten iterations
  const CgVerbResults want = run_cg_verbs(reference, diagonal, 1e-5),
                      got = run_cg_verbs(tested, diagonal, 1e-5);
  ASSERT_EQ(want.progress.state, CgProgress::State::Converged);
  EXPECT_GE(want.progress.iterations, std::min<std::int64_t>(n, 4));  // at most n: exact
  EXPECT_EQ(got.progress.state, CgProgress::State::Converged);
  EXPECT_EQ(got.progress.iterations, want.progress.iterations);
  // r . r at convergence; where CG ends exactly (n <= 4) it is round-off of either.
  EXPECT_NEAR(std::sqrt(got.progress.rr), std::sqrt(want.progress.rr),
              1e-3 * std::sqrt(want.progress.rr) + 1e-12);
  EXPECT_LE(max_relative_difference(got.x, want.x), entries);
  EXPECT_EQ(got.x_late, got.x) << "iterations after convergence changed x";
  EXPECT_EQ(got.progress_late.iterations, got.progress.iterations);
  EXPECT_EQ(got.progress_late.state, CgProgress::State::Converged);
  // Preconditioned by a diagonal scaling: the fused verb gives the bits of the three it
  // replaces, and the reference's iterations.
  const CgVerbResults separate = run_cg_verbs(tested, diagonal, 1e-5, CgScaling::Separate),
                      fused = run_cg_verbs(tested, diagonal, 1e-5, CgScaling::Fused),
                      fused_want = run_cg_verbs(reference, diagonal, 1e-5, CgScaling::Fused);
  EXPECT_EQ(fused.progress.state, CgProgress::State::Converged);
  EXPECT_EQ(fused.progress.iterations, separate.progress.iterations);
  EXPECT_EQ(fused.x, separate.x) << "cg_descend_scale_turn differs from its three verbs";
  EXPECT_EQ(fused.x_late, fused.x) << "fused iterations after convergence changed x";
  EXPECT_EQ(fused.progress.iterations, fused_want.progress.iterations);
  EXPECT_LE(max_relative_difference(fused.x, fused_want.x), entries);
  for (double& v : diagonal) v = -v;  // negative definite: p . Ap < 0 at once
  const CgVerbResults broken = run_cg_verbs(tested, diagonal, 1e-5);
  EXPECT_EQ(broken.progress.state, CgProgress::State::Breakdown);
  EXPECT_EQ(broken.progress.iterations, 0);
  EXPECT_EQ(broken.progress_late.state, CgProgress::State::Breakdown);
  for (const double v : broken.x_late) ASSERT_EQ(v, 0.0) << "a broken-down solve moved x";
}

/// The vector verbs of `backend` against OpenMP's at each size: element-wise verbs give the same
/// entries (the same expressions in the same precision); reductions are in double, bit-identical
/// where `same_sums` (a host space summing over the reference's fixed chunks), else to
/// round-off; a repeated reduction gives the same bits.
inline void expect_vector_verbs_match_openmp(const std::string& backend, Precision precision,
                                             bool same_sums,
                                             const std::vector<std::int64_t>& sizes) {
  const PluginRegistry plugins;
  const double entries = precision == Precision::Single ? 1e-6 : 1e-15;
  auto openmp_backend = plugins.create_backend("openmp");
  auto tested_backend = plugins.create_backend(backend);
  const auto reference = openmp_backend->create_linear_algebra(precision);
  const auto tested = tested_backend->create_linear_algebra(precision);
  ASSERT_EQ(tested->precision(), precision);
  for (const std::int64_t n : sizes) {
    SCOPED_TRACE("size " + std::to_string(n));
    const VectorVerbResults want = run_vector_verbs(*reference, n),
                            got = run_vector_verbs(*tested, n);
    if (same_sums) {
      EXPECT_EQ(got.dot, want.dot);
      EXPECT_EQ(got.dot2, want.dot2);
    } else {
      EXPECT_NEAR(got.dot, want.dot, 1e-12 * std::abs(want.dot));
      EXPECT_NEAR(got.dot2[0], want.dot2[0], 1e-12 * std::abs(want.dot2[0]));
      EXPECT_NEAR(got.dot2[1], want.dot2[1], 1e-12 * std::abs(want.dot2[1]));
    }
    EXPECT_EQ(got.repeated_dot, got.dot) << "a repeated dot product changed";
    EXPECT_EQ(got.dot2[0], got.dot) << "dot2 and dot sum in different orders";
    EXPECT_EQ(got.max_abs, want.max_abs);
    for (const double s : got.scaled) ASSERT_TRUE(std::isfinite(s)) << "axpby with b = 0 read y";
    EXPECT_LE(max_relative_difference(got.axpby, want.axpby), entries);
    EXPECT_LE(max_relative_difference(got.scaled, want.scaled), entries);
    EXPECT_LE(max_relative_difference(got.product, want.product), entries);
    EXPECT_EQ(got.copied, want.copied);
    EXPECT_EQ(got.filled, want.filled);
    EXPECT_LE(max_relative_difference(got.block_product, want.block_product), entries);
    EXPECT_EQ(got.pivots, want.pivots);
    const std::vector<double> x = random_vector(n, 1.0, 1);
    for (std::size_t i = 0; i < want.pivots.size(); ++i)
      ASSERT_NEAR(want.pivots[i], i < 4 ? 1.0 : 1.0 / (std::abs(x[i]) + 0.1),
                  entries * want.pivots[i])
          << "pivot " << i << ": 1 for a zero, a negative, inf and NaN";
    // A device may sum a row in double where OpenMP sums in the vectors' precision.
    EXPECT_LE(max_relative_difference(got.sparse_product, want.sparse_product),
              precision == Precision::Single ? 1e-5 : 1e-14);
    expect_cg_verbs_match(*reference, *tested, n, precision == Precision::Single ? 1e-5 : 1e-12);
  }
}

/// An element (and the box cells it is built from) in one precision.
struct OperatorCase {
  ElementCase element;
  std::string precision;
};

inline void PrintTo(const OperatorCase& c, std::ostream* os) {
  *os << c.element.first << ' ' << c.precision;
}

/// The linear element types, and with `quadratic` the quadratic ones, in both precisions.
inline std::vector<OperatorCase> operator_cases(bool quadratic = false) {
  std::vector<OperatorCase> cases;
  for (const ElementCase& e : element_types(quadratic))
    for (const char* precision : {"single", "double"}) cases.push_back({e, precision});
  return cases;
}

inline std::string operator_case_name(const ::testing::TestParamInfo<OperatorCase>& i) {
  return i.param.element.first + "_" + i.param.precision;
}

/// Every operator verb at one deformed state (strains of ~10 %, a Newmark-like shift, some
/// prescribed dofs) on OpenMP and on `backend`. The element kernels are the same arithmetic (the
/// default build contracts no FMAs), so the bounds are round-off: 1e-12 in double, 1e-5 in
/// single. `first_inverted`: the backend also names the same first inverted element (checked
/// where the elements are checked in the reference's order).
inline void expect_operator_verbs_match_openmp(const std::string& backend, const OperatorCase& c,
                                               bool first_inverted) {
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           c.element.second +
                           R"(, size: [1, 1, 1], divisions: [3, 3, 3], distortion: 0.15, seed: 3}
materials: {m: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.45}}
blocks: [{element: )" + c.element.first +
                           R"(, material: m}]
node_sets: {bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}
boundary_conditions: [{set: bottom, fixed: [x, z]}]
solver: {type: implicit_dynamic, end_time: 1, time_step: 1}
)";
  struct Verbs {
    std::vector<double> forces, action, diagonal, blocks, stress;
    CsrMatrix matrix;
    ElementCheck inverted;
  };
  const auto run = [&](const std::string& name) {
    ImplicitRun r = prepare_implicit(yaml, {{"backend", name}, {"precision", c.precision}});
    NonlinearOperator& op = r.op();
    LinearAlgebra& la = r.la();
    const std::int64_t n = op.size();
    const std::vector<double> u_host = random_vector(n, 0.03, 1);
    const auto u = device_vector(la, u_host), v = device_vector(la, random_vector(n, 1.0, 2));
    Verbs out;
    const auto f = la.vector(n);
    EXPECT_TRUE(op.internal_forces(*u, *f).ok());
    out.forces = host_vector(la, *f);
    EXPECT_TRUE(op.linearize(*u).ok());
    // Forces elsewhere between linearize() and the tangent verbs change nothing they return.
    EXPECT_TRUE(op.internal_forces(*device_vector(la, random_vector(n, 0.03, 5)), *f).ok());
    op.set_shift(0.7, 2.5);
    const auto y = la.vector(n), d = la.vector(n), b = la.vector(3 * n);
    op.apply(*v, *y);
    out.action = host_vector(la, *y);
    op.diagonal(*d);
    out.diagonal = host_vector(la, *d);
    op.block_diagonal(*b);
    out.blocks = host_vector(la, *b);
    op.assemble(out.matrix);
    std::vector<BlockResults> results;
    op.element_results(u_host, results);
    for (const BlockResults& block : results)
      out.stress.insert(out.stress.end(), block.cauchy_stress.begin(), block.cauchy_stress.end());
    // A displacement that turns elements inside out.
    out.inverted = op.internal_forces(*device_vector(la, random_vector(n, 2.0, 7)), *f);
    return out;
  };
  const Verbs want = run("openmp"), got = run(backend);
  const double tolerance = c.precision == "single" ? 1e-5 : 1e-12;
  const double forces = max_relative_difference(got.forces, want.forces),
               action = max_relative_difference(got.action, want.action),
               diagonal = max_relative_difference(got.diagonal, want.diagonal),
               blocks = max_relative_difference(got.blocks, want.blocks),
               matrix = max_relative_difference(got.matrix.values, want.matrix.values),
               stress = max_relative_difference(got.stress, want.stress);
  std::printf(
      "[ %s vs openmp, operator ] %s %s: forces %.2e, action %.2e, diagonal %.2e, blocks %.2e, "
      "matrix %.2e, stress %.2e\n",
      backend.c_str(), c.element.first.c_str(), c.precision.c_str(), forces, action, diagonal,
      blocks, matrix, stress);
  EXPECT_LE(forces, tolerance);
  EXPECT_LE(action, tolerance);
  EXPECT_LE(diagonal, tolerance);
  EXPECT_LE(blocks, tolerance);
  EXPECT_EQ(got.matrix.offsets, want.matrix.offsets);
  EXPECT_EQ(got.matrix.columns, want.matrix.columns);
  EXPECT_LE(matrix, tolerance);
  EXPECT_LE(stress, tolerance);
  if (!first_inverted) return;
  ASSERT_FALSE(want.inverted.ok()) << "the large displacement inverted no element";
  EXPECT_EQ(got.inverted.status, want.inverted.status);
  EXPECT_EQ(got.inverted.block, want.inverted.block);
  EXPECT_EQ(got.inverted.element, want.inverted.element);
  EXPECT_NEAR(got.inverted.value, want.inverted.value, tolerance * std::abs(want.inverted.value));
}

/// A static solve: an element, a precision, the solver's `linear:` mapping, the Newton residual
/// tolerance and the bound on max |du| / max |u| between the backends.
struct StaticCase {
  ElementCase element;
  std::string precision;
  std::string linear;
  std::string residual;
  double tolerance;
};

inline void PrintTo(const StaticCase& c, std::ostream* os) {
  *os << c.element.first << ' ' << c.precision << ' ' << c.linear;
}

/// With `quadratic`, also the quadratic elements.
inline std::vector<StaticCase> static_cases(bool quadratic = false) {
  std::vector<StaticCase> cases;
  std::vector<ElementCase> elements = {{"hex8r", "hex8"}, {"hex8", "hex8"}, {"tet4_anp", "tet4"}};
  if (quadratic)
    for (const ElementCase& e : quadratic_element_types()) elements.push_back(e);
  for (const ElementCase& e : elements) {
    // Conjugate gradients with Jacobi, the default: apply, diagonal and the reductions. A
    // device sums its dot products in another order, so CG takes another path to the same
    // solution: in double the solutions agree to the Newton tolerance, tightened here to 1e-11
    // so that 1e-9 tests the verbs rather than the stopping rule (CUDA at the default 1e-6:
    // 1e-8 apart, 337 against 333 CG iterations).
    cases.push_back({e, "single", "{}", "1.0e-6", 1e-4});
    cases.push_back({e, "double", "{}", "1.0e-11", 1e-9});
    // The block diagonal with block_multiply, and the assembled tangent.
    cases.push_back({e, "double", "{preconditioner: block_jacobi}", "1.0e-11", 1e-9});
    cases.push_back({e, "double", "{solver: direct}", "1.0e-11", 1e-9});
  }
  return cases;
}

inline std::string static_case_name(const ::testing::TestParamInfo<StaticCase>& i) {
  std::string linear = "cg_jacobi";
  if (i.param.linear.find("block_jacobi") != std::string::npos) linear = "cg_block_jacobi";
  if (i.param.linear.find("direct") != std::string::npos) linear = "direct";
  return i.param.element.first + "_" + i.param.precision + "_" + linear;
}

/// A 4x4x4 neo-Hookean cube (nu = 0.49) clamped at the bottom, its top pressed down 10 % in 3
/// static increments, solved on OpenMP and on `backend`: the displacements agree to max |du| /
/// max |u| below the case's bound.
inline void expect_static_solve_matches_openmp(const std::string& backend, const StaticCase& c) {
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           c.element.second +
                           R"(, size: [0.05, 0.05, 0.05], divisions: [4, 4, 4]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: )" + c.element.first +
                           R"(, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes: {loading: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, displacement: {z: -0.005}, amplitude: loading}
solver: {type: static, end_time: 1, increments: 3, linear: )" +
                           c.linear + ", newton: {residual_tolerance: " + c.residual + "}}\n";
  const auto solve = [&](const std::string& name, ImplicitRunReport& report) {
    ImplicitRun r = prepare_implicit(yaml, {{"backend", name}, {"precision", c.precision}});
    report = run_implicit(r);
    return r.solver->displacement();
  };
  ImplicitRunReport want_report, got_report;
  const std::vector<double> want = solve("openmp", want_report), got = solve(backend, got_report);
  EXPECT_EQ(got_report.increments, 3);
  EXPECT_EQ(got_report.cutbacks, 0);
  double scale = 0.0;
  for (const double x : want) scale = std::max(scale, std::abs(x));
  EXPECT_GT(scale, 0.004);  // the top moved 5 mm
  const double relative = max_relative_difference(got, want);
  std::printf(
      "[ %s vs openmp, static ] %s %s %s: max |du| / max |u| = %.3e; Newton %lld / %lld, "
      "linear %lld / %lld iterations (%s / openmp)\n",
      backend.c_str(), c.element.first.c_str(), c.precision.c_str(), c.linear.c_str(), relative,
      static_cast<long long>(got_report.newton_iterations),
      static_cast<long long>(want_report.newton_iterations),
      static_cast<long long>(got_report.linear_iterations),
      static_cast<long long>(want_report.linear_iterations), backend.c_str());
  EXPECT_LE(relative, c.tolerance);
}

}  // namespace fem::test
