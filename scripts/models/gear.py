#!/usr/bin/env python3
"""Seed 002's mechanical example (Pogo, Huthwaite 2014, section 4.2, Fig. 10, Table 1): a
gear-like steel disc with a bore, six lightening holes and 40 teeth, in plane strain, meshed
with 3-node triangles of about 80 um; a 500 kHz, 2-cycle Hann tone burst applied as a force in
direction (-1, -0.8) to every node of one tooth's tip (the excitation surface); the trace
recorded at the tip of the tooth on the far side.

Sizes at --scale 1: about 1.45 M nodes = 2.89 M DoF (the seed's 2.89 M), 2.87 M triangles.

What the paper gives: the material (the weld model's steel base), the element size (80 um),
the signal, the direction of the force, the step and the DoF. What it does not give (Fig. 10's
dimensions are not in the text) and is chosen here: the bore radius 16 mm, root radius 58.5 mm,
tip radius 65 mm (the area 2.89 M DoF of 80 um cells cover), 40 teeth of trapezoidal section
(5.0 mm wide at the root, 2.6 mm at the tip, as arcs), six holes of radius 9.5 mm on a 37 mm
circle at 30 + 60 k degrees; the excited tooth centred at angle 0 (on +x), the receiver at the
middle of the tip of the tooth at 180 degrees.

The mesh: rings of nodes 80 um apart (radially and along each ring), each ring with its own node
count so that the cells keep their size from the bore to the tips, neighbouring rings joined by
triangles (the shorter diagonal first); the root ring has nodes exactly at the teeth's corners and
each tooth is its own stack of ring segments ending on its flanks, so the bore, the root circle,
the flanks and the tips are meshed boundaries. Approximations: the flanks are straight between
rings (not involutes); the six holes are staircases of removed triangles (centroid inside the
hole; triangles left hanging by a corner are removed too).

Physical groups: surface gear (the region); curve excitation (the tip of tooth 0); point
receiver (the middle of the tip of tooth 20).

    python3 scripts/models/gear.py -o cases/seed002/meshes/gear.msh          # full size
    python3 scripts/models/gear.py --scale 0.01 -o /tmp/gear.msh             # 1 %
"""
import math
from array import array

from mshio import Elements, arguments, write_2d

CELL = 80e-6                                 # m, the seed's element size
BORE, ROOT, TIP = 0.016, 0.0585, 0.065       # m, radii
TEETH, ROOT_WIDTH, TIP_WIDTH = 40, 0.0050, 0.0026
HOLES, HOLE_RADIUS, HOLE_CIRCLE = 6, 0.0095, 0.037
GEAR, EXCITATION, RECEIVER = 1, 2, 3


class Rings:
    """Nodes on arcs (ids from 1) and the triangles that join neighbouring arcs."""

    def __init__(self):
        self.xy = array("d")
        self.tri = Elements(2)

    def arc(self, r, angles):
        first = len(self.xy) // 2 + 1
        for t in angles:
            self.xy.extend((r * math.cos(t), r * math.sin(t)))
        return list(range(first, first + len(angles)))

    def join(self, inner, inner_angles, outer, outer_angles):
        """Triangles between two arcs that span the same angles, counter-clockwise."""
        i = j = 0
        a, b = inner_angles, outer_angles
        while i < len(inner) - 1 or j < len(outer) - 1:
            if j == len(outer) - 1 or (i < len(inner) - 1 and abs(a[i + 1] - b[j]) <
                                       abs(b[j + 1] - a[i])):
                self.tri.add(GEAR, (inner[i], outer[j], inner[i + 1]))
                i += 1
            else:
                self.tri.add(GEAR, (inner[i], outer[j], outer[j + 1]))
                j += 1


