#!/usr/bin/env python3
"""profile_check.py PROFILE.csv REPORT.json ARCH.json - check a device-profile
CSV that `loomc run --profile-csv` wrote against the run's own JSON report
(`loomc run --json`) and the description (`loomc arch --json`).

What it must be (docs/simulator.md, "Device-profile CSV"):
  - the two header lines of tt-metal's device profiler log: 'ARCH: NAME,
    CHIP_FREQ[MHz]: F, Max Compute Cores: N' and the fifteen column names;
  - rows read by Python's csv module, fifteen fields each; per core, RISC,
    zone and run one ZONE_START and one ZONE_END, the end not before the
    start, the kernel zone inside the firmware zone;
  - every core of a run has the five RISCs (BRISC, NCRISC, TRISC_0..2), and
    its cores are NoC coordinates of the description's compute grid;
  - the runs are the report's launches, in order: run i starts where the
    launches before it end (the sum of their simulated cycles), and its
    last zone ends within launch i's simulated cycles;
  - the number of cores of each run is the report's.
Prints what is wrong and exits 1; exits 0 silently when the file is good.
"""
import csv
import json
import sys
from collections import defaultdict

COLUMNS = ["PCIe slot", "core_x", "core_y", "RISC processor type", "timer_id", "time[cycles since reset]", "data",
           "run host ID", "trace id", "trace id counter", "zone name", "type", "source line", "source file",
           "meta data"]
RISCS = {"BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2"}


def main():
    prof, report, arch_file = sys.argv[1:4]
    rep = json.load(open(report))
    arch = json.load(open(arch_file))
    grid = arch["structure"]["grid"]
    cores_ok = {(x, y) for x in grid["noc_x"] for y in grid["noc_y"]}
    bad = []
    with open(prof, newline="") as f:
        first = f.readline().rstrip("\n")
        want = "ARCH: %s, CHIP_FREQ[MHz]: " % arch["name"]
        if not first.startswith(want) or ", Max Compute Cores: %d" % (grid["width"] * grid["height"]) not in first:
            bad.append("first line: %r" % first)
        rows = list(csv.reader(f, skipinitialspace=True))
    if not rows or rows[0] != COLUMNS:
        bad.append("columns: %r" % (rows[0] if rows else None))
    zones = defaultdict(dict)   # (run, core, risc, zone) -> {type: time}
    per_run = defaultdict(lambda: defaultdict(set))  # run -> core -> riscs
    for i, r in enumerate(rows[1:], start=3):
        if len(r) != len(COLUMNS):
            bad.append("line %d: %d fields" % (i, len(r)))
            continue
        row = dict(zip(COLUMNS, r))
        key = (int(row["run host ID"]), (int(row["core_x"]), int(row["core_y"])), row["RISC processor type"],
               row["zone name"])
        if row["type"] in zones[key]:
            bad.append("line %d: a second %s of %s" % (i, row["type"], key))
        zones[key][row["type"]] = int(row["time[cycles since reset]"])
        per_run[key[0]][key[1]].add(key[2])
    for key, z in zones.items():
        if set(z) != {"ZONE_START", "ZONE_END"} or z["ZONE_END"] < z["ZONE_START"]:
            bad.append("zone %s: %s" % (key, z))
    launches = rep["launches"]
    if sorted(per_run) != list(range(1, len(launches) + 1)):
        bad.append("runs %s for %d launches" % (sorted(per_run), len(launches)))
    base = 0
    for run, launch in enumerate(launches, start=1):
        cores = per_run.get(run, {})
        if len(cores) != launch["cores"]:
            bad.append("run %d: %d cores, the report says %d" % (run, len(cores), launch["cores"]))
        for core, riscs in cores.items():
            if riscs != RISCS or core not in cores_ok:
                bad.append("run %d core %s: %s" % (run, core, sorted(riscs)))
        mine = {k: z for k, z in zones.items() if k[0] == run and len(z) == 2}
        starts = [z["ZONE_START"] for z in mine.values()]
        ends = [z["ZONE_END"] for z in mine.values()]
        # the report gives each launch's cycles rounded to whole cycles and the
        # profile rounds the exact times: after `run` rounded terms the two
        # sums may differ by up to half a cycle per term
        slack = 0.5 * run
        if starts and (abs(min(starts) - base) > slack or max(ends) > base + launch["cycles"] + slack or
                       max(ends) <= min(starts)):
            bad.append("run %d: zones %d..%d, the launch %d..%d" % (run, min(starts), max(ends), base,
                                                                   base + launch["cycles"]))
        for (r, core, risc, zone), z in mine.items():
            if zone.endswith("-KERNEL"):
                fw = zones.get((r, core, risc, zone[:-len("KERNEL")] + "FW"), {})
                if not fw or z["ZONE_START"] < fw.get("ZONE_START", 0) or z["ZONE_END"] > fw.get("ZONE_END", 0):
                    bad.append("run %d core %s %s: the kernel zone is not inside the firmware zone" % (r, core, risc))
        base += launch["cycles"]
    for b in bad[:20]:
        print(b)
    sys.exit(1 if bad else 0)


main()
