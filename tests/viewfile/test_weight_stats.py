"""weight_stats: one weight's statistics from its bytes on disk, against numpy on the same
values read another way (the parser's full protobuf decode, or arrays written by the test),
for every dtype, in chunks of any size; clear errors for bad input; bounded memory."""

import json
import shutil
import textwrap

import numpy as np
import pytest

from ascend_lab.parsers.mindir.mind_ir_fields import ENUMS, MESSAGES
from ascend_lab.parsers.mindir.protobuf_wire import Schema, decode
from ascend_lab.viewfile.weight_stats import (
    WeightStatsError,
    all_weight_stats,
    weight_names,
    weight_stats,
)
from benchmarks.support import mindir_writer as mw
from tests.support.ir_fixtures import FIXTURES
from tests.support.python import run_python

LENET = FIXTURES / "lenet" / "lenet.mindir"
NUMPY_DTYPES = {
    mw.FLOAT: "<f4",
    mw.FLOAT16: "<f2",
    mw.DOUBLE: "<f8",
    mw.FLOAT64: "<f8",
    mw.INT8: "i1",
    mw.INT32: "<i4",
    mw.INT64: "<i8",
    mw.UINT8: "u1",
    mw.BOOL: "u1",
}


def reference(values, bins=32):
    """What weight_stats should say about ``values``, computed by numpy in one go."""
    values = np.asarray(values)
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    wide = finite.astype(np.float64)
    out = {
        "count": values.size,
        "zeros": int(np.count_nonzero(values == 0)),
        "nan": int(np.count_nonzero(np.isnan(values))) if values.dtype.kind == "f" else 0,
        "inf": int(np.count_nonzero(np.isinf(values))) if values.dtype.kind == "f" else 0,
        "min": float(wide.min()),
        "max": float(wide.max()),
        "mean": float(wide.mean()),
        "std": float(wide.std()),
    }
    if values.dtype.kind == "f":
        counts, edges = np.histogram(wide, bins=bins, range=(wide.min(), wide.max()))
    else:
        n = min(bins, int(wide.max() - wide.min()) + 1)
        counts, edges = np.histogram(wide, bins=np.linspace(wide.min(), wide.max() + 1, n + 1))
    out["histogram"] = {"edges": edges.tolist(), "counts": counts.tolist()}
    return out


