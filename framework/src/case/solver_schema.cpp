// solver: the time integration of the run.
#include "case_schema.hpp"

namespace fem::case_io {

void read_solver(const Value& v, SolverSpec& solver) {
  const Mapping m(v, {"type", "end_time", "time_step", "safety_factor", "mass_damping", "assembly",
                      "node_ordering"});
  solver.where = v.key_where();
  if (auto t = m.get("type")) {
    if (t->is_scalar() && t->text() != "explicit")
      t->fail("'type' must be explicit, got '" + t->text() + "'",
              "only the explicit central-difference solver is available in this version");
    solver.type = as_choice(*t, {"explicit"});
  }
  solver.end_time = positive(m.required("end_time", "the simulated duration in seconds"));
  if (auto dt = m.get("time_step")) {
    // "auto" (stored as 0) takes the critical step estimate times the safety factor.
    double x = 0.0;
    if (dt->is_scalar() && dt->text() == "auto")
      solver.time_step = 0.0;
    else if (dt->is_scalar() && parse_number(dt->text(), x) && x > 0.0)
      solver.time_step = x;
    else
      dt->fail("'time_step' must be auto or a positive number of seconds, got " + dt->describe(),
               number_hint(dt->text()));
  }
  if (auto s = m.get("safety_factor")) solver.safety_factor = in_range(*s, 0.0, 1.0, false, true);
  if (auto d = m.get("mass_damping")) solver.mass_damping = non_negative(*d);
  if (auto a = m.get("assembly")) solver.assembly = as_choice(*a, {"deterministic", "atomic"});
  if (auto o = m.get("node_ordering"))
    solver.node_ordering = as_choice(*o, {"auto", "rcm", "input", "shuffled"});
}

}  // namespace fem::case_io
