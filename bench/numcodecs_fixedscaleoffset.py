#!/usr/bin/python3
"""numcodecs' FixedScaleOffset on the data of bench/scale_offset_cast.cpp: prints
items per second for encode and decode (best of 5), one JSON line."""
import json
import time

import numpy as np
from numcodecs import FixedScaleOffset

n = 1 << 22
i = np.arange(n, dtype=np.uint64)
data = (np.float32(-20.0) + ((i * np.uint64(2654435761)) % np.uint64(25500)).astype(np.float32) / np.float32(400.0)).astype(np.float32)
codec = FixedScaleOffset(offset=-20, scale=4, dtype="<f4", astype="u1")

def best(f):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)

encoded = codec.encode(data)
print(json.dumps({"encode_items_per_second": n / best(lambda: codec.encode(data)),
                  "decode_items_per_second": n / best(lambda: codec.decode(encoded))}))
