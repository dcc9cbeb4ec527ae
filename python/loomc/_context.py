"""_context.py - Context, the Python face of a loomc_ctx (include/loomc.h):
what to compile, compile, lower, simulate and emit, each call's diagnostics
as a list and its failure as loomc.Error. Python values are checked before
they reach ctypes (which would silently truncate a string at a NUL character
and wrap an integer that does not fit), and each method holds the context's
lock, so that calls on one context never overlap as the C API requires.
"""
from __future__ import annotations

import functools
import operator
import os
import threading
from typing import Any, Callable, List, Mapping, Optional, Tuple, TypeVar

from . import _native as N
from . import _results as R
from ._errors import SEVERITIES, Diagnostic, Error, InternalError
from ._results import RunResult, Schedule, Tensor

__all__ = ["Context"]

MODES = {"timing": N.SIM_TIMING, "functional": N.SIM_FUNCTIONAL}

F = TypeVar("F", bound=Callable[..., Any])


def _numpy() -> Any:
    """numpy, or an ImportError that says which package brings it."""
    try:
        import numpy
    except ImportError:
        raise ImportError("loomc: simulating with data needs numpy (Debian: python3-numpy)") from None
    return numpy


def _locked(method: F) -> F:
    """Run the method holding the context's lock."""
    @functools.wraps(method)
    def wrapper(self: "Context", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return wrapper  # type: ignore[return-value]


def _no_nul(b: bytes, what: str) -> bytes:
    if b"\0" in b:
        raise ValueError(f"loomc: {what} contains a NUL character")
    return b


def _cstr(s: Any, what: str) -> bytes:
    """A str for a `const char *` of the C API, as UTF-8."""
    if not isinstance(s, str):
        raise TypeError(f"loomc: {what} must be a str, not {type(s).__name__}")
    return _no_nul(s.encode("utf-8"), what)


def _cpath(p: Any, what: str) -> bytes:
    """A file name (str, bytes or os.PathLike) for the C API."""
    try:
        b = os.fsencode(p)
    except TypeError:
        raise TypeError(f"loomc: {what} must be a path, not {type(p).__name__}") from None
    return _no_nul(b, what)


def _integer(v: Any, what: str, bits: int = 64, signed: bool = True) -> int:
    """An integer that fits the C type (long long, int, unsigned long long)."""
    try:
        i = operator.index(v)
    except TypeError:
        raise TypeError(f"loomc: {what} must be an integer, not {type(v).__name__}") from None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= i <= hi:
        raise OverflowError(f"loomc: {what} = {i} is outside {lo} .. {hi}")
    return i


class Context:
    """A loomc_ctx: load a kernel and a description, bind sizes and
    constants, then compile, lower, simulate or emit. Each method raises
    loomc.Error when loomc refuses the input and loomc.InternalError on a
    bug in loomc (after which the context refuses all work);
    `diagnostics` is the last call's list, warnings included.

    Threads: each method holds the context's lock, so calls on one context
    from several threads run one after another; different contexts run at
    the same time (the library keeps no shared state, and ctypes releases
    the GIL during each call). Use it in a `with` block, or close() it, to
    release the library's memory at once."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._c: Optional[int] = None
        self._lib = N.library()
        self._c = self._lib.loomc_ctx_new()
        if not self._c:
            raise MemoryError("loomc: loomc_ctx_new failed")
        self.diagnostics: List[Diagnostic] = []

    def close(self) -> None:
        """Release the context and what it handed out (further calls raise
        ValueError; closing twice is harmless)."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            c, self._c = self._c, None
            if c:
                self._lib.loomc_ctx_free(c)

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def _ctx(self) -> int:
        if not self._c:
            raise ValueError("loomc: the context is closed")
        return self._c

    def _read_diagnostics(self) -> List[Diagnostic]:
        out = []
        for i in range(self._lib.loomc_diag_count(self._ctx())):
            p = self._lib.loomc_diag_get(self._c, i)
            if not p:
                continue
            d = p.contents
            sev = SEVERITIES[d.severity] if 0 <= d.severity < len(SEVERITIES) else "error"
            file = os.fsdecode(d.file) if d.file is not None else None
            out.append(Diagnostic(sev, file, d.line, d.col, R.text(d.message) or ""))
        return out

    def _call(self, fname: str, *args: Any) -> None:
        """One call of the C API that can fail; its diagnostics kept, its
        failure raised."""
        rc = getattr(self._lib, fname)(self._ctx(), *args)
        self.diagnostics = self._read_diagnostics()
        if rc == N.OK:
            return
        if rc == N.EINTERNAL:
            raise InternalError(self.diagnostics)
        raise Error(self.diagnostics)

    # ---- what to compile ------------------------------------------------

    @_locked
    def load_file(self, path: Any) -> None:
        """The kernel file (read now)."""
        self._call("loomc_load_kernel_file", _cpath(path, "the kernel's path"))

    @_locked
    def load_string(self, name: Any, source: str) -> None:
        """The kernel's source text; `name` stands for its file in diagnostics."""
        self._call("loomc_load_kernel_string", _cpath(name, "the kernel's name"), _cstr(source, "the source"))

    @_locked
    def add_include_dir(self, folder: Any) -> None:
        """A folder where the kernel's imports of its project's modules are found."""
        self._call("loomc_add_include_dir", _cpath(folder, "the include folder"))

    @_locked
    def select_kernel(self, name: Optional[str]) -> None:
        """The launch spec, or a kernel it launches (None: the only one)."""
        self._call("loomc_select_kernel", None if name is None else _cstr(name, "the kernel"))

    @_locked
    def bind_shape(self, name: str, value: int) -> None:
        """A size of the launch spec (--shape NAME=VALUE)."""
        self._call("loomc_bind_shape", _cstr(name, "a size's name"), _integer(value, f"size {name}"))

    @_locked
    def bind_const(self, name: str, value: int) -> None:
        """An option of the launch spec, or a pinned free constexpr (--const)."""
        self._call("loomc_bind_const", _cstr(name, "a constant's name"), _integer(value, f"constant {name}"))

    @_locked
    def set_arch(self, name_or_file: Any) -> None:
        """The hardware description: a name (wormhole_n150) or a YAML file."""
        self._call("loomc_set_arch", _cpath(name_or_file, "the description"))

    @_locked
    def set_arch_string(self, name: Any, yaml: str) -> None:
        """A description as YAML text; `name` stands for its file."""
        self._call("loomc_set_arch_string", _cpath(name, "the description's name"), _cstr(yaml, "the description"))

    @_locked
    def set_fidelity(self, fidelity: Optional[str]) -> None:
        """"LoFi", "HiFi2", "HiFi3", "HiFi4", or None for the default rule."""
        self._call("loomc_set_fidelity", None if fidelity is None else _cstr(fidelity, "the fidelity"))

    @_locked
    def set_format(self, fmt: Optional[str]) -> None:
        """The DRAM storage format: "bf16", "bfp8_b", "bfp4_b", or None."""
        self._call("loomc_set_format", None if fmt is None else _cstr(fmt, "the format"))

    @_locked
    def set_seed(self, seed: int) -> None:
        """The seed of the pseudo-random values of inputs not given (0 to 2^64 - 1)."""
        self._call("loomc_set_seed", _integer(seed, "the seed", signed=False))

    # ---- compile ---------------------------------------------------------

    @_locked
    def compile(self, top_k: int = 1) -> List[Schedule]:
        """Schedule the job; the top_k (at least 1) best schedules, best first."""
        k = _integer(top_k, "top_k", bits=32)
        if k < 1:
            raise ValueError(f"loomc: top_k must be at least 1, not {k}")
        self._call("loomc_compile", k)
        return self.schedules()

    @_locked
    def schedules(self) -> List[Schedule]:
        """The last compilation's schedules (empty when none)."""
        n = self._lib.loomc_schedule_count(self._ctx())
        return [R.schedule(R.contents(self._lib.loomc_schedule_get(self._c, r), f"schedule {r}")) for r in range(n)]

    @_locked
    def tensors(self) -> List[Tensor]:
        """The launch spec's tensors after a compilation (empty when none)."""
        n = self._lib.loomc_tensor_count(self._ctx())
        return [R.tensor(R.contents(self._lib.loomc_tensor_get(self._c, i), f"tensor {i}")) for i in range(n)]

    # ---- lower, simulate, emit ---------------------------------------------

    @_locked
    def lower(self, rank: int = 0) -> List[str]:
        """Schedule `rank`'s dataflow programs, in the text `loomc sim` reads."""
        self._call("loomc_lower", _integer(rank, "rank", bits=32))
        out = []
        for i in range(self._lib.loomc_program_count(self._c)):
            t = R.text(self._lib.loomc_program_text(self._c, i))
            if t is None:
                raise R.bug(f"program {i} is NULL")
            out.append(t)
        return out

    @_locked
    def emit(self, rank: int, folder: Any) -> None:
        """Write schedule `rank`'s TT-Metalium program into `folder`."""
        self._call("loomc_emit", _integer(rank, "rank", bits=32), _cpath(folder, "the folder"))

    @_locked
    def simulate(self, rank: int = 0, mode: str = "functional",
                 inputs: Optional[Mapping[str, Any]] = None) -> RunResult:
        """Simulate schedule `rank` (see loomc.run for the modes, the inputs
        and how bf16 values are held in numpy); a RunResult. Schedule 0 is
        compiled first when nothing is."""
        if mode not in MODES:
            raise ValueError(f"loomc: mode must be 'functional' or 'timing', not {mode!r}")
        if inputs is not None and not isinstance(inputs, Mapping):
            raise TypeError(f"loomc: inputs must be a mapping of names to arrays, not {type(inputs).__name__}")
        rank = _integer(rank, "rank", bits=32)
        np = _numpy() if mode == "functional" or inputs else None
        if self._lib.loomc_schedule_count(self._ctx()) == 0 and rank == 0:
            self.compile(1)
        tensors = self.tensors()
        arrays = _input_arrays(np, inputs, tensors) if inputs else []
        table = (N.Input * max(1, len(arrays)))()
        names = [name.encode("utf-8") for name, _ in arrays]  # alive until the call returns, as arrays is
        for i, (name, a) in enumerate(arrays):
            table[i] = N.Input(names[i], a.ctypes.data_as(N.FLOAT_P), a.size)
        self._call("loomc_simulate", rank, MODES[mode], table, len(arrays))
        warnings = self.diagnostics
        r = R.contents(self._lib.loomc_sim_get(self._c), "loomc_sim_get after a successful loomc_simulate")
        outputs = {}
        for i in range(self._lib.loomc_output_count(self._c)):
            name, arr = R.output_array(np or _numpy(), R.contents(self._lib.loomc_output_get(self._c, i),
                                                                  f"output {i}"))
            outputs[name] = arr
        scheds = self.schedules()
        checked = bool(r.checked)
        return RunResult(mode, outputs, r.cycles, r.seconds, r.programs, checked,
                         bool(r.passed) if checked else None, r.max_rel_error if checked else None,
                         scheds[rank] if 0 <= rank < len(scheds) else None, tensors, warnings)


def _input_arrays(np: Any, inputs: Mapping[str, Any], tensors: List[Tensor]) -> List[Tuple[str, Any]]:
    """The caller's inputs as flat float32 arrays, each checked against its
    tensor's shape; names loomc does not know are left for it to refuse."""
    by_name = {t.name: t for t in tensors}
    out = []
    for name, value in inputs.items():
        if not isinstance(name, str):
            raise TypeError(f"loomc: input names must be str, not {type(name).__name__}")
        _cstr(name, "an input's name")
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"loomc: input '{name}' has numpy dtype {a.dtype}, not real numbers")
        t = by_name.get(name)
        if t is not None and t.role == "input" and None not in t.shape and a.shape != t.shape:
            raise Error([Diagnostic("error", None, 0, 0, f"input '{name}' has shape {a.shape}; the launch "
                                                         f"spec's tensor '{name}' is {t.shape}")])
        out.append((name, np.ascontiguousarray(a, dtype=np.float32).reshape(-1)))
    return out
