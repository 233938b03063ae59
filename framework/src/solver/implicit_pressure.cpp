// Follower pressure in the implicit solvers (implicit_pressure.hpp).
#include "implicit_pressure.hpp"

#include "fem/amplitude.hpp"

namespace fem {

FollowerPressureOperator::FollowerPressureOperator(NonlinearOperator& inner, const System& system)
    : NonlinearOperator(system), inner_(inner), system_(system) {}

void FollowerPressureOperator::forward_settings() {
  inner_.set_shift(shift_stiffness(), shift_mass());
  inner_.set_time_step(time_step());
}

std::vector<double> FollowerPressureOperator::forces_at(double t,
                                                        const std::vector<double>& u) const {
  std::vector<double> forces(system_.coordinates.size(), 0.0);
  for (const PressureSurface& s : system_.follower_pressures)
    add_pressure_forces(s, s.pressure * evaluate(system_.amplitudes[s.amplitude], t),
                        system_.coordinates, u.empty() ? nullptr : u.data(), forces);
  return forces;
}

ElementCheck FollowerPressureOperator::do_internal_forces(const Vector& u, Vector& f) {
  forward_settings();
  const ElementCheck check = inner_.internal_forces(u, f);
  if (!check.ok()) return check;
  algebra().download(u, u_host_);
  forces_ = forces_at(time_, u_host_);
  if (!scratch_) scratch_ = algebra().vector(size());
  algebra().upload(forces_, *scratch_);
  algebra().axpby(-1.0, *scratch_, 1.0, f);  // the pressure is an applied force: f_int - f_p
  return check;
}

ElementCheck FollowerPressureOperator::do_linearize(const Vector& u) {
  forward_settings();
  return inner_.linearize(u);
}

void FollowerPressureOperator::do_apply(const Vector& v, Vector& y) {
  forward_settings();
  inner_.apply(v, y);
}

void FollowerPressureOperator::do_diagonal(Vector& d) {
  forward_settings();
  inner_.diagonal(d);
}

void FollowerPressureOperator::do_block_diagonal(Vector& blocks) {
  forward_settings();
  inner_.block_diagonal(blocks);
}

void FollowerPressureOperator::do_assemble(CsrMatrix& a) {
  forward_settings();
  inner_.assemble(a);
}

}  // namespace fem
