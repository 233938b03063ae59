// output: field frames (VTK) and node-set and element-region histories (CSV), and how often they
// are written.
#include <algorithm>
#include <map>

#include "case_schema.hpp"
#include "fem/output/xdmf_series.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kFields = {"displacement",  "velocity",  "green_lagrange_strain",
                                          "cauchy_stress", "von_mises", "block_id"};
/// Of the .vtu files, in VtkCompression's order: zlib (smallest, the default), lz4 (about 7x
/// faster, 1.75x the size), none.
const std::vector<std::string> kCompressions = {"zlib", "lz4", "none"};
const std::vector<std::string> kQuantities = {"displacement", "velocity", "reaction_force"};
/// Of a region's elements (history_columns() in fem/solver/run_output.hpp names their columns).
const std::vector<std::string> kElementQuantities = {"cauchy_stress", "green_lagrange_strain",
                                                     "von_mises", "strain_energy"};

/// Reads a list of distinct words from `allowed`.
std::vector<std::string> read_words(const Value& v, const std::vector<std::string>& allowed) {
  std::vector<std::string> words;
  for (const Value& item : as_list(v)) {
    const std::string w = as_choice(item, allowed);
    if (std::find(words.begin(), words.end(), w) != words.end())
      item.fail(v.quoted() + " lists '" + w + "' twice");
    words.push_back(w);
  }
  return words;
}

bool before(const SourceLocation& a, const SourceLocation& b) {
  // Command-line values (line 0) count as last: they were applied after the file.
  const auto key = [](const SourceLocation& l) {
    return std::make_pair(l.line > 0 ? l.line : 1 << 30, l.column);
  };
  return key(a) < key(b);
}

/// The region of an element history: one a block takes its cells from.
std::string read_history_region(const Value& v, const CaseSpec& spec) {
  const std::string region = non_empty_string(v);
  std::vector<std::string> regions;
  for (const BlockSpec& b : spec.blocks)
    if (std::find(regions.begin(), regions.end(), b.region) == regions.end())
      regions.push_back(b.region);
  if (std::find(regions.begin(), regions.end(), region) == regions.end())
    v.fail("history region '" + region + "' is not the region of any block",
           suggestion(region, regions, "block regions"));
  return region;
}

HistorySpec read_history(const Value& item, CaseSpec& spec) {
  const Mapping m(item, {"name", "set", "region", "quantities", "every_steps", "every_time"});
  HistorySpec h;
  h.where = item.where();
  const std::optional<Value> set = m.get("set");
  const std::optional<Value> region = m.get("region");
  if (set.has_value() == region.has_value())
    item.fail("'" + item.path() + "' needs either 'set' or 'region'",
              "set: a node set, whose mean motion and reaction force are recorded; region: a "
              "block's region, whose elements' mean stress and strain are recorded");
  if (set) {
    h.set = read_set_ref(*set, spec, "'" + item.path() + "'");
    h.name = h.set;
    // The co-rotational solver forms no reaction forces: its histories default to the motion.
    if (spec.solver.type == SolverType::Corotational) h.quantities = {"displacement", "velocity"};
  } else {
    h.region = read_history_region(*region, spec);
    h.name = h.region;
    h.quantities = {"cauchy_stress", "green_lagrange_strain"};
  }
  if (auto n = m.get("name")) h.name = non_empty_string(*n);
  const std::vector<std::string>& allowed = set ? kQuantities : kElementQuantities;
  if (auto q = m.get("quantities")) {
    h.quantities = read_words(*q, allowed);
    if (h.quantities.empty()) q->fail("'quantities' must list at least one of " + join(allowed));
  }
  read_cadence(m, h.every_steps, h.every_time);
  return h;
}

const std::vector<std::string> kReceiverQuantities = {"displacement", "velocity"};
const std::vector<std::string> kReceiverFormats = {"csv", "hdf5"};

ReceiverSpec read_receiver(const Value& item, CaseSpec& spec) {
  const Mapping m(item, {"name", "set", "point", "quantities", "every_steps"});
  ReceiverSpec r;
  r.where = item.where();
  const std::optional<Value> set = m.get("set");
  const std::optional<Value> point = m.get("point");
  if (set.has_value() == point.has_value())
    item.fail(
        "'" + item.path() + "' needs either 'set' or 'point'",
        "set: a node set whose every node is recorded; point: [x, y, z], the node nearest it");
  if (set) {
    r.set = read_set_ref(*set, spec, "'" + item.path() + "'");
    r.name = r.set;
  } else {
    r.point = as_vector3(*point);
  }
  if (auto n = m.get("name"))
    r.name = non_empty_string(*n);
  else if (!set)
    item.fail("'" + item.path() + "' with a 'point' needs a 'name'",
              "the traces are written under that name");
  if (auto q = m.get("quantities")) {
    r.quantities = read_words(*q, kReceiverQuantities);
    if (r.quantities.empty())
      q->fail("'quantities' must list at least one of " + join(kReceiverQuantities));
  }
  if (auto e = m.get("every_steps")) r.every_steps = as_int(*e, 1);
  return r;
}

