"""_errors.py - loomc's diagnostics as Python objects, and the exceptions
that carry them: Error (bad input), InternalError (a bug in loomc) and
LibraryNotFoundError (no usable libloomc). Nothing here needs the library.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

__all__ = ["Diagnostic", "Error", "InternalError", "LibraryNotFoundError"]

# loomc_severity of include/loomc.h, by value
SEVERITIES = ("error", "warning", "note", "internal")


@dataclass(frozen=True)
class Diagnostic:
    """One message of loomc: severity ("error", "warning", "note" or
    "internal"), file (the kernel's or description's name as given; for
    "internal", loomc's own source file; None when there is no place), line
    and col (1-based; 0 when not known) and the message alone."""

    severity: str
    file: Optional[str]
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        """As the loomc command prints it: file:line:col: error: message."""
        if self.severity == "internal":
            # the message says "internal error (a bug in loomc) ..." itself
            return f"{self.file}:{self.line}: {self.message}" if self.file else f"loomc: {self.message}"
        if self.file and self.line > 0:
            return f"{self.file}:{self.line}:{self.col if self.col > 0 else 1}: {self.severity}: {self.message}"
        if self.file:
            return f"{self.file}: {self.severity}: {self.message}"
        return f"loomc: {self.severity}: {self.message}"


class Error(Exception):
    """loomc refused the input (the C API's LOOMC_EUSER): a kernel error, an
    unknown description, a missing size, a schedule that does not fit, an
    input of the wrong shape. `diagnostics` is the call's whole list; str(e)
    is its first error, `file:line:col: error: message`, and file, line, col
    and message are that error's."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        first = self._first()
        self.file = first.file if first else None
        self.line = first.line if first else 0
        self.col = first.col if first else 0
        self.message = first.message if first else "failed without a diagnostic"
        super().__init__(str(first) if first else f"loomc: error: {self.message}")

    def _first(self) -> Optional[Diagnostic]:
        for d in self.diagnostics:
            if d.severity in ("error", "internal"):
                return d
        return self.diagnostics[0] if self.diagnostics else None

    def report(self) -> str:
        """Every diagnostic of the call, one a line, as the command prints them."""
        return "\n".join(str(d) for d in self.diagnostics)


class InternalError(Error):
    """A bug in loomc, caught by one of its own checks (LOOMC_EINTERNAL):
    the diagnostic names loomc's source file and line. The context that
    raised it refuses all further work; please report it with the inputs."""


class LibraryNotFoundError(OSError):
    """No usable libloomc shared library: none where the package looked, or
    one of another version. The message lists the places tried."""
