"""The module's interface: overrides, cases from dicts, errors with the CLI's messages and exit
codes, NumPy shapes and types, the progress callback, the mesh and node sets, files only when
asked."""

import os
import signal
import tempfile
import unittest

import numpy as np

import fem
import support


def small_cube(**options):
    return fem.Case(support.CUBE, set=support.SMALL_CUBE, **options)


# The cube of cases/cube_compression.yaml as a dict, 3 elements per edge, for 0.2 s.
CUBE_DICT = {
    "name": "dict_cube",
    "mesh": {"generator": "box", "cells": "hex8", "size": [0.05, 0.05, 0.05],
             "divisions": [3, 3, 3]},
    "materials": {"brain": {"type": "neo_hookean", "density": 1000, "youngs_modulus": 3000,
                            "poisson_ratio": 0.49}},
    "blocks": [{"name": "cube", "element": "hex8r", "material": "brain",
                "hourglass_coefficient": 0.05}],
    "node_sets": {"bottom": {"plane": {"point": [0, 0, 0], "normal": [0, 0, 1]}},
                  "top": {"plane": {"point": [0, 0, 0.05], "normal": [0, 0, 1]}}},
    "amplitudes": {"loading": {"type": "smooth_step", "start": 0.0, "end": 0.2}},
    "boundary_conditions": [{"set": "bottom", "fixed": ["z"]},
                            {"set": "top", "displacement": {"z": -0.002},
                             "amplitude": "loading"}],
    "solver": {"type": "explicit", "end_time": 0.2, "mass_damping": 2.0},
    "output": {"every_time": 0.05, "fields": ["displacement", "cauchy_stress", "von_mises"],
               "histories": [{"name": "top", "set": "top",
                              "quantities": ["displacement", "reaction_force"]}]},
}


class Overrides(unittest.TestCase):
    def test_dotted_keys_in_a_dict(self):
        case = fem.Case(support.CUBE, set={"mesh.divisions": 3})
        self.assertEqual(case.info["nodes"], 4 ** 3)
        self.assertEqual(case.mesh.points.shape, (64, 3))

    def test_list_of_key_value_strings_and_flow_values(self):
        case = fem.Case(support.CUBE, set=["mesh.divisions=[2, 3, 4]"])
        self.assertEqual(case.info["nodes"], 3 * 4 * 5)
        case = fem.Case(support.CUBE, set={"mesh.divisions": [2, 3, 4]})
        self.assertEqual(case.info["nodes"], 3 * 4 * 5)

    def test_later_overrides_win_and_options(self):
        case = fem.Case(support.CUBE, set={"mesh.divisions": 2}, precision="double",
                        end_time=0.125)
        case = case.with_set({"mesh.divisions": 3})
        self.assertEqual(case.info["nodes"], 64)
        self.assertEqual(case.info["precision"], "double")
        self.assertEqual(case.info["end_time"], 0.125)
        self.assertEqual(fem.Case(support.CUBE).info["precision"], "single")

    def test_device_option_names_the_gpu(self):
        self.assertEqual(fem.Case(support.CUBE, device=1).info["device"], 1)
        self.assertEqual(fem.Case(support.CUBE).info["device"], -1)  # the backend's choice
        with self.assertRaises(fem.InputError):
            fem.Case(support.CUBE, device=-2).info

    def test_a_float_override_is_the_same_double(self):
        case = fem.Case(support.CUBE, set={"solver.end_time": 0.1 + 0.2})
        self.assertEqual(case.info["end_time"], 0.1 + 0.2)

    def test_an_override_without_a_value(self):
        with self.assertRaises(fem.InputError) as caught:
            fem.Case(support.CUBE, set=["mesh.divisions"])
        self.assertEqual(caught.exception.file, "<set>")
        self.assertIn("key.path=value", str(caught.exception))

    def test_override_of_an_unknown_key(self):
        with self.assertRaises(fem.InputError) as caught:
            fem.Case(support.CUBE, set={"solver.safty_factor": 0.5}).info
        self.assertIn("safety_factor", str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 2)


