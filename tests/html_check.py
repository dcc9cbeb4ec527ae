#!/usr/bin/env python3
"""html_check.py BUILD - `loomc bench --html` (docs/evaluation.md, "HTML"), in a browser.

A tiny suite (two small GEMMs on one chip, a small oracle, the tuner at 2 and
4 trials) is benchmarked once with --json and --html. The page is opened in
headless Chromium (Debian's chromium), driven over the DevTools protocol on
a pipe (--remote-debugging-pipe: the standard library is enough), which must
show: no console message of level error, no uncaught exception, no request
for anything but the page itself (the page is self-contained), the plots
drawn inline as SVG with a size, and tables that hold the numbers of the
same run's JSON: every cell that names a row's member (data-json) within
half a unit of its last printed digit (and the JSON's own 6 significant
digits), every summary cell (data-key) against the aggregate computed here
from the JSON rows, the schedules as written. Every table's caption, every
plot's caption and the page's opening say that the figures are simulated.
Chromium must be installed (`make deps`, the Makefile's DEBS): without it
the test fails, saying so. Ends with 'html: N passed, N failed'.
"""
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--remote-debugging-pipe"]
# what the page's tables hold, read in the page itself
EXTRACT = r"""
(() => {
  const cells = (sel) => Array.from(document.querySelectorAll(sel)).map(td => ({
    row: td.closest('tr').dataset.row === undefined ? null : Number(td.closest('tr').dataset.row),
    op: td.closest('tr').cells[0].textContent, arch: td.closest('tr').cells[1].textContent,
    json: td.dataset.json || null, key: td.dataset.key || null, text: td.textContent}));
  return {
    title: document.title,
    opening: document.querySelector('p.note').textContent,
    captions: Array.from(document.querySelectorAll('caption, figcaption')).map(c => c.textContent),
    tables: document.querySelectorAll('table').length,
    svgs: Array.from(document.querySelectorAll('figure svg')).map(s => {
      const r = s.getBoundingClientRect(); return [r.width, r.height, s.querySelectorAll('path, text').length]; }),
    json: cells('td[data-json]'),
    keys: cells('table#summary td[data-key], table#tuned td[data-key], table.shapes td[data-key]'),
  };
})()
"""


class Browser:
    """Headless Chromium on a DevTools pipe: fd 3 carries commands to it, fd 4 its answers and events,
    each a JSON text ended by a NUL."""

    def __init__(self, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():  # fds 3 and 4 of the child, whatever numbers the pipes got
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(profile, "chromium.log"), "w")
        self.proc = subprocess.Popen(["chromium"] + FLAGS + ["--user-data-dir=" + os.path.join(profile, "user"),
                                                             "about:blank"],
                                     preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.to_w, json.dumps(m).encode() + b"\0")
        return self.next_id

    def wait(self, pred, timeout=120):
        end = time.time() + timeout
        while True:
            while b"\0" in self.buf:
                text, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(text)
                if pred(m):
                    return m
                self.events.append(m)
            left = end - time.time()
            if left <= 0:
                raise TimeoutError("no answer from chromium in %d s" % timeout)
            if select.select([self.from_r], [], [], min(left, 1))[0]:
                chunk = os.read(self.from_r, 1 << 16)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk

    def call(self, method, params=None, session=None):
        i = self.send(method, params, session)
        m = self.wait(lambda m: m.get("id") == i)
        if "error" in m:
            raise RuntimeError("%s: %s" % (method, m["error"]))
        return m["result"]

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)
        self.log.close()


def open_page(url, profile):
    """Load url; what the page holds (EXTRACT), and the console errors, exceptions and requests seen."""
    b = Browser(profile)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            b.call(domain + ".enable", None, s)
        b.call("Page.navigate", {"url": url}, s)
        b.wait(lambda m: m.get("method") == "Page.loadEventFired")
        got = b.call("Runtime.evaluate", {"expression": EXTRACT, "returnByValue": True}, s)
        page = got["result"].get("value")
    finally:
        b.close()
    errors, requests = [], []
    for e in b.events:
        p, m = e.get("params", {}), e.get("method")
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
        elif m == "Runtime.exceptionThrown":
            errors.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("log: %s" % p["entry"].get("text"))
        elif m == "Network.requestWillBeSent":
            requests.append(p["request"]["url"])
    return page, errors, requests


