#!/usr/bin/env bash
# The background scrub's cost to client operations at node level (issue 23: p99 with the scrub
# running at the default throttle, lsm.scrubThroughputBytesPerSecond 4 MiB/s, at most 1.2x the p99
# without it), nodes as processes.
#
#   frsm-bench/scripts/scrub-ab.sh OUT_DIR ROUNDS
#
# Two modes per round: scrub-off (lsm.scrubEnabled: false) and scrub-on (lsm.scrubEnabled: true,
# the default throttle, lsm.scrubStartDelay chosen so that the scrub starts after the preload and
# before the measured window). They alternate within a round, in turn order: off then on in odd
# rounds, on then off in even ones (the first run of all is scrub-off: it times the preload, below).
#
# Each run is a fresh cluster, started by bench-common.sh's cluster helpers as tls-ab.sh's plain
# mode starts it: a standalone ZooKeeper and three `frsm server` JVMs (equal heaps, $NODE_HEAP) on
# loopback with security.insecure: true, each with its own data directory; then RemoteWorkloadMain
# in a JVM of its own with $CLIENTS closed-loop callers, each an independent client, which first
# writes $PRELOAD keys of 512 B (--preload: the workload's $KEYS keys and the rest under another
# prefix, so the tables grow and the measured key set stays the same), then runs the paper's
# workload $WARMUP s unmeasured and $MEASURE s measured. Each node holds every key (3 nodes, RF 3):
# the default 500,000 keys make about 260 MiB of tables per node, a pass of about 65 s at 4 MiB/s,
# longer than $WARMUP - $SCRUB_LEAD + $MEASURE (40 s by default).
#
# The scrub's start: lsm.scrubStartDelay counts from the node's start and the preload's length
# varies with the machine (144 to 177 s for 500,000 keys in two runs), so the warm-up is placed at a
# fixed time after the nodes' start instead: at A = the longest preload so far (from node start to
# its end) + $PRELOAD_MARGIN s (default 20; the first run guesses 3,000 keys/s), the client idling
# after the preload until then (--warmup-at). In both modes; scrub-on runs set lsm.scrubStartDelay
# to A + $SCRUB_LEAD s (default 10: a third into the warm-up), so the pass runs through the rest of
# the warm-up and the whole window. The run checks that it did: the client reads each node's
# frsm_lsm_scrub_bytes_total at the start and the end of the measured window (--node-metrics). A
# scrub-on run is valid only if every node had begun scrubbing before the window and scrubbed at
# least 90% of 4 MiB/s x $MEASURE in it (the pass did not end inside the window); a scrub-off run
# only if no node scrubbed anything. Invalid runs are flagged and left out of the summary.
#
# Before each run: the machine's fsync cost (dd of 500 synced 4 KiB writes to OUT_DIR: ms per write)
# and, just before the client, the load average. After the preload: each node's table bytes (du of
# its data directory). One line per run goes to OUT_DIR/results.txt; OUT_DIR/summary.txt has the
# medians per mode (valid runs only) and the ratios on/off. Each process's output stays in
# OUT_DIR/<run>/; the nodes' data directories are deleted after each run (KEEP_DATA=1 keeps them:
# about 2 GB per run).
# Needs frsm-server/target/frsm.jar and frsm-bench/target/frsm-bench.jar
# (./mvnw -B -q -ntp -pl frsm-server,frsm-bench -am package -DskipTests).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
frsm_jar="${SERVER_JAR:-$repo/frsm-server/target/frsm.jar}" # SERVER_JAR, BENCH_JAR: another build
bench_jar="${BENCH_JAR:-$repo/frsm-bench/target/frsm-bench.jar}"
out="${1:?usage: scrub-ab.sh OUT_DIR ROUNDS}"
rounds="${2:?rounds}"
NODE_HEAP="${NODE_HEAP:--Xms1g -Xmx1g}"
NODE_GC="${NODE_GC:--XX:+UseG1GC}"
CLIENTS="${CLIENTS:-16}"
INSTANCES="${INSTANCES:-$CLIENTS}"
WARMUP="${WARMUP:-30}"
MEASURE="${MEASURE:-20}"
KEYS="${KEYS:-100000}"
PRELOAD="${PRELOAD:-500000}"
SCRUB_LEAD="${SCRUB_LEAD:-10}"         # the scrub starts this long into the warm-up
PRELOAD_MARGIN="${PRELOAD_MARGIN:-20}" # the warm-up starts this long after the longest preload
KEEP_DATA="${KEEP_DATA:-0}"
scrub_rate=$((4 << 20)) # the default lsm.scrubThroughputBytesPerSecond (not set: the check's only)
mkdir -p "$out"

# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$repo/frsm-bench/scripts/bench-common.sh" # pids, cleanup, the cluster helpers
trap cleanup EXIT

preload_max="" # the longest time from node start to the end of the preload, over the runs so far

fsync_ms() { # ms per synced 4 KiB write, 500 of them to OUT_DIR
  local s
  s=$(dd if=/dev/zero of="$out/fsync.tmp" bs=4k count=500 oflag=dsync 2>&1 \
    | awk '/copied/ {for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^s,?$/) print $i}')
  rm -f "$out/fsync.tmp"
  awk -v s="$s" 'BEGIN {printf "%.3f", s / 500 * 1000}'
}

tables_mib() { # dir: each node's data directory in MiB, n1/n2/n3
  local t=()
  for n in 1 2 3; do t+=("$(du -sm "$1/n$n/data" 2>/dev/null | cut -f1)"); done
  (IFS=/; echo "${t[*]}")
}

field() { # name line: the value of name=... in line ("-" if absent)
  local v
  v=$(grep -o "\b$1=[^ ]*" <<<"$2" | head -1 | cut -d= -f2)
  echo "${v:--}"
}

mib_list() { # "b1,b2,b3" in bytes -> "m1/m2/m3" in MiB (one decimal); -1 stays -1
  awk -v l="$1" 'BEGIN {n = split(l, a, ","); s = "";
    for (i = 1; i <= n; i++) s = s (i > 1 ? "/" : "") (a[i] < 0 ? "-1" : sprintf("%.1f", a[i] / 1048576));
    print s}'
}

validity() { # mode bytes_in_window bytes_before: "yes" or "NO(reason)"
  awk -v mode="$1" -v w="$2" -v b="$3" -v need="$((scrub_rate * MEASURE * 9 / 10))" 'BEGIN {
    n = split(w, win, ","); split(b, before, ","); why = "";
    if (n != 3) why = "no-SCRUB-line";
    for (i = 1; i <= n; i++) {
      if (win[i] < 0 || before[i] < 0) why = why " node" i ":unreadable";
      else if (mode == "scrub-on" && before[i] == 0) why = why " node" i ":not-started-before-window";
      else if (mode == "scrub-on" && win[i] < need) why = why " node" i ":scrubbed-" win[i] "<" need;
      else if (mode == "scrub-off" && (win[i] > 0 || before[i] > 0)) why = why " node" i ":scrubbed";
    }
    if (why == "") print "yes"; else { gsub(/^ /, "", why); gsub(/ /, ",", why); print "NO(" why ")" }
  }'
}

run_one() { # mode round
  local mode="$1" round="$2" run="r$2-$1"
  local dir="$out/$run" cid="scrub-$run" enabled delay at
  rm -rf "$dir" && mkdir -p "$dir"
  at=$((${preload_max:-$((15 + PRELOAD / 3000))} + PRELOAD_MARGIN)) # the warm-up, from node start
  delay=$((at + SCRUB_LEAD))
  case "$mode" in
    scrub-off) enabled=false ;;
    scrub-on) enabled=true ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
  local fsync
  fsync=$(fsync_ms)
  start_zookeeper "$dir" "scrub-secret-$round"
  local t_nodes
  t_nodes=$(date +%s)
  for n in 1 2 3; do
    node_config "$dir" "$cid" "$n" true
    cat >>"$dir/node-$n.yaml" <<YAML
lsm:
  scrubEnabled: $enabled
  scrubStartDelay: ${delay}s
