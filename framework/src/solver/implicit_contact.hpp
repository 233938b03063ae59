// Contact in the implicit solvers: penalty or augmented-Lagrangian forces of rigid surfaces
// (plane, sphere, triangulated) and of node-to-surface pairs between deformable bodies (seed 001,
// section 5.2, extended to 3D with triangle and quadrilateral faces), as a decorator of the
// nonlinear operator: its internal forces include the contact springs and its tangent their
// stiffness, so Newton, the linear solvers and the preconditioners need nothing of their own.
//
// Where the work runs: the closest-point search and the contact forces are computed on the host
// from the downloaded displacement, once per residual and once per linearization, and the
// contact tangent goes to the backend as a sparse matrix. Contact nodes are a surface subset
// and Newton iterations few, so this costs one download and one upload of a vector per
// evaluation (docs/implicit.md measures it); the explicit solvers' rigid contact runs inside
// the backends' node pass.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/operator.hpp"
#include "host_tangent_term.hpp"
#include "operator_decorator.hpp"

namespace fem {

/// What one contact of the case did at the last evaluation.
struct ContactState {
  std::string name;
  std::array<double, 3> force = {0, 0,
                                 0};  ///< on the constrained nodes (the body, or the slave side)
  std::int64_t active = 0;            ///< nodes in contact
  double max_penetration = 0.0;       ///< m
  double penalty = 0.0;               ///< Pa/m used
  double tolerance = 0.0;  ///< m: the penetration augmentations aim below (0: penalty only)
};

class ContactOperator final : public OperatorDecorator {
 public:
  ContactOperator(NonlinearOperator& inner, const Model& model, const System& system);
  ~ContactOperator() override;

  /// Rigid surfaces move with their amplitudes: their positions at time t.
  void set_time(double t) { time_ = t; }
  /// Augmented Lagrangian, after a converged solve: each multiplier takes the force of its
  /// contact. Returns whether a contact still penetrates beyond its tolerance (solve again).
  bool augment(const Vector& u);
  /// The multipliers of the last accepted increment (cutback), and accepting the current ones.
  void restore_multipliers();
  void accept_multipliers();
  /// The accepted multipliers of every contact (Pa per constrained node, in the order of
  /// `contact:`): the contact state a checkpoint saves. Setting them (a restart) throws
  /// fem::Error when the sizes are not this model's.
  [[nodiscard]] std::vector<std::vector<double>> multipliers() const;
  void set_multipliers(const std::vector<std::vector<double>>& multipliers);
  [[nodiscard]] bool augmented() const;
  /// The most augmentations any augmented-Lagrangian contact allows per increment.
  [[nodiscard]] int max_augmentations() const;
  [[nodiscard]] const std::vector<ContactState>& states() const { return states_; }
  /// The contact forces on every node at the last evaluation (3 per node, N).
  [[nodiscard]] const std::vector<double>& nodal_forces() const { return forces_; }

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override;
  ElementCheck do_linearize(const Vector& u) override;
  void do_apply(const Vector& v, Vector& y) override;
  void do_diagonal(Vector& d) override;
  void do_block_diagonal(Vector& blocks) override;
  void do_assemble(CsrMatrix& a) override;

 private:
  struct Contacts;
  /// Contact forces (into forces_) and, with `tangent`, the contact stiffness at u.
  void evaluate(const Vector& u, bool tangent);

  const System& system_;
  std::unique_ptr<Contacts> contacts_;
  std::vector<ContactState> states_;
  double time_ = 0.0;
  std::vector<double> u_host_, forces_;
  HostTangentTerm stiffness_;  ///< contact tangent, rows and columns of free dofs only
  std::unique_ptr<Vector> scratch_;
};

}  // namespace fem
