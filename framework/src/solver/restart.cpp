#include "fem/solver/restart.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "fem/error.hpp"

namespace fem {
namespace fs = std::filesystem;

namespace {

std::string file_name(const std::string& path) {
  return fs::path(path).filename().string();
}

}  // namespace

std::vector<std::int64_t> material_state_sizes(const System& system) {
  std::vector<std::int64_t> sizes;
  for (const BlockSystem& block : system.blocks)
    sizes.push_back(block.num_elements * block.quadrature_points * block.material->host.num_state);
  return sizes;
}

Checkpoint checkpoint_header(const CheckpointedRun& run, std::int64_t step, double time) {
  Checkpoint c;
  c.fem_version = FEM_VERSION;
  c.solver = to_string(run.spec.solver.type);
  c.precision = to_string(run.spec.precision);
  c.backend = run.backend;
  c.case_text = run.case_text;
  c.model_hash = run.model_hash;
  c.num_nodes = run.num_nodes;
  c.num_elements = run.num_elements;
  c.time_step = run.time_step;
  c.step = step;
  c.time = time;
  return c;
}

void record_output(Checkpoint& c, const FrameSeries* series,
                   const std::vector<const CsvHistory*>& files) {
  if (series) {
    c.frames = series->frames();
    c.next_frame_index = series->next_index();
  }
  for (const CsvHistory* f : files)
    if (f) c.files.push_back({file_name(f->path()), f->bytes()});
}

std::string write_run_checkpoint(Checkpoint& c, const CaseSpec& spec, const std::string& directory,
                                 std::int64_t step, const FrameSeries* series,
                                 std::initializer_list<const std::optional<CsvHistory>*> csvs,
                                 const std::vector<HistoryRecorder>& histories) {
  std::vector<const CsvHistory*> files;
  for (const std::optional<CsvHistory>* csv : csvs) files.push_back(*csv ? &**csv : nullptr);
  for (const HistoryRecorder& h : histories) files.push_back(h.csv());
  record_output(c, series, files);
  const std::string path = checkpoint_path(directory, spec.name, step);
  write_checkpoint(path, c);
  remove_old_checkpoints(directory, spec.name, step,
                         spec.output.checkpoint ? spec.output.checkpoint->keep : 2);
  return path;
}

std::string checkpoint_path(const std::string& directory, const std::string& name,
                            std::int64_t step) {
  return (fs::path(directory) / fmt::format("{}_{:010d}.checkpoint", name, step)).string();
}

void remove_old_checkpoints(const std::string& directory, const std::string& name,
                            std::int64_t step, int keep) {
  const std::string prefix = name + "_", suffix = ".checkpoint";
  std::vector<std::pair<std::int64_t, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    const std::string n = entry.path().filename().string();
    if (n.size() != prefix.size() + 10 + suffix.size() || !n.starts_with(prefix) ||
        !n.ends_with(suffix))
      continue;
    const std::string digits = n.substr(prefix.size(), 10);
    if (!std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      continue;
    const std::int64_t at = std::stoll(digits);
    if (at <= step) found.emplace_back(at, entry.path());
  }
  std::sort(found.begin(), found.end());
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < found.size(); ++i)
    fs::remove(found[i].second, ec);
}

// A checkpoint continues only the model it was written for; everything else that may change
// (backend, precision, assembly, end time, output) is allowed, a change of precision with a
// warning since the continuation then differs from an uninterrupted run in the last bits.
void check_checkpoint(const Checkpoint& c, const std::string& path, const CheckpointedRun& run) {
  const auto refuse = [&](const std::string& why) {
    throw CheckpointError(
        "cannot restart from '" + path + "': " + why +
        "\n  hint: restart with the case and --set options the checkpoint was written "
        "with (it records them)");
  };
  const std::string solver = to_string(run.spec.solver.type);
  if (c.solver != solver)
    refuse("it was written by the " + c.solver + " solver; this case's solver is " + solver);
  if (c.num_nodes != run.num_nodes || c.num_elements != run.num_elements)
    refuse(fmt::format(
        "it holds a model of {} nodes and {} elements; this case's has {} nodes and {} elements",
        c.num_nodes, c.num_elements, run.num_nodes, run.num_elements));
  if (c.time_step != run.time_step)
    refuse(fmt::format(
        "its time step is {} s; this case's is {} s (the explicit step is shortened so that a "
        "whole number of steps ends at solver.end_time: end_time, time_step, safety_factor, the "
        "mesh or a material changed)",
        c.time_step, run.time_step));
  if (c.model_hash != run.model_hash)
    refuse(
        "it was written for another model: the mesh, materials, boundary conditions, loads, "
        "amplitudes or contact of this case differ from those it was written with");
  const auto dofs = static_cast<std::size_t>(3 * run.num_nodes);
  bool sizes =
      c.displacement.size() == dofs && c.material_state.size() == run.material_state_sizes.size();
  for (std::size_t b = 0; sizes && b < run.material_state_sizes.size(); ++b)
    sizes = static_cast<std::int64_t>(c.material_state[b].size()) == run.material_state_sizes[b];
  if (!sizes) refuse("its state arrays do not have this model's sizes");
  const std::string precision = to_string(run.spec.precision);
  if (c.precision != precision)
    spdlog::warn(
        "the checkpoint was written in {} precision and the run continues in {}: the results "
        "will differ from an uninterrupted run in the last digits",
        c.precision, precision);
  if (c.fem_version != FEM_VERSION)
    spdlog::warn("the checkpoint was written by fem {}; this is fem {}", c.fem_version,
                 FEM_VERSION);
}

void resume_series(FrameSeries& series, const Checkpoint& c, const std::string& directory) {
  std::vector<SeriesFrame> frames;
  for (const SeriesFrame& f : c.frames)
    if (fs::exists(fs::path(directory) / f.file)) frames.push_back(f);
  if (frames.size() < c.frames.size())
    spdlog::warn("{} of the {} frames the checkpoint lists are not in {}: {} lists the others",
                 c.frames.size() - frames.size(), c.frames.size(), directory,
                 series.index_paths().front());
  series.resume(std::move(frames), static_cast<int>(c.next_frame_index));
}

std::uint64_t resume_bytes(const Checkpoint* c, const std::string& path) {
  if (!c) return 0;
  const std::string name = file_name(path);
  for (const CheckpointFile& f : c->files)
    if (f.name == name) return f.bytes;
  return 0;
}

}  // namespace fem
