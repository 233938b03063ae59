// Writes a .vtu file per output step and keeps a .pvd time series index up to date.
//
// The .pvd index is rewritten (to a temporary file, then renamed) after every frame, so a run that
// stops early still leaves a series ParaView opens with every frame written so far.
//
// A run on several MPI ranks writes a partitioned series: every rank writes its own piece of each
// frame, rank 0 a .pvtu that lists the pieces, and the .pvd lists the .pvtu files (see
// VtkSeriesWriter's constructor for the file layout).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem {

namespace parallel {
class Communicator;
}

/// Whether this build of fem writes and reads .vtu files (CMake option FEM_WITH_VTK). Without
/// it, VtkSeriesWriter's constructor and read_vtu throw fem::Error saying how to fix it.
bool vtk_output_available();

/// One frame of a series as its .pvd lists it.
struct SeriesFrame {
  double time = 0.0;
  std::string file;  ///< relative to the .pvd's directory, so the series can be moved as a whole
};

/// Which piece of a partitioned series a writer writes. `comm == nullptr` or one rank: the whole
/// series, as one process writes it.
struct SeriesPiece {
  parallel::Communicator* comm = nullptr;  ///< not owned; must outlive the writer
};

class VtkSeriesWriter {
 public:
  /// Creates `directory` if needed. Files are `<directory>/<basename>_<NNNNNN>.vtu` and
  /// `<directory>/<basename>.pvd`.
  ///
  /// With a communicator of several ranks, every rank constructs its writer with its own piece
  /// of the mesh (the cells it owns and every point they use, so points on a boundary between
  /// pieces are in both; `mesh.point_ids` / `cell_ids` give their global numbers) and passes its
  /// own piece's fields to write(). Frame N is then
  ///   `<directory>/<basename>_<NNNNNN>.pvtu`                       (rank 0; the .pvd lists it)
  ///   `<directory>/<basename>_<NNNNNN>/<basename>_<NNNNNN>_<rank>.vtu`  (one per rank)
  /// the subfolder per frame being VTK's own convention for parallel files (UseSubdirectory), so
  /// a large run's directory holds two entries per frame rather than one per rank and frame.
  /// The directory must be shared by all ranks. Every call (the constructor included) is then
  /// collective: the ranks agree on its outcome, and a failure on any rank (a full disk, a bad
  /// field) makes every rank throw the same fem::Error naming that rank, with its piece files
  /// removed, so that no rank waits for another and the .pvd lists only complete frames. The
  /// ranks must write the same fields, in the same order.
  VtkSeriesWriter(std::string directory, std::string basename, OutputMesh mesh,
                  SeriesPiece piece = {}, VtkCompression compression = VtkCompression::Zlib);
  ~VtkSeriesWriter();
  VtkSeriesWriter(const VtkSeriesWriter&) = delete;
  VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;

  /// Appends a frame to the series; returns the .vtu path written (the .pvtu's for a piece).
  /// The .pvd is rewritten with it at most once a second (its rewrite costs its whole length,
  /// which would make a run of many frames quadratic), so it may list the last second's frames
  /// only after the next rewrite, flush() or the destructor; it never lists a frame that is not
  /// complete on disk.
  std::string write(const OutputFrame& frame);
  /// Brings the .pvd up to date with every frame written (rank 0 of a piece; no collective).
  void flush();
  /// Writes a frame outside the series (e.g. "<basename>_last_good.vtu"); returns its path.
  /// `file_name` is relative to the series directory; the .pvd does not list it. For a piece,
  /// "<stem>.vtu" becomes "<stem>.pvtu" with the pieces in "<stem>/<stem>_<rank>.vtu".
  std::string write_single(const OutputFrame& frame, const std::string& file_name);

  [[nodiscard]] std::string pvd_path() const;
  [[nodiscard]] int frames_written() const;

  /// The frames written (the .pvd lists them after its next rewrite), and the number the next
  /// frame's file gets.
  [[nodiscard]] const std::vector<SeriesFrame>& frames() const;
  [[nodiscard]] int next_index() const;
  /// Continues a series a checkpoint recorded (restart): the .pvd lists `frames` and the next
  /// frame is numbered `next_index`, replacing any file of that number a later run left. For a
  /// piece, every rank passes the same frames; rank 0 rewrites the .pvd.
  void resume(std::vector<SeriesFrame> frames, int next_index);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads a .vtu back (tests, .vtu mesh input later). Throws fem::InputError on a bad file.
/// A path ending in ".pvtu" is read with VTK's parallel reader as the union of its pieces, in
/// piece order (points on a boundary between pieces come once per piece). Global-id arrays
/// come back as `mesh.point_ids` / `cell_ids`, and `node_set:` / `region:` arrays as
/// `mesh.point_sets` / `cell_sets`, not as fields.
struct VtuContents {
  OutputMesh mesh;
  std::vector<Field> point_fields;
  std::vector<Field> cell_fields;
};
VtuContents read_vtu(const std::string& path);

/// `pieces` (a .pvtu read back) in the global numbering its ids give: each point once, points
/// and cells in ascending id, connectivity renumbered, ids dropped. For ids 0..n-1 as a
/// one-process run numbers them this is that run's file's contents. Throws fem::Error where ids
/// are missing, or where the pieces disagree about a shared point (its coordinates or fields).
VtuContents in_global_numbering(const VtuContents& pieces);

}  // namespace fem
