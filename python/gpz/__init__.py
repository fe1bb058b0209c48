"""gpz for Python: compress and decompress bytes, NumPy arrays and CuPy device arrays.

    import gpz, numpy as np
    codes = np.zeros(1 << 20, np.uint16)
    packed = gpz.compress(codes)                   # bytes, a .gpz stream
    back = gpz.decompress(packed, dtype=np.uint16) # a NumPy array again
    assert (back == codes).all()

Integer arrays of 1, 2 or 4-byte elements are coded as symbols of that width (Huffman-only or
LZ over symbols, whichever is smaller per frame: quantization codes); bytes and other arrays in
LZ mode (level 6 unless `level` says otherwise), as the gpz tool does. CuPy arrays stay on the
GPU: they go through the library's device-buffer calls and come back as CuPy arrays. Errors
raise gpz.GpzError with the library's message.

The module calls libgpz through ctypes: the copy installed beside it by `pip install .`, or the
one named by the GPZ_LIBRARY environment variable (a build tree's libgpz.so)."""
import ctypes
import os
import threading

__all__ = ["compress", "decompress", "GpzError", "gpu_available", "version"]

_here = os.path.dirname(os.path.abspath(__file__))
_lib = ctypes.CDLL(os.environ.get("GPZ_LIBRARY") or os.path.join(_here, "libgpz.so"))


class _Params(ctypes.Structure):
    _fields_ = [("symbol_bytes", ctypes.c_int), ("chunk_log", ctypes.c_int),
                ("frame_bytes", ctypes.c_size_t), ("lz_level", ctypes.c_int),
                ("lz_symbols", ctypes.c_int), ("huff_lanes", ctypes.c_int)]


_p, _sz, _vp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
for name, res, args in [
        ("gpz_result_string", ctypes.c_char_p, [ctypes.c_int]),
        ("gpz_version", ctypes.c_char_p, []),
        ("gpz_gpu_available", ctypes.c_int, []),
        ("gpz_ctx_create", ctypes.c_int, [ctypes.POINTER(_p), ctypes.c_int, ctypes.c_int]),
        ("gpz_ctx_free", None, [_p]),
        ("gpz_ctx_backend", ctypes.c_int, [_p]),
        ("gpz_params_default", None, [ctypes.POINTER(_Params)]),
        ("gpz_compress_bound", _sz, [_sz, ctypes.POINTER(_Params)]),
        ("gpz_compress", ctypes.c_int, [_p, ctypes.POINTER(_Params), _vp, _sz, _vp, _sz,
                                        ctypes.POINTER(_sz)]),
        ("gpz_decompressed_size", ctypes.c_int, [_vp, _sz, ctypes.POINTER(ctypes.c_uint64)]),
        ("gpz_decompress", ctypes.c_int, [_p, _vp, _sz, _vp, _sz, ctypes.POINTER(_sz)]),
        ("gpz_compress_device", ctypes.c_int, [_p, ctypes.POINTER(_Params), _vp, _sz, _vp, _sz,
                                               ctypes.POINTER(_sz), _vp]),
        ("gpz_decompress_device", ctypes.c_int, [_p, _vp, _sz, _vp, _sz, ctypes.POINTER(_sz),
                                                 _vp])]:
    fn = getattr(_lib, name)
    fn.restype, fn.argtypes = res, args

_AUTO, _CPU, _GPU = 0, 1, 2
_LZS_AUTO = 2
_ERR_ALPHABET = 5  # gpz_result: a symbol value past the largest alphabet (2^20)


class GpzError(Exception):
    """A call into libgpz failed; the message is the library's."""


def _check(r, what):
    if r != 0:
        raise GpzError(f"{what}: {_lib.gpz_result_string(r).decode()}")


def version():
    return _lib.gpz_version().decode()


def gpu_available():
    return bool(_lib.gpz_gpu_available())


_ctxs = {}
_ctx_lock = threading.Lock()


def _ctx(backend):
    """One context per backend for the process (GPU resources are kept between calls)."""
    key = {"auto": _AUTO, "cpu": _CPU, "gpu": _GPU}.get(backend)
    if key is None:
        raise ValueError("backend must be 'auto', 'cpu' or 'gpu'")
    with _ctx_lock:
        if key not in _ctxs:
            c = _p()
            _check(_lib.gpz_ctx_create(ctypes.byref(c), key, 0), f"the {backend} backend")
            _ctxs[key] = c
        return _ctxs[key]


def _is_cupy(a):
    return type(a).__module__.split(".")[0] == "cupy"


