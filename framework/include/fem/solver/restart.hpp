// What every solver that writes checkpoints shares: a checkpoint's header for the run, the output
// files written so far, where checkpoints go and how many stay, and the refusal of a checkpoint
// of another model. What state a solver saves besides is the solver's own.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/case.hpp"
#include "fem/output/checkpoint.hpp"
#include "fem/output/frame_series.hpp"
#include "fem/output/history.hpp"
#include "fem/solver/run_output.hpp"

namespace fem {

/// The run a checkpoint belongs to: its case, the size of the model it runs and its
/// fingerprint.
struct CheckpointedRun {
  const CaseSpec& spec;
  std::int64_t num_nodes = 0;
  /// Per block, the values of its material history (elements x points x state); empty for a
  /// solver without one.
  std::vector<std::int64_t> material_state_sizes;
  std::int64_t num_elements = 0;
  std::uint64_t model_hash = 0;  ///< fingerprint(system), or the solver's own model's
  /// The step the solver integrates with: System::time_step (explicit, relaxation), the
  /// implicit dynamic step, 0 for static analysis.
  double time_step = 0.0;
  std::string backend;
  std::string case_text;  ///< recorded for the record
};

/// CheckpointedRun::material_state_sizes of a System's blocks.
std::vector<std::int64_t> material_state_sizes(const System& system);

/// A checkpoint at `step` and `time` with the run's identity filled in; the state is the
/// solver's to add.
Checkpoint checkpoint_header(const CheckpointedRun& run, std::int64_t step, double time);

/// Records the output written so far: the series' frames (series may be null) and the files'
/// lengths (null entries are skipped).
void record_output(Checkpoint& c, const FrameSeries* series,
                   const std::vector<const CsvHistory*>& files);

/// Finishes and writes a solver's checkpoint at `step`: records the output written so far (the
/// series, the CSV files that are open and the histories' files), writes it atomically to
/// checkpoint_path(directory, spec.name, step) and keeps the newest output.checkpoint.keep
/// (2 by default). Returns the path.
std::string write_run_checkpoint(Checkpoint& c, const CaseSpec& spec, const std::string& directory,
                                 std::int64_t step, const FrameSeries* series,
                                 std::initializer_list<const std::optional<CsvHistory>*> csvs,
                                 const std::vector<HistoryRecorder>& histories);

/// "<directory>/<name>_<step, 10 digits>.checkpoint".
std::string checkpoint_path(const std::string& directory, const std::string& name,
                            std::int64_t step);

/// Removes all but the newest `keep` checkpoints of case `name` at steps up to `step`; later ones
/// (left by a run this one restarted before) stay until this run replaces them.
void remove_old_checkpoints(const std::string& directory, const std::string& name,
                            std::int64_t step, int keep);

/// Throws fem::Error ("cannot restart from '<path>': ...") for a checkpoint of another solver,
/// model size, time step or model, or whose displacement and material state have other sizes
/// (the solver checks its own vectors); warns when the precision or the fem version differ.
void check_checkpoint(const Checkpoint& c, const std::string& path, const CheckpointedRun& run);

/// Continues `series` with the checkpoint's frames that are still in `directory` (warning about
/// the others) and its frame numbering.
void resume_series(FrameSeries& series, const Checkpoint& c, const std::string& directory);

/// The length `c` recorded for the output file `path`; 0 (start it afresh) when c is null or
/// does not list it.
std::uint64_t resume_bytes(const Checkpoint* c, const std::string& path);

}  // namespace fem
