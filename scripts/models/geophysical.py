#!/usr/bin/env python3
"""Seed 002's geophysical model (Pogo, Huthwaite 2014, section 4.3, Fig. 12, Tables 1 and 3): a
layered section of the ground, 6 km wide and 4.2 km deep, in plane strain, meshed with 3-node
triangles of 5 m; four rock types (Table 3); a force in direction (1, 4) with the signal
exp(-1000 (t - 0.25)^2) at a node of the free surface; absorbing regions on the left, right and
bottom sides (the case gives them d = 500 (x/L)^3); receivers on the surface.

Sizes at --scale 1: 1,200 x 840 square cells of 5 m, each split in two triangles (2.02 M
triangles), 1,010,041 nodes = 2.02 M DoF, the seed's 2.02 M.

What the paper gives: the rocks' densities and wave speeds (Table 3), the element size (5 m), the
signal, the direction, the damping law, the step and the DoF. What it does not give (Fig. 12's
layout is not in the text) and is chosen here: the section's size (the area 2.02 M DoF of 5 m
cells cover, with y up and the surface at y = 0); the layers from the top: rock 1 (2600 kg/m3,
4000/2000 m/s) down to an undulating interface at 500 +- 80 m, rock 3 (a slower layer) down to an
interface dipping from 1,200 m at x = 0 to 1,920 m at x = 6 km, rock 4 down to 2,800 m, and
rock 2 (the fast basement) below, its top rising in an anticline to 1,900 m at x = 3.6 km; the
source at x = 2 km on the surface; the receiver at x = 4 km on the surface (2 km offset) and a
line of geophones every 50 m from x = 1 to 5 km (the part of the surface outside the absorbing
regions, which the case makes 1 km thick).

Approximations: a structured grid of squares split along alternating diagonals (the seed's mesh
was Abaqus'); the interfaces are staircases of cells assigned by their centroid.

Physical groups: surfaces rock1 .. rock4 (the regions); points source, receiver, geophones;
curves left, right, bottom (the boundaries the absorbing regions grow from).

    python3 scripts/models/geophysical.py -o cases/seed002/meshes/geophysical.msh   # full size
    python3 scripts/models/geophysical.py --scale 0.01 -o /tmp/geophysical.msh      # 1 %
"""
import math

from mshio import Elements, arguments, grid_nodes, grid_triangles, write_2d

WIDTH, DEPTH = 6000.0, 4200.0  # m
CELL = 5.0                     # m, the seed's element size
ROCK1, ROCK2, ROCK3, ROCK4 = 1, 2, 3, 4
SOURCE, RECEIVER, GEOPHONES, LEFT, RIGHT, BOTTOM = 5, 6, 7, 8, 9, 10
SOURCE_X, RECEIVER_X = 2000.0, 4000.0
GEOPHONE_FIRST, GEOPHONE_LAST, GEOPHONE_STEP = 1000.0, 5000.0, 50.0


def rock(x, depth):
    if depth < 500.0 + 80.0 * math.sin(2 * math.pi * x / 2500.0):
        return ROCK1
    if depth < 1200.0 + 0.12 * x:
        return ROCK3
    if depth < 2800.0 - 900.0 * math.exp(-((x - 3600.0) / 1000.0) ** 2):
        return ROCK4
    return ROCK2


def main():
    a = arguments(__doc__, "geophysical.msh")
    h = CELL / math.sqrt(a.scale)
    nx, ny = max(12, round(WIDTH / h)), max(8, round(DEPTH / h))
    hx, hy = WIDTH / nx, DEPTH / ny
    row = nx + 1
    xy = grid_nodes(nx, ny, hx, hy, 0.0, -DEPTH)  # row j at y = -DEPTH + j hy; surface j = ny
    tri = Elements(2)
    grid_triangles(nx, ny, lambda i, j: rock((i + 0.5) * hx, DEPTH - (j + 0.5) * hy), tri)

    def surface(x):
        return 1 + min(nx, max(0, round(x / hx))) + ny * row

    count = round((GEOPHONE_LAST - GEOPHONE_FIRST) / GEOPHONE_STEP) + 1
    geophones = sorted({surface(GEOPHONE_FIRST + k * GEOPHONE_STEP) for k in range(count)})
    left = [(1 + j * row, 1 + (j + 1) * row) for j in range(ny)]
    right = [(row + j * row, row + (j + 1) * row) for j in range(ny)]
    bottom = [(1 + i, 2 + i) for i in range(nx)]
    sets = [(SOURCE, [surface(SOURCE_X)]), (RECEIVER, [surface(RECEIVER_X)]),
            (GEOPHONES, geophones), (LEFT, left), (RIGHT, right), (BOTTOM, bottom)]
    groups = [(2, ROCK1, "rock1"), (2, ROCK2, "rock2"), (2, ROCK3, "rock3"), (2, ROCK4, "rock4"),
              (0, SOURCE, "source"), (0, RECEIVER, "receiver"), (0, GEOPHONES, "geophones"),
              (1, LEFT, "left"), (1, RIGHT, "right"), (1, BOTTOM, "bottom")]
    w = write_2d(a.output, groups, xy, tri, sets)
    w.report(2, 2)


if __name__ == "__main__":
    main()
