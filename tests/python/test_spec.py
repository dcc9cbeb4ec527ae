"""test_spec.py - the launch-spec names as plain Python: @loomc.launch hands
the function back, loomc.tensor/output/scratch describe row-major tensors,
every kernel file of the repository imports with a stand-in for Triton,
every launch spec run as Python (with the free constexprs loomc chose)
launches the kernels loomc schedules with the tensors loomc reports, and
matmul's launch spec passes the strides docs/launch.md gives."""
import inspect
import math
import os
import re

import pytest

import loomc
from conftest import MATMUL, SIZES, every_launch_spec, import_kernel_file, kernel_files, launch_specs, \
    loomc_dtype


def test_launch_returns_the_function_itself():
    def spec(M, N):
        return M * N

    assert loomc.launch(spec) is spec
    assert spec(3, 4) == 12


@pytest.mark.parametrize("fn,role", [(loomc.tensor, "input"), (loomc.output, "output"), (loomc.scratch, "scratch")])
def test_tensor_constructors_describe_a_row_major_tensor(fn, role):
    t = fn((2, 3, 5), "bf16")
    assert isinstance(t, loomc.TensorSpec)
    assert (t.shape, t.dtype, t.role, t.ndim) == ((2, 3, 5), "bf16", role, 3)
    # row-major and contiguous: the product of the sizes after each dimension
    assert [t.stride(i) for i in range(3)] == [15, 5, 1]
    assert t.stride(-3) == 15
    with pytest.raises(IndexError):
        t.stride(3)
    # the keywords the front end accepts
    k = fn(shape=[7], dtype="f32")
    assert (k.shape, k.stride(0)) == ((7,), 1)


def test_the_package_has_every_name_launch_specs_use():
    """Each loomc.NAME the kernel files and docs/launch.md use exists."""
    used = set()
    for path in kernel_files() + [os.path.join(os.path.dirname(MATMUL), "..", "docs", "launch.md")]:
        with open(path, encoding="utf-8") as f:
            used |= set(re.findall(r"\bloomc\.([a-z_]+)\s*[(\n]", f.read()))
    assert {"launch", "tensor", "output", "scratch"} <= used
    for name in used:
        assert callable(getattr(loomc, name)), name


@pytest.mark.parametrize("path", kernel_files(), ids=os.path.basename)
def test_kernel_files_import_with_triton(fake_triton, path):
    specs = [name for name, _, _ in launch_specs(path)]
    assert specs, "a kernel file without a launch spec"
    mod = import_kernel_file(path, "kernel_" + os.path.basename(path)[:-3])
    assert mod.loomc is loomc
    for name in specs:
        fn = getattr(mod, name)
        # unchanged: a plain function defined in that file
        assert inspect.isfunction(fn) and fn.__name__ == name and fn.__module__ == mod.__name__
    # importing launches nothing
    assert fake_triton.launches == []


def _same_shape(python, loomc_shape):
    """A shape the spec computed in Python against loomc's (None: a
    dimension loomc leaves to the schedule, such as NUM_SPLITS rows)."""
    return len(python) == len(loomc_shape) and all(b is None or a == b for a, b in zip(python, loomc_shape))


@pytest.mark.parametrize("path,name,sizes", every_launch_spec())
def test_launch_spec_as_python_launches_what_loomc_reads(fake_triton, path, name, sizes):
    """Run each launch spec as Python, with the free constexprs loomc's best
    schedule chose: it launches the kernels loomc schedules, in order, with
    tensors of the roles, shapes and dtypes loomc reports, and grids of at
    least as many programs as loomc puts on cores."""
    shape = {k: SIZES[k] for k in sizes}
    with loomc.Context() as c:
        c.load_file(path)
        c.select_kernel(name)
        c.set_arch("wormhole_n150")
        for k, v in shape.items():
            c.bind_shape(k, v)
        best = c.compile(1)[0]
        tensors = c.tensors()
    mod = import_kernel_file(path, "spec_" + name)
    chosen = {k: v for la in best.launches for k, v in la.values.items() if "." not in k and k not in shape}
    for k, v in chosen.items():
        setattr(mod, k, v)
    getattr(mod, name)(**shape)
    launched = fake_triton.launches
    assert [x.kernel for x in launched] == [la.kernel for la in best.launches]
    # each TensorSpec object once (a tensor one launch writes and the next reads is one)
    specs = list({id(t): t for x in launched for t in x.tensors()}.values())
    assert len(specs) == len(tensors)
    for t in tensors:
        match = [p for p in specs if p.role == t.role and loomc_dtype(p.dtype) == t.dtype and
                 _same_shape(p.shape, t.shape)]
        assert match, t
        specs.remove(match[0])
    for x, la in zip(launched, best.launches):
        cores = la.values["grid.x"] * la.values.get("grid.y", 1)
        assert math.prod(x.grid) >= cores


def test_matmul_launch_spec_runs_as_python(fake_triton):
    mod = import_kernel_file(MATMUL, "kernel_matmul_run")
    # the free constexprs are the solver's; here the test picks them
    mod.BLOCK_M, mod.BLOCK_N = 32, 64
    mod.matmul(64, 96, 80)
    assert len(fake_triton.launches) == 1
    x = fake_triton.launches[0]
    assert x.kernel == "matmul_kernel"
    assert x.grid == (2, 2)  # cdiv(64, 32), cdiv(96, 64)
    a, b, c = x.args[:3]
    assert (a.role, b.role, c.role) == ("input", "input", "output")
    assert (a.shape, b.shape, c.shape) == ((64, 80), (80, 96), (64, 96))
    assert repr(a.dtype) == "triton.language.bfloat16" and repr(c.dtype) == "triton.language.float32"
    assert x.args[3:] == (64, 96, 80, 80, 1, 96, 1, 96, 1)
    assert x.kwargs == {}
