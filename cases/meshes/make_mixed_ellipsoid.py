#!/usr/bin/env python3
"""Writes mixed_ellipsoid.msh (Gmsh 4.1 ASCII, millimetres): an ellipsoid meshed as one
structured block (a cube grid mapped onto the ellipsoid), hexahedra in the core and the outer
cells split into six tetrahedra each (around each cell's diagonal 0-6, the same in every cell, so
that the tetrahedra are conforming among themselves and share nodes with the hexahedra).

Physical groups: volumes core (hexahedra), shell (tetrahedra) and brain (both); surfaces base
(the bottom of the surface), exposed (the top, where a displacement is prescribed) and surface
(all of it). Run: python3 make_mixed_ellipsoid.py > mixed_ellipsoid.msh
"""
import math
import sys

N = 8                      # cells per edge of the cube grid
AXES = (80.0, 65.0, 55.0)  # semi-axes, mm
CORE = 0.5                 # cells whose centre lies within this cube half-width stay hexahedra


def to_ball(x, y, z):
    """Maps the cube [-1, 1]^3 onto the unit ball, smoothly (no degenerate cells)."""
    return (x * math.sqrt(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3),
            y * math.sqrt(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3),
            z * math.sqrt(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3))


def node(i, j, k):
    return 1 + i + (N + 1) * (j + (N + 1) * k)


coords = {}
for k in range(N + 1):
    for j in range(N + 1):
        for i in range(N + 1):
            b = to_ball(-1 + 2 * i / N, -1 + 2 * j / N, -1 + 2 * k / N)
            coords[node(i, j, k)] = tuple(a * c for a, c in zip(AXES, b))

TETS = ((0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6))
hexes, tets = [], []
for k in range(N):
    for j in range(N):
        for i in range(N):
            h = (node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
                 node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1),
                 node(i, j + 1, k + 1))
            centre = max(abs(-1 + (2 * c + 1) / N) for c in (i, j, k))
            if centre < CORE:
                hexes.append(h)
            else:
                tets.extend(tuple(h[a] for a in t) for t in TETS)

# Boundary triangles: tetrahedron faces used once.
faces = {}
for t in tets:
    for f in ((t[0], t[2], t[1]), (t[0], t[1], t[3]), (t[1], t[2], t[3]), (t[0], t[3], t[2])):
        key = tuple(sorted(f))
        faces[key] = None if key in faces else f
boundary = [f for f in faces.values() if f is not None]
groups = {1: [], 2: [], 3: []}  # surface entity: 1 base, 2 exposed, 3 the rest
for f in boundary:
    z = sum(coords[n][2] for n in f) / 3
    groups[1 if z < -0.6 * AXES[2] else 2 if z > 0.75 * AXES[2] else 3].append(f)

out = sys.stdout
out.write("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n6\n")
out.write('2 1 "base"\n2 2 "exposed"\n2 3 "surface"\n3 4 "core"\n3 5 "shell"\n3 6 "brain"\n')
out.write("$EndPhysicalNames\n$Entities\n0 0 3 2\n")
box = "%g %g %g %g %g %g" % (-AXES[0], -AXES[1], -AXES[2], AXES[0], AXES[1], AXES[2])
out.write("1 %s 2 1 3 0\n2 %s 2 2 3 0\n3 %s 1 3 0\n" % (box, box, box))
out.write("1 %s 2 4 6 0\n2 %s 2 5 6 0\n$EndEntities\n" % (box, box))
n = len(coords)
out.write("$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (n, n, n))
out.write("".join("%d\n" % t for t in sorted(coords)))
out.write("".join("%.9g %.9g %.9g\n" % coords[t] for t in sorted(coords)))
out.write("$EndNodes\n")
blocks = [(3, 1, 5, hexes), (3, 2, 4, tets)] + [(2, s, 2, groups[s]) for s in (1, 2, 3)]
total = sum(len(b[3]) for b in blocks)
out.write("$Elements\n%d %d 1 %d\n" % (len(blocks), total, total))
tag = 0
for dim, entity, gmsh_type, cells in blocks:
    out.write("%d %d %d %d\n" % (dim, entity, gmsh_type, len(cells)))
    for c in cells:
        tag += 1
        out.write("%d %s\n" % (tag, " ".join(map(str, c))))
out.write("$EndElements\n")