def member(row, path):
    """row's member at a dotted path (list items by index); None when absent."""
    v = row
    for k in path.split("."):
        if isinstance(v, list):
            v = v[int(k)] if int(k) < len(v) else None
        elif isinstance(v, dict):
            v = v.get(k)
        if v is None:
            return None
    return v


def numbers(text):
    """The numbers printed in a cell, with the decimals each has, scaled when a percentage."""
    out = []
    for m in re.finditer(r"(-?\d+(?:\.(\d+))?)(%?)", text):
        scale = 0.01 if m.group(3) else 1.0
        out.append((float(m.group(1)) * scale, 0.5 * 10 ** -len(m.group(2) or "") * scale))
    return out


def close_enough(shown, half, value):
    """shown is value printed to a last digit worth 2 * half; the JSON's value has 6 significant digits."""
    return abs(shown - value) <= half + abs(value) * 1e-5 + 1e-12


def geomean(x):
    return math.exp(sum(math.log(v) for v in x) / len(x))


def aggregates(rows, op, arch, marks):
    """The summary of one operator on one chip as the page's data-key cells name it (docs/evaluation.md)."""
    g = [r for r in rows if r["operator"] == op and r["arch"] == arch]
    ok = [r for r in g if r["ok"]]
    out = {"shapes": [len(ok), len(g)]}
    sp = [r["ttnn"]["speedup_of_loomc"] for r in ok if r["ttnn"]["cycles"] is not None]
    if sp:
        out["speedup"] = [geomean(sp), min(sp), max(sp)]
    tuned = [r["ttnn_tuned"]["speedup_of_loomc"] for r in ok if r["ttnn_tuned"]["cycles"] is not None]
    if tuned:
        out["tuned_shapes"] = [len(tuned), len(g)]
        out["tuned_speedup"] = [geomean(tuned), min(tuned), max(tuned)]
    if ok:
        r1 = [r["best_known"]["top1_regret"] for r in ok]
        out["top1"] = [sum(r1) / len(r1), max(r1)]
        out["top5"] = [sum(r["best_known"]["top5_regret"] for r in ok) / len(ok)]
        out["compile"] = [sum(r["compile_seconds"] for r in ok) / len(ok)]
        out["tune"] = [sum(r["tuner"][-1]["host_seconds"] for r in ok if r.get("tuner")) / len(ok)]
        out["oracle"] = [sum(r["oracle"]["exact"] for r in ok if "oracle" in r), sum("oracle" in r for r in ok)]
        for m in range(marks):
            t = [r["tuner"][m]["regret"] for r in ok if r.get("tuner") and r["tuner"][m]["regret"] is not None]
            if t:
                out["tuner.%d" % m] = [sum(t) / len(t)]
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    loomc = os.path.join(ROOT, build, "loomc")
    env = dict(os.environ, LOOMC_ARCH_PATH=os.path.join(ROOT, "arch"))
    passed = failed = 0

    def check(name, cond, detail=""):
        nonlocal passed, failed
        if cond:
            passed += 1
            return
        failed += 1
        print("FAIL [html %s] %s" % (build, name))
        if detail:
            print("    " + str(detail)[:1500].replace("\n", "\n    "))

    if not shutil.which("chromium"):
        check("chromium is installed (Debian's chromium, in the Makefile's DEBS: make deps)", False)
        print("html: %d passed, %d failed" % (passed, failed))
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        suite = os.path.join(tmp, "tiny.suite")
        with open(suite, "w") as f:
            f.write("suite tiny\narch wormhole_n150\n\noperator gemm\nkernel %s\nflops 2*M*N*K\n"
                    "bytes 2*M*K + 2*K*N + 4*M*N\nshape M=64 N=64 K=64\nshape M=128 N=64 K=128\n"
                    % os.path.join(ROOT, "kernels", "matmul.py"))
        page_path, rows_path = os.path.join(tmp, "page.html"), os.path.join(tmp, "rows.json")
        p = subprocess.run([loomc, "bench", suite, "--oracle-bound", "20", "--tuner-trials", "2,4", "--quiet",
                            "--json", rows_path, "--html", page_path], env=env, capture_output=True, text=True)
        check("bench --json --html: exit 0", p.returncode == 0, p.stderr)
        if p.returncode != 0:
            print("html: %d passed, %d failed" % (passed, failed))
            return 1
        with open(rows_path) as f:
            rows = json.load(f)["rows"]
        with open(page_path, encoding="utf-8") as f:
            text = f.read()
        # self-contained, as written: no script, no style or image fetched, no address but SVG's namespaces
        addresses = set(re.findall(r"https?://[^\s\"'<>)]*", text)) - {"http://www.w3.org/2000/svg",
                                                                        "http://www.w3.org/1999/xlink"}
        check("the page names no address to fetch", not addresses, addresses)
        check("the page has no script and links nothing",
              not re.search(r"<script|<link|<img|<iframe|@import|\bsrc=", text, re.I))

        profile = os.path.join(tmp, "chromium")
        os.mkdir(profile)
        try:
            page, errors, requests = open_page("file://" + page_path, profile)
        except (OSError, RuntimeError, TimeoutError, EOFError) as x:
            with open(os.path.join(profile, "chromium.log"), errors="replace") as f:
                log = f.read()
            check("chromium opens the page: %s" % x, False, log[-1500:])
            print("html: %d passed, %d failed" % (passed, failed))
            return 1
        check("no console errors or exceptions", not errors, errors)
        check("nothing requested but the page itself", requests == ["file://" + page_path], requests)
        check("the title says simulated", "simulated" in page["title"], page["title"])
        check("the opening says every figure is simulated", "every figure" in page["opening"].lower() and
              "simulated" in page["opening"], page["opening"])
        check("every caption says simulated", page["captions"] and all("simulated" in c for c in page["captions"]),
              page["captions"])
        # speedup, roofline and rank for the one operator and chip, each drawn
        check("three plots, inline", len(page["svgs"]) == 3, page["svgs"])
        check("each plot has a size and something drawn", all(w > 100 and h > 50 and n > 10 for w, h, n in page["svgs"]),
              page["svgs"])
        # the per-shape and schedule cells against the rows
        seen = set()
        for c in page["json"]:
            row = rows[c["row"]]
            paths = c["json"].split()
            values = [member(row, q) for q in paths]
            seen.update(paths)
            if all(isinstance(v, str) for v in values):
                check("row %d %s: as in the JSON" % (c["row"], c["json"]),
                      c["text"] == values[0] or c["text"] == "failed: " + values[0], (c["text"], values))
                continue
            if values == [None]:
                check("row %d %s: none in the JSON, none shown" % (c["row"], c["json"]), c["text"] in ("n/a", "-"),
                      c["text"])
                continue
            shown = numbers(c["text"])
            check("row %d %s: %s holds %s" % (c["row"], c["json"], c["text"], values),
                  len(shown) == len(values) and all(close_enough(s, h, v) for (s, h), v in zip(shown, values)))
        for want in ("loomc.cycles", "ttnn.cycles", "ttnn.speedup_of_loomc", "best_known.cycles",
                     "best_known.top1_regret", "best_known.top5_regret", "oracle.loomc_rank oracle.ranked",
                     "oracle.space", "tuner.0.regret", "tuner.1.regret", "compile_seconds", "loomc.schedule"):
            check("the page shows %s" % want, want in seen or any(c["json"] == want for c in page["json"]))
        # TFLOP/s and the share of the roof, from the row's FLOPs, cycles and clock
        for c in page["keys"]:
            if c["row"] is None:
                continue
            r = rows[c["row"]]
            tf = r["flops"] / (r["loomc"]["cycles"] / (r["clock_ghz"] * 1e9)) / 1e12
            roof = min(r["peak_tflops"], r["dram_bound_tflops"] or r["peak_tflops"])
            want = tf if c["key"] == "tflops" else tf / roof
            (s, h), = numbers(c["text"])
            check("row %d %s: %s is %g" % (c["row"], c["key"], c["text"], want), close_enough(s, h, want))
        # the summary, computed here from the rows
        summary = [c for c in page["keys"] if c["row"] is None]
        check("a summary line per operator and chip", len({(c["op"], c["arch"]) for c in summary}) == 1, summary)
        for c in summary:
            want = aggregates(rows, c["op"], c["arch"], 2).get(c["key"])
            shown = numbers(c["text"])
            ok = want is not None and len(shown) == len(want) and all(
                close_enough(s, h, v) for (s, h), v in zip(shown, want))
            check("summary %s %s: %s holds %s" % (c["op"], c["key"], c["text"], want), ok)
    print("html: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
