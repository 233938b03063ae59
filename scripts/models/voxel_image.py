#!/usr/bin/env python3
"""A segmented 3D image for voxel meshes (mesh.image): an "organ with a tumour" written as
MetaImage (.mhd header + .raw data, one unsigned byte per voxel), standard-library Python only.

Labels: 0 background; 1 the organ, an ellipsoid with a shallow dent on one side; 2 a tumour, a
sphere inside the organ near the dent. The image has n x n x n voxels of `spacing` millimetres
(default 64^3 of 1.5 mm, a 96 mm cube), origin at the first voxel's centre (0, 0, 0).

    python3 scripts/models/voxel_image.py -o /tmp/organ.mhd            # 64^3
    python3 scripts/models/voxel_image.py -n 128 --spacing 0.75 -o /tmp/organ.mhd

A case then meshes it with `mesh: {image: /tmp/organ.mhd, scale: 0.001}` (mm -> m) and gives
the regions label_1 and label_2 their materials (docs/case-reference.md#segmented-images).
"""
import argparse
import os


def label(p):
    """The label at normalised position p in [-1, 1]^3."""
    x, y, z = p
    tumour = (x - 0.3) ** 2 + (y + 0.1) ** 2 + (z - 0.05) ** 2 <= 0.18**2
    if tumour:
        return 2
    organ = (x / 0.85) ** 2 + (y / 0.65) ** 2 + (z / 0.55) ** 2 <= 1.0
    dent = (x - 0.95) ** 2 + y**2 + z**2 <= 0.3**2
    return 1 if organ and not dent else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help="the .mhd file (its .raw beside it)")
    parser.add_argument("-n", type=int, default=64, help="voxels along each axis (default 64)")
    parser.add_argument("--spacing", type=float, default=1.5, help="voxel edge in mm (1.5)")
    args = parser.parse_args()
    if args.n < 2:
        parser.error("-n must be at least 2")
    n = args.n
    centres = [(2 * i + 1 - n) / n for i in range(n)]  # normalised voxel centres
    data = bytearray(n * n * n)
    v = 0
    for z in centres:  # x fastest, then y, then z: the order MetaImage stores
        for y in centres:
            for x in centres:
                data[v] = label((x, y, z))
                v += 1
    base = os.path.splitext(args.output)[0]
    raw = base + ".raw"
    with open(raw, "wb") as f:
        f.write(data)
    with open(args.output, "w", encoding="ascii") as f:
        f.write("ObjectType = Image\nNDims = 3\nBinaryData = True\n"
                "BinaryDataByteOrderMSB = False\n"
                f"DimSize = {n} {n} {n}\n"
                f"ElementSpacing = {args.spacing} {args.spacing} {args.spacing}\n"
                "Offset = 0 0 0\nElementType = MET_UCHAR\n"
                f"ElementDataFile = {os.path.basename(raw)}\n")
    counts = [data.count(k) for k in (0, 1, 2)]
    print(f"{args.output}: {n}^3 voxels of {args.spacing} mm; background {counts[0]}, "
          f"organ (label 1) {counts[1]}, tumour (label 2) {counts[2]}")


if __name__ == "__main__":
    main()
