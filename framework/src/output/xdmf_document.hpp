// The XDMF index of an XdmfSeriesWriter (framework/src/output/ only, not installed): fem's VTK
// cells as XDMF topology, and the XML document that points into the HDF5 files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem::detail {

/// A mesh's cells as XDMF stores them: one type ("Tetrahedron", nodes_per_cell 4, `data`
/// cells x 4) or "Mixed" (`data` is each cell's XDMF type code and its nodes, a Polyvertex or
/// Polyline code followed by its node count). Nodes keep VTK's order, which XDMF's shares.
struct XdmfTopology {
  std::string type;
  int nodes_per_cell = 0;  ///< uniform types only
  std::int64_t cells = 0;
  std::vector<std::int64_t> data;
};

/// Throws fem::Error for a VTK cell type XDMF has no equivalent of.
XdmfTopology xdmf_topology(const OutputMesh& mesh);

/// An HDF5 dataset of a piece as an XDMF Attribute: `rows` x `components` values.
struct XdmfArray {
  std::string name;     ///< the name readers show
  std::string dataset;  ///< path inside the piece's HDF5 file
  bool cell = false;    ///< cell-centred, else point-centred
  int components = 1;
  std::int64_t rows = 0;
  std::string number_type = "Float";  ///< XDMF NumberType: Float, Int, UInt
  int precision = 8;                  ///< bytes per value
};

/// The mesh of one piece (one HDF5 file) as every frame's grid refers to it.
struct XdmfPiece {
  std::string file;  ///< the HDF5 file, relative to the .xdmf
  std::int64_t points = 0;
  std::int64_t cells = 0;
  /// Its Topology, Geometry and per-mesh Attribute elements (sets, global ids), formatted once
  /// by format_piece_mesh.
  std::string mesh_xml;
};

/// The fields of a frame: names, centring and components (rows and datasets follow from the
/// piece and the frame's index).
struct XdmfFieldShape {
  std::string name;
  bool cell = false;
  int components = 1;
};

struct XdmfFrame {
  int index = 0;
  double time = 0.0;
  std::vector<XdmfFieldShape> fields;
};

/// "/frames/000012": where frame 12's fields are in every piece's file.
std::string xdmf_frame_group(int index);

/// The Topology, Geometry and `mesh_arrays` elements of a piece whose topology (its `data` is
/// not needed) and points are in `file` at /mesh/topology and /mesh/points.
std::string format_piece_mesh(const std::string& file, std::int64_t points,
                              const XdmfTopology& topology,
                              const std::vector<XdmfArray>& mesh_arrays);

/// The complete .xdmf document: a temporal collection `name` with one grid per frame, a
/// uniform grid for one piece, a spatial collection of uniform grids for several.
std::string format_xdmf(const std::string& name, const std::vector<XdmfPiece>& pieces,
                        const std::vector<XdmfFrame>& frames);

}  // namespace fem::detail
