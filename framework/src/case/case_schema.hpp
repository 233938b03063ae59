// The case-file schema, one reader per section. case_loader.cpp calls them in an order where
// every name is defined before it is referred to (materials before blocks, node sets and
// amplitudes before boundary conditions, the solver before open-ended amplitudes are closed).
#pragma once

#include <optional>
#include <string>

#include "fem/case.hpp"
#include "fem/contact/rigid_surface.hpp"
#include "yaml_reader.hpp"

namespace fem::case_io {

void read_mesh(const Value& v, MeshSpec& mesh);
/// Regions a block can name: the mesh file's, or "domain" for a generated mesh.
std::vector<std::string> mesh_region_names(const MeshSpec& mesh);
/// Node sets the mesh file defines (none for a generated mesh).
std::vector<std::string> mesh_node_set_names(const MeshSpec& mesh);
void read_materials(const Value& v, CaseSpec& spec);
void read_blocks(const Value& v, CaseSpec& spec);
void read_node_sets(const Value& v, CaseSpec& spec);

void read_amplitudes(const Value& v, CaseSpec& spec);
/// An `amplitude:` entry: the name of a defined amplitude, or an inline curve that is added to
/// spec.amplitudes under the entry's path. Returns the name to store.
std::string read_amplitude_ref(const Value& v, CaseSpec& spec, const std::string& user);
/// Gives amplitudes without an `end` the solver's end time, and checks they still end after
/// they start.
void close_open_amplitudes(CaseSpec& spec);

/// A `set:` entry: the name of a node set defined under node_sets.
std::string read_set_ref(const Value& v, const CaseSpec& spec, const std::string& user);
void read_boundary_conditions(const Value& v, CaseSpec& spec);
void read_loads(const Value& v, CaseSpec& spec);
/// Once the solver type is known: each pressure's `follower` where the case leaves it out, or an
/// InputError where the solver cannot apply the pressure asked for.
void resolve_follower_pressures(CaseSpec& spec);
void read_gravity(const Value& v, CaseSpec& spec);
void read_initial_conditions(const Value& v, CaseSpec& spec);

/// Reads `solver:` into spec.solver (the node sets, already read, resolve absorbing layers).
void read_solver(const Value& v, CaseSpec& spec);
/// `contact:` (after node sets and amplitudes).
void read_contacts(const Value& v, CaseSpec& spec);
/// Also fills the defaults that depend on the rest of the case when `output:` is absent.
void read_output(const std::optional<Value>& v, CaseSpec& spec);

/// `every_steps` / `every_time`, at most one of the two (output and histories share it).
void read_cadence(const Mapping& m, int& every_steps, double& every_time);

}  // namespace fem::case_io