YAML
    # shellcheck disable=SC2086
    launch_node "$dir" "$n" java $NODE_HEAP $NODE_GC
  done
  await_cluster "$run" "$dir" || return 1

  local load metrics_ports
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  metrics_ports=$(IFS=,; echo "${health[*]}")
  java -Xms512m -Xmx512m -cp "$bench_jar" io.frsm.bench.experiment.RemoteWorkloadMain \
    --seeds "$seeds" --cluster "$cid" --insecure --clients "$CLIENTS" \
    --client-instances "$INSTANCES" --preload "$PRELOAD" --warmup "$WARMUP" --seconds "$MEASURE" \
    --keys "$KEYS" --node-pids "$node_pids" --node-metrics "$metrics_ports" \
    --warmup-at $(((t_nodes + at) * 1000)) \
    2>"$dir/client.err" >"$dir/client.out" &
  local cpid=$! t_pre="" tables="-"
  pids=("$cpid" "${pids[@]}") # stopped first if the script is interrupted
  while kill -0 "$cpid" 2>/dev/null; do # the preload's end: its time and the tables it left
    if [ -z "$t_pre" ] && grep -q '^PRELOAD' "$dir/client.out"; then
      t_pre=$(date +%s)
      tables=$(tables_mib "$dir")
      echo "$(date -u +%H:%M:%S) $run preload done at node start + $((t_pre - t_nodes)) s;" \
        "tables MiB per node $tables; warm-up at +${at}s; scrub start delay ${delay}s" \
        "(enabled: $enabled)"
    fi
    sleep 1
  done
  wait "$cpid" || true
  if [ -n "$t_pre" ] && (((t_pre - t_nodes) > ${preload_max:-0})); then
    preload_max=$((t_pre - t_nodes))
  fi

  local remote scrub pre
  remote=$(grep '^REMOTE' "$dir/client.out" || true)
  scrub=$(grep '^SCRUB' "$dir/client.out" || true)
  pre=$(grep '^PRELOAD' "$dir/client.out" || true)
  if [ -z "$remote" ]; then
    echo "$(date -u +%H:%M:%S) $run FAILED: no REMOTE line (see $dir)" | tee -a "$out/results.txt"
    cleanup
    return 0
  fi
  local win before valid
  win=$(field bytes_in_window "$scrub")
  before=$(field bytes_before "$scrub")
  valid=$(validity "$mode" "$win" "$before")
  echo "$(date -u +%H:%M:%S) $run mode=$mode round=$round load=[$load] fsync_ms=$fsync" \
    "preload_s=$(field seconds "$pre") preloaded=$(field keys "$pre")" \
    "preload_unknown=$(field unknown "$pre") preload_failed=$(field failed "$pre")" \
    "tables_mib=$tables preload_end_s=$((${t_pre:-0} - t_nodes)) warmup_at_s=$at" \
    "scrub_delay_s=$([ "$enabled" = true ] && echo "$delay" || echo off)" \
    "ops_per_s=$(field ops_per_s "$remote")" \
    "get_p50_us=$(field get_p50_us "$remote") get_p99_us=$(field get_p99_us "$remote")" \
    "get_p999_us=$(field get_p999_us "$remote") cas_p50_us=$(field cas_p50_us "$remote")" \
    "cas_p99_us=$(field cas_p99_us "$remote") cas_p999_us=$(field cas_p999_us "$remote")" \
    "errors=$(field errors "$remote") unknown=$(field unknown "$remote")" \
    "nodes_cpu_us_per_op=$(field nodes_cpu_us_per_op "$remote")" \
    "scrub_mib_in_window=$(mib_list "$win") scrub_mib_before=$(mib_list "$before")" \
    "compaction_read_mib_in_window=$(mib_list "$(field compaction_read_in_window "$scrub")")" \
    "valid=$valid" | tee -a "$out/results.txt"
  cleanup
  if [ "$KEEP_DATA" != 1 ]; then rm -rf "$dir"/n[123]; fi
  sync
  sleep 5
}

summary() { # medians per mode over the valid runs, and on/off
  python3 - "$out/results.txt" <<'PY' | tee "$out/summary.txt"
import statistics, sys
runs = {"scrub-off": [], "scrub-on": []}
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
    if kv.get("valid") == "yes" and kv.get("mode") in runs:
        runs[kv["mode"]].append(kv)
keys = ["ops_per_s", "get_p50_us", "get_p99_us", "get_p999_us", "cas_p50_us", "cas_p99_us",
        "cas_p999_us"]
med = {}
for mode, rs in runs.items():
    med[mode] = {k: statistics.median(float(r[k]) for r in rs) for k in keys} if rs else None
    spread = {k: (min(float(r[k]) for r in rs), max(float(r[k]) for r in rs)) for k in keys} if rs else {}
    print(f"{mode}: {len(rs)} valid runs; median " +
          " ".join(f"{k}={med[mode][k]:.0f} [{spread[k][0]:.0f}-{spread[k][1]:.0f}]" for k in keys)
          if rs else f"{mode}: no valid runs")
if med["scrub-off"] and med["scrub-on"]:
    print("on/off (medians): " + " ".join(
        f"{k}={med['scrub-on'][k] / med['scrub-off'][k]:.2f}x" for k in keys))
PY
}

for r in $(seq 1 "$rounds"); do
  if ((r % 2 == 1)); then order=(scrub-off scrub-on); else order=(scrub-on scrub-off); fi
  for m in "${order[@]}"; do
    run_one "$m" "$r" || echo "$(date -u +%H:%M:%S) r$r-$m FAILED" | tee -a "$out/results.txt"
  done
done
summary
