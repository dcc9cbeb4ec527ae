"""test_spec.py - the launch-spec names as plain Python: @loomc.launch hands
the function back, loomc.tensor/output/scratch describe row-major tensors,
every kernel file of the repository imports with a stand-in for Triton, and
matmul's launch spec, run as Python, launches the kernel with the strides
docs/launch.md gives."""
import ast
import importlib.util
import inspect
import os

import pytest

import loomc
from conftest import MATMUL, kernel_files


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
    import re
    used = set()
    for path in kernel_files() + [os.path.join(os.path.dirname(MATMUL), "..", "docs", "launch.md")]:
        with open(path, encoding="utf-8") as f:
            used |= set(re.findall(r"\bloomc\.([a-z_]+)\s*[(\n]", f.read()))
    assert {"launch", "tensor", "output", "scratch"} <= used
    for name in used:
        assert callable(getattr(loomc, name)), name


def _launch_specs(path):
    """Names of the functions decorated @loomc.launch in a file."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    return [f.name for f in tree.body if isinstance(f, ast.FunctionDef) and
            any(ast.unparse(d) == "loomc.launch" for d in f.decorator_list)]


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("path", kernel_files(), ids=os.path.basename)
def test_kernel_files_import_with_triton(fake_triton, path):
    specs = _launch_specs(path)
    assert specs, "a kernel file without a launch spec"
    mod = _import(path, "kernel_" + os.path.basename(path)[:-3])
    for name in specs:
        fn = getattr(mod, name)
        # unchanged: a plain function defined in that file
        assert inspect.isfunction(fn) and fn.__name__ == name and fn.__module__ == mod.__name__


def test_matmul_launch_spec_runs_as_python(fake_triton):
    mod = _import(MATMUL, "kernel_matmul_run")
    # the free constexprs are the solver's; here the test picks them
    mod.BLOCK_M, mod.BLOCK_N = 32, 64
    mod.matmul(64, 96, 80)
    assert len(fake_triton.launches) == 1
    kernel, grid, args, kwargs = fake_triton.launches[0]
    assert kernel == "matmul_kernel"
    assert grid == (2, 2)  # cdiv(64, 32), cdiv(96, 64)
    a, b, c = args[:3]
    assert (a.role, b.role, c.role) == ("input", "input", "output")
    assert (a.shape, b.shape, c.shape) == ((64, 80), (80, 96), (64, 96))
    assert repr(a.dtype) == "triton.language.bfloat16" and repr(c.dtype) == "triton.language.float32"
    assert args[3:] == (64, 96, 80, 80, 1, 96, 1, 96, 1)
    assert kwargs == {}
