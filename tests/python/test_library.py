"""test_library.py - the package and its library: `import loomc` needs
neither the library nor numpy; the library is the one expected (the build
under test, or the installed tree's); LOOMC_LIBRARY, a missing library, one
of another version and one without the header's functions give a message
that says what is wrong; the ctypes structures match the header's layout;
contexts in threads, and one context shared by threads."""
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

import loomc
from loomc import _native
from conftest import MATMUL, ROOT

PACKAGE = os.path.dirname(os.path.abspath(loomc.__file__))


def _python(code, env=None, cwd=None):
    """Run code in a fresh interpreter; (exit status, stdout + stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([sys.executable, "-c", code], env=e, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_the_expected_package_and_library():
    """tests/python.sh names the package folder and library under test."""
    want_pkg, want_lib = os.environ.get("LOOMC_TEST_PACKAGE"), os.environ.get("LOOMC_TEST_LIBRARY")
    if not want_pkg:
        pytest.skip("LOOMC_TEST_PACKAGE is not set (tests/python.sh sets it)")
    assert PACKAGE == os.path.realpath(want_pkg) or PACKAGE == os.path.abspath(want_pkg)
    assert os.path.realpath(loomc.library_path()) == os.path.realpath(want_lib)


def test_version_is_the_headers():
    header = os.path.join(ROOT, "include", "loomc.h")
    want = re.search(r'#define LOOMC_VERSION "([^"]+)"', open(header).read()).group(1)
    assert loomc.__version__ == want
    assert _native.library().loomc_version().decode() == want


def test_import_needs_no_library_nor_numpy():
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import loomc\n"
            "t = loomc.tensor((2, 3), 'bf16'); assert t.stride(0) == 3\n"
            "try:\n"
            "    loomc.compile('k.py', arch='wormhole_n150')\n"
            "except loomc.LibraryNotFoundError as e:\n"
            "    print('NOTFOUND', e)\n")
    rc, out = _python(code, {"LOOMC_LIBRARY": "/nonexistent/libloomc.so.0", "PYTHONPATH": os.path.dirname(PACKAGE)})
    assert rc == 0, out
    assert "NOTFOUND loomc: LOOMC_LIBRARY is set to '/nonexistent/libloomc.so.0', which cannot be loaded" in out


def test_compile_needs_no_numpy():
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import loomc\n"
            f"s = loomc.compile({MATMUL!r}, arch='wormhole_n150', shape=dict(M=64, N=64, K=64))\n"
            "print(s[0].values['BLOCK_M'] > 0)\n"
            "try:\n"
            f"    loomc.run({MATMUL!r}, arch='wormhole_n150', shape=dict(M=64, N=64, K=64))\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    rc, out = _python(code, {"PYTHONPATH": os.path.dirname(PACKAGE)})
    assert rc == 0, out
    assert out.splitlines() == ["True", "loomc: simulating with data needs numpy (Debian: python3-numpy)"]


def test_library_not_found_says_where_it_looked(tmp_path):
    """The package alone, away from any build or installed tree."""
    if _native.ctypes.util.find_library("loomc"):
        pytest.skip("a libloomc is on the system's library path")
    shutil.copytree(PACKAGE, tmp_path / "loomc", ignore=shutil.ignore_patterns("__pycache__", "_installed.py"))
    env = {"PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": ""}
    code = ("import os; os.environ.pop('LOOMC_LIBRARY', None)\n"
            "import loomc\n"
            "try:\n"
            "    loomc.Context()\n"
            "except loomc.LibraryNotFoundError as e:\n"
            "    assert isinstance(e, OSError)\n"
            "    print(e)\n")
    rc, out = _python(code, env, cwd=str(tmp_path))
    assert rc == 0, out
    assert out.startswith("loomc: cannot find libloomc (libloomc.so.0); tried LOOMC_LIBRARY (not set); ")
    assert "libloomc.so.0 (the system's library path: " in out
    assert "make install" in out and "set LOOMC_LIBRARY" in out


LAYOUT_C = r"""
#include <loomc.h>
#include <stddef.h>
#include <stdio.h>
#define F(T, f) printf(#T " " #f " %zu\n", offsetof(T, f))
#define S(T) printf(#T " sizeof %zu\n", sizeof(T))
int main(void)
{
    S(loomc_diag); F(loomc_diag, severity); F(loomc_diag, file); F(loomc_diag, line); F(loomc_diag, col);
    F(loomc_diag, message);
    S(loomc_value); F(loomc_value, name); F(loomc_value, value);
    S(loomc_launch); F(loomc_launch, kernel); F(loomc_launch, mapping); F(loomc_launch, values);
    F(loomc_launch, nvalues); F(loomc_launch, predicted_cycles);
    S(loomc_schedule); F(loomc_schedule, rank); F(loomc_schedule, predicted_cycles); F(loomc_schedule, launches);
    F(loomc_schedule, nlaunches); F(loomc_schedule, explanation);
    S(loomc_tensor); F(loomc_tensor, name); F(loomc_tensor, role); F(loomc_tensor, dtype); F(loomc_tensor, rank);
    F(loomc_tensor, shape); F(loomc_tensor, count); F(loomc_tensor, data);
    S(loomc_input); F(loomc_input, name); F(loomc_input, data); F(loomc_input, count);
    S(loomc_sim_result); F(loomc_sim_result, cycles); F(loomc_sim_result, seconds); F(loomc_sim_result, programs);
    F(loomc_sim_result, checked); F(loomc_sim_result, passed); F(loomc_sim_result, max_rel_error);
    printf("enum sizeof %zu %zu %zu\n", sizeof(loomc_severity), sizeof(loomc_role), sizeof(loomc_sim_mode));
    return 0;
}
"""

MIRRORS = {"loomc_diag": _native.Diag, "loomc_value": _native.Value, "loomc_launch": _native.Launch,
           "loomc_schedule": _native.Schedule, "loomc_tensor": _native.Tensor, "loomc_input": _native.Input,
           "loomc_sim_result": _native.SimResult}


def test_structures_match_the_header(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    src = tmp_path / "layout.c"
    src.write_text(LAYOUT_C)
    include = os.environ.get("LOOMC_TEST_INCLUDE", os.path.join(ROOT, "include"))
    subprocess.run([cc, "-std=c17", "-I", include, str(src), "-o", str(tmp_path / "layout")], check=True)
    out = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout
    seen = 0
    for line in out.splitlines():
        if line.startswith("enum "):
            continue
        t, f, n = line.split()
        mirror = MIRRORS[t]
        got = _native.ctypes.sizeof(mirror) if f == "sizeof" else getattr(mirror, f).offset
        assert got == int(n), f"{t}.{f}: ctypes {got}, C {n}"
        seen += 1
    assert seen == 7 + sum(len(m._fields_) for m in MIRRORS.values())
    enum = [int(x) for x in out.splitlines()[-1].split()[2:]]
    assert enum == [_native.ctypes.sizeof(_native.c_int)] * 3


def test_contexts_in_threads():
    """Three contexts at once give what each gives alone."""
    shapes = [{"M": 64, "N": 96, "K": 80}, {"M": 128, "N": 64, "K": 64}, {"M": 96, "N": 96, "K": 32}]

    def job(shape):
        r = loomc.run(MATMUL, arch="wormhole_n150", shape=shape, seed=5)
        return r.simulated_cycles, r.outputs["c"].tobytes()

    alone = [job(s) for s in shapes]
    together = [None] * 3

    def work(i):
        together[i] = job(shapes[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone


def test_one_context_shared_by_threads(matmul_context):
    """Calls on one Context from several threads take turns (the C API
    forbids overlapping calls on a context): each gets what it would alone."""
    c = matmul_context
    alone = c.simulate(0, "functional").outputs["c"].tobytes(), c.compile(2)[1].values
    got, errors = [], []

    def work():
        try:
            for _ in range(3):
                got.append((c.simulate(0, "functional").outputs["c"].tobytes(), c.compile(2)[1].values))
        except Exception as e:  # reported below: a thread's exception is not the test's
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and got == [alone] * 9


STUB_C = r"""
const char *loomc_version(void) { return VERSION; }
"""


@pytest.mark.parametrize("version,message", [
    ("9.9.9", "is libloomc 9.9.9; this package is for "),
    (loomc.__version__, f"(libloomc {loomc.__version__}) has no loomc_ctx_new"),
])
def test_a_library_of_another_version_or_incomplete_is_refused(tmp_path, version, message):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    src = tmp_path / "stub.c"
    src.write_text(STUB_C)
    lib = tmp_path / "libloomc.so.0"
    subprocess.run([cc, "-shared", "-fPIC", f'-DVERSION="{version}"', str(src), "-o", str(lib)], check=True)
    code = ("import loomc\n"
            "try:\n"
            "    loomc.Context()\n"
            "except loomc.LibraryNotFoundError as e:\n"
            "    print(e)\n")
    rc, out = _python(code, {"LOOMC_LIBRARY": str(lib), "PYTHONPATH": os.path.dirname(PACKAGE)})
    assert rc == 0, out
    assert out.startswith(f"loomc: {lib} ") and message in out
