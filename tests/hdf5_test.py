#!/usr/bin/env python3
"""hdf5_test.py PLUGIN_DIR SCRATCH_DIR: the gpz HDF5 filter plugin through h5py and h5dump.

Writes chunked datasets through the plugin (filter 310) with h5py: integer codes of 1, 2 and 4
bytes (values past the 4-byte symbol alphabet too), floats, text bytes, every mode, edge chunks
that are partly outside the dataset; reads them back and compares; checks the filter is in the
dataset's pipeline with the element width recorded; h5dump (where installed) reads a dataset
through the plugin; a corrupted chunk gives an HDF5 error in Python, not a crash. Exits 77
(skipped) when h5py is not installed."""
import os
import subprocess
import sys

plugin_dir, scratch = sys.argv[1], sys.argv[2]
os.environ["HDF5_PLUGIN_PATH"] = plugin_dir
try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"SKIP: h5py or numpy missing ({e}); Debian: python3-h5py")
    sys.exit(77)

GPZ = 310
os.makedirs(scratch, exist_ok=True)
path = os.path.join(scratch, "gpz_filter.h5")
rng = np.random.default_rng(7)
checks = 0


def check(cond, what):
    global checks
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    checks += 1
    print(f"ok    {what}")


def codes(shape, dtype):
    """Quantization-code-like integers: mostly the zero-error code, in runs, and a spread."""
    mid = 1 << (np.dtype(dtype).itemsize * 8 - 1) if np.dtype(dtype).kind == "u" else 0
    mid = min(mid, 512)
    a = np.full(shape, mid, dtype=dtype)
    n = a.size
    idx = rng.choice(n, size=n // 8, replace=False)
    flat = a.reshape(-1)
    flat[idx] = (mid + rng.integers(-40, 40, size=idx.size)).astype(dtype)
    return a


text = (b"HDF5 chunks of English text compress with LZ; " * 4000)[:150001]
cases = {
    # name: (data, chunks, compression_opts)
    "u16_codes": (codes((1000, 700), np.uint16), (256, 256), None),
    "u8_codes": (codes((3001,), np.uint8), (1000,), None),
    "i32_codes": (codes((200, 300), np.int32), (64, 100), (1,)),
    "u32_wide": (rng.integers(0, 2**32, size=(5000,), dtype=np.uint32), (1024,), None),
    "f32_lz": (rng.normal(size=(300, 301)).astype(np.float32), (100, 100), (2, 6)),
    "text": (np.frombuffer(text, dtype=np.uint8), (65536,), (2, 1)),
    "u16_huffman": (codes((4096,), np.uint16), (4096,), (1,)),
    "one_value": (np.full((10000,), 3, dtype=np.int16), (3000,), None),
}
with h5py.File(path, "w") as f:
    for name, (data, chunks, opts) in cases.items():
        kw = {"compression": GPZ, "chunks": chunks}
        if opts is not None:
            kw["compression_opts"] = opts
        f.create_dataset(name, data=data, **kw)
with h5py.File(path, "r") as f:
    for name, (data, chunks, opts) in cases.items():
        d = f[name]
        check(np.array_equal(d[()], data), f"{name}: read back equal")
        filt = d.id.get_create_plist().get_filter_by_id(GPZ)
        cd = list(filt[1])
        width = data.dtype.itemsize if data.dtype.kind in "iu" and data.dtype.itemsize in (1, 2, 4) else 0
        check(len(cd) == 4 and cd[0] == 1 and cd[3] == width,
              f"{name}: filter {GPZ} in the pipeline, cd_values {cd} (width {width})")
    raw = f["text"].id.get_storage_size()
    check(raw < len(text) // 10, f"text: stored in {raw} bytes of {len(text)}")
    raw = f["u16_codes"].id.get_storage_size()
    check(raw < cases["u16_codes"][0].nbytes // 4,
          f"u16 codes: stored in {raw} bytes of {cases['u16_codes'][0].nbytes}")

# bad options are refused when the dataset is created
with h5py.File(os.path.join(scratch, "bad_opts.h5"), "w") as f:
    try:
        f.create_dataset("x", data=np.arange(100), chunks=(10,), compression=GPZ,
                         compression_opts=(9,))
        refused = False
    except (ValueError, OSError, RuntimeError):
        refused = True
    check(refused, "an unknown mode is refused")

# h5dump reads through the plugin
h5dump = subprocess.run(["sh", "-c", "command -v h5dump"], capture_output=True, text=True).stdout.strip()
if h5dump:
    r = subprocess.run([h5dump, "-d", "/u8_codes", "-s", "0", "-c", "5", path],
                       capture_output=True, text=True, env=dict(os.environ))
    want = ", ".join(str(v) for v in cases["u8_codes"][0][:5])
    check(r.returncode == 0 and want in r.stdout, f"h5dump reads the data ({want})")
    if r.returncode != 0 or want not in r.stdout: # once seen under load in CI, not reproduced
        print(f"h5dump exit {r.returncode}\nstdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-2000:]}")
else:
    print("SKIP  h5dump not installed (Debian: hdf5-tools)")

# a corrupted chunk: an HDF5 error, not a crash (in a child process, so a crash is seen)
bad = os.path.join(scratch, "corrupt.h5")
with h5py.File(bad, "w") as f:
    f.create_dataset("c", data=codes((65536,), np.uint16), chunks=(65536,), compression=GPZ)
with h5py.File(bad, "r") as f:
    info = f["c"].id.get_chunk_info(0)
    offset, size = info.byte_offset, info.size
for pos in (offset + size // 2, offset + 40, offset + size - 3):
    with open(bad, "r+b") as fh:
        fh.seek(pos)
        b = fh.read(1)
        fh.seek(pos)
        fh.write(bytes([b[0] ^ 0x5A]))
    child = ("import h5py, sys\n"
             "try:\n"
             f"    h5py.File({bad!r}, 'r')['c'][()]\n"
             "except OSError as e:\n"
             "    print('error:', e); sys.exit(3)\n"
             "sys.exit(0)\n")
    r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    check(r.returncode == 3, f"byte {pos - offset} of a {size}-byte chunk flipped: an HDF5 error "
          f"(exit {r.returncode})")
    with open(bad, "r+b") as fh:  # put it back for the next position
        fh.seek(pos)
        fh.write(b)

print(f"hdf5: all {checks} checks passed")