def main():
    a = arguments(__doc__, "gear.msh")
    h = CELL / math.sqrt(a.scale)
    pitch = 2 * math.pi / TEETH
    phi0 = ROOT_WIDTH / (2 * ROOT)       # half-angle of a tooth at the root
    start = -phi0                        # every closed ring starts at tooth 0's first corner
    m = Rings()

    # The disc: closed rings from the bore to the root.
    k1 = max(2, round((ROOT - BORE) / h))
    prev = None
    for k in range(k1):
        r = BORE + k * (ROOT - BORE) / k1
        n = max(12, round(2 * math.pi * r / h))
        angles = [start + 2 * math.pi * q / n for q in range(n)]
        ring = m.arc(r, angles)
        if prev:
            m.join(prev[0] + prev[0][:1], prev[1] + [prev[1][0] + 2 * math.pi],
                   ring + ring[:1], angles + [angles[0] + 2 * math.pi])
        prev = (ring, angles)

    # The root ring: each tooth's base (its corners are nodes), then the gap to the next tooth.
    base_n = max(1, round(ROOT_WIDTH / h))
    gap_n = max(1, round(ROOT * (pitch - 2 * phi0) / h))
    angles, bases = [], []
    for t in range(TEETH):
        c = t * pitch
        bases.append(len(angles))
        angles += [c - phi0 + 2 * phi0 * q / base_n for q in range(base_n)]
        angles += [c + phi0 + (pitch - 2 * phi0) * q / gap_n for q in range(gap_n)]
    ring = m.arc(ROOT, angles)
    m.join(prev[0] + prev[0][:1], prev[1] + [prev[1][0] + 2 * math.pi],
           ring + ring[:1], angles + [angles[0] + 2 * math.pi])
    ring, angles = ring + ring[:1], angles + [angles[0] + 2 * math.pi]

    # The teeth: arcs between the flanks, from the root to the tip.
    k2 = max(1, round((TIP - ROOT) / h))
    tips = []
    for t in range(TEETH):
        c = t * pitch
        inner = ring[bases[t]:bases[t] + base_n + 1]
        inner_angles = angles[bases[t]:bases[t] + base_n + 1]
        for k in range(1, k2 + 1):
            r = ROOT + k * (TIP - ROOT) / k2
            width = ROOT_WIDTH + (TIP_WIDTH - ROOT_WIDTH) * (r - ROOT) / (TIP - ROOT)
            n = max(1, round(width / h))
            phi = width / (2 * r)
            outer_angles = [c - phi + 2 * phi * q / n for q in range(n + 1)]
            outer = m.arc(r, outer_angles)
            m.join(inner, inner_angles, outer, outer_angles)
            inner, inner_angles = outer, outer_angles
        tips.append(inner)

    tri = drill(m, h)
    excitation = [(u, v) for u, v in zip(tips[0], tips[0][1:])]
    receiver = tips[TEETH // 2][len(tips[TEETH // 2]) // 2]
    groups = [(2, GEAR, "gear"), (1, EXCITATION, "excitation"), (0, RECEIVER, "receiver")]
    w = write_2d(a.output, groups, m.xy, tri, [(EXCITATION, excitation), (RECEIVER, [receiver])])
    w.report(2, 2)


def drill(m, h):
    """The triangles outside the holes; those joined to the rest by a corner only are removed."""
    centres = [(HOLE_CIRCLE * math.cos(math.radians(30 + 60 * k)),
                HOLE_CIRCLE * math.sin(math.radians(30 + 60 * k))) for k in range(HOLES)]
    rec, xy = m.tri.records, m.xy
    keep, near, candidates = [], [], []
    band = (HOLE_CIRCLE - HOLE_RADIUS - 5 * h) ** 2, (HOLE_CIRCLE + HOLE_RADIUS + 5 * h) ** 2
    for e in range(len(rec) // 6):
        v0 = rec[6 * e + 3] - 1
        if not band[0] < xy[2 * v0] ** 2 + xy[2 * v0 + 1] ** 2 < band[1]:
            keep.append(e)
            continue
        nodes = rec[6 * e + 3:6 * e + 6]
        x = sum(xy[2 * (v - 1)] for v in nodes) / 3
        y = sum(xy[2 * (v - 1) + 1] for v in nodes) / 3
        d = min((x - cx) ** 2 + (y - cy) ** 2 for cx, cy in centres)
        if d < HOLE_RADIUS ** 2:
            continue
        keep.append(e)
        if d < (HOLE_RADIUS + 4 * h) ** 2:
            near.append(e)
        if d < (HOLE_RADIUS + 2 * h) ** 2:
            candidates.append(e)
    kept = set(keep)
    for _ in range(3):  # a triangle with no side shared with another kept one hangs: remove it
        edges = {}
        for e in near:
            if e in kept:
                v = rec[6 * e + 3:6 * e + 6]
                for s in ((v[0], v[1]), (v[1], v[2]), (v[2], v[0])):
                    key = (min(s), max(s))
                    edges[key] = edges.get(key, 0) + 1
        hanging = [e for e in candidates if e in kept and all(
            edges[(min(s), max(s))] == 1 for v in [rec[6 * e + 3:6 * e + 6]]
            for s in ((v[0], v[1]), (v[1], v[2]), (v[2], v[0])))]
        if not hanging:
            break
        kept.difference_update(hanging)
    tri = Elements(2)
    for e in keep:
        if e in kept:
            tri.records.extend(rec[6 * e:6 * e + 6])
    tri.records[0::6] = array("i", range(1, len(tri.records) // 6 + 1))
    tri.next_id = len(tri.records) // 6 + 1
    return tri


if __name__ == "__main__":
    main()
