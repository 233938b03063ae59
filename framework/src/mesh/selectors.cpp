// Node-set selectors: geometric picks, explicit ids and unions, resolved into mesh.node_sets.
#include "fem/mesh/selectors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "../core/host_loops.hpp"

namespace fem {

namespace {

std::string fmt_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string fmt_point(const std::array<double, 3>& p) {
  return "(" + fmt_num(p[0]) + ", " + fmt_num(p[1]) + ", " + fmt_num(p[2]) + ")";
}

std::string bounds_text(const Mesh& mesh) {
  if (mesh.num_nodes() == 0) return "the mesh has no nodes";
  const auto b = mesh.bounds();
  return "the mesh spans " + fmt_point(b[0]) + " to " + fmt_point(b[1]);
}

/// Distance tolerance: the set's own, or one a millionth of the mesh diagonal, so that nodes
/// meant to lie on a plane are found despite rounding, at any unit scale.
double tolerance_for(const NodeSetSpec& spec, const Mesh& mesh) {
  if (spec.tolerance > 0) return spec.tolerance;
  if (mesh.num_nodes() == 0) return 0.0;
  const auto b = mesh.bounds();
  return 1e-6 * std::hypot(b[1][0] - b[0][0], b[1][1] - b[0][1], b[1][2] - b[0][2]);
}

template <class Pick>
std::vector<std::int32_t> nodes_where(const Mesh& mesh, Pick pick) {
  return detail::indices_where<std::int32_t>(mesh.num_nodes(),
                                             [&](std::int64_t i) { return pick(mesh.node(i)); });
}

std::vector<std::string> names_of(const std::map<std::string, std::vector<std::int32_t>>& sets) {
  std::vector<std::string> names;
  for (const auto& [name, ids] : sets) names.push_back(name);
  return names;
}

std::string join(const std::vector<std::string>& names, const std::string& sep) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : sep) + n;
  return s;
}

[[noreturn]] void unknown_member(const NodeSetSpec& spec, const std::string& member,
                                 std::vector<std::string> known) {
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  const std::string guess = did_you_mean(member, known.data(), known.data() + known.size());
  std::string hint = guess.empty() ? "" : guess + " ";
  hint += known.empty() ? "no node sets are defined" : "node sets: " + join(known, ", ");
  throw InputError(spec.where,
                   "node set '" + spec.name + "' is a union with '" + member +
                       "', but no node set has that name",
                   hint);
}

/// The selector in words, for the message about an empty selection.
std::string describe(const NodeSetSpec& spec) {
  switch (spec.kind) {
    case NodeSetSpec::Kind::All:
      return "the mesh has none";
    case NodeSetSpec::Kind::Plane:
      return "on the plane through " + fmt_point(spec.point) + " with normal " +
             fmt_point(spec.vector);
    case NodeSetSpec::Kind::Box:
      return "in the box from " + fmt_point(spec.point) + " to " + fmt_point(spec.vector);
    case NodeSetSpec::Kind::Sphere:
      return "in the sphere around " + fmt_point(spec.point) + " of radius " + fmt_num(spec.radius);
    case NodeSetSpec::Kind::Ids:
      return "an empty list of ids";
    case NodeSetSpec::Kind::Union:
      return "a union of no sets";
  }
  return "?";
}

