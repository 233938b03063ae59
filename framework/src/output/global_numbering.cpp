// in_global_numbering(): a partitioned frame read back, put into the one-process run's order.
// Free of VTK: it only reorders what read_vtu() returned.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "fem/error.hpp"
#include "fem/output/vtk_series.hpp"

namespace fem {

namespace {

/// Indices of `ids` in ascending id (stable: among equal ids, the first piece's comes first).
std::vector<std::size_t> ascending(const std::vector<std::int64_t>& ids) {
  std::vector<std::size_t> order(ids.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  return order;
}

/// Tuples `which` of `values` (`width` values each), in that order.
std::vector<double> tuples(const std::vector<double>& values, int width,
                           const std::vector<std::size_t>& which) {
  const auto w = static_cast<std::size_t>(width);
  std::vector<double> out;
  out.reserve(which.size() * w);
  for (const std::size_t t : which) {
    out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(t * w),
               values.begin() + static_cast<std::ptrdiff_t>((t + 1) * w));
  }
  return out;
}

/// Bitwise, so that a piece that wrote -0.0 where another wrote 0.0 shows.
bool same_tuple(const std::vector<double>& values, int width, std::size_t a, std::size_t b) {
  const auto w = static_cast<std::size_t>(width);
  return std::memcmp(values.data() + a * w, values.data() + b * w, w * sizeof(double)) == 0;
}

std::vector<Field> reorder(const std::vector<Field>& fields,
                           const std::vector<std::size_t>& which) {
  std::vector<Field> out;
  for (const Field& f : fields)
    out.push_back({f.name, f.components, tuples(f.values, f.components, which)});
  return out;
}

/// The first copy of each point id, in ascending id; `renumber[p]` gets p's new number. Throws
/// where two copies of a point differ.
std::vector<std::size_t> unique_points(const VtuContents& pieces,
                                       std::vector<std::int64_t>& renumber) {
  const std::vector<std::int64_t>& ids = pieces.mesh.point_ids;
  std::vector<std::size_t> first;
  renumber.assign(ids.size(), -1);
  for (const std::size_t p : ascending(ids)) {
    if (first.empty() || ids[first.back()] != ids[p]) {
      first.push_back(p);
    } else {
      const std::size_t q = first.back();
      bool same = same_tuple(pieces.mesh.points, 3, p, q);
      for (const Field& f : pieces.point_fields)
        same = same && same_tuple(f.values, f.components, p, q);
      if (!same) {
        throw Error("the pieces disagree about point " + std::to_string(ids[p]) +
                    " (its coordinates or a point field)");
      }
    }
    renumber[p] = static_cast<std::int64_t>(first.size() - 1);
  }
  return first;
}

}  // namespace

VtuContents in_global_numbering(const VtuContents& pieces) {
  const OutputMesh& mesh = pieces.mesh;
  if (mesh.point_ids.size() * 3 != mesh.points.size() ||
      mesh.cell_ids.size() != mesh.cell_types.size()) {
    throw Error("pieces without global ids (GlobalNodeId, GlobalElementId) cannot be matched");
  }
  VtuContents out;
  std::vector<std::int64_t> renumber;
  const std::vector<std::size_t> points = unique_points(pieces, renumber);
  out.mesh.points = tuples(mesh.points, 3, points);
  out.point_fields = reorder(pieces.point_fields, points);

  const std::vector<std::size_t> cells = ascending(mesh.cell_ids);
  out.mesh.offsets.push_back(0);
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const std::size_t c = cells[k];
    if (k > 0 && mesh.cell_ids[c] == mesh.cell_ids[cells[k - 1]]) {
      throw Error("cell " + std::to_string(mesh.cell_ids[c]) + " is in more than one piece");
    }
    out.mesh.cell_types.push_back(mesh.cell_types[c]);
    for (auto i = mesh.offsets[c]; i < mesh.offsets[c + 1]; ++i) {
      out.mesh.connectivity.push_back(
          renumber[static_cast<std::size_t>(mesh.connectivity[static_cast<std::size_t>(i)])]);
    }
    out.mesh.offsets.push_back(static_cast<std::int64_t>(out.mesh.connectivity.size()));
  }
  out.cell_fields = reorder(pieces.cell_fields, cells);
  const auto reorder_sets = [](const std::vector<NamedFlags>& sets,
                               const std::vector<std::size_t>& order) {
    std::vector<NamedFlags> result;
    for (const NamedFlags& s : sets) {
      NamedFlags r{s.name, {}};
      for (const std::size_t i : order) r.flags.push_back(s.flags[i]);
      result.push_back(std::move(r));
    }
    return result;
  };
  out.mesh.point_sets = reorder_sets(mesh.point_sets, points);
  out.mesh.cell_sets = reorder_sets(mesh.cell_sets, cells);
  return out;
}

}  // namespace fem
