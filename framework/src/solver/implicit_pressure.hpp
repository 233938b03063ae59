// Follower pressure in the implicit solvers, as a decorator of the nonlinear operator (the
// pattern of implicit_contact.hpp): its internal forces are the body's less the pressure forces
// on the deformed faces, so Newton's residual, HHT's force history and the reactions take the
// pressure as it turns and stretches with the surface.
//
// The tangent: the load stiffness -dF_p/du is not symmetric in general. Where a surface is
// closed, or its rim is held, it is symmetric (the pressure's work is p times a volume): it is
// assembled on the host at each linearization (HostTangentTerm) and Newton converges
// quadratically with conjugate gradients or the direct solver. On an open surface with a free
// rim it is taken whole where the linear solver is iterative (the implicit solver then runs
// BiCGStab instead of CG, and Newton stays quadratic), and left out for the direct solver, whose
// factorization is symmetric (its symmetric part alone measured worse than nothing,
// docs/implicit.md, "Pressure loads"; Newton converges linearly). The faces are evaluated on the
// host from the downloaded displacement, one download and one upload per residual.
#pragma once

#include <memory>
#include <vector>

#include "fem/backend.hpp"
#include "fem/operator.hpp"
#include "host_tangent_term.hpp"
#include "operator_decorator.hpp"

namespace fem {

class FollowerPressureOperator final : public OperatorDecorator {
 public:
  /// `inner` and `system` must outlive this operator; system.follower_pressures are the loads.
  /// nonsymmetric_tangent: the linear solver takes a non-symmetric tangent (BiCGStab), so the
  /// load stiffness of open surfaces enters it whole.
  FollowerPressureOperator(NonlinearOperator& inner, const System& system,
                           bool nonsymmetric_tangent);

  /// Whether the tangent holds a non-symmetric load stiffness (a Krylov method for
  /// non-symmetric systems must solve it).
  [[nodiscard]] bool nonsymmetric() const { return nonsymmetric_; }

  /// The pressures' amplitudes at time t from now on.
  void set_time(double t) { time_ = t; }
  /// The pressure forces on every node at the last evaluation (3 per node, N).
  [[nodiscard]] const std::vector<double>& nodal_forces() const { return forces_; }
  /// The pressure forces at time t and the displacement u (3 per node; empty: the reference
  /// surface), on the host: the implicit solver's force scale and checks.
  [[nodiscard]] std::vector<double> forces_at(double t, const std::vector<double>& u) const;

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override;
  ElementCheck do_linearize(const Vector& u) override;
  void do_apply(const Vector& v, Vector& y) override;
  void do_diagonal(Vector& d) override;
  void do_block_diagonal(Vector& blocks) override;
  void do_assemble(CsrMatrix& a) override;

 private:
  const System& system_;
  double time_ = 0.0;
  std::vector<double> u_host_, forces_;
  std::unique_ptr<Vector> scratch_;
  HostTangentTerm load_stiffness_;  ///< at the last linearization
  std::vector<bool> symmetric_;     ///< per surface: its load stiffness is symmetric
  bool nonsymmetric_ = false;       ///< open surfaces' load stiffness enters the tangent
};

}  // namespace fem
