#!/usr/bin/env python3
"""Writes a mixed hexahedral/tetrahedral ellipsoid as a Gmsh 4.1 ASCII file (millimetres): one
structured block (a cube grid mapped onto the ellipsoid), some cells kept as hexahedra and the
others split into six tetrahedra each (around each cell's diagonal 0-6, the same in every cell, so
that the tetrahedra are conforming among themselves and share nodes with the hexahedra; a
hexahedron face meeting two tetrahedron faces is not conforming, as in seed 003's brain mesh).

Two layouts:

  shell (default): hexahedra in the core, tetrahedra in the outer half of the grid. Physical
    groups: volumes core (hexahedra), shell (tetrahedra) and brain (both); surfaces base (the
    bottom of the surface), exposed (the top) and surface (all of it). mixed_ellipsoid.msh is
        python3 make_mixed_ellipsoid.py > mixed_ellipsoid.msh

  brain: the brain-shift model of seed 003 (section 5), mostly hexahedra. Volumes: core
    (hexahedra: brain tissue), shell (tetrahedra: the outermost layer of cells of the upper half,
    the cortex around the craniotomy, and the cells along the grid's edges and corners, whose
    hexahedra are too distorted for the critical-step estimate of a hexahedron), tumor (tetrahedra: a ball near the craniotomy) and ventricle
    (tetrahedra: an ellipsoid at the centre). Surfaces: base (the brain-stem patch at the bottom,
    held), exposed (the craniotomy patch at the top, displaced), surface (all of it) and skull (a
    closed triangulated ellipsoid `--skull-gap` mm outside the brain, for rigid contact; its nodes
    belong to no volume cell). Point groups exposed_1 ... exposed_4: the exposed nodes in rings
    around the craniotomy's centre (nearest first), so that a case can prescribe a displacement
    that falls off towards the patch's edge, as image-derived displacements do.
        python3 make_mixed_ellipsoid.py --layout brain --divisions 10 > brain_ellipsoid.msh

--divisions N sets the cells per edge of the cube grid (N^3 cells, (N+1)^3 nodes); with the brain
layout N = 22 is about the size of seed 003's original brain mesh (Table 6: 12,693 nodes, 16,825
elements) and N = 45 about its refined one (95,669 nodes, 125,292 elements); --skull-divisions 18
and 36 give skulls of about the seed's 3,960 and 15,840 triangles. -o FILE writes to FILE.
"""
import argparse
import math
import sys

AXES = (80.0, 65.0, 55.0)  # semi-axes, mm
CORE = 0.5                 # shell layout: cells whose centre lies within this half-width are hexes
# Brain layout (mm): the craniotomy's centre on the top of the surface and the patch's radius; the
# brain-stem patch at the bottom; the tumour ball; the ventricle ellipsoid.
CRANIOTOMY = (15.0, 0.0, AXES[2] * math.sqrt(1 - (15.0 / AXES[0]) ** 2))
CRANIOTOMY_RADIUS = 38.0
BRAIN_STEM = (-15.0, 0.0, -AXES[2] * math.sqrt(1 - (15.0 / AXES[0]) ** 2))
BRAIN_STEM_RADIUS = 22.0
TUMOR, TUMOR_RADIUS = (22.0, 12.0, 18.0), 16.0
VENTRICLE, VENTRICLE_AXES = (0.0, 0.0, 0.0), (30.0, 12.0, 12.0)
RINGS = 4

# The six tetrahedra of a cell (local hexahedron corners, VTK order).
TETS = ((0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6))
# The corners of a hexahedron in the cell's index space (VTK order).
HEX_CORNERS = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1),
               (0, 1, 1))
# The faces of a hexahedron, outward, as (local corners, grid direction, side).
HEX_FACES = (((0, 3, 2, 1), 2, 0), ((4, 5, 6, 7), 2, 1), ((0, 1, 5, 4), 1, 0),
             ((2, 3, 7, 6), 1, 1), ((0, 4, 7, 3), 0, 0), ((1, 2, 6, 5), 0, 1))


def to_ball(x, y, z):
    """Maps the cube [-1, 1]^3 onto the unit ball, smoothly (no degenerate cells)."""
    return (x * math.sqrt(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3),
            y * math.sqrt(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3),
            z * math.sqrt(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3))


def tet_faces(t):
    """The four faces of a tetrahedron, outward."""
    return ((t[0], t[2], t[1]), (t[0], t[1], t[3]), (t[1], t[2], t[3]), (t[0], t[3], t[2]))


