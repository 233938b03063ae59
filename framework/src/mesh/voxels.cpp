// Voxel lattices made into hexahedral meshes; label counts, label selection and down-sampling.
#include "fem/mesh/voxels.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>

namespace fem {

namespace {

void require_consistent(const VoxelLattice& lattice) {
  for (int d = 0; d < 3; ++d)
    if (lattice.dims[d] < 0) throw Error("voxel lattice with negative dimensions");
  if (static_cast<std::int64_t>(lattice.labels.size()) != lattice.num_voxels())
    throw Error("voxel lattice of " + std::to_string(lattice.num_voxels()) + " voxels has " +
                std::to_string(lattice.labels.size()) + " labels");
}

}  // namespace

std::string voxel_region_name(std::int32_t label) {
  return "label_" + std::to_string(label);
}

std::map<std::int32_t, std::int64_t> label_counts(const VoxelLattice& lattice) {
  std::map<std::int32_t, std::int64_t> counts;
  // Segmented images are long runs of one label: count a run before touching the map.
  const std::vector<std::int32_t>& labels = lattice.labels;
  for (std::size_t v = 0; v < labels.size();) {
    std::size_t end = v + 1;
    while (end < labels.size() && labels[end] == labels[v]) ++end;
    if (labels[v] != lattice.background) counts[labels[v]] += static_cast<std::int64_t>(end - v);
    v = end;
  }
  return counts;
}

void keep_labels(VoxelLattice& lattice, const std::vector<std::int32_t>& keep) {
  std::vector<std::int32_t> sorted = keep;
  std::sort(sorted.begin(), sorted.end());
  for (std::int32_t& label : lattice.labels)
    if (label != lattice.background && !std::binary_search(sorted.begin(), sorted.end(), label))
      label = lattice.background;
}

VoxelLattice downsample(const VoxelLattice& lattice, int factor) {
  require_consistent(lattice);
  if (factor < 1) throw Error("down-sampling factor " + std::to_string(factor) + " is below 1");
  VoxelLattice out;
  out.background = lattice.background;
  out.origin = lattice.origin;
  for (int d = 0; d < 3; ++d) {
    out.dims[d] = (lattice.dims[d] + factor - 1) / factor;
    out.spacing[d] = lattice.spacing[d] * factor;
  }
  out.labels.assign(static_cast<std::size_t>(out.num_voxels()), lattice.background);
  const std::int64_t block = static_cast<std::int64_t>(factor) * factor * factor;
  std::vector<std::pair<std::int32_t, std::int64_t>> tally;  // (label, voxels) of one block
  for (std::int64_t bk = 0; bk < out.dims[2]; ++bk)
    for (std::int64_t bj = 0; bj < out.dims[1]; ++bj)
      for (std::int64_t bi = 0; bi < out.dims[0]; ++bi) {
        tally.clear();
        std::int64_t foreground = 0;
        const std::int64_t k1 = std::min(lattice.dims[2], (bk + 1) * factor);
        const std::int64_t j1 = std::min(lattice.dims[1], (bj + 1) * factor);
        const std::int64_t i1 = std::min(lattice.dims[0], (bi + 1) * factor);
        for (std::int64_t k = bk * factor; k < k1; ++k)
          for (std::int64_t j = bj * factor; j < j1; ++j)
            for (std::int64_t i = bi * factor; i < i1; ++i) {
              const std::int32_t label = lattice.labels[lattice.index(i, j, k)];
              if (label == lattice.background) continue;
              ++foreground;
              auto it = std::find_if(tally.begin(), tally.end(),
                                     [&](const auto& t) { return t.first == label; });
              if (it == tally.end())
                tally.emplace_back(label, 1);
              else
                ++it->second;
            }
        if (2 * foreground < block) continue;
        std::pair<std::int32_t, std::int64_t> best = tally.front();
        for (const auto& t : tally)
          if (t.second > best.second || (t.second == best.second && t.first < best.first)) best = t;
        out.labels[out.index(bi, bj, bk)] = best.first;
      }
  return out;
}

Mesh voxel_mesh(const VoxelLattice& lattice) {
  require_consistent(lattice);
  const std::map<std::int32_t, std::int64_t> counts = label_counts(lattice);
  std::int64_t cells = 0;
  for (const auto& [label, n] : counts) cells += n;
  // Positions in a region's connectivity are 32-bit too; nodes are fewer than 8 per cell.
  if (8 * cells > std::numeric_limits<std::int32_t>::max())
    throw Error("the voxel mesh would have " + std::to_string(cells) +
                " hexahedra, more than 32-bit ids can number (at most 268,435,455)");

  Mesh mesh;
  std::map<std::int32_t, std::size_t> region_of;
  for (const auto& [label, n] : counts) {
    region_of[label] = mesh.regions.size();
    CellRegion r;
    r.name = voxel_region_name(label);
    r.shape = CellShape::Hex8;
    r.nodes_per_cell = 8;
    r.connectivity.reserve(static_cast<std::size_t>(8 * n));
    mesh.regions.push_back(std::move(r));
  }

  // Node planes are numbered one at a time: a plane's nodes are used by the voxel layers on its
  // two sides, and a voxel layer's cells need the two planes around it, so two planes of ids
  // suffice however large the lattice.
  const std::int64_t nx = lattice.dims[0], ny = lattice.dims[1], nz = lattice.dims[2];
  const std::int64_t px = nx + 1, py = ny + 1;
  const auto foreground = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return lattice.labels[lattice.index(i, j, k)] != lattice.background;
  };
  std::vector<std::int32_t> below(static_cast<std::size_t>(px * py), -1);
  std::vector<std::int32_t> above(below.size(), -1);
  std::int32_t next = 0;
  for (std::int64_t k = 0; k <= nz && cells > 0; ++k) {
    std::fill(above.begin(), above.end(), 0);
    for (std::int64_t layer = k - 1; layer <= k; ++layer) {
      if (layer < 0 || layer >= nz) continue;
      for (std::int64_t j = 0; j < ny; ++j)
        for (std::int64_t i = 0; i < nx; ++i)
          if (foreground(i, j, layer))
            for (std::int64_t c :
                 {i + px * j, i + 1 + px * j, i + px * (j + 1), i + 1 + px * (j + 1)})
              above[static_cast<std::size_t>(c)] = 1;
    }
    const double z = lattice.origin[2] + static_cast<double>(k) * lattice.spacing[2];
    for (std::int64_t j = 0; j < py; ++j)
      for (std::int64_t i = 0; i < px; ++i) {
        std::int32_t& id = above[static_cast<std::size_t>(i + px * j)];
        if (id == 0) {
          id = -1;
          continue;
        }
        id = next++;
        mesh.coords.insert(mesh.coords.end(),
                           {lattice.origin[0] + static_cast<double>(i) * lattice.spacing[0],
                            lattice.origin[1] + static_cast<double>(j) * lattice.spacing[1], z});
      }
    if (k > 0) {
      std::int32_t last_label = lattice.background;
      std::vector<std::int32_t>* conn = nullptr;
      for (std::int64_t j = 0; j < ny; ++j)
        for (std::int64_t i = 0; i < nx; ++i) {
          const std::int32_t label = lattice.labels[lattice.index(i, j, k - 1)];
          if (label == lattice.background) continue;
          if (conn == nullptr || label != last_label) {
            conn = &mesh.regions[region_of.at(label)].connectivity;
            last_label = label;
          }
          const auto at = [&](const std::vector<std::int32_t>& plane, std::int64_t a,
                              std::int64_t b) {
            return plane[static_cast<std::size_t>(a + px * b)];
          };
          conn->insert(conn->end(), {at(below, i, j), at(below, i + 1, j), at(below, i + 1, j + 1),
                                     at(below, i, j + 1), at(above, i, j), at(above, i + 1, j),
                                     at(above, i + 1, j + 1), at(above, i, j + 1)});
        }
    }
    std::swap(below, above);
  }
  return mesh;
}

}  // namespace fem
