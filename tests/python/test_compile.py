"""test_compile.py - loomc.compile, lower, emit and Context: the best
schedules with their values, predicted cycles and explanations as the C API
gives them, the launch spec's tensors, a job of two launches, and the loomc
command of the same build printing the same schedule, explanation,
programs, simulated cycles and emitted files."""
import filecmp
import math
import os
import re

import pytest

import loomc
from conftest import CHIPS, MATMUL, ROOT, SHAPE, run_command

ARGS = ["kernels/matmul.py", "--arch", "wormhole_n150", "--shape", ",".join(f"{k}={v}" for k, v in SHAPE.items())]



def _check_grid(launch, values):
    """The grid covers the problem with the chosen blocks, on the axes the
    mapping names ("pid_m->x pid_n->y", "pid_m->xy pid_n->xy", ...): an axis
    on x or y has one core per program along it; the axes flattened over the
    whole grid (xy) have a program for every core."""
    programs = {"pid_m": math.ceil(SHAPE["M"] / values["BLOCK_M"]),
                "pid_n": math.ceil(SHAPE["N"] / values["BLOCK_N"])}
    flat = None
    for pid, n in programs.items():
        place = re.search(pid + r"->(xy|x|y|time)\b", launch.mapping).group(1)
        if place in ("x", "y"):
            assert launch.values["grid." + place] == n
        elif place == "xy":
            flat = (flat or 1) * n
    if flat is not None:
        assert 1 <= launch.values["grid.x"] * launch.values["grid.y"] <= flat


@pytest.mark.parametrize("arch", CHIPS)
def test_compile_gives_ranked_schedules_with_values(arch):
    scheds = loomc.compile(MATMUL, arch=arch, shape=SHAPE, top_k=3)
    assert 1 <= len(scheds) <= 3
    assert [s.rank for s in scheds] == list(range(len(scheds)))
    assert all(isinstance(s, loomc.Schedule) for s in scheds)
    cycles = [s.predicted_cycles for s in scheds]
    assert cycles == sorted(cycles) and cycles[0] > 0  # best first
    for s in scheds:
        assert len(s.launches) == 1
        la = s.launches[0]
        assert la.kernel == "matmul_kernel" and la.predicted_cycles == s.predicted_cycles
        v = s.values
        assert v == la.values
        assert {k: v[k] for k in SHAPE} == SHAPE
        _check_grid(la, v)
        assert v["BLOCK_K"] > 0 and s.simulated_cycles is None
        assert "matmul_kernel" in s.explanation and la.mapping
    # distinct schedules: in their values, or in the mapping and transports
    # (two of the top may differ only in which core sends a multicast)
    assert len({(tuple(la.mapping for la in s.launches), tuple(sorted(s.values.items()))) for s in scheds}) == len(
        scheds)


def test_simulate_adds_simulated_cycles():
    scheds = loomc.compile(MATMUL, arch="wormhole_n150", shape=SHAPE, top_k=2, simulate=True)
    for s in scheds:
        assert s.simulated_cycles > 0
        alone = loomc.run(MATMUL, arch="wormhole_n150", shape=SHAPE, mode="timing", rank=s.rank)
        assert alone.simulated_cycles == s.simulated_cycles
        assert alone.schedule.values == s.values


def test_context_lists_the_tensors(matmul_context):
    c = matmul_context
    assert c.tensors() == [] and c.schedules() == []  # nothing compiled yet
    c.compile(1)
    ts = {t.name: t for t in c.tensors()}
    m, n, k = SHAPE["M"], SHAPE["N"], SHAPE["K"]
    assert ts["a"] == loomc.Tensor("a", "input", "bf16", (m, k), m * k)
    assert ts["b"] == loomc.Tensor("b", "input", "bf16", (k, n), k * n)
    assert ts["c"] == loomc.Tensor("c", "output", "f32", (m, n), m * n)
    assert list(ts) == ["a", "b", "c"]  # the spec's order
    # a change of what to compile drops the compilation
    c.bind_shape("M", 2 * m)
    assert c.tensors() == [] and c.schedules() == []
    assert c.compile(1)[0].values["M"] == 2 * m


