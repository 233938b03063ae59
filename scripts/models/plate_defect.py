#!/usr/bin/env python3
"""A 3D steel plate with two defects for ultrasonic inspection (seed 002's solver in 3D): 100 x 50
x 20 mm of 8-node hexahedra of 0.25 mm, a side-drilled hole of 2 mm diameter through the width
(axis along y, 10 mm below the top, at x = 60 mm) and a notch breaking the bottom surface (0.5 mm
wide, 3 mm high, through the width, at x = 75 mm); a circular transducer patch of 6 mm diameter
on the top at x = 50 mm; receivers on the top surface.

Sizes at --scale 1: 400 x 200 x 80 cells = 6.40 M less the defects' 15,200 (6,384,800);
6,518,832 nodes = 19.6 M DoF (3 per node).

The defects are staircases of removed cells: a cell is removed when its centre lies in the hole
or the notch (the notch is exactly two cells wide at the default size); nodes that no remaining
cell uses are not written. At small --scale the cells grow; the cell at the hole's centre and a
column of cells at the notch are removed at any scale.

Physical groups: volume plate (the region); surfaces source (the top faces of the cells whose
centre is within the patch; quadrangles); points pulse_echo (the top node nearest the patch's
centre), pitch_catch (the top at x = 70 mm, right of both defects), curve scan (the top nodes
along y = 25 mm from x = 10 to 90 mm, as lines).

    python3 scripts/models/plate_defect.py -o cases/seed002/meshes/plate_defect.msh   # full size
    python3 scripts/models/plate_defect.py --scale 0.001 -o /tmp/plate_defect.msh     # 0.1 %
"""
from array import array

from mshio import HEXAHEDRON, LINE, POINT, QUAD, MshWriter, arguments

SIZE = (0.100, 0.050, 0.020)  # m
CELL = 0.25e-3                 # m
HOLE_X, HOLE_Z, HOLE_RADIUS = 0.060, 0.010, 0.001
NOTCH_X, NOTCH_WIDTH, NOTCH_HEIGHT = 0.075, 0.5e-3, 0.003
SOURCE_X, SOURCE_Y, SOURCE_RADIUS = 0.050, 0.025, 0.003
PITCH_CATCH_X, SCAN_FROM, SCAN_TO = 0.070, 0.010, 0.090
PLATE, SOURCE, PULSE_ECHO, PITCH_CATCH, SCAN = 1, 2, 3, 4, 5
HEX = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))