class FromDict(unittest.TestCase):
    def test_runs_and_matches_the_same_case_from_a_file(self):
        result = fem.run(CUBE_DICT)
        self.assertEqual(result.displacement.shape, (5, 64, 3))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "dict_cube.json")  # JSON is YAML
            import json
            with open(path, "w") as f:
                json.dump(CUBE_DICT, f)
            again = fem.run(path)
        self.assertTrue(np.array_equal(result.displacement, again.displacement))
        self.assertTrue(np.array_equal(result.cell_fields["cauchy_stress"],
                                       again.cell_fields["cauchy_stress"]))

    def test_an_unknown_key_in_a_dict_points_into_its_text(self):
        keys = dict(CUBE_DICT, solver=dict(CUBE_DICT["solver"], safty_factor=0.5))
        with self.assertRaises(fem.InputError) as caught:
            fem.Case(keys).info
        e = caught.exception
        self.assertEqual(e.file, "<dict>")
        self.assertGreater(e.line, 1)
        self.assertGreater(e.column, 1)
        self.assertTrue(str(e).startswith("<dict>:%d:%d: error: unknown key 'safty_factor'"
                                          % (e.line, e.column)), str(e))


    def test_relative_mesh_files_are_read_from_base_dir(self):
        keys = {"mesh": {"file": "meshes/mixed_ellipsoid.msh", "scale": 0.001},
                "materials": {"brain": {"type": "neo_hookean", "density": 1000,
                                        "youngs_modulus": 3000, "poisson_ratio": 0.45}},
                "blocks": [{"name": "core", "region": "core", "element": "hex8r",
                            "material": "brain"},
                           {"name": "shell", "region": "shell", "element": "tet4",
                            "material": "brain"}],
                "solver": {"type": "explicit", "end_time": 0.01}}
        case = fem.Case(keys, base_dir=os.path.join(support.SOURCE_DIR, "cases"))
        self.assertEqual(case.info["nodes"], 729)
        self.assertEqual(case.mesh.block_names, ["core", "shell"])
        self.assertEqual(np.bincount(case.mesh.cell_block).tolist(), [64, 2688])
        self.assertIn("base", case.mesh.node_sets)  # the file's own node sets
        with tempfile.TemporaryDirectory() as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                with self.assertRaises(fem.InputError) as caught:
                    fem.Case(keys).info
            finally:
                os.chdir(cwd)
        self.assertIn("meshes/mixed_ellipsoid.msh", str(caught.exception))


