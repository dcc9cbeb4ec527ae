"""test_run.py - loomc.run: functional simulation on the test's own numpy
inputs compared with numpy references within bounds derived from the
chip's arithmetic (matmul, an element-wise chain, softmax, layernorm, a
two-launch reduction through a scratch tensor, flash decode), bf16 as
float32 values (the library's rounding and loomc.round_bf16 agree bit for
bit), timing-only runs, ranks, seeds, inputs loomc must refuse, and the
command's own inputs and outputs reproduced bit for bit."""
import numpy as np
import pytest

import loomc
from conftest import CHIPS, MATMUL, ROOT, run_command

M, N, K = 64, 96, 80


def _sum_bound(a, b):
    """Per element of a @ b: the bound K * 2^-24 * sum_k |a_ik b_kj| on the
    error of K fp32 additions in any order (the standard bound for
    recursive summation; each bf16 x bf16 product is exact in fp32)."""
    return a.shape[1] * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


@pytest.mark.parametrize("arch", CHIPS)
def test_matmul_matches_numpy(arch):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, K)).astype(np.float32)  # not bf16 values: the library rounds them
    b = rng.standard_normal((K, N)).astype(np.float32)
    r = loomc.run(MATMUL, arch=arch, shape={"M": M, "N": N, "K": K}, inputs={"a": a, "b": b}, fidelity="HiFi4")
    c = r.outputs["c"]
    assert set(r.outputs) == {"c"}
    assert c.dtype == np.float32 and c.shape == (M, N)
    assert r.mode == "functional" and r.checked and r.passed and r.simulated_cycles > 0
    assert r.simulated_seconds > 0 and r.programs == 1
    # HiFi4 multiplies bf16 values exactly and the chip accumulates in fp32
    ab, bb = loomc.round_bf16(a), loomc.round_bf16(b)
    ref = ab.astype(np.float64) @ bb.astype(np.float64)
    bound = _sum_bound(ab, bb)
    assert np.all(np.abs(c - ref) <= bound)
    # the bound is tight enough to see the bf16 rounding of the inputs: the
    # product of the unrounded values is far outside it
    raw = a.astype(np.float64) @ b.astype(np.float64)
    assert np.mean(np.abs(c - raw) > bound) > 0.5


def test_bf16_inputs_are_rounded_as_round_bf16_rounds():
    """C = A @ I at HiFi4 is A's bf16 values exactly (products by 1 and 0,
    sums with zeros), so the output shows the library's conversion."""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((64, 64)) * 3).astype(np.float32)
    # ties: exactly halfway between two bf16 values, to even either way
    a[0, :4] = [1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 2 ** 100 * (1 + 2 ** -8)]
    eye = np.eye(64, dtype=np.float32)
    r = loomc.run(MATMUL, arch="wormhole_n150", shape={"M": 64, "N": 64, "K": 64}, inputs={"a": a, "b": eye},
                  fidelity="HiFi4")
    c = r.outputs["c"]
    assert np.array_equal(c.view(np.uint32), loomc.round_bf16(a).view(np.uint32))
    assert list(c[0, :4]) == [1.0, 1 + 2 ** -6, -1.0, 2.0 ** 100]
    assert not np.array_equal(c, a)  # the inputs were not bf16 values


def test_round_bf16():
    f = np.float32
    x = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -2.5, 0.0], dtype=f)
    assert list(loomc.round_bf16(x)) == [1.0, 1.0, 1 + 2 ** -6, 1 + 2 ** -7, -2.5, 0.0]
    big = (2 - 2 ** -7) * 2.0 ** 127  # the largest bf16
    half_step = 2.0 ** (127 - 8)
    y = loomc.round_bf16(np.array([big, big + half_step * 0.99, big + half_step, np.inf, np.nan], dtype=f))
    assert list(y[:3]) == [big, big, np.inf] and y[3] == np.inf and np.isnan(y[4])
    assert y.dtype == np.float32 and not np.any(y.view(np.uint32)[:4] & 0xFFFF)
    # a signalling NaN whose payload lies in the low half stays a NaN
    snan = np.array([0x7F800001], dtype=np.uint32).view(f)
    assert np.isnan(loomc.round_bf16(snan)[0])


