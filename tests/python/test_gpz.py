"""pytest: the gpz Python package (python/gpz) against the library it loads (GPZ_LIBRARY, or
the copy `pip install .` put beside it)."""
import numpy as np
import pytest

import gpz

rng = np.random.default_rng(3)


def codes(n, dtype):
    a = np.full(n, 7, dtype=dtype)
    idx = rng.choice(n, size=n // 10, replace=False)
    a[idx] = rng.integers(0, 100, size=idx.size).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_integer_arrays_round_trip(dtype):
    a = codes(300001, dtype)
    packed = gpz.compress(a)
    assert isinstance(packed, bytes) and len(packed) < a.nbytes
    back = gpz.decompress(packed, dtype=dtype)
    assert back.dtype == np.dtype(dtype) and np.array_equal(back, a)


def test_shape_and_floats():
    a = rng.normal(size=(123, 77)).astype(np.float32)
    back = gpz.decompress(gpz.compress(a), dtype=np.float32, shape=a.shape)
    assert back.shape == a.shape and np.array_equal(back, a)


def test_bytes_and_levels():
    text = b"the quick brown fox jumps over the lazy dog. " * 5000
    for level in (1, 6, 9):
        packed = gpz.compress(text, level=level)
        assert len(packed) < len(text) // 20
        assert gpz.decompress(packed) == text
    assert gpz.decompress(gpz.compress(text, huffman=True)) == text
    assert gpz.decompress(gpz.compress(b"")) == b""
    assert gpz.decompress(gpz.compress(bytearray(b"x"))) == b"x"


def test_same_bytes_as_cpu_backend():
    a = codes(1 << 20, np.uint16)
    assert gpz.compress(a, backend="auto") == gpz.compress(a, backend="cpu")


def test_values_past_the_alphabet():
    a = np.array([1 << 25, 3, 4, 5] * 100, dtype=np.uint32)
    with pytest.raises(gpz.GpzError, match="alphabet"):
        gpz.compress(a, huffman=True)  # asked for symbols: the library's error
    for packed in (gpz.compress(a), gpz.compress(a, level=1)):  # the default falls back to LZ
        assert np.array_equal(gpz.decompress(packed, dtype=np.uint32), a)


def test_corrupt_input_raises():
    packed = bytearray(gpz.compress(codes(100000, np.uint16)))
    packed[len(packed) // 2] ^= 0x40
    with pytest.raises(gpz.GpzError):
        gpz.decompress(bytes(packed))
    with pytest.raises(gpz.GpzError):
        gpz.decompress(b"not a gpz stream at all")
    with pytest.raises(gpz.GpzError):
        gpz.decompress(bytes(packed[:40]))


def test_bad_arguments():
    with pytest.raises(ValueError):
        gpz.compress(b"abc", backend="tpu")
    with pytest.raises(ValueError):
        gpz.compress(b"abc", level=12)


def test_cupy_device_arrays():
    cp = pytest.importorskip("cupy")
    if not gpz.gpu_available():
        pytest.skip("no usable GPU")
    a = codes(1 << 22, np.uint16)
    d = cp.asarray(a)
    packed = gpz.compress(d)
    assert isinstance(packed, cp.ndarray)
    assert cp.asnumpy(packed).tobytes() == gpz.compress(a, backend="cpu")
    back = gpz.decompress(packed, dtype=cp.uint16)
    assert isinstance(back, cp.ndarray) and np.array_equal(cp.asnumpy(back), a)