def assert_matches(stats, expected):
    for key in ("count", "zeros", "nan", "inf"):
        assert stats[key] == expected[key], key
    for key in ("min", "max", "mean", "std"):
        assert stats[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key
    assert stats["histogram"]["counts"] == expected["histogram"]["counts"]
    assert stats["histogram"]["edges"] == pytest.approx(expected["histogram"]["edges"])
    assert (
        sum(stats["histogram"]["counts"]) == expected["count"] - expected["nan"] - expected["inf"]
    )


# ---------------------------------------------------------------------------- real file


def lenet_arrays():
    """LeNet's weights decoded by the parser's own protobuf decoder (not by offsets)."""
    schema = Schema(MESSAGES, ENUMS)
    model = decode(LENET.read_bytes(), schema, "ModelProto")
    out = {}
    for p in model.graph.parameter:
        assert p.data_type == 1  # float32
        out[p.name.split(":", 1)[1]] = np.frombuffer(p.raw_data, "<f4").reshape(list(p.dims))
    return out


@pytest.mark.parametrize("chunk", [1 << 20, 1000, 7])
def test_every_lenet_weight_matches_numpy(chunk):
    arrays = lenet_arrays()
    assert weight_names(str(LENET)) == list(arrays)
    for name, values in arrays.items():
        stats = weight_stats(str(LENET), name, chunk_elements=chunk)
        assert stats["name"] == name and stats["dtype"] == "Float32"
        assert stats["shape"] == list(values.shape)
        assert_matches(stats, reference(values))
    json.dumps(stats, allow_nan=False)  # what the endpoint sends is strict JSON


def test_full_name_with_the_graph_prefix_works_too():
    schema = Schema(MESSAGES, ENUMS)
    full = decode(LENET.read_bytes(), schema, "ModelProto").graph.parameter[0].name
    assert ":" in full and weight_stats(str(LENET), full)["name"] == full.split(":", 1)[1]


def test_all_weights_with_progress():
    seen = []
    stats = all_weight_stats(str(LENET), progress=lambda done, total, name: seen.append(done))
    assert list(stats) == weight_names(str(LENET)) and seen == list(range(1, 9))
    assert all("error" not in s and s["count"] > 0 for s in stats.values())


def test_written_files_are_what_the_parser_decodes(tmp_path):
    """The test writer's bytes, read by the parser's own wire decoder."""
    path = tmp_path / "m.mindir"
    data = np.arange(6, dtype="<f4").tobytes()
    mw.write_mindir(
        str(path),
        [mw.Weight("a", mw.FLOAT, [2, 3], data), mw.Weight("d", mw.INT64, [-1, 300], bytes(0))],
    )
    graph = decode(path.read_bytes(), Schema(MESSAGES, ENUMS), "ModelProto").graph
    a, d = graph.parameter
    assert (a.name, list(a.dims), a.data_type, bytes(a.raw_data)) == ("main:a", [2, 3], 1, data)
    assert (d.name, list(d.dims), d.data_type) == ("main:d", [-1, 300], mw.INT64)
    assert [n.op_type for n in graph.node] == ["Add"]


# ---------------------------------------------------------------------------- every dtype


def values_for(code, rng):
    if code == mw.BOOL:
        return rng.integers(0, 2, 999).astype("u1")
    kind = np.dtype(NUMPY_DTYPES[code])
    if kind.kind == "f":
        values = rng.normal(0.5, 3.0, 1000).astype(kind)
        values[[3, 10, 500]] = [np.nan, np.inf, -np.inf]
        values[[4, 5]] = 0
        return values
    info = np.iinfo(kind)
    values = rng.integers(info.min, info.max, 1000, dtype=kind, endpoint=True)
    values[[0, 1, 2]] = [info.min, info.max, 0]
    return values


@pytest.mark.parametrize("chunk", [1 << 20, 13])
@pytest.mark.parametrize(
    "code",
    [mw.FLOAT, mw.FLOAT16, mw.DOUBLE, mw.FLOAT64, mw.INT8, mw.INT32, mw.INT64, mw.UINT8, mw.BOOL],
)
def test_each_dtype_matches_numpy(tmp_path, code, chunk):
    values = values_for(code, np.random.default_rng(code))
    path = tmp_path / "m.mindir"
    mw.write_mindir(str(path), [mw.Weight("w", code, [values.size], values.tobytes())])
    stats = weight_stats(str(path), "w", chunk_elements=chunk)
    expected = reference(values != 0 if code == mw.BOOL else values)
    assert_matches(stats, expected)
    if code == mw.INT64:  # exact, not rounded through float64
        assert stats["min"] == int(values.min()) and stats["max"] == int(values.max())


def test_bfloat16_is_the_upper_half_of_float32(tmp_path):
    rng = np.random.default_rng(1)
    full = rng.normal(0, 2, 777).astype("<f4")
    full[7] = np.nan
    upper = (full.view("<u4") >> 16).astype("<u2")  # what bfloat16 stores
    exact = (upper.astype("<u4") << 16).view("<f4")  # the values it means
    path = tmp_path / "bf.mindir"
    mw.write_mindir(str(path), [mw.Weight("w", mw.BFLOAT16, [777], upper.tobytes())])
    stats = weight_stats(str(path), "w", chunk_elements=100)
    assert stats["dtype"] == "BFloat16"
    assert_matches(stats, reference(exact))


def test_all_equal_and_all_nan(tmp_path):
    path = tmp_path / "m.mindir"
    same = np.full(10, 2.5, "<f4")
    nans = np.full(4, np.nan, "<f4")
    mw.write_mindir(
        str(path),
        [
            mw.Weight("same", mw.FLOAT, [10], same.tobytes()),
            mw.Weight("nans", mw.FLOAT, [2, 2], nans.tobytes()),
            mw.Weight("scalar", mw.FLOAT, [], np.array(1.0, "<f4").tobytes()),
        ],
    )
    s = weight_stats(str(path), "same")
    assert (s["min"], s["max"], s["std"]) == (2.5, 2.5, 0.0)
    assert s["histogram"] == {"edges": [2.5, 2.5], "counts": [10]}
    n = weight_stats(str(path), "nans")
    assert n["nan"] == 4 and n["min"] is None and n["mean"] is None
    assert n["histogram"] == {"edges": [], "counts": []}
    json.dumps(n, allow_nan=False)
    assert weight_stats(str(path), "scalar")["count"] == 1


# ---------------------------------------------------------------------------- bad input


def test_missing_name_lists_the_weights():
    with pytest.raises(WeightStatsError) as info:
        weight_stats(str(LENET), "conv9.weight")
    message = str(info.value)
    assert "no weight named 'conv9.weight'" in message and "conv1.weight" in message


def test_truncated_file_says_so(tmp_path):
    data = LENET.read_bytes()
    cut = tmp_path / "cut.mindir"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightStatsError, match="corrupt or truncated MindIR"):
        weight_stats(str(cut), "fc3.bias")
    (tmp_path / "empty.mindir").write_bytes(b"")
    with pytest.raises(WeightStatsError, match="empty file"):
        weight_stats(str(tmp_path / "empty.mindir"), "w")
    with pytest.raises(WeightStatsError, match="no such file"):
        weight_stats(str(tmp_path / "nope.mindir"), "w")


