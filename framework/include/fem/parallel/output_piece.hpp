// One rank's piece of the output of a partitioned run: the cells it owns and the points they
// use, with their global ids, so that the ranks write the frames of a .pvtu series in parallel
// (fem/output/vtk_series.hpp, SeriesPiece) and a reader puts them back in the one-process order.
#pragma once

#include <cstdint>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem::parallel {

struct OutputPiece {
  std::vector<std::int64_t> points;  ///< global point ids, ascending
  std::vector<std::int64_t> cells;   ///< global cell ids, ascending
};

/// The cells of `mesh` whose part (cell_part, one per cell in mesh order) is `rank`, and the
/// points they use.
OutputPiece output_piece(const OutputMesh& mesh, const std::vector<std::int32_t>& cell_part,
                         int rank);
/// The piece's mesh, numbered locally, with point_ids and cell_ids set.
OutputMesh piece_mesh(const OutputMesh& mesh, const OutputPiece& piece);
/// A frame of the whole mesh cut to the piece.
OutputFrame piece_frame(const OutputFrame& frame, const OutputPiece& piece);

}  // namespace fem::parallel
