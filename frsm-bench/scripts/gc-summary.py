#!/usr/bin/env python3
"""Per-node G1 pause summary from unified GC logs (issue 26 point 3).

    frsm-bench/scripts/gc-summary.py [--last SECONDS] LOG...

Each LOG is one JVM's log written with
    -Xlog:gc*=debug:file=LOG:uptime,tags
(tls-ab.sh writes OUT/<run>/node-N-gc.log with GC_LOG=1). Prints one line per log: the pauses
by kind, the young pauses' p50 / p99 / max, the copying phase ("Object Copy", slowest worker: the
pause's critical path), the scan of old-to-young references ("Scan Heap Roots", slowest
worker, and the cards it scanned), and what each young or mixed pause copied — bytes into survivor regions and
into old regions, from the PLAB statistics (used + directly allocated), so they are exact, not
region counts. These are the figures that depend little on the shared machine's load: how much
the collector had to copy, not how fast it copied it. Old regions at the end and at their peak
show old-generation growth (memtable cells tenured and left dead by a flush), and the mixed pauses
what reclaiming them cost.

--last S keeps only the pauses that started in the log's last S seconds (the measured window, as
the nodes stop right after the client).
"""
import argparse
import re
import statistics
import sys

UPTIME = re.compile(r"^\[(\d+\.\d+)s\]")
GC_ID = re.compile(r"GC\((\d+)\)")
PAUSE_END = re.compile(r"GC\(\d+\) (Pause [A-Za-z]+(?: \([A-Za-z ]+\))?).* (\d+\.\d+)ms$")
SCAN_ROOTS = re.compile(r"Scan Heap Roots \(ms\):\s+Min:\s*[\d.]+, Avg:\s*[\d.]+, Max:\s*([\d.]+)")
SCANNED_CARDS = re.compile(r"Scanned Cards:\s+Min:.*Sum: (\d+)")
OBJECT_COPY = re.compile(r"Object Copy \(ms\):\s+Min:\s*[\d.]+, Avg:\s*([\d.]+), Max:\s*([\d.]+)")
PLAB = re.compile(r"(Young|Old) PLAB allocation: allocated: \d+B, wasted: \d+B, unused: \d+B, used: (\d+)B")
DIRECT = re.compile(r"(Young|Old) other allocation: .*direct allocated: (\d+)B")
OLD_REGIONS = re.compile(r"Old regions: (\d+)->(\d+)")
HUMONGOUS = re.compile(r"Humongous regions: (\d+)->(\d+)")
REGION_SIZE = re.compile(r"region size (\d+)K")

# Lines that give a collection one figure: (pattern, record key, group, type, keep the first only).
FIGURES = (
    (SCAN_ROOTS, "scan_max", 1, float, False),
    # The first Scanned Cards line is Scan Heap Roots' (the others are the optional phases').
    (SCANNED_CARDS, "cards", 1, int, True),
    (OBJECT_COPY, "copy_max", 2, float, False),
    (HUMONGOUS, "humongous_after", 2, int, False),
)


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def take_figure(rec, line):
    """Puts the one figure a line gives (FIGURES) into rec; returns whether it was such a line."""
    for pattern, key, group, kind, first_only in FIGURES:
        m = pattern.search(line)
        if m:
            if not (first_only and key in rec):
                rec[key] = kind(m.group(group))
            return True
    return False


def parse(path):
    """Returns (region_bytes, {gc_id: record}) for every collection in the log."""
    gcs = {}
    region = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = REGION_SIZE.search(line)
            if m and not region:
                region = int(m.group(1)) * 1024
            g = GC_ID.search(line)
            if not g:
                continue
            rec = gcs.setdefault(int(g.group(1)), {"to_survivor": 0, "to_old": 0})
            t = UPTIME.match(line)
            if t and "start" not in rec:
                rec["start"] = float(t.group(1))
            m = PAUSE_END.search(line)
            if m:
                rec["kind"] = m.group(1)
                rec["ms"] = float(m.group(2))
                continue
            if take_figure(rec, line):
                continue
            m = PLAB.search(line) or DIRECT.search(line)
            if m:
                rec["to_survivor" if m.group(1) == "Young" else "to_old"] += int(m.group(2))
                continue
            m = OLD_REGIONS.search(line)
            if m:
                rec["old_before"], rec["old_after"] = int(m.group(1)), int(m.group(2))
    return region, gcs


def summarize(path, last):
    region, gcs = parse(path)
    pauses = [r for r in gcs.values() if "ms" in r]
    if not pauses:
        return f"{path}: no pauses"
    if last:
        end = max(r["start"] for r in pauses)
        pauses = [r for r in pauses if r["start"] >= end - last]
    span = max(r["start"] for r in pauses) - min(r["start"] for r in pauses) if pauses else 0
    # "Pause Young (Prepare Mixed)" is a young-only pause; "Pause Young (Mixed)" also takes old regions.
    mixed = [r for r in pauses if r["kind"] == "Pause Young (Mixed)"]
    young = [r for r in pauses if r["kind"].startswith("Pause Young") and r not in mixed]
    other = [r for r in pauses if not r["kind"].startswith("Pause Young")]
    evac = young + mixed
    mb = 1024.0 * 1024.0
    ms = [r["ms"] for r in young]
    copy = [r.get("copy_max", 0.0) for r in young]
    scan = [r.get("scan_max", 0.0) for r in young]
    cards = [r.get("cards", 0) for r in young]
    surv = [r["to_survivor"] / mb for r in evac]
    old = [r["to_old"] / mb for r in evac]
    olds = [r["old_after"] for r in pauses if "old_after" in r]
    total = sum(r["ms"] for r in pauses)
    fields = [
        f"span={span:.0f}s",
        f"young={len(young)}",
        f"mixed={len(mixed)}",
        f"other={len(other)}",
        f"young_p50={pct(ms, 50):.1f}ms",
        f"young_p99={pct(ms, 99):.1f}ms",
        f"young_max={max(ms) if ms else float('nan'):.1f}ms",
        f"mixed_p50={pct([r['ms'] for r in mixed], 50):.1f}ms",
        f"pause_total={total:.0f}ms",
        f"copy_p50={pct(copy, 50):.1f}ms",
        f"scan_roots_p50={pct(scan, 50):.1f}ms",
        f"cards_p50={pct(cards, 50):.0f}",
        f"to_survivor_mean={statistics.mean(surv) if surv else 0:.2f}MB",
        f"to_old_mean={statistics.mean(old) if old else 0:.2f}MB",
        f"copied_total={sum(surv) + sum(old):.0f}MB",
        f"old_end={olds[-1] * region / mb if olds else 0:.0f}MB",
        f"old_peak={max(olds) * region / mb if olds else 0:.0f}MB",
    ]
    return f"{path}: " + " ".join(fields)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--last", type=float, default=0, help="only pauses in the last S seconds")
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    for path in args.logs:
        print(summarize(path, args.last))


if __name__ == "__main__":
    sys.exit(main())
