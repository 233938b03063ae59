#include "fem/parallel/output_piece.hpp"

#include <algorithm>

#include "pick.hpp"

namespace fem::parallel {
namespace {

/// The field's values at the listed items.
Field pick(const Field& f, const std::vector<std::int64_t>& items) {
  return {f.name, f.components,
          detail::pick(f.values, items, static_cast<std::size_t>(f.components))};
}

}  // namespace

OutputPiece output_piece(const OutputMesh& mesh, const std::vector<std::int32_t>& cell_part,
                         int rank) {
  OutputPiece piece;
  std::vector<std::uint8_t> used(mesh.points.size() / 3, 0);
  for (std::int64_t c = 0; c < mesh.num_cells(); ++c) {
    if (cell_part[static_cast<std::size_t>(c)] != rank) continue;
    piece.cells.push_back(c);
    for (std::int64_t k = mesh.offsets[c]; k < mesh.offsets[c + 1]; ++k)
      used[static_cast<std::size_t>(mesh.connectivity[k])] = 1;
  }
  for (std::size_t p = 0; p < used.size(); ++p)
    if (used[p]) piece.points.push_back(static_cast<std::int64_t>(p));
  return piece;
}

OutputMesh piece_mesh(const OutputMesh& mesh, const OutputPiece& piece) {
  OutputMesh out;
  std::vector<std::int64_t> local(mesh.points.size() / 3, -1);
  for (std::size_t i = 0; i < piece.points.size(); ++i) {
    const auto p = static_cast<std::size_t>(piece.points[i]);
    local[p] = static_cast<std::int64_t>(i);
    out.points.insert(out.points.end(), mesh.points.begin() + static_cast<std::ptrdiff_t>(3 * p),
                      mesh.points.begin() + static_cast<std::ptrdiff_t>(3 * p + 3));
  }
  out.offsets.push_back(0);
  for (const std::int64_t c : piece.cells) {
    out.cell_types.push_back(mesh.cell_types[static_cast<std::size_t>(c)]);
    for (std::int64_t k = mesh.offsets[c]; k < mesh.offsets[c + 1]; ++k)
      out.connectivity.push_back(local[static_cast<std::size_t>(mesh.connectivity[k])]);
    out.offsets.push_back(static_cast<std::int64_t>(out.connectivity.size()));
  }
  out.point_ids = piece.points;
  out.cell_ids = piece.cells;
  const auto pick_flags = [](const NamedFlags& set, const std::vector<std::int64_t>& items) {
    NamedFlags part{set.name, {}};
    part.flags.reserve(items.size());
    for (const std::int64_t i : items) part.flags.push_back(set.flags[static_cast<std::size_t>(i)]);
    return part;
  };
  for (const NamedFlags& s : mesh.point_sets) out.point_sets.push_back(pick_flags(s, piece.points));
  for (const NamedFlags& s : mesh.cell_sets) out.cell_sets.push_back(pick_flags(s, piece.cells));
  return out;
}

OutputFrame piece_frame(const OutputFrame& frame, const OutputPiece& piece) {
  OutputFrame out{frame.time, frame.step, {}, {}};
  for (const Field& f : frame.point_fields) out.point_fields.push_back(pick(f, piece.points));
  for (const Field& f : frame.cell_fields) out.cell_fields.push_back(pick(f, piece.cells));
  return out;
}

}  // namespace fem::parallel
