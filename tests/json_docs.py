#!/usr/bin/env python3
"""json_docs.py BUILD - the JSON documents of loomc (docs/hacking.md, "JSON").

Each command that writes JSON (compile --json and -o, run --json, sim --json
and --trace, arch --json, bench --json) is run on inputs whose file names,
and a description's text, hold quotes, backslashes, control characters and
non-ASCII UTF-8: its output must be one document that Python's json reads,
with its "format" and "version", and those strings must come back as they
were (a plan file written so is read back by run --schedule). With --json,
every failure of each of these commands - bad input (exit 1), a usage
error, an internal error (exit 2, LOOMC_TEST_BUG) - must print one
"loomc-error" document on standard output (on standard error when '-' gave
standard output to another output) besides the messages on standard error,
with the exit status and the diagnostics, the odd file name among them.
Ends with 'json: N passed, N failed'.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# a file name of every kind of character but '/' and NUL (and no white space: suites split on it)
NAME = 'q"uo\\te\x01\x1f\x7f-na\u00efve-\U0001f680'
# a text with the white space too
TEXT = 'a "quoted"\tback\\slash\nline\x01 na\u00efve \U0001f680'
FORMATS = {"compile": "loomc-plan", "run": "loomc-run-report", "sim": "loomc-sim-report", "arch": "loomc-arch",
           "bench": "loomc-bench"}


def yaml_quoted(s):
    """s as a YAML double-quoted scalar."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7f:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    loomc = os.path.join(ROOT, build, "loomc")
    env = dict(os.environ, LOOMC_ARCH_PATH=os.path.join(ROOT, "arch"))
    env.pop("LOOMC_TEST_BUG", None)
    passed = failed = 0

    def run(args, cwd, bug=None):
        e = dict(env, LOOMC_TEST_BUG=bug) if bug else env
        p = subprocess.run([loomc] + args, cwd=cwd, env=e, capture_output=True)
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        return p

    def check(name, cond, p=None):
        nonlocal passed, failed
        if cond:
            passed += 1
            return
        failed += 1
        print("FAIL [json] " + name)
        if p is not None:
            print("    exit %d\n    stderr: %s\n    stdout: %s" % (p.returncode, p.err[:600], p.out[:400]))

    def doc(text):
        """text (bytes: strictly UTF-8) as one JSON document, or None."""
        try:
            return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
        except ValueError:
            return None

    def document(name, p, fmt, text=None):
        """The run printed one document of format fmt (on stdout, or in text); returns it."""
        d = doc(p.stdout if text is None else text)
        check(name + ": one JSON document", isinstance(d, dict), p)
        if not isinstance(d, dict):
            return {}
        check(name + ": format %s, version 1" % fmt, d.get("format") == fmt and d.get("version") == 1, p)
        return d

    def error_doc(name, p, cmd, status, text=None):
        """A failure under --json: the exit status, the messages on stderr and the document."""
        check(name + ": exit %d" % status, p.returncode == status, p)
        check(name + ": the message is on standard error", "error" in p.err, p)
        d = document(name, p, "loomc-error", text)
        diags = d.get("diagnostics", [])
        check(name + ": its command, status and diagnostics",
              d.get("command") == cmd and d.get("exit_status") == status and len(diags) >= 1, p)
        for g in diags:
            ok = (list(g) == ["file", "line", "col", "severity", "message"] and
                  g["severity"] in ("error", "warning", "note", "internal") and isinstance(g["message"], str) and
                  all(g[k] is None or (isinstance(g[k], int) and g[k] > 0) for k in ("line", "col")))
            check(name + ": a diagnostic of the documented form: %r" % g, ok, p)
        return d

    with tempfile.TemporaryDirectory() as tmp:
        kernel = os.path.join(tmp, NAME + ".py")
        shutil.copy(os.path.join(ROOT, "kernels", "matmul.py"), kernel)
        shape = ["--arch", "wormhole_n150", "--shape", "M=64,N=64,K=64"]

        # compile: the kernel's name in the report and in the plan file; the plan read back
        plan = os.path.join(tmp, NAME + ".json")
        p = run(["compile", kernel] + shape + ["--json", "-o", plan], tmp)
        check("compile --json -o: exit 0", p.returncode == 0, p)
        d = document("compile --json", p, "loomc-plan")
        check("compile --json: kernel_file as given", d.get("kernel_file") == kernel, p)
        with open(plan, "rb") as f:
            pd = doc(f.read())
        check("compile -o: the plan is a document with kernel_file as given",
              isinstance(pd, dict) and pd.get("format") == "loomc-plan" and pd.get("kernel_file") == kernel)
        p = run(["run", kernel] + shape + ["--schedule", plan, "--check", "--json"], tmp)
        check("run --schedule PLAN --json: exit 0", p.returncode == 0, p)
        d = document("run --json", p, "loomc-run-report")
        check("run --json: the plan's schedule, checked", d.get("check") == "pass" and
              d.get("schedule", {}).get("origin") == "plan", p)

        # arch: a description whose text holds it all
        with open(os.path.join(ROOT, "tests", "expect", "arch", "valid_tiny.yaml")) as f:
            yaml = f.read()
        desc = os.path.join(tmp, NAME + ".yaml")
        with open(desc, "w", encoding="utf-8") as f:
            f.write(yaml.replace("name: tiny\n", "name: tiny\ndescription: %s\n" % yaml_quoted(TEXT), 1))
        p = run(["arch", "--json", desc], tmp)
        check("arch --json: exit 0", p.returncode == 0, p)
        d = document("arch --json", p, "loomc-arch")
        check("arch --json: the description's text as written", d.get("description") == TEXT, p)

        # sim: the report, and the trace in an oddly named file
        prog = os.path.join(tmp, NAME + ".df")
        shutil.copy(os.path.join(ROOT, "tests", "sim", "pingpong.df"), prog)
        trace = os.path.join(tmp, NAME + ".trace.json")
        p = run(["sim", prog, "--arch", "wormhole_n150", "--json", "--trace", trace], tmp)
        check("sim --json --trace: exit 0", p.returncode == 0, p)
        document("sim --json", p, "loomc-sim-report")
        with open(trace, "rb") as f:
            td = doc(f.read())
        check("sim --trace: a trace document with its events",
              isinstance(td, dict) and td.get("format") == "loomc-trace" and td.get("version") == 1 and
              len(td.get("traceEvents", [])) > 10 and "otherData" in td)

        # bench: a suite of one small shape, its kernel oddly named
        suite = os.path.join(tmp, NAME + ".suite")
        with open(suite, "w", encoding="utf-8") as f:
            f.write("suite odd\narch wormhole_n150\n\noperator gemm\nkernel %s\nflops 2*M*N*K\n"
                    "shape M=64 N=64 K=64\n" % os.path.basename(kernel))
        p = run(["bench", suite, "--no-oracle", "--no-tuner", "--quiet", "--json", "-"], tmp)
        check("bench --json -: exit 0", p.returncode == 0, p)
        d = document("bench --json", p, "loomc-bench")
        check("bench --json: its row ran", [r.get("ok") for r in d.get("rows", [])] == [True], p)

        # failures under --json: bad input, a usage error, an internal error; each command
        missing = os.path.join(tmp, NAME + "-missing")
        bad_kernel = os.path.join(tmp, NAME + "-bad.py")
        with open(bad_kernel, "w") as f:
            f.write("import triton\n\n@triton.jit\ndef k(x_ptr:\n")
        bad = {
            "compile": ["compile", bad_kernel] + shape + ["--json"],
            "run": ["run", missing + ".py"] + shape + ["--json"],
            "sim": ["sim", missing + ".df", "--arch", "wormhole_n150", "--json"],
            "arch": ["arch", "--json", missing + ".yaml"],
            "bench": ["bench", missing + ".suite", "--json", os.path.join(tmp, "rows.json")],
        }
        for cmd, args in bad.items():
            p = run(args, tmp)
            d = error_doc(cmd + " with bad input", p, cmd, 1)
            said = [g["file"] or "" for g in d.get("diagnostics", [])] + [g["message"] for g in d.get("diagnostics", [])]
            check(cmd + " with bad input: the odd name comes back as it was", any(NAME in s for s in said), p)
            p = run([cmd, "--no-such-option"] + args[1:], tmp)
            d = error_doc(cmd + " with an unknown option", p, cmd, 1)
            check(cmd + " with an unknown option: named as the command's own error",
                  d.get("diagnostics", [{}])[0].get("file") == "loomc " + cmd, p)
            p = run(args, tmp, bug=cmd)
            d = error_doc(cmd + " with an internal error", p, cmd, 2)
            last = (d.get("diagnostics") or [{}])[-1]
            check(cmd + " with an internal error: its diagnostic names loomc's own source",
                  last.get("severity") == "internal" and str(last.get("file")).startswith("src/") and
                  isinstance(last.get("line"), int), p)
        check("bench: a failed run writes no --json file", not os.path.exists(os.path.join(tmp, "rows.json")))
        # the kernel's own place: file, line and column
        p = run(bad["compile"], tmp)
        d = doc(p.stdout) or {}
        first = (d.get("diagnostics") or [{}])[0]
        check("compile with bad input: the error at its file, line and column",
              first.get("file") == bad_kernel and first.get("line") == 4 and first.get("severity") == "error", p)
        # '-' gave standard output to the trace: the error document goes to standard error
        p = run(["sim", missing + ".df", "--arch", "wormhole_n150", "--json", "--trace", "-"], tmp)
        check("sim --trace - with bad input: nothing on standard output", p.out == "", p)
        error_doc("sim --trace - with bad input", p, "sim", 1, text=p.stderr[p.stderr.find(b"{"):])
        # no --json: no document
        p = run(bad["compile"][:-1], tmp)
        check("compile without --json: no document", p.returncode == 1 and p.out == "", p)
        check("json: the files written are only the inputs, the plan and the trace",
              sorted(os.listdir(tmp)) == sorted(os.path.basename(x) for x in
                                                (kernel, plan, desc, prog, trace, suite, bad_kernel)))

    print("json: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