CheckpointSpec read_checkpoint(const Value& v) {
  const Mapping m(v, {"every_steps", "every_time", "keep"});
  CheckpointSpec c;
  c.where = v.key_where();
  read_cadence(m, c.every_steps, c.every_time);
  if (c.every_steps == 0 && c.every_time == 0.0)
    v.fail("'" + v.path() + "' needs 'every_steps' or 'every_time'",
           "for example checkpoint: {every_time: 0.01, keep: 2}");
  if (auto k = m.get("keep")) c.keep = as_int(*k, 1);
  return c;
}

}  // namespace

void read_cadence(const Mapping& m, int& every_steps, double& every_time) {
  const std::optional<Value> steps = m.get("every_steps");
  const std::optional<Value> time = m.get("every_time");
  if (steps && time) {
    const Value& second = before(steps->key_where(), time->key_where()) ? *time : *steps;
    second.fail_at_key(
        "give either 'every_steps' or 'every_time' in '" + m.value().path() + "', not both",
        "every_steps counts time steps; every_time is in seconds");
  }
  if (steps) every_steps = as_int(*steps, 1);
  if (time) every_time = positive(*time);
}

void read_output(const std::optional<Value>& v, CaseSpec& spec) {
  OutputSpec& out = spec.output;
  out.directory = spec.name + "_results";
  // Linear waves have no nonlinear strain or stress to speak of by default; they can be asked for.
  if (spec.solver.type == SolverType::Elastodynamic || spec.solver.type == SolverType::Corotational)
    out.fields = {"displacement", "velocity"};
  // A static solution has no time, so no velocity.
  if (spec.solver.type == SolverType::Static) std::erase(out.fields, std::string("velocity"));
  if (!v) return;
  const Mapping m(*v, {"directory", "every_steps", "every_time", "vtk", "xdmf", "fields", "sets",
                       "background", "compression", "histories", "calculix_dat", "receivers",
                       "receiver_formats", "checkpoint"});
  out.where = v->key_where();
  // Relative directories stay relative: the command line resolves them against its own folder.
  if (auto d = m.get("directory")) out.directory = non_empty_string(*d);
  read_cadence(m, out.every_steps, out.every_time);
  if (auto b = m.get("vtk")) out.vtk = as_bool(*b);
  if (auto b = m.get("xdmf")) {
    out.xdmf = as_bool(*b);
    if (out.xdmf && !xdmf_output_available())
      b->fail("output.xdmf needs HDF5, and this fem was built without it",
              "install libhdf5-dev and rebuild fem, or write the frames as VTK only (xdmf: false)");
  }
  if (auto b = m.get("sets")) out.sets = as_bool(*b);
  if (auto c = m.get("compression")) {
    const std::string name = as_choice(*c, kCompressions);
    out.compression = static_cast<VtkCompression>(
        std::find(kCompressions.begin(), kCompressions.end(), name) - kCompressions.begin());
  }
  if (auto b = m.get("background")) {
    out.background = as_bool(*b);
    if (*out.background && out.xdmf)
      b->fail(
          "output.background cannot write the XDMF series (HDF5 is not thread-safe in this "
          "build): its frames are written on the run's thread",
          "remove background, or write the frames as VTK only (xdmf: false)");
  }
  if (auto f = m.get("fields")) {
    out.fields = read_words(*f, kFields);
    for (const Value& item : as_list(*f)) out.field_locations.push_back(item.where());
  }
  if (auto hs = m.get("histories")) {
    std::map<std::string, SourceLocation> names;
    for (const Value& item : as_list(*hs)) {
      HistorySpec h = read_history(item, spec);
      const auto [first, inserted] = names.emplace(h.name, h.where);
      if (!inserted)
        item.fail(
            "history name '" + h.name + "' is used twice (first at " + first->second.str() + ")",
            "each history is written to <name>.csv: give each its own name:");
      out.histories.push_back(h);
    }
  }
  if (auto b = m.get("calculix_dat")) out.calculix_dat = as_bool(*b);
  if (auto rs = m.get("receivers")) {
    if (spec.solver.type != SolverType::Elastodynamic)
      rs->fail_at_key("'receivers' apply to solver type elastodynamic, not " +
                          std::string(to_string(spec.solver.type)),
                      "record node sets with output.histories instead");
    std::map<std::string, SourceLocation> names;
    for (const Value& item : as_list(*rs)) {
      ReceiverSpec r = read_receiver(item, spec);
      const auto [first, inserted] = names.emplace(r.name, r.where);
      if (!inserted)
        item.fail(
            "receiver name '" + r.name + "' is used twice (first at " + first->second.str() + ")",
            "each receiver's traces are stored under its name: give each its own");
      out.receivers.push_back(r);
    }
  }
  if (auto f = m.get("receiver_formats")) {
    out.receiver_formats = read_words(*f, kReceiverFormats);
    if (out.receiver_formats.empty())
      f->fail("'receiver_formats' must list at least one of " + join(kReceiverFormats));
  }
  if (auto c = m.get("checkpoint")) out.checkpoint = read_checkpoint(*c);
}

}  // namespace fem::case_io
