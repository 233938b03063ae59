// Voxel meshes: a lattice of equal box voxels, each with an integer label, made into hexahedra.
//
// Both the `voxels` generator (implicit shapes) and segmented images (`mesh.image`) produce a
// VoxelLattice, and voxel_mesh() turns it into the Mesh the solvers see:
//   - one hex8 cell (VTK node order, like the box generator's) per voxel whose label is not the
//     background, in one region per label, 'label_<n>' (regions in ascending label order);
//   - nodes only at the corners of those cells (no unused nodes), numbered in lattice order
//     (x fastest, then y, then z), each at exactly origin + i * spacing per axis, so that a
//     structured solver recovers its integer lattice coordinates by rounding
//     (x - origin) / spacing;
//   - cells of each region in lattice order; 32-bit ids throughout (the seed's compact storage).
//
// Implicit shapes (voxels inside when their centre is), inscribed in the box [origin,
// origin + size] and written in its normalised coordinates p = (x - centre) / (size / 2), so
// every shape touches the box's faces (`p` in [-1, 1]^3):
//   - sphere: |p| <= 1, the ellipsoid inscribed in the box (a sphere in a cube);
//   - torus: around the z axis, ((rho - 0.7) / 0.3)^2 + pz^2 <= 1 with rho = |(px, py)|: in a
//     box of [L, L, 0.3 L] the round torus of major radius 0.35 L and tube radius 0.15 L;
//     a taller or flatter box stretches the tube in z (it always touches all six faces);
//   - blob: a "bunny-like" union of five ellipsoids, (centre; semi-axes) in p:
//     body (-0.2, 0, -0.35; 0.65, 0.55, 0.55), head (0.45, 0, 0.2; 0.35, 0.32, 0.32),
//     two ears (0.35, +-0.15, 0.65; 0.1, 0.08, 0.3) and a tail (-0.88, 0, -0.2; 0.12, 0.12,
//     0.12): one connected piece, facing +x, ears up (+z), not symmetric in x or z;
//   - box: every voxel.
// The co-rotated multigrid needs cubic voxels: give size / divisions equal along the three axes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/mesh.hpp"

namespace fem {

struct VoxelLattice {
  std::array<std::int64_t, 3> dims = {0, 0, 0};  ///< voxels along x, y, z
  std::array<double, 3> origin = {0, 0, 0};      ///< lowest corner of voxel (0, 0, 0)
  std::array<double, 3> spacing = {1, 1, 1};     ///< voxel edges along x, y, z
  std::vector<std::int32_t> labels;              ///< one per voxel, x fastest, then y, then z
  std::int32_t background = 0;                   ///< the label of empty voxels

  [[nodiscard]] std::int64_t num_voxels() const { return dims[0] * dims[1] * dims[2]; }
  [[nodiscard]] std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return i + dims[0] * (j + dims[1] * k);
  }
};

/// The region of a label's cells: "label_<n>".
std::string voxel_region_name(std::int32_t label);

/// The mesh of a lattice's foreground voxels (conventions above). Throws Error if the lattice's
/// sizes disagree or its cells need more than 32-bit ids; the mesh is empty (no regions) when
/// every voxel is background.
Mesh voxel_mesh(const VoxelLattice& lattice);

/// Voxels per foreground label, in ascending label order.
std::map<std::int32_t, std::int64_t> label_counts(const VoxelLattice& lattice);

/// Makes every voxel whose label is not in `keep` background.
void keep_labels(VoxelLattice& lattice, const std::vector<std::int32_t>& keep);

/// Blocks of factor^3 voxels become one voxel of edge factor * spacing, starting at the same
/// corner. A block is foreground when at least half of its factor^3 voxels are (blocks cut by
/// the lattice's far faces count their missing voxels as background), and takes the label most
/// frequent among its foreground voxels (ties: the smallest label). factor >= 1.
VoxelLattice downsample(const VoxelLattice& lattice, int factor);

/// The implicit shapes above, by name.
const std::vector<std::string>& voxel_shape_names();
/// A lattice of divisions voxels filling [origin, origin + size], label 1 where the shape holds
/// the voxel's centre, background 0 elsewhere. Throws Error for an unknown shape.
VoxelLattice shape_lattice(const std::string& shape, const std::array<double, 3>& size,
                           const std::array<double, 3>& origin,
                           const std::array<int, 3>& divisions);

/// Reads a segmented 3D image through VTK: VTK image data (.vti), MetaImage (.mhd with its
/// data file, or .mha) and NRRD (.nrrd, .nhdr). Each sample of the one-component point scalars is
/// a voxel centred on it (edge = spacing); an image with cell scalars instead has a voxel per
/// cell. Values must be integers that fit 32 bits (any scalar type holding such values). The
/// lattice comes in the file's units, background 0. Every problem (unreadable file, 2D image,
/// non-integer labels, rotated axes, VTK not built in) is an InputError at `where`, naming `path`.
VoxelLattice read_label_image(const std::string& path, const SourceLocation& where);

/// "'.vti' (VTK image data), ..." for messages.
const char* label_image_formats();

}  // namespace fem
