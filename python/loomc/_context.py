"""_context.py - Context, the Python face of a loomc_ctx (include/loomc.h):
what to compile, compile, lower, simulate and emit, each call's diagnostics
as a list and its failure as loomc.Error; and the plain objects the results
are copied into (Schedule, Launch, Tensor, RunResult), so that nothing
points into the library's memory once a call returns.
"""
import operator
import os
from dataclasses import dataclass, field

from . import _native as N
from ._errors import SEVERITIES, Diagnostic, Error, InternalError

__all__ = ["Context", "Schedule", "Launch", "Tensor", "RunResult"]

ROLES = ("input", "output", "scratch")
MODES = {"timing": N.SIM_TIMING, "functional": N.SIM_FUNCTIONAL}


@dataclass(frozen=True)
class Launch:
    """One launch of a schedule: the @triton.jit kernel, the mapping in
    words, every symbol's value (M, BLOCK_M, grid.x, depth.a, sub.h, ...)
    and loomc's predicted cycles for this launch alone (a prediction of its
    model, not a simulation)."""

    kernel: str
    mapping: str
    values: dict
    predicted_cycles: int


@dataclass(frozen=True)
class Schedule:
    """One schedule of the whole job, rank 0 the best. predicted_cycles is
    loomc's model (a prediction, not a simulation); simulated_cycles is the
    simulator's timing-only figure when loomc.compile(..., simulate=True)
    ran it, else None. explanation is the text of `loomc compile --explain`
    (for rank 0, with the runner-up)."""

    rank: int
    predicted_cycles: int
    launches: tuple
    explanation: str
    simulated_cycles: object = None

    @property
    def values(self):
        """The job's symbol values: a one-launch job's, or, for several
        launches, those every launch that has the name agrees on (the sizes,
        shared constexprs); each launch's own are in launches[i].values."""
        merged, clash = {}, set()
        for launch in self.launches:
            for k, v in launch.values.items():
                if k in merged and merged[k] != v:
                    clash.add(k)
                merged.setdefault(k, v)
        return {k: v for k, v in merged.items() if k not in clash}


@dataclass(frozen=True)
class Tensor:
    """A tensor of the launch spec: name, role ("input", "output",
    "scratch"), loomc's element type ("bf16", "f16", "f32", "i32", "i64"),
    shape at the bound sizes (None where not known) and element count."""

    name: str
    role: str
    dtype: str
    shape: tuple
    count: object


@dataclass(frozen=True, repr=False)
class RunResult:
    """What a simulation gave. outputs maps each output tensor's name to a
    numpy array of its shape (functional mode; empty for timing), float32
    (see loomc.run for bf16). simulated_cycles and simulated_seconds are the
    simulator's figures for the programs one after the other, not a
    measurement. checked: every output was compared with loomc's reference
    interpreter on the same inputs; passed and max_rel_error are that
    comparison's (None when not checked). diagnostics holds the run's
    warnings (a failed check is one)."""

    mode: str
    outputs: dict
    simulated_cycles: float
    simulated_seconds: float
    programs: int
    checked: bool
    passed: object
    max_rel_error: object
    schedule: object
    tensors: list
    diagnostics: list = field(default_factory=list)

    def __repr__(self):
        outs = ", ".join(f"{k}{list(v.shape)}" for k, v in self.outputs.items())
        check = ("check passed" if self.passed else "check FAILED") if self.checked else "not checked"
        return (f"<loomc.RunResult {self.mode}: {self.simulated_cycles:.0f} simulated cycles, "
                f"outputs [{outs}], {check}>")


def _text(p):
    return p.decode("utf-8", "replace") if p is not None else None


def _name(s, what):
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a str, not {type(s).__name__}")
    return s.encode("utf-8")


def _path(p):
    return os.fsencode(p)


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ImportError("loomc: simulating with data needs numpy (Debian: python3-numpy)") from None
    return numpy


