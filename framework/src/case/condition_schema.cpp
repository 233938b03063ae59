// boundary_conditions, loads, gravity, initial_conditions: what is prescribed on which nodes.
#include "case_schema.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kComponents = {"x", "y", "z"};

int component_index(const std::string& c) {
  return c == "x" ? 0 : c == "y" ? 1 : 2;
}

void read_fixed(const Value& v, BoundaryConditionSpec& bc) {
  if (v.is_scalar() && v.text() == "all") {
    bc.constrained = {true, true, true};
    return;
  }
  if (!v.is_list())
    v.fail("'fixed' must be a list of components such as [x, z], or all, got " + v.describe(),
           v.is_scalar() && (v.text() == "x" || v.text() == "y" || v.text() == "z")
               ? "write fixed: [" + v.text() + "]"
               : "components are x, y and z");
  const std::vector<Value> items = as_list(v);
  if (items.empty()) v.fail("'fixed' must list at least one component (x, y, z), or be all");
  for (const Value& item : items)
    bc.constrained[component_index(as_choice(item, kComponents))] = true;
}

BoundaryConditionSpec read_boundary_condition(const Value& item, CaseSpec& spec) {
  const Mapping m(item, {"set", "fixed", "displacement", "amplitude"});
  BoundaryConditionSpec bc;
  bc.where = item.where();
  const std::string user = "'" + item.path() + "'";
  bc.set = read_set_ref(m.required("set"), spec, user);
  if (auto f = m.get("fixed")) read_fixed(*f, bc);
  if (auto d = m.get("displacement")) {
    const Mapping components(*d, kComponents);
    for (const Value& c : components.entries()) {
      const int k = component_index(c.name());
      if (bc.constrained[k])
        c.fail_at_key("component " + c.name() + " of " + user + " is both fixed and displaced",
                      "use fixed for a zero displacement, displacement: {" + c.name() +
                          ": value} for a prescribed one, not both");
      bc.constrained[k] = true;
      bc.value[k] = as_number(c);
    }
  }
  if (!bc.constrained[0] && !bc.constrained[1] && !bc.constrained[2])
    item.fail(user + " on node set '" + bc.set + "' prescribes nothing",
              "give fixed: [x, y, z] (or all), and/or displacement: {z: value} in metres");
  if (auto a = m.get("amplitude")) bc.amplitude = read_amplitude_ref(*a, spec, user);
  return bc;
}

}  // namespace

std::string read_set_ref(const Value& v, const CaseSpec& spec, const std::string& user) {
  const std::string name = non_empty_string(v);
  // Sets of the case, then those the mesh file brings.
  std::vector<std::string> names;
  for (const NodeSetSpec& s : spec.node_sets) {
    if (s.name == name) return name;
    names.push_back(s.name);
  }
  for (const std::string& s : mesh_node_set_names(spec.mesh)) {
    if (s == name) return name;
    names.push_back(s);
  }
  v.fail(
      user + " uses node set '" + name + "', which is not defined",
      suggestion(name, names, "node sets") + (names.empty() ? "; define it under node_sets:" : ""));
}

void read_boundary_conditions(const Value& v, CaseSpec& spec) {
  for (const Value& item : as_list(v))
    spec.boundary_conditions.push_back(read_boundary_condition(item, spec));
}

void read_loads(const Value& v, CaseSpec& spec) {
  for (const Value& item : as_list(v)) {
    const Mapping m(item, {"set", "force", "pressure", "follower", "amplitude"});
    const std::string user = "'" + item.path() + "'";
    const std::string set = read_set_ref(m.required("set"), spec, user);
    std::string amplitude = "constant";
    if (auto a = m.get("amplitude")) amplitude = read_amplitude_ref(*a, spec, user);
    const auto force = m.get("force");
    const auto pressure = m.get("pressure");
    if (force && pressure)
      pressure->fail_at_key(user + " has both a force and a pressure",
                            "give one per entry: force (newtons on every node of the set) or "
                            "pressure (pascals on the boundary faces of the set)");
    if (pressure) {
      PressureLoadSpec p;
      p.where = item.where();
      p.set = set;
      p.pressure = as_number(*pressure);
      p.amplitude = amplitude;
      if (auto f = m.get("follower")) {
        p.follower = as_bool(*f);
        p.follower_given = true;
        p.follower_where = f->where();
      }
      spec.pressure_loads.push_back(p);
      continue;
    }
    if (auto f = m.get("follower"))
      f->fail_at_key("'follower' applies to a pressure, and " + user + " is a force",
                     "leave follower out (nodal forces keep their direction)");
    NodalLoadSpec load;
    load.where = item.where();
    load.set = set;
    load.force = as_vector3(m.required(
        "force",
        "the force on every node of the set, newtons (or a pressure on its boundary faces)"));
    load.amplitude = amplitude;
    spec.loads.push_back(load);
  }
}

void resolve_follower_pressures(CaseSpec& spec) {
  const SolverType type = spec.solver.type;
  const std::string solver = std::string("solver type ") + to_string(type);
  for (PressureLoadSpec& p : spec.pressure_loads) {
    const bool given = p.follower_given;
    const SourceLocation& at = given ? p.follower_where : p.where;
    if (type == SolverType::Corotational)
      throw InputError(p.where, "pressure loads do not apply to " + solver,
                       "give the load as nodal forces (force: [fx, fy, fz]) on the set");
    if (type == SolverType::Elastodynamic) {
      if (p.follower)
        throw InputError(at, "a follower pressure does not apply to " + solver,
                         "the wave solver is linear (small strain): its pressures act on the "
                         "reference surface; leave follower out");
    } else if (!given) {
      p.follower = true;  // as Abaqus and CalculiX in geometrically nonlinear steps
    }
  }
}

void read_gravity(const Value& v, CaseSpec& spec) {
  const Mapping m(v, {"acceleration", "amplitude"});
  GravitySpec g;
  g.where = v.key_where();
  g.acceleration =
      as_vector3(m.required("acceleration", "the acceleration in m/s^2, e.g. [0, 0, -9.81]"));
  if (auto a = m.get("amplitude")) g.amplitude = read_amplitude_ref(*a, spec, "'gravity'");
  spec.gravity = g;
}

void read_initial_conditions(const Value& v, CaseSpec& spec) {
  for (const Value& item : as_list(v)) {
    const Mapping m(item, {"set", "velocity"});
    InitialVelocitySpec iv;
    iv.where = item.where();
    iv.set = read_set_ref(m.required("set"), spec, "'" + item.path() + "'");
    iv.velocity = as_vector3(m.required("velocity", "the initial velocity in m/s, [vx, vy, vz]"));
    spec.initial_velocities.push_back(iv);
  }
}

}  // namespace fem::case_io
