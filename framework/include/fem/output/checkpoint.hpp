// Checkpoints: the complete state of a run at one step, written so that `fem run --restart`
// continues it as if it had never stopped.
//
// File format (little-endian), version kCheckpointFormat:
//   "FEMCHKPT"            8 bytes, magic
//   u32 format version, u32 0 (reserved)
//   u64 payload bytes
//   payload: the fields of Checkpoint in declaration order; strings and arrays as a u64 count
//            followed by their bytes / doubles; maps and lists as a count and their entries
//   u32 CRC-32 of everything before it
// Arrays are in double whatever the run's precision, so that a run may continue in the other
// precision; in the same precision the values are exact.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fem/output/vtk_series.hpp"

namespace fem {

/// Version of the file layout; a reader refuses any other.
inline constexpr std::uint32_t kCheckpointFormat = 1;

/// An output file of the run and its length at the checkpoint: a restart cuts it back there
/// and appends, so that rows written after the checkpoint are not repeated.
struct CheckpointFile {
  std::string name;  ///< relative to the output directory
  std::uint64_t bytes = 0;
};

struct Checkpoint {
  // What wrote it and for which model.
  std::string fem_version;
  std::string solver;     ///< to_string(SolverType)
  std::string precision;  ///< single | double
  std::string backend;
  std::string case_text;  ///< the case file's text and the command-line overrides, for the record
  std::uint64_t model_hash = 0;  ///< fingerprint() of the System the run set up
  std::int64_t num_nodes = 0;
  std::int64_t num_elements = 0;
  double time_step = 0.0;
  // Where the run was.
  std::int64_t step = 0;
  double time = 0.0;
  // The state: the displacement (3 per node), the solver's other per-dof vectors by name (u_{n-1}
  // of central differences; velocity and acceleration of the implicit integrators), each
  // block's material history ([e][q][s]; empty for laws without one), and the solver's own
  // values by name (dynamic relaxation's damping estimate, an increment's size).
  std::vector<double> displacement;
  std::map<std::string, std::vector<double>> vectors;
  std::vector<std::vector<double>> material_state;
  std::map<std::string, double> values;
  // The output so far: the .pvd's frames, the number of the next frame file, the CSV files.
  std::vector<SeriesFrame> frames;
  std::int64_t next_frame_index = 0;
  std::vector<CheckpointFile> files;
};

/// Writes `c` to `path` atomically and durably (temporary file, fsync, rename). Throws
/// fem::Error with the path and the reason.
void write_checkpoint(const std::string& path, const Checkpoint& c);

/// Reads a checkpoint. Throws fem::Error naming the file and why it cannot be used: not a
/// checkpoint, another format version, truncated, or corrupted (the checksum does not match).
Checkpoint read_checkpoint(const std::string& path);

}  // namespace fem