def test_bf16_and_f32_outputs_by_name():
    path = f"{ROOT}/tests/kernels/eltwise_chain.py"
    rng = np.random.default_rng(3)
    x = loomc.round_bf16(rng.uniform(-2, 2, (64, 64)))
    y = loomc.round_bf16(rng.uniform(-2, 2, (64, 64)))
    r = loomc.run(path, arch="wormhole_n150", shape={"M": 64, "N": 64}, inputs={"x": x, "y": y})
    dtypes = {t.name: t.dtype for t in r.tensors}
    assert dtypes == {"x": "bf16", "y": "bf16", "o": "bf16", "o2": "f32"}
    o, o2 = r.outputs["o"], r.outputs["o2"]
    assert o.dtype == o2.dtype == np.float32 and o.shape == o2.shape == (64, 64)
    # bf16 values held in float32: the low 16 bits are zero
    assert not np.any(o.view(np.uint32) & 0xFFFF)
    # o2 = (x - 1) * 3 in fp32: exact for these bf16 x (few significant bits)
    assert np.array_equal(o2, (x - np.float32(1)) * np.float32(3))
    # o = ((exp2(x/2) - rowmax) * y) in bf16. The chip's fast exp2 is within
    # 3.12% of 2^x (docs/numerics.md, "SFPU: exact and approximate exp"), so
    # |error| <= E = 0.0313 (e + m) |y| before the bf16 rounding of the
    # result (half a step: 2^-8 of the value) and fp32's (negligible)
    e = np.exp2(x.astype(np.float64) * 0.5)
    m = e.max(axis=1, keepdims=True)
    ref = (e - m) * y
    err = 0.0313 * (e + m) * np.abs(y)
    assert np.all(np.abs(o - ref) <= err + 2 ** -8 * (np.abs(ref) + err) + 2 ** -20)
    assert r.checked and r.passed


def test_timing_only():
    big = loomc.run(MATMUL, arch="wormhole_n150", shape={"M": 2048, "N": 2048, "K": 2048}, mode="timing")
    small = loomc.run(MATMUL, arch="wormhole_n150", shape={"M": M, "N": N, "K": K}, mode="timing")
    assert big.mode == "timing" and big.outputs == {} and not big.checked
    assert big.passed is None and big.max_rel_error is None
    # 2048^3 is ~1000x the multiply-adds of 64x96x80: many times the cycles
    assert big.simulated_cycles > 20 * small.simulated_cycles > 0
    assert "simulated cycles" in repr(big)
    with pytest.raises(loomc.Error) as e:
        loomc.run(MATMUL, arch="wormhole_n150", shape={"M": M, "N": N, "K": K}, mode="timing",
                  inputs={"a": np.zeros((M, K), np.float32)})
    assert "timing-only" in str(e.value)
    with pytest.raises(ValueError):
        loomc.run(MATMUL, arch="wormhole_n150", shape={"M": M, "N": N, "K": K}, mode="fast")


def test_seed_and_rank():
    shape = {"M": M, "N": N, "K": K}
    r0 = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, seed=1)
    r1 = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, seed=1)
    r2 = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, seed=2)
    assert np.array_equal(r0.outputs["c"], r1.outputs["c"])
    assert not np.array_equal(r0.outputs["c"], r2.outputs["c"])
    scheds = loomc.compile(MATMUL, arch="wormhole_n150", shape=shape, top_k=2)
    assert len(scheds) == 2
    r = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, rank=1)
    assert r.schedule.rank == 1 and r.schedule.values == scheds[1].values and r.passed
    with loomc.Context() as c:
        c.load_file(MATMUL)
        c.set_arch("wormhole_n150")
        for k, v in shape.items():
            c.bind_shape(k, v)
        c.compile(2)
        with pytest.raises(loomc.Error) as e:
            c.simulate(5)
    assert str(e.value) == "loomc: error: loomc_simulate: no schedule 5; the compilation kept 2 (ranks 0 to 1)"


def test_bad_inputs_are_refused():
    shape = {"M": M, "N": N, "K": K}
    with pytest.raises(loomc.Error) as e:
        loomc.run(MATMUL, arch="wormhole_n150", shape=shape, inputs={"a": np.zeros((K, M), np.float32)})
    assert str(e.value) == "loomc: error: input 'a' has shape (80, 64); the launch spec's tensor 'a' is (64, 80)"
    with pytest.raises(loomc.Error) as e:
        loomc.run(MATMUL, arch="wormhole_n150", shape=shape, inputs={"z": np.zeros(3)})
    assert "'z'" in str(e.value) and "a, b" in str(e.value)
    with pytest.raises(loomc.Error) as e:
        loomc.run(MATMUL, arch="wormhole_n150", shape=shape, inputs={"c": np.zeros((M, N))})
    assert "not an input" in str(e.value)
    with pytest.raises(TypeError):
        loomc.run(MATMUL, arch="wormhole_n150", shape=shape, inputs={"a": np.array(["x"] * (M * K)).reshape(M, K)})