def main():
    a = arguments(__doc__, "plate_defect.msh")
    h = CELL / a.scale ** (1 / 3)
    nx, ny, nz = (max(4, round(s / h)) for s in SIZE)
    hx, hy, hz = SIZE[0] / nx, SIZE[1] / ny, SIZE[2] / nz
    nx1, ny1, nz1 = nx + 1, ny + 1, nz + 1

    def node(i, j, k):
        return 1 + i + j * nx1 + k * nx1 * ny1

    # The defects run through the width, so a cell's removal depends on (i, k) only.
    # At least the cell at the hole's centre and a column of cells at the notch, at any scale.
    removed = {(int(HOLE_X / hx), int(HOLE_Z / hz))}
    removed |= {(int(NOTCH_X / hx), k) for k in range(max(1, round(NOTCH_HEIGHT / hz)))}
    for k in range(nz):
        zc = (k + 0.5) * hz
        for i in range(nx):
            xc = (i + 0.5) * hx
            if (xc - HOLE_X) ** 2 + (zc - HOLE_Z) ** 2 < HOLE_RADIUS ** 2:
                removed.add((i, k))
            elif abs(xc - NOTCH_X) < NOTCH_WIDTH / 2 and zc < NOTCH_HEIGHT:
                removed.add((i, k))
    # Nodes whose every neighbouring cell (in the (i, k) plane) is removed or outside.
    unused = set()
    for i, k in removed:
        for ni in (i, i + 1):
            for nk in (k, k + 1):
                around = [(ci, ck) for ci in (ni - 1, ni) for ck in (nk - 1, nk)
                          if 0 <= ci < nx and 0 <= ck < nz]
                if all(c in removed for c in around):
                    unused.add((ni, nk))

    # Node sets on the top (k = nz).
    def top(x, y):
        return node(min(nx, round(x / hx)), min(ny, round(y / hy)), nz)

    source = [(i, j) for j in range(ny) for i in range(nx)
              if ((i + 0.5) * hx - SOURCE_X) ** 2 + ((j + 0.5) * hy - SOURCE_Y) ** 2
              < max(SOURCE_RADIUS, hx) ** 2]
    steps = round((SCAN_TO - SCAN_FROM) / hx)
    scan_nodes = sorted({top(SCAN_FROM + q * hx, SOURCE_Y) for q in range(steps + 1)})
    face = ((0, 0), (1, 0), (1, 1), (0, 1))
    sets = [(QUAD, SOURCE, [[node(i + di, j + dj, nz) for di, dj in face] for i, j in source]),
            (POINT, PULSE_ECHO, [[top(SOURCE_X, SOURCE_Y)]]),
            (POINT, PITCH_CATCH, [[top(PITCH_CATCH_X, SOURCE_Y)]]),
            (LINE, SCAN, [[u, v] for u, v in zip(scan_nodes, scan_nodes[1:])])]

    cells = nx * ny * nz - len(removed) * ny
    w = MshWriter(a.output, [(3, PLATE, "plate"), (2, SOURCE, "source"),
                             (0, PULSE_ECHO, "pulse_echo"), (0, PITCH_CATCH, "pitch_catch"),
                             (1, SCAN, "scan")])
    w.begin_nodes(nx1 * ny1 * nz1 - len(unused) * ny1)
    xs = array("d", [i * hx for i in range(nx1)])
    for k in range(nz1):
        keep = [i for i in range(nx1) if (i, k) not in unused]
        xrow = xs if len(keep) == nx1 else array("d", (xs[i] for i in keep))
        n = len(keep) * ny1
        ids = array("i")
        xyz = array("d", bytes(24 * n))
        for j in range(ny1):
            base = node(0, j, k)
            if len(keep) == nx1:
                ids.extend(range(base, base + nx1))
            else:
                ids.extend(base + i for i in keep)
        xyz[0::3] = xrow * ny1
        xyz[1::3] = array("d", (j * hy for j in range(ny1) for _ in keep))
        xyz[2::3] = array("d", [k * hz]) * n
        w.node_chunk(ids, xyz)
    w.end_nodes()

    w.begin_elements(cells + sum(len(s[2]) for s in sets))
    next_id = 1
    corner_offsets = [node(di, dj, dk) - 1 for di, dj, dk in HEX]
    for k in range(nz):
        runs, start = [], None  # the kept cells of this layer as runs of i
        for i in range(nx + 1):
            kept = i < nx and (i, k) not in removed
            if kept and start is None:
                start = i
            elif not kept and start is not None:
                runs.append((start, i))
                start = None
        layer = array("i")
        for j in range(ny):
            for i0, i1 in runs:
                n = i1 - i0
                rec = array("i", bytes(44 * n))
                rec[0::11] = array("i", range(next_id, next_id + n))
                rec[1::11] = rec[2::11] = array("i", [PLATE]) * n
                first = node(i0, j, k)
                for c, off in enumerate(corner_offsets):
                    rec[3 + c::11] = array("i", range(first + off, first + off + n))
                layer.extend(rec)
                next_id += n
        w.element_block(HEXAHEDRON, layer)
    for gtype, tag, members in sets:
        rec = array("i")
        for m in members:
            rec.extend((next_id, tag, tag))
            rec.extend(m)
            next_id += 1
        w.element_block(gtype, rec)
    w.end_elements()
    w.report(HEXAHEDRON, 3)


if __name__ == "__main__":
    main()
