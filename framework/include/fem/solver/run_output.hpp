// What every solver writes around its loop, in one place: the VTK series, the fields of a frame,
// node-set and element-region histories and the per-run CSV records. The explicit,
// dynamic-relaxation and implicit solvers each decide when to write; what a frame or a history row
// holds is decided here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/output/calculix_dat.hpp"
#include "fem/output/frame.hpp"
#include "fem/output/frame_series.hpp"
#include "fem/output/history.hpp"
#include "fem/output/run_sink.hpp"
#include "fem/output/summary.hpp"

namespace fem {

/// Steps between events for a cadence given in steps or in time; 0/0 means `fallback`.
std::int64_t output_cadence(int every_steps, double every_time, double step_time,
                            std::int64_t fallback);

/// The energies of the model at one output frame, J (time in s, or load time when static).
struct EnergySample {
  double time = 0.0;
  double kinetic = 0.0;
  double strain = 0.0;
  double hourglass = 0.0;
};

/// What a run ran on and with, for the keys every solver's summary.json starts with.
struct RunIdentity {
  std::string backend, execution_space, precision;
  std::int64_t nodes = 0, elements = 0;
  double total_mass_kg = 0.0, total_volume_m3 = 0.0;
};

/// A summary.json with the keys every solver writes first: the case, the status (and the error
/// message when there is one), the backend and the model.
RunSummary summary_header(const CaseSpec& spec, const std::string& status,
                          const std::string& message, const RunIdentity& run);

/// Adds the last energy sample (when there is one) to `s`, writes it as summary.json in
/// `directory` and returns the file's path: how every solver ends its summary.
std::string write_summary_file(RunSummary& s, const std::vector<EnergySample>& energies,
                               const std::string& directory);
/// The same where the summary may go to a sink too: writes summary.json only when `write`
/// (returning its path, else ""), and hands the JSON to `sink` when there is one.
std::string finish_summary(RunSummary& s, const std::vector<EnergySample>& energies,
                           const std::string& directory, bool write, RunSink* sink);

/// Appends a row to one of a run's tables: to its CSV file when the run writes one, and to the
/// sink when there is one (which the run told of the table when it opened its outputs).
void append_row(std::optional<CsvHistory>& csv, RunSink* sink, const std::string& table,
                double time, std::int64_t step, const std::vector<double>& values);

/// Strain and hourglass energy summed over the blocks' element results, J.
struct ElementEnergies {
  double strain = 0.0;
  double hourglass = 0.0;
};
ElementEnergies element_energies(const std::vector<BlockResults>& results);
/// Adds `weight` times each element's energies to `sum`, element by element: a mean over two
/// states (explicit dynamics) then rounds as one running sum.
void add_element_energies(const std::vector<BlockResults>& results, double weight,
                          ElementEnergies& sum);

/// Von Mises equivalent stress of a symmetric tensor in Voigt order xx yy zz xy yz xz.
double von_mises(const double* s);

/// A frame from the displacement, the velocity (null: none, e.g. static analysis) and the
/// element results, with the fields the case's output.fields asks for.
OutputFrame make_frame(const CaseSpec& spec, std::int64_t step, double time,
                       const std::vector<double>& u, const std::vector<double>* velocity,
                       const std::vector<BlockResults>& results);

/// The frame files of a run, created in `directory`: the VTK series (output.vtk, unless VTK is
/// not built in, which is warned about) and the XDMF series (output.xdmf). Null when neither is
/// written. With `piece` (a run on several ranks), this rank's piece of each series: `mesh` is
/// the piece's mesh (fem/parallel/output_piece.hpp), and every rank of piece.comm calls this.
/// `backend`: the run's, whose devices() decide where frames are written (frame_writing()).
std::unique_ptr<FrameSeries> open_frame_series(const Model& model, const std::string& directory,
                                               const OutputMesh* mesh = nullptr,
                                               SeriesPiece piece = {},
                                               const Backend* backend = nullptr);

/// Where a run's frames are written: in the background when the backend computes on a device
/// (its host cores wait on it between frames; on a CPU backend a writing thread would take a
/// core from the steps), the run is one process (several ranks write each frame collectively)
/// and no XDMF series is written (HDF5 is not thread-safe here); output.background overrides
/// the first condition.
FrameWriting frame_writing(const OutputSpec& output, const Backend* backend, bool several_ranks);

/// One history of output.histories: its node set or block region, cadence and CSV file.
class HistoryRecorder {
 public:
  /// `directory` empty: nothing is written (rows are still computed for tests). resume_at > 0:
  /// continues the file after its first resume_at bytes (CsvHistory, a restart). `sink`: every
  /// row also goes there, as the table of the history's name.
  HistoryRecorder(const Model& model, const HistorySpec& spec, std::int64_t every,
                  const std::string& directory, std::uint64_t resume_at = 0,
                  RunSink* sink = nullptr);
  [[nodiscard]] const HistorySpec& spec() const { return *spec_; }
  /// Of a region: its values come from the element results (record_elements).
  [[nodiscard]] bool of_elements() const { return spec_->of_elements(); }
  /// The node set's nodes; empty for a region.
  [[nodiscard]] const std::vector<std::int32_t>& nodes() const { return *nodes_; }
  [[nodiscard]] std::int64_t every() const { return every_; }
  [[nodiscard]] bool writes() const { return csv_.has_value(); }
  [[nodiscard]] std::string path() const { return csv_ ? csv_->path() : std::string(); }
  [[nodiscard]] const CsvHistory* csv() const { return csv_ ? &*csv_ : nullptr; }
  /// Appends the row of one sample: the set's mean displacement and velocity from their values
  /// at the set's nodes (3 per node, in set order) and the set's reaction force (the sum over
  /// its nodes of internal minus applied forces).
  void record(double time, std::int64_t step, const std::vector<double>& u_at_nodes,
              const std::vector<double>& v_at_nodes, const std::array<double, 3>& reaction);
  /// Appends the row of a region's sample from the element results of the model's blocks
  /// (element_results, in model order) and their quadrature volumes (`sys`, the model's whole
  /// system): the means of the stress and strain over the region's reference volume (each
  /// element's value is already its reference-volume mean), the largest element von Mises
  /// stress and the summed strain energy.
  void record_elements(double time, std::int64_t step, const System& sys,
                       const std::vector<BlockResults>& results);
  /// The same where every element has the same volume (the voxel solver's cubes).
  void record_elements(double time, std::int64_t step, double element_volume,
                       const std::vector<BlockResults>& results);
  /// Every sample also goes to `dat` as CalculiX's tables: a node history's nodes, a region's
  /// elements of one integration point (where fem's element values, means over the points, are
  /// CalculiX's), by their numbers in the mesh file (1-based ids where it has none); see
  /// open_calculix_dat.
  void print_to(CalculixDat* dat, const Model& model);
  /// Whether print_to would print tables: a node history, or a region with a block of
  /// elements of one integration point.
  [[nodiscard]] bool has_tables(const Model& model) const;
  /// Says in the log which of a region's blocks print no tables (elements of several points).
  void note_blocks_without_tables(const Model& model) const;

