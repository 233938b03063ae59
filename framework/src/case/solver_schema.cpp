// solver: the explicit time integration or the dynamic-relaxation iteration of the run.
#include "case_schema.hpp"

namespace fem::case_io {

namespace {

void read_time_step(const Value& dt, SolverSpec& solver) {
  // "auto" (stored as 0) takes the critical step estimate times the safety factor.
  double x = 0.0;
  if (dt.is_scalar() && dt.text() == "auto")
    solver.time_step = 0.0;
  else if (dt.is_scalar() && parse_number(dt.text(), x) && x > 0.0)
    solver.time_step = x;
  else
    dt.fail("'time_step' must be auto or a positive number of seconds, got " + dt.describe(),
            number_hint(dt.text()));
}

}  // namespace

void read_solver(const Value& v, SolverSpec& solver) {
  solver.where = v.key_where();
  std::string type = "explicit";
  {
    const Mapping probe(v, {});
    if (auto t = probe.get("type")) type = as_choice(*t, {"explicit", "dynamic_relaxation"});
  }
  solver.type = type;
  if (type == "explicit") {
    const Mapping m(v, {"type", "end_time", "time_step", "safety_factor", "mass_damping",
                        "assembly", "node_ordering"});
    solver.end_time = positive(m.required("end_time", "the simulated duration in seconds"));
    if (auto dt = m.get("time_step")) read_time_step(*dt, solver);
    if (auto s = m.get("safety_factor")) solver.safety_factor = in_range(*s, 0.0, 1.0, false, true);
    if (auto d = m.get("mass_damping")) solver.mass_damping = non_negative(*d);
    if (auto a = m.get("assembly")) solver.assembly = as_choice(*a, {"deterministic", "atomic"});
    if (auto o = m.get("node_ordering"))
      solver.node_ordering = as_choice(*o, {"auto", "rcm", "input", "shuffled"});
    return;
  }
  // Dynamic relaxation (seed 003, section 3.7): a fictitious mass and step, damping from the
  // estimated lowest eigenvalue, stopping by itself.
  const Mapping probe(v, {});
  for (const char* key : {"time_step", "mass_damping"})
    if (auto e = probe.get(key))
      e->fail_at_key("'" + std::string(key) + "' does not apply to solver type dynamic_relaxation",
                     "dynamic relaxation chooses its own fictitious step and damping (see "
                     "docs/case-reference.md#solver)");
  const Mapping m(
      v, {"type", "end_time", "tolerance", "force_tolerance", "max_iterations", "check_every",
          "load_iterations", "safety_factor", "assembly", "node_ordering"});
  if (auto e = m.get("end_time")) solver.end_time = positive(*e);
  if (auto t = m.get("tolerance")) solver.tolerance = positive(*t);
  if (auto t = m.get("force_tolerance")) solver.force_tolerance = non_negative(*t);
  if (auto n = m.get("max_iterations")) solver.max_iterations = as_int(*n, 1);
  if (auto n = m.get("check_every")) solver.check_every = as_int(*n, 2);
  if (auto n = m.get("load_iterations")) solver.load_iterations = as_int(*n, 0);
  if (auto s = m.get("safety_factor")) solver.safety_factor = in_range(*s, 0.0, 1.0, false, true);
  if (auto a = m.get("assembly")) solver.assembly = as_choice(*a, {"deterministic", "atomic"});
  if (auto o = m.get("node_ordering"))
    solver.node_ordering = as_choice(*o, {"auto", "rcm", "input", "shuffled"});
}

}  // namespace fem::case_io
