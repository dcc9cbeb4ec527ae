"""_spec.py - the names a launch spec uses (docs/launch.md), as Python objects.

loomc reads a kernel file's `@loomc.launch` function without running it. These
definitions exist so that the same file also imports under Python and Triton:
`launch` hands the function back unchanged, and `tensor`, `output` and
`scratch` return a TensorSpec that only describes the tensor (shape, dtype,
role, row-major strides). Nothing here needs numpy or libloomc.
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Iterable, Tuple, TypeVar

__all__ = ["launch", "tensor", "output", "scratch", "TensorSpec"]

F = TypeVar("F", bound=Callable[..., Any])


def launch(fn: F) -> F:
    """Mark `fn` as a launch spec for loomc; returns `fn` itself, unchanged."""
    return fn


class TensorSpec:
    """A tensor of a launch spec: its shape, its dtype (whatever object the
    file passed, e.g. triton.language.bfloat16) and its role ("input",
    "output" or "scratch"). It holds no data. As in loomc, it is row-major
    and contiguous: stride(i) is the product of the sizes after dimension i.
    """

    __slots__ = ("shape", "dtype", "role")

    shape: Tuple[Any, ...]
    dtype: Any
    role: str

    def __init__(self, shape: Iterable[Any], dtype: Any, role: str) -> None:
        self.shape = tuple(shape)
        self.dtype = dtype
        self.role = role

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def stride(self, dim: int) -> Any:
        """The step between neighbours along `dim` (negative counts from the end)."""
        n = len(self.shape)
        d = operator.index(dim)
        if d < 0:
            d += n
        if not 0 <= d < n:
            raise IndexError(f"dimension {dim} out of range for a tensor of rank {n}")
        return functools.reduce(operator.mul, self.shape[d + 1:], 1)

    def __repr__(self) -> str:
        return f"loomc.{'tensor' if self.role == 'input' else self.role}({self.shape!r}, {self.dtype!r})"


def tensor(shape: Iterable[Any], dtype: Any) -> TensorSpec:
    """An input tensor in DRAM (loomc.tensor((M, K), tl.bfloat16))."""
    return TensorSpec(shape, dtype, "input")


def output(shape: Iterable[Any], dtype: Any) -> TensorSpec:
    """An output tensor in DRAM."""
    return TensorSpec(shape, dtype, "output")


def scratch(shape: Iterable[Any], dtype: Any) -> TensorSpec:
    """An intermediate tensor one launch writes and a later one reads."""
    return TensorSpec(shape, dtype, "scratch")
