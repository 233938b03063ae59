// solver: explicit time integration, dynamic relaxation, or the implicit solvers (static and
// implicit dynamic) with their Newton, linear-solver and increment settings.
#include <algorithm>
#include <cmath>

#include "case_schema.hpp"

namespace fem {

const char* to_string(SolverType t) {
  switch (t) {
    case SolverType::Explicit:
      return "explicit";
    case SolverType::DynamicRelaxation:
      return "dynamic_relaxation";
    case SolverType::Static:
      return "static";
    case SolverType::ImplicitDynamic:
      return "implicit_dynamic";
    case SolverType::Elastodynamic:
      return "elastodynamic";
    case SolverType::Corotational:
      return "corotational";
  }
  return "?";
}

std::vector<SolverStepSpec> analysis_steps(const SolverSpec& solver) {
  if (!solver.steps.empty()) return solver.steps;
  SolverStepSpec one;
  one.where = solver.where;
  one.type = solver.type;
  one.end_time = solver.end_time;
  one.time_step = solver.time_step;
  one.increments = solver.increments;
  return {one};
}

bool has_static_steps(const SolverSpec& solver) {
  if (solver.type == SolverType::Static) return true;
  if (solver.type != SolverType::ImplicitDynamic) return false;
  return std::any_of(solver.steps.begin(), solver.steps.end(),
                     [](const SolverStepSpec& s) { return s.type == SolverType::Static; });
}

namespace case_io {

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

void read_node_ordering(const Mapping& m, SolverSpec& solver) {
  if (auto o = m.get("node_ordering"))
    solver.node_ordering = as_choice(*o, {"auto", "rcm", "input", "shuffled"});
}

void read_common(const Mapping& m, SolverSpec& solver) {
  if (auto a = m.get("assembly")) solver.assembly = as_choice(*a, {"deterministic", "atomic"});
  read_node_ordering(m, solver);
}

/// The keys of the explicit time-stepping solvers (explicit, elastodynamic).
void read_explicit_stepping(const Mapping& m, SolverSpec& solver) {
  solver.end_time = positive(m.required("end_time", "the simulated duration in seconds"));
  if (auto dt = m.get("time_step")) read_time_step(*dt, solver);
  if (auto s = m.get("safety_factor")) solver.safety_factor = in_range(*s, 0.0, 1.0, false, true);
  if (auto d = m.get("mass_damping")) solver.mass_damping = non_negative(*d);
}

void read_newton(const Value& v, NewtonSpec& n) {
  n.where = v.key_where();
  const Mapping m(v, {"method", "max_iterations", "residual_tolerance", "energy_tolerance",
                      "line_search", "linear_tolerance"});
  if (auto x = m.get("method")) n.method = as_choice(*x, {"full", "modified", "linearized"});
  if (auto x = m.get("max_iterations")) n.max_iterations = as_int(*x, 1);
  if (auto x = m.get("residual_tolerance")) n.residual_tolerance = positive(*x);
  if (auto x = m.get("energy_tolerance")) n.energy_tolerance = non_negative(*x);
  if (auto x = m.get("line_search")) n.line_search = as_bool(*x);
  if (auto x = m.get("linear_tolerance")) {
    if (x->is_scalar() && x->text() == "auto")
      n.linear_tolerance = 0.0;
    else
      n.linear_tolerance = in_range(*x, 0.0, 1.0, false, false);
  }
}

void read_linear(const Value& v, LinearSolverSpec& l) {
  l.where = v.key_where();
  const Mapping m(v, {"solver", "preconditioner", "max_iterations", "operator"});
  if (auto x = m.get("solver")) l.solver = as_choice(*x, {"cg", "minres", "direct"});
  if (auto x = m.get("preconditioner"))
    l.preconditioner = as_choice(*x, {"none", "jacobi", "block_jacobi", "multigrid", "amg"});
  if (auto x = m.get("max_iterations")) l.max_iterations = as_int(*x, 1);
  if (auto x = m.get("operator")) l.operator_form = as_choice(*x, {"matrix_free", "assembled"});
}

/// `increments:` a count, or a mapping of the automatic controller's settings. In implicit
/// dynamics time_step sets the increments: only the cutback settings apply.
void read_increments(const Value& v, IncrementSpec& inc, bool dynamic) {
  inc.where = v.key_where();
  if (dynamic && v.is_scalar())
    v.fail(
        "a count of increments does not apply to solver type implicit_dynamic: time_step sets "
        "them",
        "give the cutback settings instead, e.g. increments: {minimum: 0.01, cutback: 0.25, "
        "growth: 1.5, easy_iterations: 4} (minimum: a fraction of time_step)");
  if (v.is_scalar()) {
    inc.count = as_int(v, 1);
    return;
  }
  const Mapping m =
      dynamic
          ? Mapping(v, {"minimum", "growth", "cutback", "easy_iterations"})
          : Mapping(v, {"initial", "minimum", "maximum", "growth", "cutback", "easy_iterations"});
  if (auto x = m.get("initial")) inc.initial = in_range(*x, 0.0, 1.0, false, true);
  if (auto x = m.get("minimum")) inc.minimum = in_range(*x, 0.0, 1.0, false, true);
  if (auto x = m.get("maximum")) inc.maximum = in_range(*x, 0.0, 1.0, false, true);
  if (auto x = m.get("growth")) inc.growth = in_range(*x, 1.0, 10.0, true, true);
  if (auto x = m.get("cutback")) inc.cutback = in_range(*x, 0.0, 1.0, false, false);
  if (auto x = m.get("easy_iterations")) inc.easy_iterations = as_int(*x, 1);
  if (dynamic) return;
  if (inc.minimum > inc.initial)
    v.fail("increments: 'minimum' " + format_number(inc.minimum) + " exceeds 'initial' " +
               format_number(inc.initial),
           "the first increment must be allowed: minimum <= initial <= maximum");
  if (inc.initial > inc.maximum)
    v.fail("increments: 'initial' " + format_number(inc.initial) + " exceeds 'maximum' " +
           format_number(inc.maximum));
}

AbsorbingLayerSpec read_absorbing_layer(const Value& item, const CaseSpec& spec) {
  const Mapping m(item, {"set", "thickness", "max_damping", "power", "stiffness_reduction"});
  AbsorbingLayerSpec a;
  a.where = item.where();
  // The set is resolved against the node sets when the model is built (build_model).
  a.set = read_set_ref(m.required("set", "the boundary node set the layer lies along"), spec,
                       "'" + item.path() + "'");
  a.thickness = positive(m.required("thickness", "the layer's depth in metres (2-3 wavelengths)"));
  a.max_damping = positive(m.required(
      "max_damping", "the mass-proportional damping at the outer edge, 1/s (docs/waves.md)"));
  if (auto p = m.get("power")) a.power = in_range(*p, 1.0, 8.0, true, true);
  if (auto g = m.get("stiffness_reduction"))
    a.stiffness_reduction = in_range(*g, 0.0, 20.0, true, true);
  return a;
}

void read_voxel_multigrid(const Value& v, VoxelMultigridSpec& g) {
  g.where = v.key_where();
  const Mapping m(v, {"cycles", "pre_sweeps", "post_sweeps", "coarsest_vertices",
                      "coarsest_iterations", "coarsest_tolerance", "residual_every"});
  if (auto x = m.get("cycles")) g.cycles = as_int(*x, 1);
  if (auto x = m.get("pre_sweeps")) g.pre_sweeps = as_int(*x, 0);
  if (auto x = m.get("post_sweeps")) g.post_sweeps = as_int(*x, 0);
  if (g.pre_sweeps + g.post_sweeps == 0)
    v.fail("the V-cycle needs at least one smoothing sweep (pre_sweeps + post_sweeps >= 1)",
           "the seed smooths with 2 sweeps before and 1 after the coarse correction");
  if (auto x = m.get("coarsest_vertices")) g.coarsest_vertices = as_int(*x, 8);
  if (auto x = m.get("coarsest_iterations")) g.coarsest_iterations = as_int(*x, 1);
  if (auto x = m.get("coarsest_tolerance"))
    g.coarsest_tolerance = in_range(*x, 0.0, 1.0, false, false);
  if (auto x = m.get("residual_every")) g.residual_every = as_int(*x, 0);
}

void read_implicit(const Mapping& m, SolverSpec& solver) {
  read_common(m, solver);
  if (auto n = m.get("newton")) read_newton(*n, solver.newton);
  if (auto l = m.get("linear")) read_linear(*l, solver.linear);
  if (auto i = m.get("increments"))
    read_increments(*i, solver.increments, solver.type == SolverType::ImplicitDynamic);
}

/// `steps:` of a static or implicit dynamic analysis. Each step's end_time is the total time at
/// its end; the solver's increments (and time_step) are every step's defaults. The steps of an
/// implicit dynamic analysis may be static (`type: static`: a preload, or a slow stage, before
/// the dynamic response), with a static step's increments.
void read_steps(const Value& v, const std::optional<Value>& end_time, SolverSpec& solver) {
  const bool dynamic_analysis = solver.type == SolverType::ImplicitDynamic;
  double previous = 0.0;
  for (const Value& item : as_list(v)) {
    SolverStepSpec step;
    step.where = item.where();
    step.type = solver.type;
    {
      const Mapping probe(item, {});
      if (auto t = probe.get("type")) {
        if (!dynamic_analysis) {
          if (as_choice(*t, {"static", "implicit_dynamic"}) != "static")
            t->fail("a static analysis has no dynamic steps",
                    "give solver type implicit_dynamic: its steps may be static (type: static) "
                    "or dynamic");
        } else if (as_choice(*t, {"static", "implicit_dynamic"}) == "static") {
          step.type = SolverType::Static;
        }
      }
    }
    const bool dynamic = step.type == SolverType::ImplicitDynamic;
    if (dynamic_analysis && !dynamic)
      if (auto dt = Mapping(item, {}).get("time_step"))
        dt->fail_at_key("a static step has no time_step",
                        "give its increments instead (a count, or {initial: ..., maximum: ...} as "
                        "fractions of the step), or make it dynamic (type: implicit_dynamic)");
    const Mapping m = dynamic ? Mapping(item, {"type", "end_time", "time_step", "increments"})
                              : Mapping(item, {"type", "end_time", "increments"});
    const Value end = m.required("end_time", "the total time at the step's end");
    step.end_time = positive(end);
    if (step.end_time <= previous)
      end.fail("step end_time " + format_number(step.end_time) +
                   " is not after the previous step's end (" + format_number(previous) + ")",
               "end_time is the total time at the step's end, not the step's duration");
    previous = step.end_time;
    // A static step of a dynamic analysis does not take the solver's (dynamic) increments.
    if (dynamic || !dynamic_analysis) step.increments = solver.increments;
    if (auto i = m.get("increments")) read_increments(*i, step.increments, dynamic);
    if (dynamic) {
      step.time_step = solver.time_step;
      if (auto dt = m.get("time_step")) step.time_step = positive(*dt);
      if (step.time_step <= 0.0)
        item.fail("the step has no time_step", "give time_step in the step or in 'solver'");
    }
    solver.steps.push_back(step);
  }
  if (solver.steps.empty())
    v.fail("'steps' is empty", "give at least one step, or leave 'steps' out");
  if (dynamic_analysis &&
      std::none_of(solver.steps.begin(), solver.steps.end(),
                   [](const SolverStepSpec& s) { return s.type == SolverType::ImplicitDynamic; }))
    v.fail("every step is static", "give solver type static, or make a step dynamic");
  if (end_time && std::abs(positive(*end_time) - previous) > 1e-12 * previous)
    end_time->fail("end_time " + format_number(positive(*end_time)) +
                       " is not the last step's end_time " + format_number(previous),
                   "leave end_time out: the last step's end sets it");
  solver.end_time = previous;
  if (dynamic_analysis && solver.time_step <= 0.0)
    for (const SolverStepSpec& s : solver.steps)
      if (s.type == SolverType::ImplicitDynamic) {
        solver.time_step = s.time_step;
        break;
      }
}

}  // namespace

void read_solver(const Value& v, CaseSpec& spec) {
  SolverSpec& solver = spec.solver;
  solver.where = v.key_where();
  std::string type = "explicit";
  {
    const Mapping probe(v, {});
    if (auto t = probe.get("type"))
      type = as_choice(*t, {"explicit", "dynamic_relaxation", "static", "implicit_dynamic",
                            "elastodynamic", "corotational"});
  }
  if (type == "explicit") {
    solver.type = SolverType::Explicit;
    const Mapping m(v, {"type", "end_time", "time_step", "safety_factor", "mass_damping",
                        "assembly", "node_ordering"});
    read_explicit_stepping(m, solver);
    read_common(m, solver);
    return;
  }
  if (type == "elastodynamic") {
    // Linear waves with a precomputed stiffness (seed 002): docs/waves.md.
    solver.type = SolverType::Elastodynamic;
    solver.safety_factor = 0.9;
    const Mapping m(v, {"type", "end_time", "time_step", "safety_factor", "mass_damping",
                        "absorbing_layers", "node_ordering"});
    read_explicit_stepping(m, solver);
    if (auto layers = m.get("absorbing_layers"))
      for (const Value& item : as_list(*layers))
        solver.absorbing_layers.push_back(read_absorbing_layer(item, spec));
    read_node_ordering(m, solver);
    return;
  }
  if (type == "corotational") {
    // Seed 004: Newmark steps of co-rotated linear elasticity on voxels, each solved by a few
    // multigrid V-cycles (docs/voxels.md).
    solver.type = SolverType::Corotational;
    const Mapping m(v, {"type", "end_time", "time_step", "mass_damping", "multigrid"});
    solver.end_time = positive(m.required("end_time", "the simulated duration in seconds"));
    solver.time_step = positive(
        m.required("time_step", "the implicit time step in seconds (the seed runs 50 ms steps)"));
    if (auto d = m.get("mass_damping")) solver.mass_damping = non_negative(*d);
    if (auto g = m.get("multigrid")) read_voxel_multigrid(*g, solver.multigrid);
    return;
  }
  if (type == "static") {
    // Load stepping along the amplitudes' time axis; no inertia.
    solver.type = SolverType::Static;
    const Mapping m(v, {"type", "end_time", "increments", "newton", "linear", "assembly",
                        "node_ordering", "steps"});
    if (auto e = m.get("end_time")) solver.end_time = positive(*e);
    read_implicit(m, solver);
    if (auto steps = m.get("steps")) read_steps(*steps, m.get("end_time"), solver);
    return;
  }
  if (type == "implicit_dynamic") {
    solver.type = SolverType::ImplicitDynamic;
    const Mapping m(v, {"type", "end_time", "time_step", "integrator", "beta", "gamma", "alpha",
                        "mass_damping", "stiffness_damping", "increments", "newton", "linear",
                        "assembly", "node_ordering", "steps"});
    const std::optional<Value> steps = m.get("steps");
    // In steps, the last step's end is the end time and each step may give its time step.
    if (!steps)
      solver.end_time = positive(m.required("end_time", "the simulated duration in seconds"));
    if (auto dt = m.get("time_step"))
      solver.time_step = positive(*dt);
    else if (!steps)
      (void)m.required("time_step",
                       "the implicit time step in seconds (it may be many times the explicit "
                       "critical step)");
    if (auto i = m.get("integrator"))
      solver.integrator = as_choice(*i, {"newmark", "hht", "backward_euler"});
    if (solver.integrator == "hht") {
      // HHT-alpha: beta and gamma follow from alpha (Hilber, Hughes & Taylor 1977).
      solver.alpha = -0.05;
      if (auto a = m.get("alpha")) solver.alpha = in_range(*a, -1.0 / 3.0, 0.0, true, true);
      for (const char* key : {"beta", "gamma"})
        if (auto e = m.get(key))
          e->fail_at_key("'" + std::string(key) + "' is set by 'alpha' for integrator hht",
                         "beta = (1 - alpha)^2 / 4, gamma = (1 - 2 alpha) / 2");
      solver.beta = (1.0 - solver.alpha) * (1.0 - solver.alpha) / 4.0;
      solver.gamma = (1.0 - 2.0 * solver.alpha) / 2.0;
    } else {
      if (auto a = m.get("alpha"))
        a->fail_at_key("'alpha' applies to integrator hht only",
                       "set 'integrator: hht', or leave 'alpha' out");
      if (solver.integrator == "backward_euler") {
        for (const char* key : {"beta", "gamma"})
          if (auto e = m.get(key))
            e->fail_at_key("'" + std::string(key) + "' does not apply to backward_euler");
      } else {
        if (auto b = m.get("beta")) solver.beta = in_range(*b, 0.0, 0.5, false, true);
        if (auto g = m.get("gamma")) solver.gamma = in_range(*g, 0.0, 1.0, false, true);
        if (solver.gamma < 0.5 || solver.beta < 0.25 * (0.5 + solver.gamma) * (0.5 + solver.gamma))
          v.fail("Newmark beta " + format_number(solver.beta) + ", gamma " +
                     format_number(solver.gamma) + " is not unconditionally stable",
                 "use gamma >= 1/2 and beta >= (1/2 + gamma)^2 / 4 (beta 1/4, gamma 1/2 is the "
                 "trapezoidal rule)");
      }
    }
    if (auto d = m.get("mass_damping")) solver.mass_damping = non_negative(*d);
    if (auto d = m.get("stiffness_damping")) solver.stiffness_damping = non_negative(*d);
    read_implicit(m, solver);
    if (steps) read_steps(*steps, m.get("end_time"), solver);
    return;
  }
  // Dynamic relaxation (seed 003, section 3.7): a fictitious mass and step, damping from the
  // estimated lowest eigenvalue, stopping by itself.
  solver.type = SolverType::DynamicRelaxation;
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
  read_common(m, solver);
}

}  // namespace case_io
}  // namespace fem
