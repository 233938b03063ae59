#!/usr/bin/env python3
"""The cube of cases/cube_compression.yaml from Python: a small mesh, three stiffnesses, the force
on the top face against its displacement, and where the stress is largest. Nothing is written.

    PYTHONPATH=build/python python3 docs/examples/cube_from_python.py [--divisions 6]

(with fem installed by pip or `cmake --install`, `python3 docs/examples/...` alone). See
docs/python.md.
"""

import argparse
import os

import numpy as np

import fem

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "..", "cases", "cube_compression.yaml")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default=CASE)
    parser.add_argument("--divisions", type=int, default=5)
    parser.add_argument("--end-time", type=float, default=1.0)
    parser.add_argument("--backend", default="openmp")
    args = parser.parse_args()

    base = fem.Case(args.case, backend=args.backend, end_time=args.end_time,
                    set={"mesh.divisions": args.divisions})
    mesh = base.mesh
    print("%s: %d nodes, %d elements, node sets %s" % (
        base.name, mesh.num_nodes, mesh.num_cells, ", ".join(sorted(mesh.node_sets))))

    for modulus in (1500.0, 3000.0, 6000.0):
        case = base.with_set({"materials.brain.youngs_modulus": modulus})
        last = []
        result = case.run(progress=lambda p: last.append(p))
        top = result.histories["top"]
        stress = result.cell_fields["von_mises"][-1, :, 0]
        worst = int(np.argmax(stress))
        centre = mesh.points[mesh.cell(worst)].mean(axis=0)
        print("E = %6.0f Pa: %d steps, top pushed %.3f mm with %.4f N; largest von Mises "
              "%.1f Pa in element %d at (%.1f, %.1f, %.1f) mm" % (
                  modulus, last[-1].step, -1e3 * top["displacement_z"][-1],
                  top["reaction_force_z"][-1], stress[worst], worst, *(1e3 * centre)))

    try:
        base.with_set({"solver.safty_factor": 0.5}).run()
    except fem.InputError as e:
        print("a misspelt key is refused (exit code %d as `fem run` would): %s" % (
            e.exit_code, str(e).splitlines()[0]))


if __name__ == "__main__":
    main()
