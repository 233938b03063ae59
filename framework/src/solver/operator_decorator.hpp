// The base of the implicit solvers' operator decorators (contact, follower pressure): a
// NonlinearOperator that wraps another, forwards what it does not change, and hands the solver's
// settings (tangent shift, material time step) on to the wrapped operator before each verb.
#pragma once

#include <vector>

#include "fem/backend.hpp"
#include "fem/operator.hpp"

namespace fem {

class OperatorDecorator : public NonlinearOperator {
 public:
  /// `inner` must outlive this operator.
  OperatorDecorator(NonlinearOperator& inner, const System& system)
      : NonlinearOperator(system), inner_(inner) {}

  [[nodiscard]] LinearAlgebra& algebra() override { return inner_.algebra(); }
  void commit() override { inner_.commit(); }
  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    inner_.element_results(u, out);
  }
  [[nodiscard]] std::size_t memory_bytes() const override { return inner_.memory_bytes(); }
  void material_state(std::size_t block, std::vector<double>& state) const override {
    inner_.material_state(block, state);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    inner_.set_material_state(block, state);
  }

 protected:
  /// The shift and the material time step the solver set on this operator, to the inner one
  /// (rate-dependent laws read the step; apply and the diagonals the shift).
  void forward_settings() {
    inner_.set_shift(shift_stiffness(), shift_mass());
    inner_.set_time_step(time_step());
  }

  NonlinearOperator& inner_;
};

}  // namespace fem
