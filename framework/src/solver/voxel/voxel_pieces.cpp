#include "fem/voxel/voxel_pieces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace fem::voxel {
namespace {

/// Union-find over the fine vertices, with path halving.
struct Components {
  std::vector<std::int32_t> parent;
  explicit Components(std::size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), std::int32_t{0});
  }
  std::int32_t find(std::int32_t v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  }
  void unite(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    // The smaller root wins: a piece's root is then its lowest vertex.
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

std::vector<VoxelPiece> voxel_pieces(const VoxelHierarchy& h,
                                     const std::vector<std::uint8_t>& fine_fixed) {
  const VoxelLevel& fine = h.levels.at(0);
  Components c(static_cast<std::size_t>(fine.vertices));
  // A voxel's 8 corners are one piece; voxels sharing a corner (hence an edge or a face too)
  // merge through it.
  for (std::int64_t e = 0; e < h.elements; ++e)
    for (int p = 1; p < 8; ++p) c.unite(h.element_vertices[8 * e], h.element_vertices[8 * e + p]);

  std::vector<std::int32_t> piece_of_root(static_cast<std::size_t>(fine.vertices), -1);
  std::vector<VoxelPiece> pieces;
  const auto piece_of = [&](std::int32_t v) -> VoxelPiece& {
    const std::int32_t root = c.find(v);
    if (piece_of_root[root] < 0) {
      piece_of_root[root] = static_cast<std::int32_t>(pieces.size());
      VoxelPiece p;
      p.vertex = root;
      p.lower.fill(std::numeric_limits<double>::max());
      p.upper.fill(std::numeric_limits<double>::lowest());
      pieces.push_back(p);
    }
    return pieces[piece_of_root[root]];
  };
  for (std::int64_t e = 0; e < h.elements; ++e) {
    VoxelPiece& p = piece_of(h.element_vertices[8 * e]);
    ++p.voxels;
    // Corner 0 is the voxel's lowest corner, corner 7 its highest.
    const Lattice& lo = fine.lattice[h.element_vertices[8 * e]];
    for (int a = 0; a < 3; ++a) {
      p.lower[a] = std::min(p.lower[a], h.origin[a] + h.edge * lo[a]);
      p.upper[a] = std::max(p.upper[a], h.origin[a] + h.edge * (lo[a] + 1));
    }
  }
  for (std::size_t v = 0; v < fine_fixed.size() && v < piece_of_root.size(); ++v)
    if (fine_fixed[v] != 0) {  // a padding vertex is in no voxel: no piece
      const std::int32_t root = c.find(static_cast<std::int32_t>(v));
      if (piece_of_root[root] >= 0) pieces[piece_of_root[root]].supported = true;
    }
  std::sort(pieces.begin(), pieces.end(), [](const VoxelPiece& a, const VoxelPiece& b) {
    return a.voxels != b.voxels ? a.voxels > b.voxels : a.vertex < b.vertex;
  });
  return pieces;
}

std::vector<std::string> loose_piece_warnings(
    const std::vector<VoxelPiece>& pieces,
    const std::function<std::int64_t(std::int32_t)>& node_name, std::size_t max_listed) {
  std::vector<const VoxelPiece*> loose;
  std::int64_t loose_voxels = 0;
  for (const VoxelPiece& p : pieces)
    if (!p.supported) loose.push_back(&p);
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < loose.size(); ++i) {
    const VoxelPiece& p = *loose[i];
    if (i >= max_listed) {
      loose_voxels += p.voxels;
      continue;
    }
    const std::string where =
        fmt::format("{} voxels in [{:.4g} {:.4g} {:.4g}] .. [{:.4g} {:.4g} {:.4g}] m (node {})",
                    p.voxels, p.lower[0], p.lower[1], p.lower[2], p.upper[0], p.upper[1],
                    p.upper[2], node_name(p.vertex));
    // A body of one piece without supports is a free body (a drop test, say): said, without
    // the advice to remove it.
    if (pieces.size() == 1)
      lines.push_back("the voxel body (" + where +
                      ") has no support and floats freely: fix a node of it unless it should");
    else
      lines.push_back(fmt::format(
          "voxel piece of {} has no support and floats freely ({} of {} pieces loose): fix a "
          "node of it, remove it from the image (mesh.labels), or, if downsampling cut it off, "
          "give a smaller mesh.downsample",
          where, loose.size(), pieces.size()));
  }
  if (loose.size() > max_listed)
    lines.push_back(fmt::format("... and {} more loose voxel pieces ({} voxels) that float freely",
                                loose.size() - max_listed, loose_voxels));
  return lines;
}

}  // namespace fem::voxel
