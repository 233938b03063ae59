"""A case run from Python gives the numbers `fem run` writes, bit for bit: every frame's
displacement and stress in the .vtu files, the histories' CSV rows and the summary's result,
on each backend built here (openmp, kokkos) in single and double precision, explicit and static."""

import json
import os
import tempfile
import unittest

import numpy as np

import fem
import support


class CliParity(unittest.TestCase):
    def compare(self, case_file, cli_args, overrides, backend, precision):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cli")
            code, _, err = support.run_cli(
                ["run", case_file, "--quiet", "--backend", backend, "--precision", precision,
                 "--output", out] + cli_args)
            self.assertEqual(code, 0, err)
            case = fem.Case(case_file, set=overrides, backend=backend, precision=precision)
            result = case.run()
            self.assertEqual(result.output_directory, "")
            name = case.name
            vtus = support.pvd_frames(os.path.join(out, name + ".pvd"))
            self.assertEqual(len(vtus), len(result.times))
            self.assertGreater(len(vtus), 2)
            for k, path in enumerate(vtus):
                written = fem.read_vtu(path)
                self.assertIn("displacement", written["point_fields"])
                self.assertIn("cauchy_stress", written["cell_fields"])
                for field, values in written["point_fields"].items():
                    self.assertTrue(np.array_equal(values, result.point_fields[field][k]),
                                    "%s of frame %d differs" % (field, k))
                for field, values in written["cell_fields"].items():
                    self.assertTrue(np.array_equal(values, result.cell_fields[field][k]),
                                    "%s of frame %d differs" % (field, k))
            # The final displacement is not zero: the comparison above compared something.
            self.assertGreater(np.abs(result.displacement[-1]).max(), 1e-6)
            for history in case.info["histories"]:
                rows = support.read_csv(os.path.join(out, history + ".csv"))
                table = result.histories[history]
                for column, values in rows.items():
                    self.assertTrue(np.array_equal(np.array(values), table[column]),
                                    "%s.%s differs" % (history, column))
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            self.assertEqual(summary["result"], result.summary["result"])
            self.assertEqual(summary["energy"], result.summary["energy"])
            self.assertEqual(summary["status"], "completed")
            self.assertEqual(result.summary["precision"], precision)

    def final_state(self, case_file, overrides):
        """The solver types that give their final displacement only (elastodynamic,
        co-rotational): it equals the last frame `fem run` writes."""
        args = []
        for key, value in overrides.items():
            args += ["--set", "%s=%s" % (key, value)]
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = support.run_cli(["run", case_file, "--quiet", "--output", tmp] + args)
            self.assertEqual(code, 0, err)
            case = fem.Case(case_file, set=overrides)
            result = case.run()
            vtus = support.pvd_frames(os.path.join(tmp, case.name + ".pvd"))
            written = fem.read_vtu(vtus[-1])["point_fields"]["displacement"]
        self.assertEqual(result.displacement.shape, (1, case.info["nodes"], 3))
        self.assertGreater(np.abs(written).max(), 0)
        self.assertTrue(np.array_equal(written, result.displacement[-1]))

    def test_elastodynamic_final_state(self):
        self.final_state(os.path.join(support.SOURCE_DIR, "cases", "wave_plane.yaml"),
                         {"mesh.divisions": "[60, 30]", "solver.end_time": 2e-6,
                          "output.every_time": 1e-6, "output.receivers": "[]"})

    def test_corotational_final_state(self):
        self.final_state(os.path.join(support.SOURCE_DIR, "cases", "seed004", "cube.yaml"),
                         {"mesh.divisions": 8, "solver.end_time": 0.5,
                          "solver.multigrid.coarsest_vertices": 64})

    def backends(self):
        found = [b for b in ("openmp", "kokkos") if support.backend_available(b)]
        self.assertIn("openmp", found)
        return found

    def test_explicit_on_every_backend_and_precision(self):
        for backend in self.backends():
            for precision in ("single", "double"):
                with self.subTest(backend=backend, precision=precision):
                    self.compare(support.CUBE, support.SMALL_CUBE_ARGS, support.SMALL_CUBE,
                                 backend, precision)

    def test_static(self):
        overrides = {"mesh.divisions": 4}
        self.compare(support.BARRELLING, ["--set", "mesh.divisions=4"], overrides, "openmp",
                     "double")


if __name__ == "__main__":
    unittest.main()