def test_data_of_the_wrong_size_is_corrupt(tmp_path):
    path = tmp_path / "m.mindir"
    mw.write_mindir(str(path), [mw.Weight("w", mw.FLOAT, [4, 4], bytes(60))])
    with pytest.raises(WeightStatsError, match=r"stores 60 bytes, but Float32 \[4, 4\] needs 64"):
        weight_stats(str(path), "w")


def test_unsupported_dtype_and_no_data(tmp_path):
    path = tmp_path / "m.mindir"
    mw.write_mindir(
        str(path),
        [
            mw.Weight("c", mw.COMPLEX64, [2], bytes(16)),
            mw.Weight("s", mw.STRING, [1], b"abcd"),
            mw.Weight("shape_only", mw.FLOAT, [3]),
            mw.Weight("dynamic", mw.FLOAT, [-1, 3], bytes(12)),
        ],
    )
    with pytest.raises(WeightStatsError, match="has dtype Complex64; statistics are computed"):
        weight_stats(str(path), "c")
    with pytest.raises(WeightStatsError, match="has dtype String"):
        weight_stats(str(path), "s")
    with pytest.raises(WeightStatsError, match="has no raw_data"):
        weight_stats(str(path), "shape_only")
    with pytest.raises(WeightStatsError, match="dynamic shape"):
        weight_stats(str(path), "dynamic")
    stats = all_weight_stats(str(path))
    assert "Complex64" in stats["c"]["error"]


def external_model(folder, location, values):
    """A MindSpore-style split model: graph file + ``m_variables/data_0`` (64-byte header)."""
    mw.write_mindir(
        str(folder / "m_graph.mindir"),
        [mw.Weight("w", mw.FLOAT, [values.size], external=(location, 64, values.nbytes))],
    )
    return folder / "m_graph.mindir"


def test_external_data_is_read_and_confined_to_the_model_folder(tmp_path):
    values = np.linspace(-1, 1, 50, dtype="<f4")
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(b"\x01" + bytes(63) + values.tobytes())
    path = external_model(tmp_path, "m_variables/data_0", values)
    assert_matches(weight_stats(str(path), "w"), reference(values))
    # a hostile location is not read, even when the file exists
    outside = external_model(tmp_path, "../" + tmp_path.name + "_secret", values)
    (tmp_path.parent / (tmp_path.name + "_secret")).write_bytes(bytes(64) + values.tobytes())
    with pytest.raises(WeightStatsError, match="outside the model's folder; not read"):
        weight_stats(str(outside), "w")
    absolute = external_model(tmp_path, "/etc/passwd", values)
    with pytest.raises(WeightStatsError, match="outside the model's folder"):
        weight_stats(str(absolute), "w")
    shutil.rmtree(tmp_path / "m_variables")
    missing = external_model(tmp_path, "m_variables/data_0", values)
    with pytest.raises(WeightStatsError, match="which is missing"):
        weight_stats(str(missing), "w")