# The SFPU's fast exp and exp2, which tl.exp and tl.exp2 run in, are within
# 3.12% of the exact value (docs/numerics.md, "SFPU: exact and approximate exp")
EXP_ERROR = 0.0313


def test_softmax_matches_numpy():
    """Each weight is an approximate exp over a sum of them: within a factor
    (1 + d) / (1 - d) of numpy's softmax, d the exp's relative error."""
    rng = np.random.default_rng(21)
    x = (rng.standard_normal((37, 200)) * 2).astype(np.float32)
    r = loomc.run(f"{ROOT}/tests/kernels/ptr_softmax.py", kernel="softmax", arch="wormhole_n150",
                  shape={"M": 37, "N": 200}, inputs={"x": x})
    y = r.outputs["y"]
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    rel = (1 + EXP_ERROR) / (1 - EXP_ERROR) - 1 + 2 ** -20  # fp32's share is far below 2^-20 here
    assert y.shape == x.shape and np.all(np.abs(y - ref) <= rel * ref)
    assert np.all(np.abs(y.sum(axis=1) - 1) <= rel)
    # the bound is far below what the test tells apart: a row-sum not taken
    # along the row, or the uniform distribution
    assert np.max(np.abs(ref - 1 / x.shape[1]) / ref) > 10 * rel
    assert r.checked and r.passed


def test_layernorm_matches_numpy():
    """mean and rstd (f32 outputs) within fp32 summation bounds of numpy's
    in float64; y (bf16) within half a bf16 step of the float64 formula
    plus the error that mean and rstd carry into it."""
    rng = np.random.default_rng(4)
    m, n = 40, 300
    x = loomc.round_bf16(rng.standard_normal((m, n)) * 3 + 1)
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    r = loomc.run(f"{ROOT}/tests/kernels/ptr_layernorm.py", arch="wormhole_n150", shape={"M": m, "N": n},
                  inputs={"x": x, "w": w, "b": b})
    assert set(r.outputs) == {"y", "mean", "rstd"}
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    rstd = 1 / np.sqrt(x64.var(axis=1) + 1e-5)  # the launch spec's eps
    u = 2.0 ** -24
    # n fp32 additions of one sign or the other, and a division
    d_mu = n * u * np.abs(x64).mean(axis=1) + u * np.abs(mu)
    # a sum of n squares (one sign), the division, the square root, the reciprocal
    d_rstd = (n + 4) * u * rstd
    assert np.all(np.abs(r.outputs["mean"] - mu) <= d_mu)
    assert np.all(np.abs(r.outputs["rstd"] - rstd) <= d_rstd)
    xc = x64 - mu[:, None]
    ref = xc * rstd[:, None] * w + b
    carried = np.abs(w) * (np.abs(xc) * d_rstd[:, None] + rstd[:, None] * d_mu[:, None])
    carried += 4 * u * (np.abs(xc) * rstd[:, None] * np.abs(w) + np.abs(b))
    y = r.outputs["y"]
    assert not np.any(y.view(np.uint32) & 0xFFFF)  # bf16 values
    assert np.all(np.abs(y - ref) <= 2 ** -8 * (np.abs(ref) + carried) + carried)


def test_two_launches_through_a_scratch_tensor():
    """splitk_sum: partial row sums into a scratch tensor, then their total.
    Only the output comes back; it is the row sums within the fp32 bound."""
    rng = np.random.default_rng(8)
    m, k = 64, 1024
    x = loomc.round_bf16(rng.standard_normal((m, k)))
    r = loomc.run(f"{ROOT}/tests/kernels/splitk_sum.py", kernel="splitk_sum", arch="wormhole_n150",
                  shape={"M": m, "K": k}, inputs={"x": x})
    assert [la.kernel for la in r.schedule.launches] == ["partial_sums", "total"]
    assert {t.name: t.role for t in r.tensors} == {"x": "input", "part": "scratch", "out": "output"}
    assert set(r.outputs) == {"out"} and r.outputs["out"].shape == (1, m)
    x64 = x.astype(np.float64)
    assert np.all(np.abs(r.outputs["out"][0] - x64.sum(axis=1)) <= k * 2.0 ** -24 * np.abs(x64).sum(axis=1))


