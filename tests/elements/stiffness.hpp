// The stiffness matrix of a small-strain linear elastic model, probed from the backend's internal
// forces (linear in u for that law): nodes are coloured so that no two of one colour share a
// neighbour, and each colour and direction costs one internal-force evaluation.
#pragma once

#include <Eigen/Sparse>
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fem/model.hpp>
#include <fem/solver/explicit_solver.hpp>

namespace fem::test {

inline Eigen::SparseMatrix<double> probed_stiffness(const Model& model, ExplicitProblem& problem) {
  const std::int64_t nn = model.mesh.num_nodes();
  std::vector<std::vector<std::int32_t>> neighbours(static_cast<std::size_t>(nn));
  for (const ModelBlock& b : model.blocks) {
    const int npe = b.element->num_nodes;
    for (std::int64_t e = 0; e < b.num_elements(); ++e) {
      const std::int32_t* conn = b.connectivity.data() + e * npe;
      for (int a = 0; a < npe; ++a)
        neighbours[conn[a]].insert(neighbours[conn[a]].end(), conn, conn + npe);
    }
  }
  for (auto& n : neighbours) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
  // Distance-2 colouring: a node's colour differs from every node that shares a neighbour.
  std::vector<int> colour(static_cast<std::size_t>(nn), -1);
  int colours = 0;
  std::vector<int> taken;
  for (std::int64_t j = 0; j < nn; ++j) {
    taken.clear();
    for (const std::int32_t i : neighbours[j])
      for (const std::int32_t k : neighbours[i])
        if (colour[k] >= 0) taken.push_back(colour[k]);
    std::sort(taken.begin(), taken.end());
    int c = 0;
    for (const int t : taken)
      if (t == c)
        ++c;
      else if (t > c)
        break;
    colour[j] = c;
    colours = std::max(colours, c + 1);
  }
  std::vector<Eigen::Triplet<double>> t;
  std::vector<double> u(static_cast<std::size_t>(3 * nn)), f;
  for (int c = 0; c < colours; ++c)
    for (int k = 0; k < 3; ++k) {
      std::fill(u.begin(), u.end(), 0.0);
      for (std::int64_t j = 0; j < nn; ++j)
        if (colour[j] == c) u[3 * j + k] = 1.0;
      problem.internal_forces(u, f);
      for (std::int64_t j = 0; j < nn; ++j)
        if (colour[j] == c)
          for (const std::int32_t i : neighbours[j])
            for (int l = 0; l < 3; ++l)
              if (f[3 * i + l] != 0.0) t.emplace_back(3 * i + l, 3 * j + k, f[3 * i + l]);
    }
  Eigen::SparseMatrix<double> K(3 * nn, 3 * nn);
  K.setFromTriplets(t.begin(), t.end());
  return K;
}

}  // namespace fem::test