def distance(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


class Grid:
    """The cube grid mapped onto the ellipsoid: nodes numbered from 1, cells by (i, j, k)."""

    def __init__(self, n):
        self.n = n
        self.coords = {}
        for k in range(n + 1):
            for j in range(n + 1):
                for i in range(n + 1):
                    b = to_ball(-1 + 2 * i / n, -1 + 2 * j / n, -1 + 2 * k / n)
                    self.coords[self.node(i, j, k)] = tuple(a * c for a, c in zip(AXES, b))

    def node(self, i, j, k):
        return 1 + i + (self.n + 1) * (j + (self.n + 1) * k)

    def hexahedron(self, i, j, k):
        node = self.node
        return (node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
                node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1),
                node(i, j + 1, k + 1))

    def cells(self):
        for k in range(self.n):
            for j in range(self.n):
                for i in range(self.n):
                    yield (i, j, k), self.hexahedron(i, j, k)

    def split(self, i, j, k):
        """The six tetrahedra of cell (i, j, k) for the brain layout: cells of the upper half of
        each axis are split as mirror images of the lower half's, so that the diagonal 0-6 of
        every corner cell of the grid starts at the cube's corner (whose three surface faces meet
        nearly flat: a tetrahedron there not touching it would be inverted on fine grids). Cells
        on either side of a mirror plane are mirror images, so the split stays conforming."""
        flips = tuple(2 * c >= self.n for c in (i, j, k))
        h = [self.node(*(c + (1 - a if f else a) for c, a, f in zip((i, j, k), corner, flips)))
             for corner in HEX_CORNERS]
        tets = [tuple(h[a] for a in t) for t in TETS]
        if sum(flips) % 2:  # a mirror image: restore the orientation
            tets = [(t[0], t[2], t[1], t[3]) for t in tets]
        return tets

    def centre(self, h):
        return tuple(sum(self.coords[v][d] for v in h) / 8 for d in range(3))


def shell_layout(grid):
    """Hexahedra in the core, tetrahedra outside it; boundary groups by height."""
    n = grid.n
    hexes, tets = [], []
    for (i, j, k), h in grid.cells():
        centre = max(abs(-1 + (2 * c + 1) / n) for c in (i, j, k))
        if centre < CORE:
            hexes.append(h)
        else:
            tets.extend(tuple(h[a] for a in t) for t in TETS)
    # Boundary triangles: tetrahedron faces used once.
    faces = {}
    for t in tets:
        for f in tet_faces(t):
            key = tuple(sorted(f))
            faces[key] = None if key in faces else f
    boundary = [f for f in faces.values() if f is not None]
    groups = {1: [], 2: [], 3: []}  # surface entity: 1 base, 2 exposed, 3 the rest
    for f in boundary:
        z = sum(grid.coords[v][2] for v in f) / 3
        groups[1 if z < -0.6 * AXES[2] else 2 if z > 0.75 * AXES[2] else 3].append(f)
    volumes = [("shell", 4, tets), ("core", 5, hexes)]
    surfaces = [("base", 2, groups[1]), ("exposed", 2, groups[2]), ("surface", 2, groups[3])]
    return volumes, surfaces


