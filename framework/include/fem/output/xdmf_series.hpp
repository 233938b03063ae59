// All the frames of a run in one HDF5 file, with an XDMF index that ParaView, VisIt and meshio
// open as a time series (output.xdmf: true): for runs whose thousands of .vtu files are a burden.
//
// `<basename>.h5` holds the mesh once (/mesh/points, /mesh/topology, the named sets under
// /mesh/node_sets and /mesh/cell_sets) and every frame's fields under /frames/<NNNNNN>/<field>,
// each group carrying its `time` and `step` as attributes. `<basename>.xdmf` is the XDMF 3 index:
// a temporal collection with one grid per frame, every grid pointing at the same mesh datasets.
// The HDF5 file is flushed after every frame and the .xdmf rewritten atomically (at most once a
// second, like the .pvd), so a run that stops early leaves a series that opens with the frames
// written so far.
//
// On several ranks every rank writes its own piece, `<basename>_<rank>.h5` (the cells it owns
// and the points they use, with their global ids as the arrays GlobalNodeId and
// GlobalElementId), and rank 0 the .xdmf, whose frames are then spatial collections of the
// pieces. Every call is then collective, as VtkSeriesWriter's are.
#pragma once

#include <memory>
#include <string>

#include "fem/output/frame.hpp"
#include "fem/output/vtk_series.hpp"

namespace fem {

/// Whether this build writes XDMF series (it needs HDF5: libhdf5-dev).
bool xdmf_output_available();

class XdmfSeriesWriter {
 public:
  /// Creates `directory` if needed and `<directory>/<basename>.h5` (or this rank's piece),
  /// replacing a file of that name. Throws fem::Error where the file cannot be written, where
  /// the build has no HDF5, or where the mesh has a cell type XDMF does not know.
  XdmfSeriesWriter(std::string directory, std::string basename, OutputMesh mesh,
                   SeriesPiece piece = {});
  ~XdmfSeriesWriter();
  XdmfSeriesWriter(const XdmfSeriesWriter&) = delete;
  XdmfSeriesWriter& operator=(const XdmfSeriesWriter&) = delete;

  /// Appends a frame (its fields in the mesh's point and cell order) as number `next_index()`.
  void write(const OutputFrame& frame);
  /// Brings the .xdmf up to date with every frame written (rank 0; no collective).
  void flush();
  /// Continues a series after a restart: reopens the HDF5 file(s), keeps the frames numbered
  /// below `next_index` that they hold, drops later ones, and numbers the next frame
  /// `next_index`. A missing or unreadable file starts a new one (with a warning).
  void resume(int next_index);

  [[nodiscard]] std::string xdmf_path() const;
  /// This rank's HDF5 file.
  [[nodiscard]] std::string hdf5_path() const;
  [[nodiscard]] int frames_written() const;
  [[nodiscard]] int next_index() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fem
