"""conftest.py - what the Python package's tests share: the source tree's
folders, the kernels, and a stand-in for Triton (which loomc's tests never
need installed) that kernel files can be imported with.

tests/python.sh runs these tests against the source tree's package and
against an installed one; it says which through LOOMC_TEST_PACKAGE (the
folder `import loomc` must come from), LOOMC_TEST_LIBRARY (the library it
must load) and LOOMC_TEST_COMMAND (the loomc command of the same build).
"""
import os
import sys
import types

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MATMUL = os.path.join(ROOT, "kernels", "matmul.py")
CHIPS = ["wormhole_n150", "blackhole_p150"]


def kernel_files():
    """Every kernel file of kernels/ and tests/kernels/."""
    out = []
    for folder in ("kernels", os.path.join("tests", "kernels")):
        d = os.path.join(ROOT, folder)
        out += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".py")]
    return out


class FakeJit:
    """What @triton.jit returns in the stand-in: the function, and a record
    of each launch kernel[grid](args...) made through it."""

    def __init__(self, fn, launches):
        self.fn = fn
        self.launches = launches

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.launches.append((self.fn.__name__, tuple(grid), args, kwargs))
        return launch


class Anything:
    """Any other attribute of the stand-in: a dtype, tl.constexpr, a
    decorator factory (triton.autotune(...)), a Config."""

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


def make_fake_triton():
    """(triton, triton.language, launches): modules with jit, cdiv and
    next_power_of_2 that work, everything else an Anything."""
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
    """The stand-in installed as `triton` for one test; its launch record."""
    triton, language, launches = make_fake_triton()
    monkeypatch.setitem(sys.modules, "triton", triton)
    monkeypatch.setitem(sys.modules, "triton.language", language)
    return types.SimpleNamespace(triton=triton, tl=language, launches=launches)