 private:
  template <class Volume>
  void record_element_means(double time, std::int64_t step,
                            const std::vector<BlockResults>& results, const Volume& element_volume);
  template <class Volume>
  void print_element_tables(double time, const std::vector<BlockResults>& results,
                            const Volume& element_volume);

  const HistorySpec* spec_;
  const std::vector<std::int32_t>* nodes_;
  std::vector<std::size_t> blocks_;  ///< a region's blocks (model order)
  std::int64_t every_;
  std::optional<CsvHistory> csv_;
  RunSink* sink_ = nullptr;
  CalculixDat* dat_ = nullptr;
  std::vector<std::int64_t> numbers_;  ///< the nodes' numbers in dat_'s tables
  /// A region's: per block of blocks_, its elements' numbers in dat_'s tables (empty: a block
  /// whose elements have several integration points, not printed).
  std::vector<std::vector<std::int64_t>> element_numbers_;
};

/// The .dat of output.calculix_dat, <directory>/<case name>.dat, that the histories print their
/// samples to (HistoryRecorder::print_to); null without that key, without files (`directory`
/// empty: a rank other than 0, a run that writes nothing) or histories with tables to print. A
/// restart (`resume_time`: the checkpoint's) keeps the tables up to its time.
std::unique_ptr<CalculixDat> open_calculix_dat(const Model& model, const std::string& directory,
                                               std::vector<HistoryRecorder>& histories,
                                               std::optional<double> resume_time);

/// The CSV columns of a history's quantities: x, y, z of each node quantity; the six tensor
/// components (xx yy zz xy yz xz) of cauchy_stress and green_lagrange_strain; von_mises_max and
/// strain_energy.
std::vector<std::string> history_columns(const HistorySpec& spec);

/// The applied nodal force on dof d at time t (loads and gravity on the lumped mass), as the
/// node pass applies it: what reaction forces subtract. The sum of the two below.
double applied_force(const System& sys, std::int64_t dof, double t);
/// The nodal load on dof d at time t (0 where none).
double applied_load(const System& sys, std::int64_t dof, double t);
/// Gravity on the lumped mass of dof d at time t (0 without gravity).
double applied_gravity(const System& sys, std::int64_t dof, double t);

}  // namespace fem