std::vector<std::int32_t> select_unchecked(const NodeSetSpec& spec, const Mesh& mesh) {
  const double tol = tolerance_for(spec, mesh);
  const auto& p = spec.point;
  const auto& v = spec.vector;
  switch (spec.kind) {
    case NodeSetSpec::Kind::All:
      return nodes_where(mesh, [](const auto&) { return true; });

    case NodeSetSpec::Kind::Plane: {
      const double len = std::hypot(v[0], v[1], v[2]);
      if (!(len > 0))
        throw InputError(spec.where, "node set '" + spec.name + "': the plane normal is zero",
                         "give the normal as a non-zero vector, e.g. [1, 0, 0]");
      return nodes_where(mesh, [&](const std::array<double, 3>& x) {
        const double d = ((x[0] - p[0]) * v[0] + (x[1] - p[1]) * v[1] + (x[2] - p[2]) * v[2]) / len;
        return std::abs(d) <= tol;
      });
    }

    case NodeSetSpec::Kind::Box:
      for (int k = 0; k < 3; ++k)
        if (p[k] > v[k])
          throw InputError(spec.where,
                           "node set '" + spec.name + "': box min " + fmt_point(p) +
                               " is above box max " + fmt_point(v) + " in " + "xyz"[k],
                           "min holds the smallest coordinates, max the largest");
      return nodes_where(mesh, [&](const std::array<double, 3>& x) {
        for (int k = 0; k < 3; ++k)
          if (x[k] < p[k] - tol || x[k] > v[k] + tol) return false;
        return true;
      });

    case NodeSetSpec::Kind::Sphere:
      if (!(spec.radius >= 0))
        throw InputError(spec.where, "node set '" + spec.name +
                                         "': sphere radius must not be negative, got " +
                                         fmt_num(spec.radius));
      return nodes_where(mesh, [&](const std::array<double, 3>& x) {
        return std::hypot(x[0] - p[0], x[1] - p[1], x[2] - p[2]) <= spec.radius + tol;
      });

    case NodeSetSpec::Kind::Ids: {
      std::vector<std::int32_t> ids = spec.ids;
      for (std::int32_t id : ids)
        if (id < 0 || id >= mesh.num_nodes())
          throw InputError(
              spec.where,
              "node set '" + spec.name + "': node id " + std::to_string(id) +
                  " is out of range; the mesh has " + std::to_string(mesh.num_nodes()) + " nodes",
              "ids are 0-based: valid ids are 0 to " + std::to_string(mesh.num_nodes() - 1));
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      return ids;
    }

    case NodeSetSpec::Kind::Union: {
      std::vector<std::int32_t> ids;
      for (const std::string& member : spec.sets) {
        const auto it = mesh.node_sets.find(member);
        if (it == mesh.node_sets.end()) unknown_member(spec, member, names_of(mesh.node_sets));
        ids.insert(ids.end(), it->second.begin(), it->second.end());
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      return ids;
    }
  }
  return {};
}

}  // namespace

std::vector<std::int32_t> select_nodes(const NodeSetSpec& spec, const Mesh& mesh) {
  std::vector<std::int32_t> ids = select_unchecked(spec, mesh);
  // A set that picks nothing is almost always a plane or box in the wrong place (units, origin),
  // and would silently leave a boundary condition without nodes.
  if (ids.empty())
    throw InputError(
        spec.where, "node set '" + spec.name + "' selects no nodes: " + describe(spec),
        bounds_text(mesh) + " (distance tolerance " + fmt_num(tolerance_for(spec, mesh)) + ")");
  return ids;
}

void resolve_node_sets(const std::vector<NodeSetSpec>& specs, Mesh& mesh) {
  std::map<std::string, const NodeSetSpec*> by_name;
  for (const NodeSetSpec& s : specs) {
    if (mesh.node_sets.count(s.name) || by_name.count(s.name))
      throw InputError(s.where, "node set '" + s.name + "' is defined twice",
                       mesh.node_sets.count(s.name) ? "the mesh file already has a set of that name"
                                                    : "rename one of them");
    by_name[s.name] = &s;
  }

  // Unions may name sets defined later in the file: resolve depth-first, members before the
  // union, and keep the path to report a cycle as a chain the user can follow.
  enum class State { Pending, InProgress, Done };
  std::map<std::string, State> state;
  std::vector<std::string> path;
  std::vector<std::string> known = names_of(mesh.node_sets);
  for (const auto& [name, spec] : by_name) known.push_back(name);

  const auto resolve = [&](const auto& self, const NodeSetSpec& s) -> void {
    State& st = state[s.name];
    if (st == State::Done) return;
    path.push_back(s.name);
    if (st == State::InProgress) {
      const auto first = std::find(path.begin(), path.end(), s.name);
      const std::vector<std::string> cycle(first, path.end());
      throw InputError(
          s.where, "node set '" + s.name + "' is part of a circular union: " + join(cycle, " -> "),
          "a union can only contain sets that do not contain it");
    }
    st = State::InProgress;
    if (s.kind == NodeSetSpec::Kind::Union)
      for (const std::string& member : s.sets) {
        const auto it = by_name.find(member);
        if (it != by_name.end())
          self(self, *it->second);
        else if (!mesh.node_sets.count(member))
          unknown_member(s, member, known);
      }
    mesh.node_sets[s.name] = select_nodes(s, mesh);
    state[s.name] = State::Done;
    path.pop_back();
  };
  for (const NodeSetSpec& s : specs) resolve(resolve, s);
}

}  // namespace fem
