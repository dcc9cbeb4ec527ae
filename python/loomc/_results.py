"""_results.py - the plain Python objects loomc's results are copied into
(Launch, Schedule, Tensor, RunResult), and the copying from the C API's
structures (include/loomc.h), so that nothing a caller holds points into the
library's memory once a call returns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import _native as N
from ._errors import Diagnostic, InternalError

__all__ = ["Launch", "Schedule", "Tensor", "RunResult"]

# loomc_role of include/loomc.h, by value
ROLES = ("input", "output", "scratch")


@dataclass(frozen=True)
class Launch:
    """One launch of a schedule: the @triton.jit kernel, the mapping in
    words (program axes on the grid, each load's transport), every symbol's
    value (M, BLOCK_M, grid.x, depth.a, sub.h, ...) and loomc's predicted
    cycles for this launch alone (its model's prediction, not a
    simulation)."""

    kernel: str
    mapping: str
    values: Dict[str, int]
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
    launches: Tuple[Launch, ...]
    explanation: str
    simulated_cycles: Optional[float] = None

    @property
    def values(self) -> Dict[str, int]:
        """The job's symbol values: a one-launch job's, or, for several
        launches, those every launch that has the name agrees on (the sizes,
        shared constexprs); each launch's own are in launches[i].values."""
        merged: Dict[str, int] = {}
        clash = set()
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
    shape at the bound sizes (None where not known, such as a scratch
    dimension that depends on a constexpr) and element count (None when not
    known)."""

    name: str
    role: str
    dtype: str
    shape: Tuple[Optional[int], ...]
    count: Optional[int]


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
    outputs: Dict[str, Any]
    simulated_cycles: float
    simulated_seconds: float
    programs: int
    checked: bool
    passed: Optional[bool]
    max_rel_error: Optional[float]
    schedule: Optional[Schedule]
    tensors: List[Tensor]
    diagnostics: List[Diagnostic] = field(default_factory=list)

    def __repr__(self) -> str:
        outs = ", ".join(f"{k}{list(v.shape)}" for k, v in self.outputs.items())
        check = ("check passed" if self.passed else "check FAILED") if self.checked else "not checked"
        return (f"<loomc.RunResult {self.mode}: {self.simulated_cycles:.0f} simulated cycles, "
                f"outputs [{outs}], {check}>")


def text(p: Optional[bytes]) -> Optional[str]:
    """A C string the library handed out (ctypes has copied it to bytes)."""
    return p.decode("utf-8", "replace") if p is not None else None


def bug(message: str) -> InternalError:
    """An InternalError for a broken promise of the C API seen from Python
    (a NULL where the header promises a value)."""
    return InternalError([Diagnostic("internal", None, 0, 0, f"internal error (a bug in loomc): {message}")])


def contents(p: Any, what: str) -> Any:
    """The structure a pointer of the C API points to; a NULL is a bug."""
    if not p:
        raise bug(f"{what} is NULL")
    return p.contents


def schedule(s: N.Schedule) -> Schedule:
    """A copy of a loomc_schedule."""
    launches = []
    for i in range(s.nlaunches):
        la = s.launches[i]
        values = {text(la.values[v].name): la.values[v].value for v in range(la.nvalues)}
        launches.append(Launch(text(la.kernel), text(la.mapping) or "", values, la.predicted_cycles))
    return Schedule(s.rank, s.predicted_cycles, tuple(launches), text(s.explanation) or "")


def tensor(t: N.Tensor) -> Tensor:
    """A copy of a loomc_tensor's description (not its data)."""
    shape = tuple(v if v >= 0 else None for v in t.shape[:t.rank])
    role = ROLES[t.role] if 0 <= t.role < len(ROLES) else str(t.role)
    return Tensor(text(t.name), role, text(t.dtype), shape, t.count if t.count >= 0 else None)


def output_array(np: Any, t: N.Tensor) -> Tuple[str, Any]:
    """(name, a copy of output t's values as a float32 array of its shape)."""
    name = text(t.name)
    shape = tuple(t.shape[:t.rank])
    n = t.count
    if n < 0 or any(d < 0 for d in shape) or int(np.prod(shape, dtype=np.int64)) != n:
        raise bug(f"output '{name}' has {n} values for the shape {shape}")
    if n > 0 and not t.data:
        raise bug(f"output '{name}' has {n} values at NULL")
    flat = np.ctypeslib.as_array(t.data, shape=(n,)).copy() if n > 0 else np.zeros(0, np.float32)
    return name, flat.reshape(shape)
