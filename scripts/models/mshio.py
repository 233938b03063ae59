"""What the seed-002 model scripts share: their command line and a streaming writer of Gmsh 2.2
binary .msh files (standard library only).

The binary 2.2 format (https://gmsh.info/doc/texinfo/, "MSH file format version 2"): after
"$MeshFormat\\n2.2 1 8\\n" the int 1 in the writer's byte order; $Nodes holds records of an int
id and three doubles; $Elements holds blocks, each a header of three ints (element type, number
of elements, number of tags) followed by its records (id, tags, node ids), all ints. Every
element here carries two tags, the physical group and the elementary entity (the same number).
fem's reader (framework/src/mesh/gmsh_reader.cpp) takes the first tag as the physical group.
"""
import argparse
import os
import sys
import time
from array import array

POINT, LINE, TRIANGLE, QUAD, HEXAHEDRON = 15, 1, 2, 3, 5
NODES_PER_ELEMENT = {POINT: 1, LINE: 2, TRIANGLE: 3, QUAD: 4, HEXAHEDRON: 8}
STARTED = time.time()


def arguments(description, default_name):
    """--scale S (the fraction of the seed's element count), -o PATH."""
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, default=1.0,
                   help="fraction of the default element count (default 1: the full-size model; "
                        "0.01 for a quick test); the geometry stays, the cells grow")
    p.add_argument("-o", "--output", default=default_name, help="the .msh file to write")
    a = p.parse_args()
    if not a.scale > 0:
        p.error("--scale must be > 0")
    return a


def node_records(ids, xyz):
    """The $Nodes records (int id, 3 doubles) of ids (array 'i') and xyz (array 'd', 3 per node)
    as bytes, interleaved byte lane by byte lane (C speed)."""
    n = len(ids)
    assert len(xyz) == 3 * n and ids.itemsize == 4 and xyz.itemsize == 8
    out = bytearray(28 * n)
    ib, cb = ids.tobytes(), xyz.tobytes()
    for b in range(4):
        out[b::28] = ib[b::4]
    for b in range(24):
        out[4 + b::28] = cb[b::24]
    return out


class MshWriter:
    """Writes one file in order: header and names, nodes (in chunks), elements (in blocks).

    groups: [(dim, tag, name)], the physical groups (dim 3 or 2: regions; 2, 1 or 0: node sets).
    """

    def __init__(self, path, groups):
        self.path = path
        self.f = open(path, "wb")
        self.f.write(b"$MeshFormat\n2.2 1 8\n" + array("i", [1]).tobytes() + b"\n$EndMeshFormat\n")
        self.f.write(b"$PhysicalNames\n%d\n" % len(groups))
        for dim, tag, name in groups:
            self.f.write(b'%d %d "%s"\n' % (dim, tag, name.encode()))
        self.f.write(b"$EndPhysicalNames\n")
        self.nodes = self.elements = 0
        self.counts = {}
        self._expected = None

    def begin_nodes(self, count):
        self._expected = count
        self.f.write(b"$Nodes\n%d\n" % count)

    def node_chunk(self, ids, xyz):
        self.f.write(node_records(ids, xyz))
        self.nodes += len(ids)

    def end_nodes(self):
        assert self.nodes == self._expected, (self.nodes, self._expected)
        self.f.write(b"\n$EndNodes\n")

    def begin_elements(self, count):
        self._expected = count
        self.f.write(b"$Elements\n%d\n" % count)

    def element_block(self, gtype, records):
        """records: array 'i' of (id, physical tag, elementary tag, nodes...) per element."""
        width = 3 + NODES_PER_ELEMENT[gtype]
        n = len(records) // width
        assert n * width == len(records)
        if n == 0:
            return
        self.f.write(array("i", [gtype, n, 2]).tobytes())
        self.f.write(records.tobytes())
        self.elements += n
        self.counts[gtype] = self.counts.get(gtype, 0) + n

    def end_elements(self):
        assert self.elements == self._expected, (self.elements, self._expected)
        self.f.write(b"\n$EndElements\n")
        self.f.close()

    def report(self, cell_type, dofs_per_node, used_nodes=None):
        """Prints the sizes: nodes, cells, degrees of freedom, the file and the time taken."""
        nodes = self.nodes if used_nodes is None else used_nodes
        cells = self.counts.get(cell_type, 0)
        others = self.elements - cells
        mb = os.path.getsize(self.path) / 1e6
        print(f"{self.path}: {nodes:,} nodes, {cells:,} cells, {dofs_per_node * nodes:,} DoF "
              f"({dofs_per_node * nodes / 1e6:.2f} M); {others:,} node-set elements; {mb:.1f} MB "
              f"in {time.time() - STARTED:.1f} s", file=sys.stderr)


