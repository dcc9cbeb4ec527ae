"""_api.py - loomc's one-call functions: compile, run, lower and emit a
kernel file at a shape for a chip, each in a Context of its own that is
released before it returns; and round_bf16, the library's bf16 rounding in
numpy.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, List, Mapping, Optional

from ._context import Context, _numpy
from ._results import RunResult, Schedule

__all__ = ["compile", "run", "lower", "emit", "round_bf16"]


def _context(path: Any, arch: Any, shape: Optional[Mapping[str, int]], const: Optional[Mapping[str, int]],
             kernel: Optional[str], include: Iterable[Any], fidelity: Optional[str], fmt: Optional[str],
             source: Optional[str], seed: Optional[int] = None) -> Context:
    """A Context set up as the command's options would set it up."""
    c = Context()
    try:
        if source is None:
            c.load_file(path)
        else:
            c.load_string(str(path), source)
        for folder in include or ():
            c.add_include_dir(folder)
        if kernel is not None:
            c.select_kernel(kernel)
        for name, value in (shape or {}).items():
            c.bind_shape(name, value)
        for name, value in (const or {}).items():
            c.bind_const(name, value)
        c.set_arch(arch)
        if fidelity is not None:
            c.set_fidelity(fidelity)
        if fmt is not None:
            c.set_format(fmt)
        if seed is not None:
            c.set_seed(seed)
    except BaseException:
        c.close()
        raise
    return c


def compile(path: Any, *, arch: Any, shape: Optional[Mapping[str, int]] = None,
            const: Optional[Mapping[str, int]] = None, kernel: Optional[str] = None, include: Iterable[Any] = (),
            top_k: int = 1, fidelity: Optional[str] = None, format: Optional[str] = None, simulate: bool = False,
            source: Optional[str] = None) -> List[Schedule]:
    """Schedule the kernel file `path` for the chip `arch` (a description's
    name, such as "wormhole_n150", or a YAML file) at the sizes `shape`
    ({"M": 512, ...}, every size of the launch spec) with the options or
    pinned constexprs `const`; `kernel` picks a launch spec (the command's
    --kernel), `include` lists folders for the kernel's imports, `fidelity`
    and `format` are the command's --fidelity and --format. With `source`,
    that text is the kernel and `path` only its name in diagnostics.

    Returns the `top_k` best schedules, best first (a list of Schedule):
    each with its values, loomc's predicted cycles (its model's prediction)
    and the explanation. With simulate=True each schedule is also simulated
    timing-only and carries simulated_cycles. Raises loomc.Error with the
    diagnostics when loomc refuses the input."""
    with _context(path, arch, shape, const, kernel, include, fidelity, format, source) as c:
        scheds = c.compile(top_k)
        if simulate:
            scheds = [dataclasses.replace(s, simulated_cycles=c.simulate(s.rank, "timing").simulated_cycles)
                      for s in scheds]
        return scheds


def run(path: Any, *, arch: Any, shape: Optional[Mapping[str, int]] = None,
        const: Optional[Mapping[str, int]] = None, inputs: Optional[Mapping[str, Any]] = None,
        mode: str = "functional", rank: int = 0, seed: Optional[int] = None, kernel: Optional[str] = None,
        include: Iterable[Any] = (), fidelity: Optional[str] = None, format: Optional[str] = None,
        source: Optional[str] = None) -> RunResult:
    """Compile the kernel file `path` as loomc.compile does and simulate its
    schedule `rank` (0: the best); a RunResult.

    mode="functional" computes the values: `inputs` maps input tensor names
    to numpy arrays (or anything numpy.asarray takes) of exactly the
    tensor's shape; an input not given is pseudo-random from `seed` (as
    `loomc run --check`). The outputs come back as numpy arrays of the
    shapes loomc reports, and are compared with loomc's reference
    interpreter run on the same inputs (result.checked, result.passed; a
    failed check is a warning in result.diagnostics, not an exception).
    mode="timing" computes cycles only, at any size, and takes no inputs.
    result.simulated_cycles and result.simulated_seconds are simulated.

    Numbers in numpy: inputs are first converted to float32 as
    numpy.asarray(x, numpy.float32) does (round to nearest even); the
    library then converts float32 to the tensor's storage format as a host
    does: a bf16 tensor's values are rounded to bf16, to nearest with ties
    to even (loomc.round_bf16 gives the same values). A float64 input for a
    bf16 tensor is thus rounded twice, which can differ from one rounding
    by one bf16 step for a value within 2^-24 (relative) of a halfway point
    between two bf16 values; pass float32 values to avoid it. numpy has no
    bf16: every output is a float32 array, and a bf16 output's values are
    bf16 values held in float32 (the low 16 bits of each are zero). An f16
    tensor is held in fp32 on the chip (its rounding is not modelled), so
    its values are returned as float32 unchanged. result.tensors gives each
    tensor's loomc dtype ("bf16", "f32", ...)."""
    with _context(path, arch, shape, const, kernel, include, fidelity, format, source, seed) as c:
        if rank > 0:
            c.compile(rank + 1)
        return c.simulate(rank, mode, inputs)


def lower(path: Any, *, arch: Any, shape: Optional[Mapping[str, int]] = None,
          const: Optional[Mapping[str, int]] = None, rank: int = 0, kernel: Optional[str] = None,
          include: Iterable[Any] = (), fidelity: Optional[str] = None, format: Optional[str] = None,
          source: Optional[str] = None) -> List[str]:
    """The dataflow programs of schedule `rank` as text (`loomc sim` reads
    them), one per launch or fused pair of launches."""
    with _context(path, arch, shape, const, kernel, include, fidelity, format, source) as c:
        if rank > 0:
            c.compile(rank + 1)
        return c.lower(rank)


def emit(path: Any, folder: Any, *, arch: Any, shape: Optional[Mapping[str, int]] = None,
         const: Optional[Mapping[str, int]] = None, rank: int = 0, kernel: Optional[str] = None,
         include: Iterable[Any] = (), fidelity: Optional[str] = None, format: Optional[str] = None,
         source: Optional[str] = None) -> None:
    """Write the TT-Metalium program of schedule `rank` into `folder`, as
    `loomc emit -o folder` does (docs/emit.md)."""
    with _context(path, arch, shape, const, kernel, include, fidelity, format, source) as c:
        if rank > 0:
            c.compile(rank + 1)
        c.emit(rank, folder)


def round_bf16(x: Any) -> Any:
    """x rounded to bf16 as loomc rounds host data: to nearest, ties to
    even; a NaN stays NaN (made quiet); values past the largest bf16 by
    half a step or more become infinity. x is first converted to float32;
    the result is a float32 array of bf16 values (low 16 bits zero)."""
    np = _numpy()
    f = np.array(x, dtype=np.float32, copy=True)
    u = f.view(np.uint32)
    with np.errstate(over="ignore"):  # the sum wraps only for NaNs, which np.where replaces
        nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
        lsb = (u >> np.uint32(16)) & np.uint32(1)
        rounded = (u + np.uint32(0x7FFF) + lsb) & np.uint32(0xFFFF0000)
        quiet = (u & np.uint32(0xFFFF0000)) | np.uint32(0x00400000)
        u[...] = np.where(nan, quiet, rounded)
    return f
