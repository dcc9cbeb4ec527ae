"""conftest.py - what the Python package's tests share: the source tree's
folders and kernels, the sizes the kernels are compiled at, fixtures (a
Context with matmul loaded, the loomc command of the same build), and a
stand-in for Triton (which loomc's tests never need installed) that kernel
files can be imported with and their launch specs run as Python.

tests/python.sh runs these tests against the source tree's package and
against an installed one; it says which through LOOMC_TEST_PACKAGE (the
folder `import loomc` must come from), LOOMC_TEST_LIBRARY (the library it
must load), LOOMC_TEST_COMMAND (the loomc command of the same build) and,
for the installed tree, LOOMC_TEST_INCLUDE (its include folder).
"""
import ast
import importlib.util
import os
import subprocess
import sys
import types

import pytest

import loomc

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MATMUL = os.path.join(ROOT, "kernels", "matmul.py")
CHIPS = ["wormhole_n150", "blackhole_p150"]
# matmul's sizes in most tests: none a multiple of another, K and N not of 32
SHAPE = {"M": 64, "N": 96, "K": 80}
# every launch spec's sizes by name, small enough for a functional run; HKV
# divides H, the head dimensions are powers of two as the kernels need
SIZES = {"M": 96, "N": 64, "K": 128, "B": 2, "R": 40, "C": 72, "Z": 1, "H": 4, "HKV": 2, "S": 256, "D": 64,
         "N_CTX": 128, "HEAD_DIM": 64}
# Triton's dtype names (triton.language.X) as loomc names them
DTYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32", "int32": "i32", "int64": "i64"}


def kernel_files():
    """Every kernel file of kernels/ and tests/kernels/."""
    out = []
    for folder in ("kernels", os.path.join("tests", "kernels")):
        d = os.path.join(ROOT, folder)
        out += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".py")]
    return out


def launch_specs(path):
    """[(name, size parameters, option parameters)] of the functions
    decorated @loomc.launch in a file, read without running it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and any(ast.unparse(d) == "loomc.launch" for d in fn.decorator_list):
            params = [a.arg for a in fn.args.args]
            nopt = len(fn.args.defaults)
            out.append((fn.name, params[:len(params) - nopt], params[len(params) - nopt:]))
    return out


def every_launch_spec():
    """pytest parameters: (path, spec name, size parameters) of every launch
    spec of every kernel file."""
    return [pytest.param(path, name, sizes, id=f"{os.path.basename(path)[:-3]}.{name}")
            for path in kernel_files() for name, sizes, _ in launch_specs(path)]


def import_kernel_file(path, name):
    """Import a kernel file as a module of that name (Triton must be importable)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeJit:
    """What @triton.jit returns in the stand-in: the function, and a record
    of each launch kernel[grid](args...) made through it."""

    def __init__(self, fn, launches):
        self.fn = fn
        self.__name__ = fn.__name__
        self.launches = launches

    def __getitem__(self, grid):
        grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)

        def launch(*args, **kwargs):
            self.launches.append(Launched(self.fn.__name__, grid, args, kwargs))
        return launch


class Launched(types.SimpleNamespace):
    """One launch the stand-in recorded: kernel (its name), grid (a tuple),
    args and kwargs as the launch spec passed them."""

    def __init__(self, kernel, grid, args, kwargs):
        super().__init__(kernel=kernel, grid=grid, args=args, kwargs=kwargs)

    def tensors(self):
        """The loomc.TensorSpec arguments, positional then keyword."""
        return [a for a in list(self.args) + list(self.kwargs.values()) if isinstance(a, loomc.TensorSpec)]


class Anything:
    """Any other attribute of the stand-in: a dtype (its repr is its full
    name, triton.language.bfloat16), tl.constexpr, a decorator factory
    (triton.autotune(...), triton.heuristics(...)), a Config."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Anything(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        # a decorator applied to a kernel keeps the kernel
        if len(args) == 1 and not kwargs and isinstance(args[0], FakeJit):
            return args[0]
        return Anything(f"{self._name}(...)")

    def __repr__(self):
        return self._name


def loomc_dtype(dtype):
    """loomc's name of a stand-in dtype (triton.language.bfloat16 -> bf16)."""
    return DTYPES.get(repr(dtype).rsplit(".", 1)[-1])


def make_fake_triton():
    """(triton, triton.language, launches): modules with jit, cdiv and
    next_power_of_2 that work, every other name an Anything; launches is
    the record every kernel's launches go to, in order."""
    launches = []

    class Module(types.ModuleType):
        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return Anything(f"{self.__name__}.{attr}")

    triton = Module("triton")
    language = Module("triton.language")
    triton.language = language
    triton.jit = lambda fn: FakeJit(fn, launches)
    triton.cdiv = lambda a, b: -(-a // b)
    triton.next_power_of_2 = lambda n: 1 << (n - 1).bit_length()
    language.cdiv = triton.cdiv
    return triton, language, launches


@pytest.fixture
def fake_triton(monkeypatch):
    """The stand-in installed as `triton` and `triton.language` for one
    test (sys.modules is restored after it); .launches is its record."""
    triton, language, launches = make_fake_triton()
    monkeypatch.setitem(sys.modules, "triton", triton)
    monkeypatch.setitem(sys.modules, "triton.language", language)
    return types.SimpleNamespace(triton=triton, tl=language, launches=launches)


@pytest.fixture
def matmul_context():
    """A Context with kernels/matmul.py loaded for wormhole_n150 at SHAPE,
    nothing compiled yet; closed after the test."""
    with loomc.Context() as c:
        c.load_file(MATMUL)
        c.set_arch("wormhole_n150")
        for k, v in SHAPE.items():
            c.bind_shape(k, v)
        yield c


@pytest.fixture
def command():
    """The loomc command of the build under test (tests/python.sh names it)."""
    cmd = os.environ.get("LOOMC_TEST_COMMAND")
    if not cmd:
        pytest.skip("LOOMC_TEST_COMMAND (the loomc command of the same build) is not set")
    return cmd


def run_command(command, *args):
    """Run the loomc command from the source tree's root; its standard
    output (CalledProcessError when it fails). A sanitizer build's command
    carries its own runtime: the one tests/python.sh preloads into Python
    is not passed on to it (ASan refuses a second runtime)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run([command, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