class Errors(unittest.TestCase):
    def test_a_wrong_key_gives_the_clis_message_and_exit_code(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.yaml")
            with open(support.CUBE) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace("safety_factor:", "safty_factor:"))
            code, _, err = support.run_cli(["run", path, "--quiet"])
            with self.assertRaises(fem.InputError) as caught:
                fem.Case(path).run()
        e = caught.exception
        self.assertEqual(code, 2)
        self.assertEqual(e.exit_code, code)
        self.assertIsInstance(e, fem.Error)
        self.assertIn(str(e), err)
        self.assertEqual(e.file, path)
        line = text[:text.index("safety_factor:")].count("\n") + 1
        self.assertEqual(e.line, line)
        self.assertEqual(e.column, 3)
        self.assertTrue(str(e).startswith("%s:%d:3: error: unknown key 'safty_factor'"
                                          % (path, line)), str(e))
        self.assertIn("did you mean 'safety_factor'", str(e))

    def test_a_failed_solve_is_a_solve_error_with_exit_code_3(self):
        # The top pushed 1.5 times the cube's height down in 0.1 s: elements invert.
        crush = dict(support.SMALL_CUBE, **{"solver.end_time": 0.1,
                                            "boundary_conditions.1.displacement.z": -0.075,
                                            "amplitudes.loading.end": 0.1})
        args = []
        for key, value in crush.items():
            args += ["--set", "%s=%s" % (key, value)]
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = support.run_cli(["run", support.CUBE, "--quiet", "--output", tmp]
                                           + args)
            with self.assertRaises(fem.SolveError) as caught:
                fem.Case(support.CUBE, set=crush).run()
        self.assertEqual(code, 3, err)
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertIn("inverted", str(caught.exception))
        # The same step and element as the CLI names.
        self.assertIn(str(caught.exception).splitlines()[0], err)

    def test_an_unknown_backend_is_bad_input(self):
        with self.assertRaises(fem.Error) as caught:
            small_cube(backend="no_such_backend").run()
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIn("no_such_backend", str(caught.exception))

    def test_a_missing_case_file(self):
        with self.assertRaises(fem.InputError) as caught:
            fem.Case("/nonexistent/case.yaml").info
        self.assertIn("/nonexistent/case.yaml", str(caught.exception))

    def test_an_exception_in_the_progress_callback_stops_the_run(self):
        calls = []

        def progress(p):
            calls.append(p.step)
            if len(calls) == 2:
                raise ValueError("stop here")

        with self.assertRaisesRegex(ValueError, "stop here"):
            small_cube().run(progress=progress)
        self.assertEqual(len(calls), 2)


class Interrupt(unittest.TestCase):
    def test_ctrl_c_stops_the_run_with_exit_code_5(self):
        calls = []

        def progress(p):
            calls.append(p)
            if len(calls) == 2:
                os.kill(os.getpid(), signal.SIGINT)  # Python's handler: KeyboardInterrupt

        with self.assertRaises(fem.Interrupted) as caught:
            small_cube().run(progress=progress)
        self.assertIsInstance(caught.exception, KeyboardInterrupt)
        self.assertEqual(caught.exception.exit_code, 5)
        self.assertLess(calls[-1].step, calls[-1].steps)  # stopped before the end


