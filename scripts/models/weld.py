#!/usr/bin/env python3
"""Seed 002's weld inspection model (Pogo, Huthwaite 2014, section 4.1, Fig. 6, Table 1): a steel
plate with a single-V butt weld across it, in plane strain, meshed with 3-node triangles of
about 40 um; a 5 MHz, 5-cycle Hann tone burst is applied as a force at 45 degrees downwards to
the right on the top surface, left of the weld; two receivers on the top surface.

Sizes at --scale 1: 1,920 x 500 square cells of 40 um, each split in two triangles
(1.92 M triangles), 962,421 nodes = 1.92 M DoF, the seed's 1.92 M.

What the paper gives: the element size (40 um), triangles, plane strain, the 45-degree force,
the signal and the step (Table 1), the DoF. What it does not give (Fig. 6's dimensions are not
in the text) and is chosen here: a plate 76.8 mm long and 20 mm thick (the area that 1.92 M DoF
of 40 um cells cover); a single-V weld at its centre, 2 mm root gap at the bottom, 30-degree
bevels (60-degree included angle), cap and root ground flush with the plate; the source a 6 mm
patch of top-surface nodes centred 16.8 mm left of the weld's centre line, so that a 45-degree
ray from it meets the left fusion face at mid-thickness; the receivers at the source's centre
(pulse-echo) and at its mirror image right of the weld (pitch-catch).

Approximations: the mesh is a structured grid of squares split along alternating diagonals, not
the seed's unstructured (Abaqus free) mesh; the weld's boundary (the fusion faces) is a
staircase of cells assigned by their centroid, one 40-um step every 69 um of depth.

Physical groups: surfaces base and weld (the regions); points source (the patch's nodes, as
point elements), receiver_a, receiver_b.

    python3 scripts/models/weld.py -o cases/seed002/meshes/weld.msh            # full size
    python3 scripts/models/weld.py --scale 0.01 -o /tmp/weld.msh               # 1 % of the cells
"""
import math

from mshio import Elements, arguments, grid_nodes, grid_triangles, write_2d

WIDTH, THICKNESS = 0.0768, 0.020  # m
CELL = 40e-6                      # m, the seed's element size
ROOT_GAP, BEVEL = 0.002, math.radians(30.0)
SOURCE_WIDTH = 0.006
SOURCE_OFFSET = 0.0168            # m, source centre left of the weld's centre line
BASE, WELD, SOURCE, RECEIVER_A, RECEIVER_B = 1, 2, 3, 4, 5


def main():
    a = arguments(__doc__, "weld.msh")
    h = CELL / math.sqrt(a.scale)
    nx, ny = max(8, round(WIDTH / h)), max(4, round(THICKNESS / h))
    hx, hy = WIDTH / nx, THICKNESS / ny
    xc = WIDTH / 2

    def material(i, j):
        x, y = (i + 0.5) * hx, (j + 0.5) * hy
        half = ROOT_GAP / 2 + y * math.tan(BEVEL)  # the root at the bottom (y = 0)
        return WELD if abs(x - xc) < half else BASE

    xy = grid_nodes(nx, ny, hx, hy)
    tri = Elements(2)
    grid_triangles(nx, ny, material, tri)

    def top_node(x):
        return 1 + min(nx, max(0, round(x / hx))) + ny * (nx + 1)

    xs = xc - SOURCE_OFFSET
    first, last = top_node(xs - SOURCE_WIDTH / 2), top_node(xs + SOURCE_WIDTH / 2)
    sets = [(SOURCE, list(range(first, last + 1))), (RECEIVER_A, [top_node(xs)]),
            (RECEIVER_B, [top_node(2 * xc - xs)])]
    groups = [(2, BASE, "base"), (2, WELD, "weld"), (0, SOURCE, "source"),
              (0, RECEIVER_A, "receiver_a"), (0, RECEIVER_B, "receiver_b")]
    w = write_2d(a.output, groups, xy, tri, sets)
    w.report(2, 2)


if __name__ == "__main__":
    main()
