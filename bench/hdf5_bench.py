#!/usr/bin/env python3
"""hdf5_bench.py PLUGIN_DIR CODES DIR [GIB]: write throughput of an integer dataset through
the gpz HDF5 filter (GPZ_BACKEND=gpu, then cpu) against HDF5's own deflate filter, and the
Python package's CuPy path.

CODES is a file of uint16 quantization codes (Nyx-Quant), tiled to GIB GiB (default 4) in
memory. Each run writes one chunked dataset (64 MiB chunks) into DIR (put it on tmpfs so the
disk is not measured), closes the file, and times it; then reads it back and compares. One
process a configuration (the plugin's backend is chosen once a process, from GPZ_BACKEND).
GB/s = 10^9 input bytes a second. Prints a Markdown table. H5_RUNS picks the runs (default
"gpz:gpu gpz:cpu deflate1:- deflate6:-"); gpz runs use Huffman-only (mode 1), which the GPU codes."""
import os
import subprocess
import sys
import time

CHUNK = 32 * 1024 * 1024  # elements: 64 MiB of uint16


def one(plugin, codes, path, gib, filt):
    """Child: write and read back one dataset; prints 'write_s read_s file_bytes'."""
    os.environ["HDF5_PLUGIN_PATH"] = plugin
    import h5py
    import numpy as np
    base = np.fromfile(codes, dtype=np.uint16)
    n = int(gib * (1 << 30)) // 2
    data = np.resize(base, n)  # tiled
    kw = {"compression": 310, "compression_opts": (1,)} if filt == "gpz" else \
         {"compression": "gzip", "compression_opts": int(filt[-1])}
    with h5py.File(path, "w") as f:  # a warm-up chunk: the plugin's context and GPU start
        f.create_dataset("w", data=data[:CHUNK], chunks=(CHUNK,), **kw)
    os.unlink(path)
    t0 = time.perf_counter()
    with h5py.File(path, "w") as f:
        f.create_dataset("q", data=data, chunks=(CHUNK,), **kw)
    t1 = time.perf_counter()
    with h5py.File(path, "r") as f:
        back = f["q"][:]
    t2 = time.perf_counter()
    ok = bool((back == data).all())
    size = os.path.getsize(path)
    os.unlink(path)
    print(f"{t1 - t0:.3f} {t2 - t1:.3f} {size} {int(ok)}")


def cupy_run(codes, gib):
    """Child: gpz.compress / decompress of a CuPy array (device memory), best of 3."""
    import cupy as cp
    import numpy as np
    import gpz
    n = int(gib * (1 << 30)) // 2
    d = cp.asarray(np.resize(np.fromfile(codes, dtype=np.uint16), n))
    best_c = best_d = 1e9
    for _ in range(3):
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        packed = gpz.compress(d, huffman=True)
        cp.cuda.runtime.deviceSynchronize()
        t1 = time.perf_counter()
        back = gpz.decompress(packed, dtype=np.uint16, shape=d.shape)
        cp.cuda.runtime.deviceSynchronize()
        t2 = time.perf_counter()
        best_c, best_d = min(best_c, t1 - t0), min(best_d, t2 - t1)
    ok = bool((back == d).all()) and type(back).__module__.startswith("cupy")
    print(f"{best_c:.4f} {best_d:.4f} {len(packed) if not hasattr(packed, 'nbytes') else packed.nbytes} {int(ok)}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        one(*sys.argv[2:5], float(sys.argv[5]), sys.argv[6])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--cupy":
        cupy_run(sys.argv[2], float(sys.argv[3]))
        return
    plugin, codes, d = sys.argv[1:4]
    gib = float(sys.argv[4]) if len(sys.argv) > 4 else 4
    raw = int(gib * (1 << 30))
    path = os.path.join(d, "bench.h5")
    print(f"| filter | backend | write s | write GB/s | read s | read GB/s | ratio | round trip |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    runs = os.environ.get("H5_RUNS", "gpz:gpu gpz:cpu deflate1:- deflate6:-").split()
    for filt, backend in (x.split(":") for x in runs):
        env = dict(os.environ, GPZ_BACKEND=backend)
        r = subprocess.run([sys.executable, __file__, "--one", plugin, codes, path, str(gib), filt],
                           env=env, capture_output=True, text=True)
        if r.returncode:
            print(f"| {filt} | {backend} | failed: {r.stderr.strip()[-300:]} |")
            continue
        w, rd, size, ok = r.stdout.split()
        w, rd = float(w), float(rd)
        print(f"| {filt} | {backend} | {w:.2f} | {raw / w / 1e9:.2f} | {rd:.2f} | "
              f"{raw / rd / 1e9:.2f} | {raw / int(size):.2f} | {'ok' if ok == '1' else 'WRONG'} |")
    r = subprocess.run([sys.executable, __file__, "--cupy", codes, str(gib)],
                       capture_output=True, text=True)
    if r.returncode:
        print(f"\nCuPy: failed: {r.stderr.strip()[-400:]}")
    else:
        c, dd, size, ok = r.stdout.split()
        print(f"\nCuPy device array, {gib} GiB uint16, Huffman-only: compress {float(c):.3f} s "
              f"({raw / float(c) / 1e9:.1f} GB/s), decompress {float(dd):.3f} s "
              f"({raw / float(dd) / 1e9:.1f} GB/s), ratio {raw / int(size):.2f}, "
              f"round trip {'ok' if ok == '1' else 'WRONG'}")


main()
