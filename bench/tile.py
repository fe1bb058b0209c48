#!/usr/bin/env python3
"""tile.py SRC DST BYTES: DST = SRC repeated to exactly BYTES bytes (left alone if DST exists).
The benchmarks make their large inputs this way from the corpora they carry."""
import os
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if not os.path.exists(dst):
    data = open(src, "rb").read()
    with open(dst, "wb") as f:
        while n > 0:
            f.write(data[:n])
            n -= len(data[:n])
