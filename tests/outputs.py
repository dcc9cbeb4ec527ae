#!/usr/bin/env python3
"""outputs.py BUILD - the output path options of loomc (docs/hacking.md, "Output paths").

'-' is standard output for every option that writes one file (compile -o, run
and sim --trace, bench --json and --html, calibrate --out): standard output
then holds that output alone (it parses as JSON, or is the Markdown report or
the HTML page) and the
command's usual report goes to standard error. Every command runs in an empty
folder, which must stay empty: no file named '-' or anything else is made.
Checking a path before the work neither truncates an existing file nor
leaves a new one behind when the work then fails. (The errors for paths that
cannot be written are expect tests, tests/expect/cli/output_*.txt.)
Ends with 'outputs: N passed, N failed'.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    loomc = os.path.join(ROOT, build, "loomc")
    env = dict(os.environ, LOOMC_ARCH_PATH=os.path.join(ROOT, "arch"))
    passed = failed = 0

    def r(*parts):
        return os.path.join(ROOT, *parts)

    def run(cwd, args):
        return subprocess.run([loomc] + args, cwd=cwd, env=env, capture_output=True, text=True)

    def check(name, cond, p=None):
        nonlocal passed, failed
        if cond:
            passed += 1
            return
        failed += 1
        print("FAIL [outputs] " + name)
        if p is not None:
            print("    exit %d\n    stderr: %s\n    stdout: %s" % (p.returncode, p.stderr[:600], p.stdout[:300]))

    def to_stdout(name, args, stdout_ok, report):
        """args writes one output to '-': stdout is that output alone, the report is on stderr."""
        with tempfile.TemporaryDirectory() as cwd:
            p = run(cwd, args)
            ok = p.returncode == 0
            try:
                ok = ok and stdout_ok(p.stdout)
            except ValueError:
                ok = False
            check(name + ": standard output holds the output alone", ok, p)
            check(name + ": the report is on standard error", p.returncode == 0 and report in p.stderr, p)
            check(name + ": no file is made", os.listdir(cwd) == [], p)

    def is_json(key):
        return lambda text: key in json.loads(text)

    mm = r("tests", "expect", "run", "run_plan.py")
    shape = ["--arch", "wormhole_n150", "--shape", "M=128,N=128,K=64"]
    to_stdout("compile -o -", ["compile", mm] + shape + ["-o", "-"],
              lambda t: json.loads(t)["format"] == "loomc-plan", "predicted")
    to_stdout("run --trace -", ["run", mm] + shape + ["--trace", "-"], is_json("traceEvents"),
              "simulated cycles")
    to_stdout("sim --trace -", ["sim", r("tests", "sim", "pingpong.df"), "--arch", "wormhole_n150", "--trace", "-"],
              is_json("traceEvents"), "cycles")
    to_stdout("calibrate --out -",
              ["calibrate", "--data", r("tests", "expect", "calibrate", "wide"), "--kernels", r("kernels"),
               "--table", "oob", "--max-mkn", "1", "--out", "-"],
              lambda t: t.startswith("# Calibration"), "")
    with tempfile.TemporaryDirectory() as sdir:
        suite = os.path.join(sdir, "tiny.suite")
        with open(suite, "w") as f:
            f.write("suite tiny\narch wormhole_n150\n\noperator gemm\nkernel %s\nflops 2*M*N*K\n"
                    "shape M=64 N=64 K=64\n" % r("kernels", "matmul.py"))
        to_stdout("bench --json -", ["bench", suite, "--no-oracle", "--no-tuner", "--quiet", "--json", "-"],
                  lambda t: isinstance(json.loads(t), (dict, list)), "gemm")
        to_stdout("bench --html -", ["bench", suite, "--no-oracle", "--no-tuner", "--quiet", "--html", "-"],
                  lambda t: t.startswith("<!DOCTYPE html>") and t.rstrip().endswith("</html>"), "gemm")

    # checking a path before the work: an existing file keeps its contents and a
    # new one is not left behind when the work then fails (size K is missing)
    bad = ["compile", r("kernels", "matmul.py"), "--arch", "wormhole_n150", "--shape", "M=64,N=64", "-o"]
    with tempfile.TemporaryDirectory() as cwd:
        with open(os.path.join(cwd, "plan.json"), "w") as f:
            f.write("kept\n")
        p = run(cwd, bad + ["plan.json"])
        with open(os.path.join(cwd, "plan.json")) as f:
            kept = f.read()
        check("a failed compile leaves an existing -o file as it was", p.returncode == 1 and kept == "kept\n", p)
        p = run(cwd, bad + ["new.json"])
        check("a failed compile leaves no new -o file", p.returncode == 1 and sorted(os.listdir(cwd)) == ["plan.json"],
              p)
        p = run(cwd, ["bench", r("tests", "expect", "bench", "bad_format.suite"), "--plots", "plots"])
        check("a failed bench leaves no --plots folder", p.returncode == 1 and sorted(os.listdir(cwd)) == ["plan.json"],
              p)
        p = run(cwd, ["bench", r("tests", "expect", "bench", "bad_format.suite"), "--html", "page.html"])
        check("a failed bench leaves no --html file", p.returncode == 1 and sorted(os.listdir(cwd)) == ["plan.json"],
              p)

    print("outputs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
