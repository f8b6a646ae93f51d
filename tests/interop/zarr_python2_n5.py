# zarr-python 2's N5Store (zarr 2.13, Debian's /usr/bin/python3) for zarr.tests.codec
# (tests/zarr/codec/array_to_bytes/n5_default.test.cpp): N5 default-mode blocks, padded at the
# array's edges, in N5's column-major order with big-endian values.
#   write DIR   writes DIR/raw.n5 (uint16, shape (5, 7), chunks (2, 3), no compression) and
#               DIR/gzip.n5 (float64, shape (4, 3, 5), chunks (3, 2, 2), gzip level 5), each
#               holding arange(n) (float64: arange(n) / 4) in NumPy's C order
#   read PATH   prints the array at PATH as JSON: its NumPy shape and its values in C order
import json
import sys

try:
    import numcodecs
    import numpy as np
    import zarr
except ImportError as e:  # the peer is missing: exit 3, a skip (tests/support.hpp peer_module_missing)
    print("missing Python module: %s" % e, file=sys.stderr)
    sys.exit(3)

if sys.argv[1] == "write":
    folder = sys.argv[2]
    raw = zarr.zeros((5, 7), chunks=(2, 3), dtype="<u2", store=zarr.N5Store(folder + "/raw.n5"), compressor=None)
    raw[:] = np.arange(35, dtype="<u2").reshape(5, 7)
    gz = zarr.zeros((4, 3, 5), chunks=(3, 2, 2), dtype="<f8", store=zarr.N5Store(folder + "/gzip.n5"),
                    compressor=numcodecs.GZip(level=5))
    gz[:] = (np.arange(60, dtype="<f8") / 4).reshape(4, 3, 5)
else:
    a = zarr.open(zarr.N5Store(sys.argv[2]), mode="r")
    print(json.dumps({"shape": list(a.shape), "values": a[...].ravel().tolist()}))