def test_external_data_cut_short(tmp_path):
    values = np.arange(100, dtype="<f4")
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(b"\x01" + bytes(63) + values.tobytes()[:200])
    path = external_model(tmp_path, "m_variables/data_0", values)
    with pytest.raises(WeightStatsError, match="runs past the end of the file"):
        weight_stats(str(path), "w")


# ---------------------------------------------------------------------------- memory

# 65,536,000 float32 values: 262 MB of raw_data, a repeating 0..999 ramp
LARGE_CODE = textwrap.dedent(
    """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from ascend_lab.viewfile.sources import payload_for_path
    from ascend_lab.viewfile.weight_stats import weight_stats

    def peak_mb():
        with open("/proc/self/status") as fh:  # VmHWM: this process's own peak RSS
            hwm = next(line for line in fh if line.startswith("VmHWM:"))
        return int(hwm.split()[1]) / 1024

    payload = payload_for_path(sys.argv[1])  # opening the model, as the viewer does
    opened = peak_mb()
    stats = weight_stats(sys.argv[1], "big")
    stats["opened_rss_mb"] = opened
    stats["peak_rss_mb"] = peak_mb()
    print(json.dumps(stats))
    """
)


@pytest.mark.slow
def test_peak_memory_stays_bounded_on_a_large_tensor(tmp_path):
    ramp = np.arange(1000, dtype="<f4").tobytes()
    repeats = 65_536
    count = 1000 * repeats

    def write(f):
        block = ramp * 1024
        for _ in range(repeats // 1024):
            f.write(block)

    path = tmp_path / "large.mindir"
    weight = mw.Weight("big", mw.FLOAT, [repeats, 1000], (count * 4, write))
    mw.write_mindir(str(path), [weight])
    assert path.stat().st_size > 260_000_000
    out = run_python(LARGE_CODE.replace("sys.argv[1]", repr(str(path))), timeout=600)
    stats = json.loads(out.stdout.strip().splitlines()[-1])
    assert stats["count"] == count and (stats["min"], stats["max"]) == (0.0, 999.0)
    assert stats["mean"] == pytest.approx(499.5, rel=1e-12)
    assert stats["std"] == pytest.approx(((1000**2 - 1) / 12) ** 0.5, rel=1e-12)
    assert sum(stats["histogram"]["counts"]) == count
    # the tensor is 262 MB; a whole-tensor read (or its float64 copy, 524 MB) would show,
    # and so would a memory map of the file (the pages a walk touches count as the process's)
    assert stats["opened_rss_mb"] < 100, stats
    assert stats["peak_rss_mb"] < 100, stats


def test_external_data_of_a_big_endian_writer(tmp_path):
    # MindSpore's header byte 0 is sys.byteorder == "little": 0 from a big-endian machine
    values = np.linspace(-3, 5, 40, dtype=">f4")
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(bytes(64) + values.tobytes())
    path = external_model(tmp_path, "m_variables/data_0", values)
    assert_matches(weight_stats(str(path), "w"), reference(values.astype("<f4")))


def test_a_weight_over_max_bytes_is_refused(tmp_path):
    from ascend_lab.viewfile.weight_stats import WeightStatsLimit

    values = np.arange(100, dtype="<f4")
    (tmp_path / "m_variables").mkdir()
    (tmp_path / "m_variables" / "data_0").write_bytes(b"\x01" + bytes(63) + values.tobytes())
    path = external_model(tmp_path, "m_variables/data_0", values)
    with pytest.raises(WeightStatsLimit, match="400 bytes, over the limit of 399"):
        weight_stats(str(path), "w", max_bytes=399)
    assert weight_stats(str(path), "w", max_bytes=400)["count"] == 100
