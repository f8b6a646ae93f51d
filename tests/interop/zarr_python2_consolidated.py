#!/usr/bin/env python3
# zarr-python 2's side of the consolidated metadata tests (tests/zarr/array/consolidated.test.cpp):
#   zarr_python2_consolidated.py write DIR
#     writes a Zarr v2 hierarchy into DIR with zarr-python 2, consolidates it with
#     zarr.consolidate_metadata, and prints what it holds (below)
#   zarr_python2_consolidated.py read DIR
#     opens DIR with zarr.open_consolidated (the documents come from .zmetadata only) and
#     prints what it holds
# What it holds, as JSON: {"attributes": root attributes, "arrays": {path: {"dtype", "shape",
# "attributes", "bytes": the values' little-endian C-order bytes in hex}}, "groups": [paths]}.
# Exits 3 when zarr-python 2 or NumPy is missing (the test then skips, or fails under CI=true);
# any other failure is a refusal.
import json
import sys

try:
    import numcodecs
    import numpy as np
    import zarr
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)


def describe(root):
    out = {"attributes": dict(root.attrs), "arrays": {}, "groups": []}

    def visit(path, node):
        if isinstance(node, zarr.Array):
            values = node[...]
            out["arrays"][path] = {
                "dtype": node.dtype.str,
                "shape": list(node.shape),
                "attributes": dict(node.attrs),
                "bytes": values.astype(values.dtype.newbyteorder("<")).tobytes().hex(),
            }
        else:
            out["groups"].append(path)

    root.visititems(visit)
    return out


def write(directory):
    store = zarr.DirectoryStore(directory)
    root = zarr.group(store=store, overwrite=True)
    root.attrs["title"] = "written by zarr-python 2"
    g = root.create_group("g")
    g.attrs["level"] = 1
    a = g.create_dataset("a", shape=(5, 4), chunks=(2, 3), dtype="<i4", fill_value=-1,
                         compressor=numcodecs.Zlib(level=1))
    a[...] = np.arange(20, dtype="<i4").reshape(5, 4) * 3 - 7
    a.attrs["units"] = "m"
    b = g.create_dataset("b", shape=(3,), chunks=(2,), dtype=">f8", fill_value=0.5, compressor=None)
    b[0:2] = [0.25, -1.5]  # the last chunk stays missing: the fill value
    c = root.create_dataset("deep/er/c", shape=(4,), chunks=(4,), dtype="|u1", fill_value=0, compressor=None)
    c[...] = [1, 2, 3, 250]
    zarr.consolidate_metadata(store)
    print(json.dumps(describe(zarr.open_consolidated(store, mode="r"))))


def read(directory):
    print(json.dumps(describe(zarr.open_consolidated(zarr.DirectoryStore(directory), mode="r"))))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "read"):
        sys.exit("usage: zarr_python2_consolidated.py write|read DIR")
    (write if sys.argv[1] == "write" else read)(sys.argv[2])