class Context:
    """A loomc_ctx: load a kernel and a description, bind sizes and
    constants, then compile, lower, simulate or emit. Each method raises
    loomc.Error when loomc refuses the input and loomc.InternalError on a
    bug in loomc (after which the context refuses all work);
    `diagnostics` is the last call's list, warnings included. A context
    belongs to one thread at a time; different contexts may run in
    different threads (the library keeps no shared state and ctypes
    releases the GIL during each call). Use it in a `with` block, or close()
    it, to release the library's memory at once."""

    def __init__(self):
        self._lib = N.library()
        self._c = self._lib.loomc_ctx_new()
        if not self._c:
            raise MemoryError("loomc: loomc_ctx_new failed")
        self.diagnostics = []

    def close(self):
        """Release the context (further calls raise ValueError)."""
        c, self._c = getattr(self, "_c", None), None
        if c:
            self._lib.loomc_ctx_free(c)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _ctx(self):
        if not self._c:
            raise ValueError("loomc: the context is closed")
        return self._c

    def _read_diagnostics(self):
        out = []
        for i in range(self._lib.loomc_diag_count(self._ctx())):
            p = self._lib.loomc_diag_get(self._c, i)
            if not p:
                continue
            d = p.contents
            sev = SEVERITIES[d.severity] if 0 <= d.severity < len(SEVERITIES) else "error"
            file = os.fsdecode(d.file) if d.file is not None else None
            out.append(Diagnostic(sev, file, d.line, d.col, _text(d.message) or ""))
        return out

    def _call(self, fname, *args):
        rc = getattr(self._lib, fname)(self._ctx(), *args)
        self.diagnostics = self._read_diagnostics()
        if rc == N.OK:
            return
        if rc == N.EINTERNAL:
            raise InternalError(self.diagnostics)
        raise Error(self.diagnostics)

    # ---- what to compile ------------------------------------------------

    def load_file(self, path):
        """The kernel file (read now)."""
        self._call("loomc_load_kernel_file", _path(path))

    def load_string(self, name, source):
        """The kernel's source text; `name` stands for its file in diagnostics."""
        self._call("loomc_load_kernel_string", _path(name), _name(source, "the source"))

    def add_include_dir(self, folder):
        """A folder where the kernel's imports of its project's modules are found."""
        self._call("loomc_add_include_dir", _path(folder))

    def select_kernel(self, name):
        """The launch spec, or a kernel it launches (None: the only one)."""
        self._call("loomc_select_kernel", None if name is None else _name(name, "the kernel"))

    def bind_shape(self, name, value):
        """A size of the launch spec (--shape NAME=VALUE)."""
        self._call("loomc_bind_shape", _name(name, "a size's name"), _integer(value, name))

    def bind_const(self, name, value):
        """An option of the launch spec, or a pinned free constexpr (--const)."""
        self._call("loomc_bind_const", _name(name, "a constant's name"), _integer(value, name))

    def set_arch(self, name_or_file):
        """The hardware description: a name (wormhole_n150) or a YAML file."""
        self._call("loomc_set_arch", _path(name_or_file))

    def set_arch_string(self, name, yaml):
        """A description as YAML text; `name` stands for its file."""
        self._call("loomc_set_arch_string", _path(name), _name(yaml, "the description"))

    def set_fidelity(self, fidelity):
        """"LoFi", "HiFi2", "HiFi3", "HiFi4", or None for the default rule."""
        self._call("loomc_set_fidelity", None if fidelity is None else _name(fidelity, "the fidelity"))

    def set_format(self, fmt):
        """The DRAM storage format: "bf16", "bfp8_b", "bfp4_b", or None."""
        self._call("loomc_set_format", None if fmt is None else _name(fmt, "the format"))

    def set_seed(self, seed):
        """The seed of the pseudo-random values of inputs not given."""
        self._call("loomc_set_seed", _integer(seed, "seed") & 0xFFFFFFFFFFFFFFFF)

    # ---- compile ---------------------------------------------------------

    def compile(self, top_k=1):
        """Schedule the job; the top_k best schedules, best first."""
        self._call("loomc_compile", max(1, _integer(top_k, "top_k")))
        return self.schedules()

    def schedules(self):
        """The last compilation's schedules (empty when none)."""
        return [self._schedule(r) for r in range(self._lib.loomc_schedule_count(self._ctx()))]

    def _schedule(self, r):
        s = self._lib.loomc_schedule_get(self._c, r).contents
        launches = []
        for i in range(s.nlaunches):
            la = s.launches[i]
            values = {_text(la.values[v].name): la.values[v].value for v in range(la.nvalues)}
            launches.append(Launch(_text(la.kernel), _text(la.mapping), values, la.predicted_cycles))
        return Schedule(s.rank, s.predicted_cycles, tuple(launches), _text(s.explanation))

    def tensors(self):
        """The launch spec's tensors after a compilation (empty when none)."""
        return [_tensor(self._lib.loomc_tensor_get(self._c, i).contents)
                for i in range(self._lib.loomc_tensor_count(self._ctx()))]

    # ---- lower, simulate, emit ---------------------------------------------

    def lower(self, rank=0):
        """Schedule `rank`'s dataflow programs, in the text `loomc sim` reads."""
        self._call("loomc_lower", _integer(rank, "rank"))
        return [_text(self._lib.loomc_program_text(self._c, i)) for i in range(self._lib.loomc_program_count(self._c))]

    def emit(self, rank, folder):
        """Write schedule `rank`'s TT-Metalium program into `folder`."""
        self._call("loomc_emit", _integer(rank, "rank"), _path(folder))

    def simulate(self, rank=0, mode="functional", inputs=None):
        """Simulate schedule `rank` (see loomc.run for the modes, the inputs
        and how bf16 values are held in numpy); a RunResult."""
        if mode not in MODES:
            raise ValueError(f"loomc: mode must be 'functional' or 'timing', not {mode!r}")
        rank = _integer(rank, "rank")
        if self._lib.loomc_schedule_count(self._ctx()) == 0 and rank == 0:
            self.compile(1)
        tensors = self.tensors()
        arrays = _input_arrays(inputs or {}, tensors) if inputs else []
        table = (N.Input * max(1, len(arrays)))()
        for i, (name, a) in enumerate(arrays):
            table[i] = N.Input(name.encode("utf-8"), a.ctypes.data_as(N.FLOAT_P), a.size)
        self._call("loomc_simulate", rank, MODES[mode], table, len(arrays))
        warnings = self.diagnostics
        r = self._lib.loomc_sim_get(self._c).contents
        outputs = {}
        for i in range(self._lib.loomc_output_count(self._c)):
            name, arr = _output_array(self._lib.loomc_output_get(self._c, i).contents)
            outputs[name] = arr
        scheds = self.schedules()
        checked = bool(r.checked)
        return RunResult(mode, outputs, r.cycles, r.seconds, r.programs, checked,
                         bool(r.passed) if checked else None, r.max_rel_error if checked else None,
                         scheds[rank] if 0 <= rank < len(scheds) else None, tensors, warnings)


