"""loomc - Python access to loomc, the tuning-free compiler of Triton tile
kernels for Tenstorrent-style dataflow chips, and its cycle-approximate
simulator (docs/python.md).

Two parts:
  - the launch-spec names a kernel file uses (`@loomc.launch`,
    `loomc.tensor`, `loomc.output`, `loomc.scratch`): plain Python that
    does nothing, so that a kernel file imports under Python and Triton;
    they need neither numpy nor the library;
  - the compiler, through libloomc.so (ctypes over include/loomc.h):
    compile, run, lower, emit and Context; errors raise loomc.Error with
    the diagnostics. The library is found on first use (loomc._native).
"""
from ._spec import TensorSpec, launch, output, scratch, tensor
from ._errors import Diagnostic, Error, InternalError, LibraryNotFoundError
from ._results import Launch, RunResult, Schedule, Tensor
from ._context import Context
from ._api import compile, emit, lower, round_bf16, run
from ._native import VERSION as __version__
from ._native import library_path

__all__ = [
    "launch", "tensor", "output", "scratch", "TensorSpec",
    "compile", "run", "lower", "emit", "round_bf16", "library_path",
    "Context", "Schedule", "Launch", "Tensor", "RunResult",
    "Diagnostic", "Error", "InternalError", "LibraryNotFoundError",
]
