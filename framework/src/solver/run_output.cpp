#include "fem/solver/run_output.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "fem/parallel/communicator.hpp"

namespace fem {

RunSummary summary_header(const CaseSpec& spec, const std::string& status,
                          const std::string& message, const RunIdentity& run) {
  RunSummary s;
  s.set("case", spec.file);
  s.set("name", spec.name);
  s.set("status", status);
  if (!message.empty()) s.set("error", message);
  s.set("backend", run.backend);
  s.set("execution_space", run.execution_space);
  s.set("precision", run.precision);
  s.set("model.nodes", run.nodes);
  s.set("model.elements", run.elements);
  s.set("model.total_mass_kg", run.total_mass_kg);
  s.set("model.total_volume_m3", run.total_volume_m3);
  s.set("solver", to_string(spec.solver.type));
  return s;
}

std::string write_summary_file(RunSummary& s, const std::vector<EnergySample>& energies,
                               const std::string& directory) {
  return finish_summary(s, energies, directory, true, nullptr);
}

std::string finish_summary(RunSummary& s, const std::vector<EnergySample>& energies,
                           const std::string& directory, bool write, RunSink* sink) {
  if (!energies.empty()) {
    s.set("energy.kinetic_j", energies.back().kinetic);
    s.set("energy.strain_j", energies.back().strain);
    s.set("energy.hourglass_j", energies.back().hourglass);
  }
  if (sink) sink->summary(s.json());
  if (!write) return {};
  const std::string path = (std::filesystem::path(directory) / "summary.json").string();
  s.write(path);
  return path;
}

void append_row(std::optional<CsvHistory>& csv, RunSink* sink, const std::string& table,
                double time, std::int64_t step, const std::vector<double>& values) {
  if (csv) csv->append(time, step, values);
  if (sink) sink->row(table, time, step, values);
}
namespace {

bool wants(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

std::int64_t output_cadence(int every_steps, double every_time, double step_time,
                            std::int64_t fallback) {
  if (every_steps > 0) return every_steps;
  if (every_time > 0) return std::max<std::int64_t>(1, std::llround(every_time / step_time));
  return std::max<std::int64_t>(1, fallback);
}

ElementEnergies element_energies(const std::vector<BlockResults>& results) {
  ElementEnergies e;
  add_element_energies(results, 1.0, e);
  return e;
}

void add_element_energies(const std::vector<BlockResults>& results, double weight,
                          ElementEnergies& sum) {
  for (const BlockResults& r : results) {
    // Both sums in one pass where both arrays are there (two independent chains of additions,
    // each in element order: the same bits as one loop per array).
    const std::size_t both = std::min(r.strain_energy.size(), r.hourglass_energy.size());
    double strain = sum.strain, hourglass = sum.hourglass;
    for (std::size_t e = 0; e < both; ++e) {
      strain += weight * r.strain_energy[e];
      hourglass += weight * r.hourglass_energy[e];
    }
    for (std::size_t e = both; e < r.strain_energy.size(); ++e)
      strain += weight * r.strain_energy[e];
    for (std::size_t e = both; e < r.hourglass_energy.size(); ++e)
      hourglass += weight * r.hourglass_energy[e];
    sum.strain = strain;
    sum.hourglass = hourglass;
  }
}

double von_mises(const double* s) {
  const double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
  return std::sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
}

OutputFrame make_frame(const CaseSpec& spec, std::int64_t step, double time,
                       const std::vector<double>& u, const std::vector<double>* velocity,
                       const std::vector<BlockResults>& results) {
  OutputFrame frame;
  frame.step = step;
  frame.time = time;
  const auto& fields = spec.output.fields;
  if (wants(fields, "displacement")) frame.point_fields.push_back({"displacement", 3, u});
  if (velocity && wants(fields, "velocity"))
    frame.point_fields.push_back({"velocity", 3, *velocity});
  Field strain{"green_lagrange_strain", 6, {}}, stress{"cauchy_stress", 6, {}};
  Field mises{"von_mises", 1, {}}, block{"block_id", 1, {}};
  for (std::size_t b = 0; b < results.size(); ++b) {
    const BlockResults& r = results[b];
    strain.values.insert(strain.values.end(), r.green_lagrange.begin(), r.green_lagrange.end());
    stress.values.insert(stress.values.end(), r.cauchy_stress.begin(), r.cauchy_stress.end());
    for (std::size_t e = 0; e < r.strain_energy.size(); ++e) {
      mises.values.push_back(von_mises(&r.cauchy_stress[6 * e]));
      block.values.push_back(static_cast<double>(b));
    }
  }
  for (Field* f : {&strain, &stress, &mises, &block})
    if (wants(fields, f->name)) frame.cell_fields.push_back(std::move(*f));
  return frame;
}

std::unique_ptr<FrameSeries> open_frame_series(const Model& model, const std::string& directory,
                                               const OutputMesh* mesh, SeriesPiece piece,
                                               const Backend* backend) {
  const OutputSpec& out = model.spec.output;
  bool vtk = out.vtk;
  if (vtk && !vtk_output_available()) {
    spdlog::warn(
        "this fem was built without VTK: no .vtu/.pvd output (set output.vtk: false to silence "
        "this)");
    vtk = false;
  }
  if (!vtk && !out.xdmf) return nullptr;
  std::optional<OutputMesh> whole;
  if (!mesh) mesh = &whole.emplace(output_mesh(model));
  std::unique_ptr<VtkSeriesWriter> vtk_series;
  std::unique_ptr<XdmfSeriesWriter> xdmf_series;
  if (vtk)
    vtk_series = std::make_unique<VtkSeriesWriter>(directory, model.spec.name, *mesh, piece,
                                                   out.compression);
  if (out.xdmf)
    xdmf_series = std::make_unique<XdmfSeriesWriter>(directory, model.spec.name, *mesh, piece);
  const bool several_ranks = piece.comm != nullptr && piece.comm->size() > 1;
  return std::make_unique<FrameSeries>(std::move(vtk_series), std::move(xdmf_series),
                                       frame_writing(out, backend, several_ranks));
}

FrameWriting frame_writing(const OutputSpec& output, const Backend* backend, bool several_ranks) {
  if (several_ranks || output.xdmf) return FrameWriting::OnCaller;
  const bool on_device = backend != nullptr && !backend->devices().empty();
  return output.background.value_or(on_device) ? FrameWriting::Background : FrameWriting::OnCaller;
}

std::vector<std::string> history_columns(const HistorySpec& spec) {
  std::vector<std::string> cols;
  for (const std::string& q : spec.quantities) {
    if (q == "cauchy_stress" || q == "green_lagrange_strain")
      for (const char* c : {"_xx", "_yy", "_zz", "_xy", "_yz", "_xz"}) cols.push_back(q + c);
    else if (q == "von_mises")
      cols.push_back("von_mises_max");
    else if (q == "strain_energy")
      cols.push_back(q);
    else
      for (const char* c : {"_x", "_y", "_z"}) cols.push_back(q + c);
  }
  return cols;
}

HistoryRecorder::HistoryRecorder(const Model& model, const HistorySpec& spec, std::int64_t every,
                                 const std::string& directory, std::uint64_t resume_at,
                                 RunSink* sink)
    : spec_(&spec), every_(every), sink_(sink) {
  static const std::vector<std::int32_t> kNoNodes;
  nodes_ = spec.of_elements() ? &kNoNodes : &model.mesh.node_sets.at(spec.set);
  for (std::size_t b = 0; b < model.blocks.size(); ++b)
    if (spec.of_elements() && model.blocks[b].spec->region == spec.region) blocks_.push_back(b);
  const std::vector<std::string> cols = history_columns(spec);
  if (sink_) sink_->table(spec.name, cols);
  if (directory.empty()) return;
  csv_.emplace((std::filesystem::path(directory) / (spec.name + ".csv")).string(), cols, resume_at);
}

namespace {

/// Whether fem's element values are CalculiX's at its integration points: one point.
bool one_point(const ModelBlock& block) {
  return block.element->num_quadrature_points == 1;
}

}  // namespace

bool HistoryRecorder::has_tables(const Model& model) const {
  return !of_elements() || std::any_of(blocks_.begin(), blocks_.end(),
                                       [&](std::size_t b) { return one_point(model.blocks[b]); });
}

void HistoryRecorder::note_blocks_without_tables(const Model& model) const {
  for (const std::size_t b : blocks_) {
    const ModelBlock& block = model.blocks[b];
    if (one_point(block)) continue;
    spdlog::info(
        "history '{}': the elements of block '{}' have {} integration points, so the .dat has "
        "no tables of them (fem's element values are means over the points, as in {}.csv)",
        spec_->name, block.spec->name, block.element->num_quadrature_points, spec_->name);
  }
}

void HistoryRecorder::print_to(CalculixDat* dat, const Model& model) {
  const Mesh& mesh = model.mesh;
  dat_ = dat;
  numbers_.clear();
  element_numbers_.clear();
  for (const std::int32_t n : *nodes_)
    numbers_.push_back(mesh.node_labels.empty() ? std::int64_t{mesh.input_node_id(n)} + 1
                                                : mesh.node_label(n));
  for (const std::size_t b : blocks_) {
    const ModelBlock& block = model.blocks[b];
    std::vector<std::int64_t>& numbers = element_numbers_.emplace_back();
    if (!one_point(block)) continue;
    // A generator's cells are numbered from 0; the tables number from 1, as a deck does.
    const std::int64_t first = block.region->origins.empty() ? 1 : 0;
    for (std::int64_t e = 0; e < block.num_elements(); ++e)
      numbers.push_back(block.region->origin(e).id + first);
  }
}

std::unique_ptr<CalculixDat> open_calculix_dat(const Model& model, const std::string& directory,
                                               std::vector<HistoryRecorder>& histories,
                                               std::optional<double> resume_time) {
  const CaseSpec& spec = model.spec;
  if (!spec.output.calculix_dat || directory.empty()) return nullptr;
  for (const HistoryRecorder& h : histories) h.note_blocks_without_tables(model);
  if (std::none_of(histories.begin(), histories.end(),
                   [&](const HistoryRecorder& h) { return h.has_tables(model); }))
    return nullptr;
  auto dat = std::make_unique<CalculixDat>(
      (std::filesystem::path(directory) / (spec.name + ".dat")).string(), resume_time);
  for (HistoryRecorder& h : histories)
    if (h.has_tables(model)) h.print_to(dat.get(), model);
  return dat;
}

void HistoryRecorder::record(double time, std::int64_t step, const std::vector<double>& u_at_nodes,
                             const std::vector<double>& v_at_nodes,
                             const std::array<double, 3>& reaction) {
  // CalculiX's tables: each node's values, the set's total reaction; from the first increment,
  // as CalculiX prints them (no table of the initial state).
  if (dat_ && step > 0)
    for (const std::string& q : spec_->quantities) {
      if (q == "reaction_force") {
        dat_->total("total force (fx,fy,fz)", spec_->set, time, reaction);
        continue;
      }
      const std::vector<double>& values = q == "displacement" ? u_at_nodes : v_at_nodes;
      std::vector<std::pair<std::int64_t, std::array<double, 3>>> rows;
      for (std::size_t j = 0; j < numbers_.size(); ++j)
        rows.push_back({numbers_[j], {values[3 * j], values[3 * j + 1], values[3 * j + 2]}});
      dat_->nodes(q == "displacement" ? "displacements (vx,vy,vz)" : "velocities (vx,vy,vz)",
                  spec_->set, time, std::move(rows));
    }
  if (!csv_ && !sink_) return;
  std::vector<double> row;
  const double count = static_cast<double>(nodes_->size());
  for (const std::string& q : spec_->quantities) {
    std::array<double, 3> v = {0, 0, 0};
    if (q == "reaction_force") {
      v = reaction;
    } else {
      const std::vector<double>& values = q == "displacement" ? u_at_nodes : v_at_nodes;
      for (std::size_t j = 0; j < nodes_->size(); ++j)
        for (int i = 0; i < 3; ++i) v[i] += values[3 * j + i];
      for (double& x : v) x /= count;
    }
    row.insert(row.end(), v.begin(), v.end());
  }
  append_row(csv_, sink_, spec_->name, time, step, row);
}

void HistoryRecorder::record_elements(double time, std::int64_t step, const System& sys,
                                      const std::vector<BlockResults>& results) {
  const auto volume = [&](std::size_t b, std::int64_t e) {
    const BlockSystem& block = sys.blocks[b];
    const std::int64_t nq = block.quadrature_points;
    double v = 0.0;
    for (std::int64_t q = 0; q < nq; ++q) v += block.quadrature_volumes[e * nq + q];
    return v;
  };
  if (dat_ && step > 0) print_element_tables(time, results, volume);
  record_element_means(time, step, results, volume);
}

template <class Volume>
void HistoryRecorder::print_element_tables(double time, const std::vector<BlockResults>& results,
                                           const Volume& element_volume) {
  // CalculiX's tables: each element's values at its one point, tensors in CalculiX's order
  // xx yy zz xy xz yz (fem's: xx yy zz xy yz xz), the energy as a density over the reference
  // volume.
  constexpr int kCalculixOrder[6] = {0, 1, 2, 3, 5, 4};
  for (const std::string& q : spec_->quantities) {
    if (q == "von_mises") continue;  // CalculiX's S has no such table
    std::vector<std::pair<std::int64_t, std::vector<double>>> rows;
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const std::vector<std::int64_t>& numbers = element_numbers_[i];
      const BlockResults& r = results[blocks_[i]];
      if (numbers.empty() || r.strain_energy.size() != numbers.size()) continue;
      for (std::size_t e = 0; e < numbers.size(); ++e) {
        std::vector<double> values;
        if (q == "strain_energy") {
          values.push_back(r.strain_energy[e] /
                           element_volume(blocks_[i], static_cast<std::int64_t>(e)));
        } else {
          const double* t = &(q == "cauchy_stress" ? r.cauchy_stress : r.green_lagrange)[6 * e];
          for (const int c : kCalculixOrder) values.push_back(t[c]);
        }
        rows.emplace_back(numbers[e], std::move(values));
      }
    }
    if (rows.empty()) continue;
    dat_->elements(q == "cauchy_stress" ? "stresses (elem, integ.pnt.,sxx,syy,szz,sxy,sxz,syz)"
                   : q == "green_lagrange_strain"
                       ? "strains (elem, integ.pnt.,exx,eyy,ezz,exy,exz,eyz)"
                       : "internal energy density (elem, integ.pnt.,energy)",
                   spec_->set.empty() ? spec_->region : spec_->set, time, std::move(rows));
  }
}

void HistoryRecorder::record_elements(double time, std::int64_t step, double element_volume,
                                      const std::vector<BlockResults>& results) {
  record_element_means(time, step, results,
                       [&](std::size_t, std::int64_t) { return element_volume; });
}

template <class Volume>
void HistoryRecorder::record_element_means(double time, std::int64_t step,
                                           const std::vector<BlockResults>& results,
                                           const Volume& element_volume) {
  if (!csv_ && !sink_) return;
  std::array<double, 6> stress{}, strain{};
  double volume = 0.0, mises = 0.0, energy = 0.0;
  for (const std::size_t b : blocks_) {
    const BlockResults& r = results[b];
    const std::int64_t elements = static_cast<std::int64_t>(r.strain_energy.size());
    for (std::int64_t e = 0; e < elements; ++e) {
      const double v = element_volume(b, e);
      volume += v;
      for (int c = 0; c < 6; ++c) {
        stress[c] += v * r.cauchy_stress[6 * e + c];
        strain[c] += v * r.green_lagrange[6 * e + c];
      }
      mises = std::max(mises, von_mises(&r.cauchy_stress[6 * e]));
      energy += r.strain_energy[e];
    }
  }
  std::vector<double> row;
  for (const std::string& q : spec_->quantities) {
    if (q == "cauchy_stress" || q == "green_lagrange_strain")
      for (const double s : q == "cauchy_stress" ? stress : strain) row.push_back(s / volume);
    else if (q == "von_mises")
      row.push_back(mises);
    else
      row.push_back(energy);
  }
  append_row(csv_, sink_, spec_->name, time, step, row);
}

double applied_force(const System& sys, std::int64_t d, double t) {
  return applied_load(sys, d, t) + applied_gravity(sys, d, t);
}

double applied_load(const System& sys, std::int64_t d, double t) {
  if (sys.load_amplitude[d] < 0) return 0.0;
  return sys.load_value[d] * evaluate(sys.amplitudes[sys.load_amplitude[d]], t);
}

double applied_gravity(const System& sys, std::int64_t d, double t) {
  if (sys.gravity_amplitude < 0) return 0.0;
  return sys.lumped_mass[d / 3] * sys.gravity[d % 3] *
         evaluate(sys.amplitudes[sys.gravity_amplitude], t);
}

}  // namespace fem