class Results(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.case = small_cube()
        cls.progress = []
        cls.result = cls.case.run(progress=cls.progress.append)

    def test_shapes_and_types(self):
        r, mesh = self.result, self.case.mesh
        frames = len(r.times)
        self.assertEqual(frames, 7)  # t = 0, 0.05, ..., 0.3
        self.assertEqual(r.times.dtype, np.float64)
        self.assertEqual(r.steps.dtype, np.int64)
        self.assertEqual(r.displacement.shape, (frames, 125, 3))
        self.assertEqual(r.velocity.shape, (frames, 125, 3))
        self.assertEqual(r.displacement.dtype, np.float64)
        self.assertEqual(r.cell_fields["cauchy_stress"].shape, (frames, 64, 6))
        self.assertEqual(r.cell_fields["green_lagrange_strain"].shape, (frames, 64, 6))
        self.assertEqual(r.cell_fields["von_mises"].shape, (frames, 64, 1))
        self.assertTrue(np.all(np.diff(r.times) > 0))
        self.assertAlmostEqual(r.times[-1], 0.3, places=12)
        self.assertEqual(mesh.num_nodes, 125)
        self.assertEqual(mesh.num_cells, 64)

    def test_fields_are_consistent(self):
        r = self.result
        # Von Mises from the Cauchy stress, frame by frame.
        s = r.cell_fields["cauchy_stress"][-1]
        mises = np.sqrt(0.5 * ((s[:, 0] - s[:, 1]) ** 2 + (s[:, 1] - s[:, 2]) ** 2 +
                               (s[:, 2] - s[:, 0]) ** 2) + 3 * (s[:, 3:] ** 2).sum(axis=1))
        np.testing.assert_allclose(r.cell_fields["von_mises"][-1, :, 0], mises, rtol=1e-12)
        self.assertTrue(np.all(r.displacement[0] == 0))
        top = self.case.node_sets["top"]
        expected = -0.01 * self.loading(0.3)
        np.testing.assert_allclose(r.displacement[-1, top, 2], expected, rtol=1e-6)

    @staticmethod
    def loading(t, end=5.0):
        x = t / end
        return x ** 3 * (10 - 15 * x + 6 * x * x)

    def test_histories_and_tables(self):
        top = self.result.histories["top"]
        self.assertEqual(set(self.result.histories), {"top", "corner"})
        self.assertEqual(top["columns"], ["displacement_x", "displacement_y", "displacement_z",
                                          "reaction_force_x", "reaction_force_y",
                                          "reaction_force_z"])
        rows = len(top["time"])
        self.assertGreater(rows, 5)
        self.assertEqual(top["values"].shape, (rows, 6))
        self.assertEqual(top["displacement_z"].shape, (rows,))
        self.assertTrue(np.all(np.diff(top["step"]) > 0))
        np.testing.assert_allclose(top["displacement_z"], -0.01 * self.loading(top["time"]),
                                   rtol=1e-6, atol=1e-15)
        energy = self.result.tables["energy"]
        self.assertEqual(energy["columns"], ["kinetic", "strain", "hourglass"])
        self.assertEqual(len(energy["time"]), len(self.result.times))

    def test_summary(self):
        s = self.result.summary
        self.assertEqual(s["status"], "completed")
        self.assertEqual(s["model"]["nodes"], 125)
        self.assertEqual(s["backend"], "openmp")
        self.assertEqual(s["time"]["steps"], self.result.steps[-1])
        self.assertEqual(s["result"]["max_displacement_m"],
                         np.linalg.norm(self.result.displacement[-1], axis=1).max())

    def test_progress_is_called_with_increasing_steps(self):
        steps = [p.step for p in self.progress]
        self.assertEqual(len(steps), len(self.result.times))
        self.assertTrue(all(b > a for a, b in zip(steps, steps[1:])))
        self.assertEqual(steps[-1], self.progress[-1].steps)
        self.assertEqual(self.progress[-1].end_time, 0.3)
        self.assertTrue(all(isinstance(p.time, float) for p in self.progress))

    def test_mesh_and_node_sets(self):
        mesh = self.case.mesh
        self.assertEqual(mesh.points.dtype, np.float64)
        np.testing.assert_allclose(mesh.points.min(axis=0), 0)
        np.testing.assert_allclose(mesh.points.max(axis=0), 0.05)
        self.assertTrue(np.all(mesh.cell_types == 12))  # VTK_HEXAHEDRON
        self.assertEqual(mesh.offsets.shape, (65,))
        self.assertEqual(len(mesh.cell(0)), 8)
        self.assertEqual(mesh.block_names, ["cube"])
        self.assertTrue(np.all(mesh.cell_block == 0))
        self.assertEqual(set(mesh.node_sets), {"bottom", "top", "corner"})
        top = mesh.node_sets["top"]
        self.assertEqual(len(top), 25)
        self.assertTrue(np.all(mesh.points[top, 2] == 0.05))
        corner = mesh.node_sets["corner"]
        self.assertEqual(len(corner), 1)
        np.testing.assert_array_equal(mesh.points[corner[0]], [0.05, 0.05, 0.05])


class Files(unittest.TestCase):
    def test_nothing_is_written_unless_asked(self):
        with tempfile.TemporaryDirectory() as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                small_cube().run()
                self.assertEqual(os.listdir(tmp), [])
                result = small_cube().run(write_files=True, output="out")
            finally:
                os.chdir(cwd)
            self.assertEqual(result.output_directory, "out")
            written = set(os.listdir(os.path.join(tmp, "out")))
        for name in ("cube_compression.pvd", "summary.json", "top.csv", "corner.csv",
                     "energy.csv"):
            self.assertIn(name, written)


if __name__ == "__main__":
    unittest.main()
