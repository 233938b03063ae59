"""fem from Python: load a case, override its keys, run it on any backend and precision, and get
the results as NumPy arrays without writing files (unless asked).

    import fem
    case = fem.Case("cases/cube_compression.yaml", set={"mesh.divisions": 6}, precision="single")
    result = case.run(progress=lambda p: print(p.step, p.time))
    u = result.displacement          # frames x nodes x 3
    s = result.cell_fields["cauchy_stress"]   # frames x elements x 6
    result.histories["top"]["reaction_force_z"], result.summary["time"]["steps"]

The case is prepared and run by the same library code as ``fem run`` (same numbers, bit for bit);
errors are the exceptions of :mod:`fem.errors` with the CLI's message and exit code.
See docs/python.md.
"""

import json
import os
from collections import namedtuple

import numpy as np

from . import _fem
from .errors import (  # noqa: F401  (the public names)
    CheckpointError,
    Error,
    InputError,
    Interrupted,
    PluginError,
    SolveError,
)

__all__ = [
    "Case", "Result", "Mesh", "Progress", "run", "read_vtu", "set_log_level",
    "Error", "InputError", "PluginError", "CheckpointError", "SolveError", "Interrupted",
]

Progress = namedtuple("Progress", "step steps time end_time")
Progress.__doc__ = """What the progress callback gets at every output frame (explicit dynamics,
dynamic relaxation) or increment (static, implicit dynamics): the step or increment, the number
of steps when known ahead (0 for automatic increments), the time reached and the end time."""


