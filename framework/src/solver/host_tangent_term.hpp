// A tangent term that a decorator of the nonlinear operator computes on the host: the contact
// springs' stiffness (implicit_contact.hpp), a follower pressure's load stiffness (symmetrised,
// or whole for BiCGStab: implicit_pressure.hpp). Held as an assembled matrix over free dofs, on the
// host and on the backend, and added with the operator's stiffness shift to each tangent verb.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fem/operator.hpp"

namespace fem {

struct TangentEntry {
  std::int64_t row, col;
  double value;
};

class HostTangentTerm {
 public:
  /// The term from (row, col, value) entries (duplicates add up) of a rows x rows matrix: rows
  /// and columns of free dofs only, so that prescribed rows stay identity rows.
  void set(LinearAlgebra& la, std::int64_t rows, std::vector<TangentEntry> entries);
  [[nodiscard]] bool empty() const { return host_.nonzeros() == 0; }
  [[nodiscard]] const CsrMatrix& matrix() const { return host_; }

  /// y += scale * term * v.
  void add_apply(LinearAlgebra& la, const Vector& v, Vector& y, double scale);
  /// d += scale * diag(term).
  void add_diagonal(LinearAlgebra& la, Vector& d, double scale) const;
  /// The 3x3 node blocks (9 per node, row-major) += scale * the term's.
  void add_block_diagonal(LinearAlgebra& la, Vector& blocks, double scale) const;
  /// a += scale * term, in the union of the two patterns.
  void add_assembled(CsrMatrix& a, double scale) const;

 private:
  CsrMatrix host_;
  std::unique_ptr<Matrix> device_;
  std::unique_ptr<Vector> scratch_;
};

}  // namespace fem