def brain_layout(grid):
    """Seed 003's brain: hexahedra, an upper tetrahedral cortex layer, a tumour, a ventricle."""
    n = grid.n
    kinds = {}  # cell -> core, shell, tumor or ventricle
    for (i, j, k), h in grid.cells():
        c = grid.centre(h)
        if distance(c, TUMOR) < TUMOR_RADIUS:
            kinds[(i, j, k)] = "tumor"
        elif sum(((x - o) / a) ** 2 for x, o, a in zip(c, VENTRICLE, VENTRICLE_AXES)) < 1:
            kinds[(i, j, k)] = "ventricle"
        elif sum(c in (0, n - 1) for c in (i, j, k)) >= 2 or (
                5 * k >= 3 * n and (min(i, j, k) == 0 or max(i, j, k) == n - 1)):
            kinds[(i, j, k)] = "shell"
        else:
            kinds[(i, j, k)] = "core"
    cells = {name: [] for name in ("core", "shell", "tumor", "ventricle")}
    for (i, j, k), h in grid.cells():
        kind = kinds[(i, j, k)]
        if kind == "core":
            cells[kind].append(h)
        else:
            cells[kind].extend(grid.split(i, j, k))
    for name, list_ in cells.items():
        if not list_:
            sys.exit("make_mixed_ellipsoid.py: region %s is empty with --divisions %d: use more"
                     % (name, n))

    # Boundary faces of the grid: quadrilaterals of hexahedra, triangles of split cells.
    boundary = []
    for (i, j, k), h in grid.cells():
        for corners, direction, side in HEX_FACES:
            if (i, j, k)[direction] != (0 if side == 0 else n - 1):
                continue
            quad = tuple(h[a] for a in corners)
            if kinds[(i, j, k)] == "core":
                boundary.append(quad)
            else:
                on_face = set(quad)
                for t in grid.split(i, j, k):
                    for f in tet_faces(t):
                        if set(f) <= on_face:
                            boundary.append(f)
    centroid = lambda f: tuple(sum(grid.coords[v][d] for v in f) / len(f) for d in range(3))
    base = [f for f in boundary if distance(centroid(f), BRAIN_STEM) < BRAIN_STEM_RADIUS]
    exposed = [f for f in boundary if distance(centroid(f), CRANIOTOMY) < CRANIOTOMY_RADIUS]
    if not base or not exposed:
        sys.exit("make_mixed_ellipsoid.py: no base or exposed faces with --divisions %d" % n)

    # Rings of the exposed nodes by distance from the craniotomy's centre.
    exposed_nodes = sorted({v for f in exposed for v in f})
    reach = max(distance(grid.coords[v], CRANIOTOMY) for v in exposed_nodes)
    rings = [[] for _ in range(RINGS)]
    for v in exposed_nodes:
        ring = min(RINGS - 1, int(RINGS * distance(grid.coords[v], CRANIOTOMY) / reach))
        rings[ring].append(v)
    if not all(rings):
        sys.exit("make_mixed_ellipsoid.py: an exposed ring is empty with --divisions %d" % n)

    volumes = [(name, 4 if name != "core" else 5, cells[name])
               for name in ("core", "shell", "tumor", "ventricle")]
    surfaces = [("base", None, base), ("exposed", None, exposed), ("surface", None, boundary)]
    points = [("exposed_%d" % (r + 1), ring) for r, ring in enumerate(rings)]
    return volumes, surfaces, points


def skull(divisions, gap, first_node):
    """A closed, outward triangulated ellipsoid `gap` mm outside the brain: the six faces of a
    cube, `divisions` squares per edge, mapped onto it like the grid (2 triangles per square)."""
    axes = tuple(a + gap for a in AXES)
    index, coords, triangles = {}, [], []

    def vertex(p):
        key = tuple(round(x * divisions) for x in p)
        if key not in index:
            index[key] = first_node + len(coords)
            coords.append(tuple(a * c for a, c in zip(axes, to_ball(*p))))
        return index[key]

    m = divisions
    for axis in range(3):
        for side in (-1, 1):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            for a in range(m):
                for b in range(m):
                    quad = []
                    for da, db in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = [0.0, 0.0, 0.0]
                        p[axis] = side
                        p[u] = -1 + 2 * (a + da) / m
                        p[v] = -1 + 2 * (b + db) / m
                        quad.append(vertex(p))
                    if side < 0:
                        quad.reverse()
                    triangles += [(quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])]
    return coords, triangles


