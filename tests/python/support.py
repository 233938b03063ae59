"""What the Python module's tests share: where things are, a small case, and `fem run`."""

import csv
import os
import subprocess
import xml.etree.ElementTree as ET

SOURCE_DIR = os.environ.get("FEM_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
FEM = os.environ.get("FEM_EXECUTABLE", os.path.join(SOURCE_DIR, "build", "bin", "fem"))
CUBE = os.path.join(SOURCE_DIR, "cases", "cube_compression.yaml")
BARRELLING = os.path.join(SOURCE_DIR, "cases", "cube_barrelling_static.yaml")
# The cube at 4 elements per edge for 0.3 s: 7 frames of 125 nodes, a few hundred steps.
SMALL_CUBE = {"mesh.divisions": 4, "solver.end_time": 0.3, "output.every_time": 0.05}
SMALL_CUBE_ARGS = ["--set", "mesh.divisions=4", "--set", "solver.end_time=0.3",
                   "--set", "output.every_time=0.05"]


def run_cli(args, cwd=None):
    """`fem <args>`: (exit code, stdout, stderr)."""
    p = subprocess.run([FEM] + list(args), capture_output=True, text=True, cwd=cwd,
                       env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"))
    return p.returncode, p.stdout, p.stderr


def backend_available(name):
    """Whether `fem plugins` lists the backend as usable here."""
    code, out, _ = run_cli(["plugins"])
    if code != 0:
        return False
    section = out.split("backends:", 1)[-1].split("elements:", 1)[0]
    return any(line.split()[:1] == [name] and "[unavailable" not in line
               for line in section.splitlines())


def pvd_frames(path):
    """The .vtu files a .pvd lists, in order, as absolute paths."""
    root = ET.parse(path).getroot()
    folder = os.path.dirname(path)
    return [os.path.join(folder, d.get("file")) for d in root.iter("DataSet")]


def read_csv(path):
    """A CSV history: {column: [float, ...]}, the values read back exactly (fem writes the
    shortest text of each double)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: [float(r[j]) for r in body] for j, name in enumerate(header)}