def _params(itemsize, kind, level, huffman):
    """Integers of 1, 2 or 4 bytes as symbols; everything else (and level) LZ mode."""
    p = _Params()
    _lib.gpz_params_default(ctypes.byref(p))
    if level is None and kind in "iu" and itemsize in (1, 2, 4):
        p.symbol_bytes = itemsize
        p.lz_symbols = 0 if huffman else _LZS_AUTO
    elif huffman:
        p.symbol_bytes = itemsize if itemsize in (1, 2, 4) else 1
    else:
        p.lz_level = 6 if level is None else int(level)
    return p


def compress(data, level=None, huffman=False, backend="auto"):
    """Compress bytes-like data, a NumPy array or a CuPy array into a .gpz stream.

    level: LZ mode at this DEFLATE level (1-9) for any data; by default integer arrays of
    1/2/4-byte elements are coded as symbols of that width (in LZ mode when 4-byte values pass
    the symbol alphabet, 2^20) and the rest in LZ mode at 6.
    huffman: Huffman-only frames (symbol width from the dtype; bytes for bytes-like input).
    backend: 'auto' (GPU when usable), 'cpu' or 'gpu'. Returns bytes (a CuPy uint8 array for
    CuPy input)."""
    if _is_cupy(data):
        return _compress_device(data, level, huffman, backend)
    import numpy as np
    a = np.ascontiguousarray(data) if isinstance(data, np.ndarray) else \
        np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    kind = a.dtype.kind if isinstance(data, np.ndarray) else "b"
    p = _params(a.dtype.itemsize, kind, level, huffman)
    cap = _lib.gpz_compress_bound(a.nbytes, ctypes.byref(p))
    if cap == 0:
        raise ValueError(f"invalid parameters (level {level})")
    out = ctypes.create_string_buffer(cap)
    n = _sz()
    r = _lib.gpz_compress(_ctx(backend), ctypes.byref(p), a.ctypes.data, a.nbytes, out, cap,
                          ctypes.byref(n))
    if r == _ERR_ALPHABET and level is None and not huffman:
        return compress(a.view(np.uint8), level=6, backend=backend)  # 4-byte values >= 2^20
    _check(r, "compress")
    return out.raw[:n.value]


def decompress(data, dtype=None, shape=None, backend="auto"):
    """Decompress a .gpz stream (bytes-like, or a CuPy uint8 array on the GPU).

    Returns bytes, or with dtype (and optionally shape) a NumPy array (a CuPy array for CuPy
    input)."""
    if _is_cupy(data):
        return _decompress_device(data, dtype, shape, backend)
    import numpy as np
    src = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    size = ctypes.c_uint64()
    _check(_lib.gpz_decompressed_size(src.ctypes.data, src.nbytes, ctypes.byref(size)),
           "decompress")
    out = np.empty(size.value, dtype=np.uint8)
    n = _sz()
    _check(_lib.gpz_decompress(_ctx(backend), src.ctypes.data, src.nbytes, out.ctypes.data,
                               out.nbytes, ctypes.byref(n)), "decompress")
    if dtype is None:
        return out.tobytes()
    a = out.view(dtype)
    return a.reshape(shape) if shape is not None else a


def _compress_device(d, level, huffman, backend):
    import cupy as cp
    a = cp.ascontiguousarray(d)
    p = _params(a.dtype.itemsize, a.dtype.kind, level, huffman)
    cap = _lib.gpz_compress_bound(a.nbytes, ctypes.byref(p))
    out = cp.empty(cap, dtype=cp.uint8)
    n = _sz()
    stream = cp.cuda.get_current_stream().ptr
    _check(_lib.gpz_compress_device(_ctx("gpu" if backend == "auto" else backend),
                                    ctypes.byref(p), a.data.ptr, a.nbytes, out.data.ptr, cap,
                                    ctypes.byref(n), stream), "compress (device)")
    return out[:n.value]


def _decompress_device(d, dtype, shape, backend):
    import cupy as cp
    src = cp.ascontiguousarray(d).view(cp.uint8)
    # the trailer at the end of the stream records the size: 20 bytes to the host
    tail = cp.asnumpy(src[-20:]) if src.size >= 20 else b""
    size = int.from_bytes(bytes(tail[8:16]), "little") if len(tail) == 20 else 0
    out = cp.empty(max(size, 1), dtype=cp.uint8)
    n = _sz()
    stream = cp.cuda.get_current_stream().ptr
    _check(_lib.gpz_decompress_device(_ctx("gpu" if backend == "auto" else backend),
                                      src.data.ptr, src.size, out.data.ptr, size,
                                      ctypes.byref(n), stream), "decompress (device)")
    out = out[:n.value]
    if dtype is None:
        return out
    a = out.view(dtype)
    return a.reshape(shape) if shape is not None else a