def _yaml_value(value):
    """An override's value as the text of ``--set key=text``: strings as they are (YAML, so
    "{type: linear}" is a mapping), everything else as JSON, which YAML reads alike."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same double
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return json.dumps(value)


def _overrides(set_):
    """(path, text) pairs from a dict {dotted.key: value} or a list of "key=value" strings."""
    if set_ is None:
        return []
    if isinstance(set_, dict):
        return [(str(k), _yaml_value(v)) for k, v in set_.items()]
    pairs = []
    for item in set_:
        if isinstance(item, str):
            key, eq, text = item.partition("=")
            if not eq or not key:
                e = InputError(
                    "<set>: error: override '%s' is not of the form key.path=value\n"
                    "  hint: for example set=['solver.end_time=0.5'] or set={'solver.end_time': 0.5}"
                    % item)
                e.file, e.message = "<set>", "override '%s' is not of the form key.path=value" % item
                raise e
            pairs.append((key, text))
        else:
            key, value = item
            pairs.append((str(key), _yaml_value(value)))
    return pairs


class Mesh:
    """The model's mesh as arrays, in the numbering of the results (and of the .vtu files).

    points (nodes x 3, m), cell_types (VTK type per element), offsets (elements + 1) into
    connectivity (VTK node order), cell_block (block index per element), block_names,
    node_sets ({name: node indices}), input_node_ids (each node's id in the mesh file's or
    generator's numbering).
    """

    def __init__(self, d):
        self.points = d["points"]
        self.cell_types = d["cell_types"]
        self.offsets = d["offsets"]
        self.connectivity = d["connectivity"]
        self.cell_block = d.get("cell_block")
        self.block_names = d.get("block_names", [])
        self.node_sets = d.get("node_sets", {})
        self.input_node_ids = d.get("input_node_ids")

    @property
    def num_nodes(self):
        return self.points.shape[0]

    @property
    def num_cells(self):
        return self.cell_types.shape[0]

    def cell(self, i):
        """The node indices of element i."""
        return self.connectivity[self.offsets[i]:self.offsets[i + 1]]


class Result:
    """What a run produced, in memory.

    times, steps: per output frame. point_fields / cell_fields: {name: frames x entities x
    components} for the fields the case's output.fields asks for ("displacement", "velocity",
    "cauchy_stress", "green_lagrange_strain", "von_mises", "block_id"); displacement and velocity
    are shortcuts. histories: {name: {"time", "step", column: array}} for output.histories;
    tables: the same for every table the run keeps (energy, convergence, contact and the
    histories). summary: summary.json as a dict. output_directory: where files went ("" if none).
    """

    def __init__(self, d, case, history_names):
        self.times = d["times"]
        self.steps = d["steps"]
        self.point_fields = d["point_fields"]
        self.cell_fields = d["cell_fields"]
        self.tables = {name: _table(t) for name, t in d["tables"].items()}
        self.summary = json.loads(d["summary"]) if d["summary"] else {}
        self.interrupted = d["interrupted"]
        self.output_directory = d["output_directory"]
        self._case = case
        self.histories = {name: self.tables[name] for name in history_names
                          if name in self.tables}

    @property
    def displacement(self):
        return self.point_fields.get("displacement")

    @property
    def velocity(self):
        return self.point_fields.get("velocity")

    @property
    def mesh(self):
        return self._case.mesh

    def __repr__(self):
        return "<fem.Result: %d frames, point fields %s, cell fields %s, tables %s>" % (
            len(self.times), sorted(self.point_fields), sorted(self.cell_fields),
            sorted(self.tables))


def _table(t):
    columns = {"time": t["time"], "step": t["step"]}
    values = t["values"]
    for j, name in enumerate(t["columns"]):
        columns[name] = values[:, j]
    columns["columns"] = list(t["columns"])
    columns["values"] = values
    return columns


class Case:
    """A case file (path) or a dict of the case's keys, with overrides.

    set: {dotted.key: value} or ["key=value", ...] as ``fem run --set`` takes them (list items by
    index: "blocks.0.material"); backend, device (the GPU's number), precision
    ("single"/"double"), end_time and output (the output folder) as ``fem run``'s options. A dict
    case's relative file paths (meshes) are read from base_dir (default: the working folder). The
    case is read, checked and built when first needed (mesh, run, info): bad input raises
    fem.InputError there.
    """

    def __init__(self, source, *, set=None, backend=None, device=None, precision=None,
                 end_time=None, output=None, base_dir=None):
        if isinstance(source, dict):
            self._file = None
            self._dict = source
        else:
            self._file = os.fspath(source)
            self._dict = None
        self._base_dir = base_dir
        self._options = {"backend": backend, "device": device, "precision": precision,
                         "end_time": end_time, "output": output}
        self._set = _overrides(set)
        self._prepared = None
        self._mesh = None

    @classmethod
    def from_dict(cls, keys, **kwargs):
        """The same as Case(keys, ...) for a dict of the case file's keys."""
        return cls(dict(keys), **kwargs)

    def with_set(self, set=None, **options):
        """A new Case with more overrides (later ones win) or other options."""
        source = self._dict if self._dict is not None else self._file
        merged = {k: v for k, v in self._options.items()}
        merged.update(options)
        c = Case(source, base_dir=self._base_dir, **merged)
        c._set = self._set + _overrides(set)
        return c

    def overrides(self):
        """The (key, text) overrides in the order applied, as `fem run` orders them: the
        options first, then set."""
        o = []
        if self._options["backend"]:
            o.append(("backend", self._options["backend"]))
        if self._options["device"] is not None:
            o.append(("device", str(self._options["device"])))
        if self._options["precision"]:
            o.append(("precision", self._options["precision"]))
        if self._options["output"]:
            o.append(("output.directory", os.fspath(self._options["output"])))
        if self._options["end_time"]:
            o.append(("solver.end_time", "%.17g" % self._options["end_time"]))
        return o + self._set

    def _prepare(self):
        if self._prepared is None:
            if self._dict is not None:
                # JSON is YAML: the dict's text, one key a line, is what messages point into.
                text = json.dumps(self._dict, indent=2, default=_json_default)
                label = "<dict>"
                if self._base_dir is not None:
                    label = os.path.join(os.fspath(self._base_dir), "<dict>")
                self._prepared = _fem.PreparedCase("", text, label, self.overrides())
            else:
                self._prepared = _fem.PreparedCase(self._file, None, "", self.overrides())
        return self._prepared

    @property
    def info(self):
        """name, file, backend, precision, solver, end_time, nodes, elements, dimension and the
        output folder of the case as overridden."""
        return self._prepare().info()

    @property
    def name(self):
        return self.info["name"]

    @property
    def mesh(self):
        if self._mesh is None:
            self._mesh = Mesh(self._prepare().mesh())
        return self._mesh

    @property
    def node_sets(self):
        return self.mesh.node_sets

    def run(self, *, progress=None, write_files=False, output=None, time_verbs=False):
        """Runs the case and returns a Result.

        progress(p): called with a Progress at every output frame or increment.
        write_files: also write what ``fem run`` writes (.pvd/.vtu, CSV, summary.json) into
        output (default: the case's output.directory, else <name>_results).
        Raises fem.SolveError when the solve fails, fem.Interrupted on Ctrl-C.
        """
        prepared = self._prepare()
        info = prepared.info()
        callback = None
        if progress is not None:
            end = info["end_time"]

            def callback(step, steps, time):
                progress(Progress(step, steps, time, end))

        try:
            d = prepared.run(write_files, os.fspath(output) if output else "", callback,
                             time_verbs)
        except KeyboardInterrupt as e:
            if isinstance(e, Interrupted):
                raise
            raise Interrupted("interrupted (Ctrl-C); the run stopped at the end of a step") from e
        return Result(d, self, info["histories"])

    def __repr__(self):
        source = "<dict>" if self._dict is not None else self._file
        return "<fem.Case %s, overrides %s>" % (source, self.overrides())


def _json_default(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError("a case value of type %s cannot be written as YAML" % type(value).__name__)


def run(source, *, progress=None, write_files=False, output=None, time_verbs=False, **case_options):
    """Case(source, **case_options).run(...): one call for a path or a dict."""
    return Case(source, **case_options).run(progress=progress, write_files=write_files,
                                           output=output, time_verbs=time_verbs)


def read_vtu(path):
    """A .vtu file fem wrote (``fem run``'s frames), as a dict: points, cell_types, offsets,
    connectivity, and point_fields / cell_fields {name: entities x components}."""
    return _fem.read_vtu(os.fspath(path))


def set_log_level(level):
    """fem's log level: "trace", "debug", "info" (what ``fem run`` prints), "warn" (default),
    "error" or "off"."""
    _fem.set_log_level(level)
