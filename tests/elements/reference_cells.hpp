// Shape functions of the solid elements written independently of the element plugins: for each
// reference cell, the polynomial space the element spans (as monomials) and the Lagrange basis
// on the element's own reference nodes (the inverse of the Vandermonde matrix), plus quadrature
// rules of high order on the reference cell. Tests compare the plugins' tables with these.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fem/element.hpp>
#include <fem/mesh.hpp>

namespace fem::test {

using Vec3 = Eigen::Vector3d;

/// Whether the element's reference cell is the simplex (0,0,0) (1,0,0) (0,1,0) (0,0,1) or the
/// cube [-1, 1]^3.
inline bool is_simplex(const ElementData& e) {
  const auto s = static_cast<CellShape>(e.cell_shape);
  return s == CellShape::Tet4 || s == CellShape::Tet10;
}

/// The monomials x^i y^j z^k that span the element's shape functions.
inline std::vector<std::array<int, 3>> monomials(const ElementData& e) {
  std::vector<std::array<int, 3>> out;
  for (int i = 0; i <= 2; ++i)
    for (int j = 0; j <= 2; ++j)
      for (int k = 0; k <= 2; ++k) {
        const int twos = (i == 2) + (j == 2) + (k == 2);
        bool in = false;
        switch (static_cast<CellShape>(e.cell_shape)) {
          case CellShape::Tet4:
            in = i + j + k <= 1;
            break;
          case CellShape::Tet10:
            in = i + j + k <= 2;
            break;
          case CellShape::Hex8:
            in = twos == 0;
            break;
          case CellShape::Hex20:  // serendipity: at most one variable squared
            in = twos <= 1;
            break;
          default:
            throw std::logic_error("no reference space for this cell");
        }
        if (in) out.push_back({i, j, k});
      }
  return out;
}

/// The Lagrange basis of the element's polynomial space on its reference nodes.
class LagrangeBasis {
 public:
  explicit LagrangeBasis(const ElementData& e) : powers_(monomials(e)) {
    const int n = e.num_nodes;
    if (static_cast<int>(powers_.size()) != n) throw std::logic_error("space and nodes differ");
    Eigen::MatrixXd v(n, n);  // v(a, m) = monomial m at node a
    for (int a = 0; a < n; ++a) {
      const Vec3 x(e.reference_coords[3 * a], e.reference_coords[3 * a + 1],
                   e.reference_coords[3 * a + 2]);
      for (int m = 0; m < n; ++m) v(a, m) = monomial(m, x);
    }
    coefficients_ = v.inverse();  // column a: N_a's coefficients
  }
  [[nodiscard]] int size() const { return static_cast<int>(powers_.size()); }
  [[nodiscard]] Eigen::VectorXd values(const Vec3& x) const {
    Eigen::VectorXd m(size());
    for (int i = 0; i < size(); ++i) m[i] = monomial(i, x);
    return coefficients_.transpose() * m;
  }
  /// [a][k] = dN_a / dxi_k.
  [[nodiscard]] Eigen::MatrixXd gradients(const Vec3& x) const {
    Eigen::MatrixXd d(size(), 3);
    for (int i = 0; i < size(); ++i)
      for (int k = 0; k < 3; ++k) {
        const auto& p = powers_[i];
        if (p[k] == 0) {
          d(i, k) = 0;
          continue;
        }
        double v = p[k];
        for (int l = 0; l < 3; ++l) v *= std::pow(x[l], l == k ? p[l] - 1 : p[l]);
        d(i, k) = v;
      }
    return coefficients_.transpose() * d;
  }

 private:
  std::vector<std::array<int, 3>> powers_;
  Eigen::MatrixXd coefficients_;
  [[nodiscard]] double monomial(int i, const Vec3& x) const {
    return std::pow(x[0], powers_[i][0]) * std::pow(x[1], powers_[i][1]) *
           std::pow(x[2], powers_[i][2]);
  }
};

struct QuadraturePoint {
  Vec3 x;
  double w;
};

/// A rule exact for polynomials of degree 2n - 1 in each variable on the cube, and of total
/// degree 2n - 3 on the simplex (the cube's rule collapsed onto it, Duffy's map).
inline std::vector<QuadraturePoint> reference_rule(const ElementData& e, int n = 5) {
  // Gauss-Legendre on [-1, 1] by Newton's method on P_n.
  std::vector<double> x(n), w(n);
  for (int i = 0; i < n; ++i) {
    double t = std::cos(M_PI * (i + 0.75) / (n + 0.5));
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      const double dp = n * (t * p1 - p0) / (t * t - 1);
      t -= p1 / dp;
      if (it > 20) {
        x[i] = t;
        w[i] = 2 / ((1 - t * t) * dp * dp);
      }
    }
  }
  std::vector<QuadraturePoint> rule;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        if (!is_simplex(e)) {
          rule.push_back({Vec3(x[i], x[j], x[k]), w[i] * w[j] * w[k]});
          continue;
        }
        const double u = (x[i] + 1) / 2, v = (x[j] + 1) / 2, s = (x[k] + 1) / 2;
        rule.push_back({Vec3(u, v * (1 - u), s * (1 - u) * (1 - v)),
                        w[i] * w[j] * w[k] / 8 * (1 - u) * (1 - u) * (1 - v)});
      }
  return rule;
}

}  // namespace fem::test