def _integer(v, what):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"loomc: {what} must be an integer, not {type(v).__name__}") from None


def _tensor(t):
    shape = tuple(v if v >= 0 else None for v in t.shape[:t.rank])
    return Tensor(_text(t.name), ROLES[t.role] if 0 <= t.role < 3 else str(t.role), _text(t.dtype), shape,
                  t.count if t.count >= 0 else None)


def _input_arrays(inputs, tensors):
    """The caller's inputs as flat float32 arrays, each checked against its
    tensor's shape; names loomc does not know are left for it to refuse."""
    np = _numpy()
    by_name = {t.name: t for t in tensors}
    out = []
    for name, value in inputs.items():
        if not isinstance(name, str):
            raise TypeError(f"loomc: input names must be str, not {type(name).__name__}")
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"loomc: input '{name}' has numpy dtype {a.dtype}, not real numbers")
        t = by_name.get(name)
        if t is not None and t.role == "input" and None not in t.shape and a.shape != t.shape:
            raise Error([Diagnostic("error", None, 0, 0, f"input '{name}' has shape {a.shape}; the launch "
                                                         f"spec's tensor '{name}' is {t.shape}")])
        out.append((name, np.ascontiguousarray(a, dtype=np.float32).reshape(-1)))
    return out


def _output_array(t):
    """(name, a copy of output t's values as a float32 array of its shape)."""
    np = _numpy()
    shape = tuple(t.shape[:t.rank])
    n = t.count
    flat = np.ctypeslib.as_array(t.data, shape=(n,)).copy() if n > 0 else np.zeros(0, np.float32)
    if int(np.prod(shape)) != n:
        raise InternalError([Diagnostic("internal", None, 0, 0, f"output '{_text(t.name)}' has {n} values "
                                                                f"for the shape {shape}")])
    return _text(t.name), flat.reshape(shape)
