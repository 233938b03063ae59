"""output.xdmf (issue 23): every frame in one HDF5 file with an XDMF index. The series is read by
meshio (Debian's python3-meshio and python3-h5py, a reader fem had no part in) and compared with
the .vtu frames the same run writes: points, cells, every array and the frame times, bit for bit.

Exits 77 (ctest: skipped, with the reason) where meshio or h5py cannot be imported."""

import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import numpy as np

from support import CUBE, SMALL_CUBE_ARGS, SOURCE_DIR, pvd_frames, run_cli

try:
    import h5py  # noqa: F401  (meshio reads the HDF5 through it)
    import meshio
except ImportError as missing:
    print(f"skipped: {missing}; install python3-meshio and python3-h5py "
          "(scripts/install-dependencies.sh does)")
    sys.exit(77)

MIXED = os.path.join(SOURCE_DIR, "cases", "mixed_ellipsoid.yaml")


def pvd_times(path):
    return [float(d.get("timestep")) for d in ET.parse(path).getroot().iter("DataSet")]


def run_case(test, case, name, folder, args):
    code, out, err = run_cli(["run", case, "--output", folder, "--set", "output.xdmf=true"]
                             + args)
    test.assertEqual(code, 0, out + err)
    xdmf = os.path.join(folder, name + ".xdmf")
    pvd = os.path.join(folder, name + ".pvd")
    test.assertTrue(os.path.exists(xdmf), out)
    # The closing lines name the index files.
    test.assertIn(name + ".xdmf", out)
    return xdmf, pvd


class XdmfAgainstVtu(unittest.TestCase):
    def compare_series(self, xdmf, pvd):
        vtus, times = pvd_frames(pvd), pvd_times(pvd)
        self.assertGreater(len(vtus), 2)
        with meshio.xdmf.TimeSeriesReader(xdmf) as series:
            points, cells = series.read_points_cells()
            self.assertEqual(series.num_steps, len(vtus))
            for k, vtu in enumerate(vtus):
                t, point_data, cell_data = series.read_data(k)
                frame = meshio.read(vtu)
                self.assertEqual(t, times[k])
                np.testing.assert_array_equal(points, frame.points)
                self.assertEqual([c.type for c in cells], [c.type for c in frame.cells])
                for a, b in zip(cells, frame.cells):
                    np.testing.assert_array_equal(a.data, b.data)
                self.assertEqual(sorted(point_data), sorted(frame.point_data))
                for name, values in frame.point_data.items():
                    np.testing.assert_array_equal(point_data[name], values, err_msg=name)
                self.assertEqual(sorted(cell_data), sorted(frame.cell_data))
                for name, blocks in frame.cell_data.items():
                    for a, b in zip(cell_data[name], blocks):
                        np.testing.assert_array_equal(a, b, err_msg=name)
            return point_data, cell_data

    def test_hexahedra_of_the_cube(self):
        with tempfile.TemporaryDirectory() as folder:
            xdmf, pvd = run_case(self, CUBE, "cube_compression", folder, SMALL_CUBE_ARGS)
            point_data, cell_data = self.compare_series(xdmf, pvd)
            # Every field and set is there, with its shape.
            self.assertEqual(point_data["displacement"].shape, (125, 3))
            self.assertEqual(cell_data["cauchy_stress"][0].shape, (64, 6))
            self.assertTrue(any(n.startswith("node_set:") for n in point_data), point_data.keys())
            # One HDF5 file holds every frame.
            self.assertEqual(sorted(f for f in os.listdir(folder) if f.endswith(".h5")),
                             ["cube_compression.h5"])

    def test_mixed_hexahedra_and_tetrahedra(self):
        with tempfile.TemporaryDirectory() as folder:
            xdmf, pvd = run_case(self, MIXED, "mixed_ellipsoid", folder,
                                 ["--end-time", "0.01", "--set", "output.every_time=0.004"])
            _, cell_data = self.compare_series(xdmf, pvd)
            with meshio.xdmf.TimeSeriesReader(xdmf) as series:
                _, cells = series.read_points_cells()
            self.assertEqual(sorted({c.type for c in cells}), ["hexahedron", "tetra"])
            self.assertEqual(sum(len(c.data) for c in cells), 64 + 2688)
            self.assertIn("region:core", cell_data)

    def test_xdmf_alone(self):
        with tempfile.TemporaryDirectory() as folder:
            code, out, err = run_cli(["run", CUBE, "--output", folder, "--set", "output.xdmf=true",
                                      "--set", "output.vtk=false"] + SMALL_CUBE_ARGS)
            self.assertEqual(code, 0, out + err)
            self.assertFalse(any(f.endswith((".pvd", ".vtu")) for f in os.listdir(folder)))
            with meshio.xdmf.TimeSeriesReader(os.path.join(folder, "cube_compression.xdmf")) as s:
                s.read_points_cells()
                self.assertEqual(s.num_steps, 7)
                t, point_data, _ = s.read_data(6)
            self.assertAlmostEqual(t, 0.3)
            self.assertLess(point_data["displacement"][:, 2].min(), 0.0)

    def test_a_restart_continues_the_file(self):
        """Continued from its first checkpoint, a run's series holds the uninterrupted run's
        frames, bit for bit."""
        def frames(path):
            with meshio.xdmf.TimeSeriesReader(path) as s:
                s.read_points_cells()
                return [s.read_data(k) for k in range(s.num_steps)]

        with tempfile.TemporaryDirectory() as whole, tempfile.TemporaryDirectory() as resumed:
            args = SMALL_CUBE_ARGS + ["--set", "output.xdmf=true", "--set", "output.vtk=false",
                                      "--set", "output.checkpoint={every_time: 0.1, keep: 5}"]
            for folder in (whole, resumed):
                code, out, err = run_cli(["run", CUBE, "--output", folder] + args)
                self.assertEqual(code, 0, out + err)
            checkpoints = sorted(f for f in os.listdir(resumed) if f.endswith(".checkpoint"))
            self.assertGreaterEqual(len(checkpoints), 2)
            code, out, err = run_cli(["run", CUBE, "--output", resumed, "--restart",
                                      os.path.join(resumed, checkpoints[0])] + args)
            self.assertEqual(code, 0, out + err)
            expected = frames(os.path.join(whole, "cube_compression.xdmf"))
            actual = frames(os.path.join(resumed, "cube_compression.xdmf"))
            self.assertEqual([f[0] for f in actual], [f[0] for f in expected])
            for (_, pe, ce), (_, pa, ca) in zip(expected, actual):
                for name in pe:
                    np.testing.assert_array_equal(pa[name], pe[name], err_msg=name)
                for name in ce:
                    np.testing.assert_array_equal(ca[name][0], ce[name][0], err_msg=name)


if __name__ == "__main__":
    unittest.main()
