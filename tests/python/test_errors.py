"""test_errors.py - loomc.Error: a malformed kernel, a missing size and an
unknown description give the library's diagnostics with file, line and
column, str(e) as the command prints it; an internal error is the
InternalError subclass; a closed context refuses work."""
import ctypes

import pytest

import loomc
from loomc import _native
from conftest import MATMUL

BAD = ("import triton\n"
       "import triton.language as tl\n"
       "\n"
       "@triton.jit\n"
       "def k(x_ptr):\n"
       "    y = (1 +\n"
       "         2) $ 3\n")


def _place(text, ch):
    """The 1-based line and column of the first `ch` in text, counted here."""
    before = text[:text.index(ch)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def test_malformed_kernel_file(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    line, col = _place(BAD, "$")
    with pytest.raises(loomc.Error) as e:
        loomc.compile(str(path), arch="wormhole_n150")
    err = e.value
    assert not isinstance(err, loomc.InternalError)
    assert (err.file, err.line, err.col) == (str(path), line, col) == (str(path), 7, 13)
    assert str(err) == f"{path}:{line}:{col}: error: {err.message}" and "'$'" in err.message
    d = err.diagnostics[0]
    assert isinstance(d, loomc.Diagnostic) and d.severity == "error"
    assert (d.file, d.line, d.col, d.message) == (err.file, err.line, err.col, err.message)
    # the same from text, under the name given
    with pytest.raises(loomc.Error) as e:
        loomc.run("k.py", source=BAD, arch="wormhole_n150")
    assert str(e.value).startswith(f"k.py:{line}:{col}: error: ")


def test_missing_size_points_at_the_parameter():
    src = open(MATMUL, encoding="utf-8").read()
    line, col = _place(src, "K):\n    a = loomc.tensor")
    with pytest.raises(loomc.Error) as e:
        loomc.compile("mm.py", source=src, arch="wormhole_n150", shape={"M": 64, "N": 64})
    assert (e.value.line, e.value.col) == (line, col)
    assert "'K'" in e.value.message


def test_unknown_description_with_its_note():
    with pytest.raises(loomc.Error) as e:
        loomc.compile(MATMUL, arch="wormhole_n15", shape={"M": 64, "N": 64, "K": 64})
    assert str(e.value) == ("loomc: error: unknown hardware description 'wormhole_n15' "
                            "(did you mean 'wormhole_n150'?)")
    sevs = [d.severity for d in e.value.diagnostics]
    assert sevs[0] == "error" and "note" in sevs[1:]
    assert e.value.report().count("\n") == len(sevs) - 1


def test_bad_arguments():
    with pytest.raises(loomc.Error) as e:
        loomc.compile(MATMUL, arch="wormhole_n150", shape={"1M": 3})
    assert "'1M' is not a name" in str(e.value)
    with pytest.raises(loomc.Error):
        loomc.compile(MATMUL, arch="wormhole_n150", fidelity="HiFi5")
    with pytest.raises(loomc.Error) as e:
        loomc.compile("no/such/kernel.py", arch="wormhole_n150")
    assert "no/such/kernel.py" in str(e.value)
    with pytest.raises(TypeError):
        loomc.compile(MATMUL, arch="wormhole_n150", shape={"M": 1.5})


class _StubLib:
    """A library whose every call fails as a caught bug does (LOOMC_EINTERNAL
    with one LOOMC_INTERNAL diagnostic at loomc's own source line)."""

    def __init__(self):
        self.diag = _native.Diag(3, b"src/sched/select.c", 412, 0,
                                 b"internal error (a bug in loomc) in loomc_compile: a broken invariant")
        self.freed = 0

    def loomc_diag_count(self, c):
        return 1

    def loomc_diag_get(self, c, i):
        return ctypes.pointer(self.diag)

    def loomc_compile(self, c, top_k):
        return _native.EINTERNAL

    def loomc_ctx_free(self, c):
        self.freed += 1


def test_internal_error_is_its_own_class():
    c = loomc.Context()
    real, c._lib = c._lib, _StubLib()
    real.loomc_ctx_free(c._c)
    with pytest.raises(loomc.InternalError) as e:
        c.compile(1)
    assert isinstance(e.value, loomc.Error)
    assert str(e.value) == "src/sched/select.c:412: internal error (a bug in loomc) in loomc_compile: a broken invariant"
    assert e.value.diagnostics[0].severity == "internal"
    stub = c._lib
    c.close()
    assert stub.freed == 1


def test_closed_context():
    c = loomc.Context()
    c.close()
    c.close()  # twice is fine
    with pytest.raises(ValueError):
        c.load_file(MATMUL)


def test_values_ctypes_would_mangle_are_refused(matmul_context):
    """ctypes cuts a string at a NUL and wraps an integer that does not fit;
    the package refuses both before the library sees them."""
    c = matmul_context
    with pytest.raises(ValueError, match="NUL"):
        c.bind_shape("M\0N", 64)
    with pytest.raises(ValueError, match="NUL"):
        c.load_file(MATMUL + "\0.txt")
    with pytest.raises(OverflowError):
        c.bind_shape("M", 2 ** 64 + 64)  # would wrap to 64
    with pytest.raises(OverflowError):
        c.bind_const("BLOCK_M", -2 ** 63 - 1)
    with pytest.raises(OverflowError):
        c.set_seed(-1)
    with pytest.raises(OverflowError):
        c.simulate(2 ** 32)
    with pytest.raises(ValueError, match="top_k"):
        c.compile(0)
    with pytest.raises(TypeError):
        c.set_arch(3)
    with pytest.raises(TypeError):
        c.simulate(0, "functional", [("a", 1)])
    # none of it reached the library: the bindings are what the fixture made
    assert c.compile(1)[0].values["M"] == 64
    c.set_seed(2 ** 64 - 1)  # the whole unsigned range is taken
    c.bind_shape("M", 2 ** 63 - 1)  # and the whole signed one, for loomc to judge
    with pytest.raises(loomc.Error):
        c.compile(1)


def test_a_user_error_leaves_the_context_usable(matmul_context):
    c = matmul_context
    with pytest.raises(loomc.Error) as e:
        c.set_arch("no_such_chip")
    assert c.diagnostics == e.value.diagnostics and c.diagnostics[0].severity == "error"
    c.set_arch("blackhole_p150")
    assert c.diagnostics == []
    assert c.compile(1)[0].predicted_cycles > 0