class Elements:
    """Element records of one type collected in memory (array 'i'), numbered from `first_id`."""

    def __init__(self, gtype, first_id=1):
        self.gtype = gtype
        self.records = array("i")
        self.next_id = first_id

    def add(self, tag, nodes):
        self.records.extend((self.next_id, tag, tag))
        self.records.extend(nodes)
        self.next_id += 1

    def __len__(self):
        return len(self.records) // (3 + NODES_PER_ELEMENT[self.gtype])


def write_2d(path, groups, xy, triangles, node_sets):
    """Writes a plane mesh (z = 0): xy, array 'd' of x, y per node (node i has id i + 1);
    triangles, an Elements of TRIANGLE; node_sets, [(tag, [node ids])] written as points, and
    [(tag, [(a, b), ...])] (a list of pairs) as lines. Nodes no triangle uses are left out."""
    n = len(xy) // 2
    used = bytearray(n + 1)
    tri = triangles.records
    for c in (3, 4, 5):
        for v in tri[c::6]:
            used[v] = 1
    ids = array("i", (i for i in range(1, n + 1) if used[i]))
    xyz = array("d", bytes(8 * 3 * len(ids)))
    xyz[0::3] = array("d", (xy[2 * (i - 1)] for i in ids))
    xyz[1::3] = array("d", (xy[2 * (i - 1) + 1] for i in ids))
    sets = []
    next_id = triangles.next_id
    for tag, members in node_sets:
        kind = LINE if members and isinstance(members[0], tuple) else POINT
        e = Elements(kind, next_id)
        for m in members:
            nodes = m if kind == LINE else (m,)
            assert all(used[v] for v in nodes), f"node set {tag} has a node of no triangle"
            e.add(tag, nodes)
        next_id = e.next_id
        sets.append(e)
    w = MshWriter(path, groups)
    w.begin_nodes(len(ids))
    w.node_chunk(ids, xyz)
    w.end_nodes()
    w.begin_elements(len(triangles) + sum(len(e) for e in sets))
    w.element_block(TRIANGLE, tri)
    for e in sets:
        w.element_block(e.gtype, e.records)
    w.end_elements()
    return w


def grid_triangles(nx, ny, material, tri):
    """Splits an nx x ny grid of square cells (node (i, j) has id 1 + i + j (nx + 1)) into two
    counter-clockwise triangles each, the diagonal alternating like a chessboard so that the mesh
    has no preferred direction; material(i, j) gives the physical tag of cell (i, j)."""
    row = nx + 1
    for j in range(ny):
        for i in range(nx):
            tag = material(i, j)
            a = 1 + i + j * row
            b, c, d = a + 1, a + 1 + row, a + row
            if (i + j) % 2 == 0:
                tri.add(tag, (a, b, c))
                tri.add(tag, (a, c, d))
            else:
                tri.add(tag, (a, b, d))
                tri.add(tag, (b, c, d))


def grid_nodes(nx, ny, hx, hy, x0=0.0, y0=0.0):
    """x, y of the nodes of the grid (node (i, j) at index i + j (nx + 1)), array 'd'."""
    xs = [x0 + i * hx for i in range(nx + 1)]
    xy = array("d")
    for j in range(ny + 1):
        y = y0 + j * hy
        row = array("d", bytes(16 * (nx + 1)))
        row[0::2] = array("d", xs)
        row[1::2] = array("d", [y]) * (nx + 1)
        xy.extend(row)
    return xy