def write_nodes(out, coords):
    """The $Nodes section (Gmsh 4.1 ASCII): every node in one volume entity, by tag."""
    n = len(coords)
    out.write("$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (n, n, n))
    out.write("".join("%d\n" % t for t in sorted(coords)))
    out.write("".join("%.9g %.9g %.9g\n" % coords[t] for t in sorted(coords)))
    out.write("$EndNodes\n")


def write_elements(out, blocks):
    """The $Elements section: blocks of (dimension, entity, Gmsh type, cells), tags from 1."""
    total = sum(len(b[3]) for b in blocks)
    out.write("$Elements\n%d %d 1 %d\n" % (len(blocks), total, total))
    tag = 0
    for dim, entity, gmsh_type, cells in blocks:
        out.write("%d %d %d %d\n" % (dim, entity, gmsh_type, len(cells)))
        for c in cells:
            tag += 1
            out.write("%d %s\n" % (tag, " ".join(map(str, c))))
    out.write("$EndElements\n")


def write_msh(out, coords, volumes, surfaces, points, skull_mesh):
    """Gmsh 4.1 ASCII: one entity and physical group per volume and surface, the skull's nodes
    after the grid's, and one point entity per node of the point groups."""
    names = []  # (dim, tag, name)
    skull_coords, skull_triangles, skull_first = skull_mesh
    surfaces = list(surfaces) + [("skull", None, skull_triangles)]
    for s, (name, _, _) in enumerate(surfaces):
        names.append((2, s + 1, name))
    for v, (name, _, _) in enumerate(volumes):
        names.append((3, len(surfaces) + v + 1, name))
    for p, (name, _) in enumerate(points):
        names.append((0, len(surfaces) + len(volumes) + p + 1, name))
    out.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n%d\n" % len(names))
    out.write("".join('%d %d "%s"\n' % n for n in names))
    out.write("$EndPhysicalNames\n$Entities\n")
    point_tags = {}
    for p, (name, nodes) in enumerate(points):
        for v in nodes:
            point_tags.setdefault(v, []).append(names[-len(points) + p][1])
    out.write("%d 0 %d %d\n" % (len(point_tags), len(surfaces), len(volumes)))
    box = "%g %g %g %g %g %g" % (-AXES[0], -AXES[1], -AXES[2], AXES[0], AXES[1], AXES[2])
    for e, v in enumerate(sorted(point_tags)):
        x = coords[v]
        out.write("%d %.9g %.9g %.9g %d %s\n" % (e + 1, x[0], x[1], x[2], len(point_tags[v]),
                                                 " ".join(map(str, point_tags[v]))))
    for s in range(len(surfaces)):
        out.write("%d %s 1 %d 0\n" % (s + 1, box, s + 1))
    for v in range(len(volumes)):
        out.write("%d %s 1 %d 0\n" % (v + 1, box, len(surfaces) + v + 1))
    out.write("$EndEntities\n")
    all_coords = dict(coords)
    all_coords.update({skull_first + i: x for i, x in enumerate(skull_coords)})
    write_nodes(out, all_coords)
    blocks = [(3, v + 1, 5 if kind == 5 else 4, cells)
              for v, (_, kind, cells) in enumerate(volumes)]
    for s, (_, _, faces) in enumerate(surfaces):
        for shape, size in ((2, 3), (3, 4)):
            chosen = [f for f in faces if len(f) == size]
            if chosen:
                blocks.append((2, s + 1, shape, chosen))
    point_entity = {v: e + 1 for e, v in enumerate(sorted(point_tags))}
    blocks += [(0, point_entity[v], 15, [(v,)]) for v in sorted(point_tags)]
    write_elements(out, blocks)


def write_shell_msh(out, grid, volumes, surfaces):
    """The shell layout's file, exactly as it has always been written (mixed_ellipsoid.msh)."""
    coords = grid.coords
    (_, _, tets), (_, _, hexes) = volumes
    groups = {1: surfaces[0][2], 2: surfaces[1][2], 3: surfaces[2][2]}
    out.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n6\n")
    out.write('2 1 "base"\n2 2 "exposed"\n2 3 "surface"\n3 4 "core"\n3 5 "shell"\n3 6 "brain"\n')
    out.write("$EndPhysicalNames\n$Entities\n0 0 3 2\n")
    box = "%g %g %g %g %g %g" % (-AXES[0], -AXES[1], -AXES[2], AXES[0], AXES[1], AXES[2])
    out.write("1 %s 2 1 3 0\n2 %s 2 2 3 0\n3 %s 1 3 0\n" % (box, box, box))
    out.write("1 %s 2 4 6 0\n2 %s 2 5 6 0\n$EndEntities\n" % (box, box))
    write_nodes(out, coords)
    blocks = [(3, 1, 5, hexes), (3, 2, 4, tets)] + [(2, s, 2, groups[s]) for s in (1, 2, 3)]
    write_elements(out, blocks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layout", choices=("shell", "brain"), default="shell")
    parser.add_argument("--divisions", type=int, default=8, help="cells per edge of the grid")
    parser.add_argument("--skull-divisions", type=int, default=12,
                        help="brain layout: squares per cube edge of the skull (12 per face^2 "
                             "triangles in all)")
    parser.add_argument("--skull-gap", type=float, default=1.0,
                        help="brain layout: distance of the skull outside the brain, mm")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = parser.parse_args()
    if args.divisions < 2:
        parser.error("--divisions must be at least 2")
    grid = Grid(args.divisions)
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    if args.layout == "shell":
        volumes, surfaces = shell_layout(grid)
        write_shell_msh(out, grid, volumes, surfaces)
    else:
        volumes, surfaces, points = brain_layout(grid)
        skull_mesh = skull(args.skull_divisions, args.skull_gap, len(grid.coords) + 1)
        write_msh(out, grid.coords, volumes, surfaces, points,
                  skull_mesh + (len(grid.coords) + 1,))
        counts = {name: len(cells) for name, _, cells in volumes}
        sys.stderr.write("%d nodes, %d elements (%d hexahedra, %d tetrahedra: %s); skull %d "
                         "nodes, %d triangles\n" % (
                             len(grid.coords), sum(counts.values()), counts["core"],
                             sum(counts.values()) - counts["core"],
                             ", ".join("%s %d" % kv for kv in counts.items()),
                             len(skull_mesh[0]), len(skull_mesh[1])))
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
