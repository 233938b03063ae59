#!/usr/bin/env python3
"""Reads a Gmsh 2.2 binary .msh as the model scripts write it and checks it without fem: every
element's nodes exist, triangles are counter-clockwise seen from +z, hexahedra have a positive
volume (their corner 0's three edges), and lists the physical groups with their element and
node counts.    python3 scripts/models/mshinfo.py weld.msh"""
import struct
import sys
from array import array

NODES = {15: 1, 1: 2, 2: 3, 3: 4, 5: 8}


def read(path):
    data = open(path, "rb").read()
    pos = data.index(b"$PhysicalNames\n") + 15
    end = data.index(b"$EndPhysicalNames")
    names = {}
    for line in data[pos:end].decode().splitlines()[1:]:
        dim, tag, name = line.split(" ", 2)
        names[int(tag)] = (int(dim), name.strip('"'))
    pos = data.index(b"$Nodes\n") + 7
    eol = data.index(b"\n", pos)
    n = int(data[pos:eol])
    pos = eol + 1
    raw = data[pos:pos + 28 * n]
    idb = bytearray(4 * n)
    xyzb = bytearray(24 * n)
    for b in range(4):
        idb[b::4] = raw[b::28]
    for b in range(24):
        xyzb[b::24] = raw[4 + b::28]
    ids, xyz = array("i"), array("d")
    ids.frombytes(bytes(idb))
    xyz.frombytes(bytes(xyzb))
    index = {v: i for i, v in enumerate(ids)}
    pos = data.index(b"$Elements\n", pos) + 10
    eol = data.index(b"\n", pos)
    total = int(data[pos:eol])
    pos = eol + 1
    blocks = []
    done = 0
    while done < total:
        gtype, count, ntags = struct.unpack_from("3i", data, pos)
        pos += 12
        width = 1 + ntags + NODES[gtype]
        rec = array("i")
        rec.frombytes(data[pos:pos + 4 * width * count])
        pos += 4 * width * count
        blocks.append((gtype, ntags, rec))
        done += count
    assert data[pos:pos + 13] == b"\n$EndElements", "no $EndElements after the elements"
    return names, ids, xyz, index, blocks


def main():
    names, ids, xyz, index, blocks = read(sys.argv[1])
    elements, members, bad = {}, {}, 0
    for gtype, ntags, rec in blocks:
        width = 1 + ntags + NODES[gtype]
        for e in range(len(rec) // width):
            r = rec[e * width:(e + 1) * width]
            tag = r[1]
            nodes = [index[v] for v in r[1 + ntags:]]  # KeyError: a node that does not exist
            elements[tag] = elements.get(tag, 0) + 1
            members.setdefault(tag, set()).update(nodes)
            p = [xyz[3 * v:3 * v + 3] for v in nodes]
            if gtype == 2:
                area2 = ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1])
                         - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]))
                bad += area2 <= 0
            elif gtype == 5:
                u, v, w = ([p[k][c] - p[0][c] for c in range(3)] for k in (1, 3, 4))
                vol = (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                       + u[2] * (v[0] * w[1] - v[1] * w[0]))
                bad += vol <= 0
    lo = [min(xyz[c::3]) for c in range(3)]
    hi = [max(xyz[c::3]) for c in range(3)]
    print(f"{len(ids)} nodes, box {lo} .. {hi}")
    for tag, (dim, name) in sorted(names.items()):
        print(f"  {name} (dim {dim}, tag {tag}): {elements.get(tag, 0)} elements, "
              f"{len(members.get(tag, ()))} nodes")
    print(f"{bad} cells with a non-positive area or volume")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