def test_pinned_constexpr_and_fidelity_are_passed():
    s = loomc.compile(MATMUL, arch="wormhole_n150", shape=SHAPE, const={"BLOCK_M": 64}, fidelity="HiFi4")[0]
    assert s.values["BLOCK_M"] == 64
    _check_grid(s.launches[0], s.values)
    assert "HiFi4" in s.explanation


def test_a_job_of_two_launches():
    path = os.path.join(ROOT, "kernels", "flash_decode.py")
    shape = {"B": 1, "H": 8, "HKV": 2, "S": 1024, "D": 64}
    s = loomc.compile(path, arch="wormhole_n150", shape=shape)[0]
    assert [la.kernel for la in s.launches] == ["decode_split", "decode_combine"]
    assert s.predicted_cycles == sum(la.predicted_cycles for la in s.launches)
    # the shared free constexpr is one value; grid.x differs, so it is only per launch
    a, b = (la.values for la in s.launches)
    assert a["NUM_SPLITS"] == b["NUM_SPLITS"] == s.values["NUM_SPLITS"]
    assert a["grid.x"] != b["grid.x"] and "grid.x" not in s.values


def test_source_text_and_kernel_selection():
    src = open(MATMUL, encoding="utf-8").read()
    by_text = loomc.compile("mm.py", source=src, arch="wormhole_n150", shape=SHAPE, kernel="matmul")[0]
    by_file = loomc.compile(MATMUL, arch="wormhole_n150", shape=SHAPE)[0]
    assert by_text.values == by_file.values and by_text.predicted_cycles == by_file.predicted_cycles
    with pytest.raises(loomc.Error) as e:
        loomc.compile(MATMUL, arch="wormhole_n150", shape=SHAPE, kernel="nothing_of_that_name")
    assert "nothing_of_that_name" in str(e.value)


def test_the_same_as_the_command(command, tmp_path):
    """The command and the package, on the same build, give the same
    schedule, predicted cycles, explanation, lowered program, simulated
    cycles (the program the package lowers, simulated by `loomc sim`) and
    emitted files."""
    report = run_command(command, "compile", *ARGS, "--explain")
    best = loomc.compile(MATMUL, arch="wormhole_n150", shape=SHAPE)[0]
    assert report.endswith(best.explanation) and len(best.explanation) > 100
    assert int(re.search(r"^predicted: (\d+) cycles", report, re.M).group(1)) == best.predicted_cycles
    blocks = dict((k, int(v)) for k, v in re.findall(r"\b(BLOCK_[MNK])=(\d+)", report))
    assert len(blocks) == 3 and {k: best.values[k] for k in blocks} == blocks

    programs = loomc.lower(MATMUL, arch="wormhole_n150", shape=SHAPE)
    assert len(programs) == 1 and "matmul_kernel" in programs[0]
    printed = run_command(command, "run", *ARGS, "--timing-only", "--print")
    assert printed.startswith(programs[0])
    df = tmp_path / "matmul.df"
    df.write_text(programs[0])
    sim = run_command(command, "sim", str(df), "--arch", "wormhole_n150", "--timing-only")
    simulated = int(re.search(r"^simulated cycles\s+(\d+)", sim, re.M).group(1))
    r = loomc.run(MATMUL, arch="wormhole_n150", shape=SHAPE, mode="timing")
    assert abs(r.simulated_cycles - simulated) <= 0.5  # the command prints whole cycles
    assert r.schedule == best and r.programs == 1

    loomc.emit(MATMUL, tmp_path / "py", arch="wormhole_n150", shape=SHAPE)
    run_command(command, "emit", *ARGS, "-o", str(tmp_path / "cmd"))
    files = sorted(os.path.relpath(os.path.join(d, f), tmp_path / "cmd")
                   for d, _, fs in os.walk(tmp_path / "cmd") for f in fs)
    assert "CMakeLists.txt" in files and "host.cpp" in files
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "cmd", tmp_path / "py", files, shallow=False)
    assert (mismatch, errors) == ([], []) and len(match) == len(files)
