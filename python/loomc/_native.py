"""_native.py - finding and loading libloomc.so, and the ctypes mirror of
include/loomc.h (its structures field by field, its functions' signatures).

The library is looked for, in order: the file named by LOOMC_LIBRARY (and
only there, when it is set); the build tree beside this package when it is
the source tree's python/loomc (build/libloomc.so.0); the library folder
`make install` recorded in _installed.py, and PREFIX/lib relative to an
installed package (PREFIX/lib/python3/dist-packages/loomc); then the system's
library path (ctypes.util.find_library, LD_LIBRARY_PATH). It is loaded once
per process, on first use, so that `import loomc` needs no library.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from typing import List, Optional, Tuple

from ._errors import LibraryNotFoundError

SONAME = "libloomc.so.0"
ENV = "LOOMC_LIBRARY"
# include/loomc.h's LOOMC_VERSION; the structures below are that version's
VERSION = "0.1.0"

OK, EUSER, EINTERNAL = 0, 1, 2
SIM_TIMING, SIM_FUNCTIONAL = 0, 1
MAX_RANK = 8

c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_ll = ctypes.c_longlong
FLOAT_P = ctypes.POINTER(ctypes.c_float)


class Diag(ctypes.Structure):
    _fields_ = [("severity", c_int), ("file", c_char_p), ("line", c_int), ("col", c_int), ("message", c_char_p)]


class Value(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("value", c_ll)]


class Launch(ctypes.Structure):
    _fields_ = [("kernel", c_char_p), ("mapping", c_char_p), ("values", ctypes.POINTER(Value)),
                ("nvalues", c_int), ("predicted_cycles", c_ll)]


class Schedule(ctypes.Structure):
    _fields_ = [("rank", c_int), ("predicted_cycles", c_ll), ("launches", ctypes.POINTER(Launch)),
                ("nlaunches", c_int), ("explanation", c_char_p)]


class Tensor(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("role", c_int), ("dtype", c_char_p), ("rank", c_int),
                ("shape", c_ll * MAX_RANK), ("count", c_ll), ("data", FLOAT_P)]


class Input(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("data", FLOAT_P), ("count", c_ll)]


class SimResult(ctypes.Structure):
    _fields_ = [("cycles", ctypes.c_double), ("seconds", ctypes.c_double), ("programs", c_int),
                ("checked", c_int), ("passed", c_int), ("max_rel_error", ctypes.c_double)]


CTX = ctypes.c_void_p
# name: (result type, argument types) for every function of include/loomc.h
SIGNATURES = {
    "loomc_version": (c_char_p, []),
    "loomc_ctx_new": (CTX, []),
    "loomc_ctx_free": (None, [CTX]),
    "loomc_diag_count": (c_int, [CTX]),
    "loomc_diag_get": (ctypes.POINTER(Diag), [CTX, c_int]),
    "loomc_load_kernel_file": (c_int, [CTX, c_char_p]),
    "loomc_load_kernel_string": (c_int, [CTX, c_char_p, c_char_p]),
    "loomc_add_include_dir": (c_int, [CTX, c_char_p]),
    "loomc_select_kernel": (c_int, [CTX, c_char_p]),
    "loomc_bind_shape": (c_int, [CTX, c_char_p, c_ll]),
    "loomc_bind_const": (c_int, [CTX, c_char_p, c_ll]),
    "loomc_set_arch": (c_int, [CTX, c_char_p]),
    "loomc_set_arch_string": (c_int, [CTX, c_char_p, c_char_p]),
    "loomc_set_fidelity": (c_int, [CTX, c_char_p]),
    "loomc_set_format": (c_int, [CTX, c_char_p]),
    "loomc_set_seed": (c_int, [CTX, ctypes.c_ulonglong]),
    "loomc_compile": (c_int, [CTX, c_int]),
    "loomc_schedule_count": (c_int, [CTX]),
    "loomc_schedule_get": (ctypes.POINTER(Schedule), [CTX, c_int]),
    "loomc_tensor_count": (c_int, [CTX]),
    "loomc_tensor_get": (ctypes.POINTER(Tensor), [CTX, c_int]),
    "loomc_lower": (c_int, [CTX, c_int]),
    "loomc_program_count": (c_int, [CTX]),
    "loomc_program_text": (c_char_p, [CTX, c_int]),
    "loomc_simulate": (c_int, [CTX, c_int, c_int, ctypes.POINTER(Input), c_int]),
    "loomc_sim_get": (ctypes.POINTER(SimResult), [CTX]),
    "loomc_output_count": (c_int, [CTX]),
    "loomc_output_get": (ctypes.POINTER(Tensor), [CTX, c_int]),
    "loomc_output_find": (ctypes.POINTER(Tensor), [CTX, c_char_p]),
    "loomc_emit": (c_int, [CTX, c_int, c_char_p]),
}

_lock = threading.Lock()
_loaded: List[Tuple[ctypes.CDLL, str]] = []  # [(CDLL, path)] once loaded


def _here() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def _installed_libdir() -> Optional[str]:
    """The library folder `make install` wrote into _installed.py, or None."""
    try:
        from . import _installed
    except ImportError:
        return None
    return getattr(_installed, "LIBDIR", None)


def candidates() -> List[Tuple[str, str]]:
    """The files to try before the system's path, in order, each as (path,
    what it is): the source tree's build when this package is the source
    tree's python/loomc, then, for an installed package, the folder make
    install recorded and PREFIX/lib relative to the package."""
    here = _here()
    root = os.path.normpath(os.path.join(here, "..", ".."))
    out = []
    if os.path.exists(os.path.join(root, "include", "loomc.h")):
        out.append((os.path.join(root, "build", SONAME), "the source tree's build"))
    libdir = _installed_libdir()
    if libdir:
        out.append((os.path.join(libdir, SONAME), "the folder make install recorded"))
    # PREFIX/lib/python3/dist-packages/loomc -> PREFIX/lib (a moved or staged tree)
    up3 = os.path.normpath(os.path.join(here, "..", "..", ".."))
    if os.path.basename(up3).startswith("lib"):
        rel = os.path.join(up3, SONAME)
        if not libdir or os.path.normpath(rel) != os.path.normpath(os.path.join(libdir, SONAME)):
            out.append((rel, "the library folder of the tree the package is installed in"))
    return out


def _open(path: str) -> ctypes.CDLL:
    """Load the library at `path` (or by name through the dynamic loader)
    and declare every function's signature. OSError when it does not load;
    LibraryNotFoundError when it is another version or lacks a function of
    the header."""
    lib = ctypes.CDLL(path)
    try:
        version = lib.loomc_version
    except AttributeError:
        raise LibraryNotFoundError(f"loomc: {path} is not libloomc (it has no loomc_version)") from None
    version.restype, version.argtypes = SIGNATURES["loomc_version"]
    got = (version() or b"").decode("utf-8", "replace")
    if got != VERSION:
        raise LibraryNotFoundError(f"loomc: {path} is libloomc {got}; this package is for {VERSION} "
                                   f"(set {ENV} to a libloomc {VERSION}, or install the package and "
                                   "library of one build together)")
    for name, (res, args) in SIGNATURES.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise LibraryNotFoundError(f"loomc: {path} (libloomc {got}) has no {name}") from None
        f.restype = res
        f.argtypes = args
    return lib


def _search() -> Tuple[ctypes.CDLL, str]:
    """(CDLL, path) of the first usable library, or LibraryNotFoundError
    listing every place tried."""
    env = os.environ.get(ENV)
    if env:
        try:
            return _open(env), env
        except OSError as e:
            if isinstance(e, LibraryNotFoundError):
                raise
            raise LibraryNotFoundError(f"loomc: {ENV} is set to '{env}', which cannot be loaded: {e}") from None
    tried = [f"{ENV} (not set)"]
    for path, what in candidates():
        if not os.path.exists(path):
            tried.append(f"{path} ({what}: not there)")
            continue
        try:
            return _open(path), path
        except LibraryNotFoundError:
            raise
        except OSError as e:
            tried.append(f"{path} ({what}: {e})")
    found = ctypes.util.find_library("loomc")
    names = [found] if found else []
    if SONAME not in names:
        names.append(SONAME)  # dlopen's own search: LD_LIBRARY_PATH, the cache
    for name in names:
        try:
            return _open(name), name
        except LibraryNotFoundError:
            raise
        except OSError as e:
            tried.append(f"{name} (the system's library path: {e})")
    raise LibraryNotFoundError("loomc: cannot find libloomc (" + SONAME + "); tried " + "; ".join(tried) +
                               ". Build it with `make`, install it with `make install`, or set " + ENV +
                               " to the library file.")


def library() -> ctypes.CDLL:
    """The loaded library (loading it on first use)."""
    with _lock:
        if not _loaded:
            _loaded.append(_search())
        return _loaded[0][0]


def library_path() -> str:
    """The path or name the library was loaded from (loading it on first use)."""
    library()
    return _loaded[0][1]
