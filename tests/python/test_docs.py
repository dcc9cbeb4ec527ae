"""test_docs.py - the Python examples of README.md and docs/python.md run
as written, from the source tree's root, with the package under test: each
file's ```python blocks in order, in one namespace (a later block may use
what an earlier one made); a line whose comment starts with a printed
message must print it."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT


def _blocks(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), re.M | re.S)


@pytest.mark.parametrize("path", ["README.md", os.path.join("docs", "python.md")])
def test_the_python_examples_run(path, monkeypatch):
    blocks = _blocks(path)
    assert blocks, f"{path} has no Python example"
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "__example__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for code in blocks:
            exec(compile(code, path, "exec"), namespace)
    printed = out.getvalue()
    # `print(e)   # kernels/matmul.py:42:18: error: ... ; ...`: the message up to the '...'
    for code in blocks:
        for want in re.findall(r"print\(\w+\)\s+# (\S+: error: [^.]*?)(?:\.\.\.|$)", code, re.M):
            assert want.strip() in printed, want
    namespace.clear()
