// Implicit shapes of the `voxels` generator, inscribed in their box (definitions in
// fem/mesh/voxels.hpp).
#include <array>
#include <cmath>
#include <cstddef>

#include "fem/mesh/voxels.hpp"

namespace fem {

namespace {

using Point = std::array<double, 3>;

struct Ellipsoid {
  Point centre;
  Point semi_axes;
  [[nodiscard]] bool holds(const Point& p) const {
    double s = 0;
    for (int d = 0; d < 3; ++d) {
      const double t = (p[d] - centre[d]) / semi_axes[d];
      s += t * t;
    }
    return s <= 1;
  }
};

// The blob's parts, overlapping pairwise (body-head, head-ears, body-tail) so that it is one
// piece at any resolution that resolves the ears.
constexpr Ellipsoid kBlob[] = {{{-0.2, 0, -0.35}, {0.65, 0.55, 0.55}},   // body
                               {{0.45, 0, 0.2}, {0.35, 0.32, 0.32}},     // head
                               {{0.35, 0.15, 0.65}, {0.1, 0.08, 0.3}},   // ear
                               {{0.35, -0.15, 0.65}, {0.1, 0.08, 0.3}},  // ear
                               {{-0.88, 0, -0.2}, {0.12, 0.12, 0.12}}};  // tail

bool sphere(const Point& p) {
  return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= 1;
}

bool torus(const Point& p) {
  const double t = (std::hypot(p[0], p[1]) - 0.7) / 0.3;
  return t * t + p[2] * p[2] <= 1;
}

bool blob(const Point& p) {
  for (const Ellipsoid& e : kBlob)
    if (e.holds(p)) return true;
  return false;
}

bool box(const Point& /*p*/) {
  return true;
}

}  // namespace

const std::vector<std::string>& voxel_shape_names() {
  static const std::vector<std::string> names = {"sphere", "torus", "blob", "box"};
  return names;
}

VoxelLattice shape_lattice(const std::string& shape, const std::array<double, 3>& size,
                           const std::array<double, 3>& origin,
                           const std::array<int, 3>& divisions) {
  bool (*inside)(const Point&) = shape == "sphere"  ? sphere
                                 : shape == "torus" ? torus
                                 : shape == "blob"  ? blob
                                 : shape == "box"   ? box
                                                    : nullptr;
  if (inside == nullptr) throw Error("unknown voxel shape '" + shape + "'");
  VoxelLattice lattice;
  lattice.origin = origin;
  for (int d = 0; d < 3; ++d) {
    lattice.dims[d] = divisions[d];
    lattice.spacing[d] = size[d] / divisions[d];
  }
  lattice.labels.assign(static_cast<std::size_t>(lattice.num_voxels()), 0);
  // Voxel centres in normalised coordinates, (2 i + 1 - n) / n: an exact integer over n, so that
  // mirrored voxels get exactly opposite coordinates and symmetric shapes symmetric voxel sets.
  const auto normalised = [&](std::int64_t i, int d) {
    return static_cast<double>(2 * i + 1 - divisions[d]) / divisions[d];
  };
  // Layers are independent: a lattice of 10^8 voxels takes seconds on one core.
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < lattice.dims[2]; ++k)
    for (std::int64_t j = 0; j < lattice.dims[1]; ++j)
      for (std::int64_t i = 0; i < lattice.dims[0]; ++i)
        if (inside({normalised(i, 0), normalised(j, 1), normalised(k, 2)}))
          lattice.labels[static_cast<std::size_t>(lattice.index(i, j, k))] = 1;
  return lattice;
}

}  // namespace fem