def test_flash_decode_attends_where_the_test_points():
    """Grouped-query decode attention (two launches: the splits, then their
    combination) on inputs whose answer the test knows: each query head is a
    multiple of one key of its kv head, so its softmax is one-hot up to a
    tail the test computes, and its output is that key's value row. An
    error of the approximate exp changes a weight by 3%, which moves the
    output by at most 3% of the tail; picking the wrong head, batch, key
    or split moves it by a whole value row."""
    rng = np.random.default_rng(9)
    B, H, HKV, S, D = 2, 4, 2, 256, 64
    group = H // HKV
    k = loomc.round_bf16(rng.standard_normal((B, HKV, S, D)))
    v = loomc.round_bf16(rng.standard_normal((B, HKV, S, D)))
    pos = rng.permutation(S)[:B * H].reshape(B, H)  # distinct keys, in different splits
    kv_of = np.arange(H) // group  # query head h reads kv head h // group
    q = np.stack([4 * k[b, kv_of, pos[b]] for b in range(B)])  # a power of two: still bf16 values
    want = np.stack([v[b, kv_of, pos[b]] for b in range(B)])
    # the test's own precondition: the pointed-at key wins by far
    scores = np.einsum("bhd,bhsd->bhs", q.astype(np.float64), k[:, kv_of].astype(np.float64)) / np.sqrt(D)
    gap = np.take_along_axis(scores, pos[..., None], axis=2) - scores
    tail = np.exp(-gap).sum(axis=2) - 1  # the other keys' share, relative to the pointed one's
    assert np.all(np.argmax(scores, axis=2) == pos) and tail.max() < 1e-4
    r = loomc.run(f"{ROOT}/kernels/flash_decode.py", arch="wormhole_n150",
                  shape={"B": B, "H": H, "HKV": HKV, "S": S, "D": D}, inputs={"q": q, "k": k, "v": v},
                  fidelity="HiFi4")
    assert [la.kernel for la in r.schedule.launches] == ["decode_split", "decode_combine"]
    o = r.outputs["o"]
    assert set(r.outputs) == {"o"} and o.shape == (B, H, D)
    # the tail moves the output by at most 1.07 tail 2 max|v|. Rounding, in
    # half steps of bf16: the split rounds the weight before it multiplies V
    # (one); the combine stores bf16, so its Dst is 16-bit and what it packs
    # is bf16 (docs/scheduler.md, Formats): p w (one), 1 / sum w (within a
    # step of bf16 in a 16-bit Dst: two) and the output (one). The rounding
    # of the split's weight w itself cancels (the same w is in p w and in
    # sum w), and the sums over the splits add the other splits' share, far
    # below half a step: five, six with a margin
    spread = 1.07 * tail[..., None] * 2 * np.abs(v).max()
    assert np.all(np.abs(o - want) <= 3 * 2 ** -8 * np.abs(want) + spread + 2 ** -20)
    assert r.checked and r.passed


def _saved(folder, name, shape):
    """A tensor `loomc run --save-data` wrote (float32 rows x columns)."""
    a = np.fromfile(folder / f"{name}.f32", dtype="<f4")
    assert a.size == np.prod(shape)  # the test's shapes are whole tiles: no padding
    return a.reshape(shape)


def test_the_same_values_as_the_command(command, tmp_path):
    """The command's pseudo-random inputs and simulated outputs (its
    --save-data files) are the package's bit for bit: with the same seed,
    and with the command's inputs passed in as numpy arrays."""
    shape = {"M": 64, "N": 96, "K": 128}
    run_command(command, "run", "kernels/matmul.py", "--arch", "wormhole_n150", "--shape", "M=64,N=96,K=128",
                "--check", "--seed", "3", "--save-data", str(tmp_path))
    a = _saved(tmp_path / "inputs", "a", (64, 128))
    b = _saved(tmp_path / "inputs", "b", (128, 96))
    c = _saved(tmp_path / "simulated", "c", (64, 96))
    seeded = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, seed=3)
    given = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, inputs={"a": a, "b": b})
    assert np.array_equal(seeded.outputs["c"], c) and np.array_equal(given.outputs["c"], c)
    assert seeded.simulated_cycles == given.simulated_cycles
