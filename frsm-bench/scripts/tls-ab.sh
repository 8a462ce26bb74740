#!/usr/bin/env bash
# TLS A/B of issue 24 ("Performance": TLS >= 0.85x plaintext at 64 clients), nodes as processes.
#
#   frsm-bench/scripts/tls-ab.sh OUT_DIR ROUNDS MODE...      MODE: plain | tls-openssl | tls-jdk
#
# A mode may end in :N to spread the callers over N independent clients in that run (plain:1
# plain:8 plain:64 compares one shared client with 8 and 64 independent ones, issue 26).
#
# Each run is a fresh cluster: a standalone ZooKeeper and three `frsm server` processes (equal
# heaps, $NODE_HEAP) on loopback, each with its own data directory, then RemoteWorkloadMain in a
# JVM of its own: $CLIENTS closed-loop callers, each an independent client (own connections; the
# clients share the process's event loop, the default since issue 26 — CLIENT_ARGS=--own-loops
# gives each its own, as before), $WARMUP s unmeasured, then $MEASURE s measured. Modes alternate within a round
# (A B C A B C ...), so a change in the shared machine's load falls on all of them. plain runs
# the nodes and clients with security.insecure: true; tls-* with mutual TLS 1.3, the provider
# forced with -Dfrsm.tls.provider on nodes and client alike. The ZooKeeper credential is the same
# in every mode. One line per run goes to OUT_DIR/results.txt (load average before the run,
# then the client's REMOTE line); each process's output stays in OUT_DIR/<run>/.
# With COUNTS=1 each run also prints, per process (node1-3, client), its costs per operation of
# the measured window: CPU, context switches, read/write system calls, heap allocation, threads
# and (perf stat, if it runs here) every system call by kind — to OUT_DIR/counts.txt, perf's raw
# output in OUT_DIR/<run>/perf/ (issue 26: costs that do not depend on the shared machine's load).
# With GC_LOG=1 the nodes log their collections (-Xlog:gc*=debug) to OUT_DIR/<run>/node-N-gc.log and
# gc-summary.py's line per node for the measured window (pauses by kind, young p50/max, Object Copy,
# bytes copied into survivor and old regions per pause, old-generation peak) goes to OUT_DIR/gc.txt.
# Needs frsm-server/target/frsm.jar and frsm-bench/target/frsm-bench.jar
# (./mvnw -B -q -ntp -pl frsm-server,frsm-bench -am package -DskipTests).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
frsm_jar="${SERVER_JAR:-$repo/frsm-server/target/frsm.jar}" # SERVER_JAR, BENCH_JAR: another build
bench_jar="${BENCH_JAR:-$repo/frsm-bench/target/frsm-bench.jar}"
out="${1:?usage: tls-ab.sh OUT_DIR ROUNDS MODE...}"
rounds="${2:?rounds}"
shift 2
modes=("$@")
NODE_HEAP="${NODE_HEAP:--Xms1g -Xmx1g}"
CLIENTS="${CLIENTS:-64}"
INSTANCES="${INSTANCES:-$CLIENTS}"
WARMUP="${WARMUP:-30}"
MEASURE="${MEASURE:-20}"
KEYS="${KEYS:-100000}"
NODE_EXTRA="${NODE_EXTRA:-}" # e.g. JFR options for the nodes
NODE_GC="${NODE_GC:--XX:+UseG1GC}" # the nodes' collector and its options
NODE_JAVA="${NODE_JAVA:-java}"    # the nodes' java launcher (e.g. a newer JDK's, for its AOT cache)
CLIENT_EXTRA="${CLIENT_EXTRA:-}" # e.g. JFR options for the client JVM
COUNTS="${COUNTS:-0}"
CLIENT_ARGS="${CLIENT_ARGS:-}" # more RemoteWorkloadMain options, e.g. --own-loops
GC_LOG="${GC_LOG:-0}" # 1: the nodes log their collections; gc-summary.py's lines go to OUT/gc.txt
mkdir -p "$out"

# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$repo/frsm-bench/scripts/bench-common.sh" # pids, cleanup, the cluster helpers
trap cleanup EXIT

run_one() { # mode[:instances] round
  local m mode="${1%%:*}" round="$2" run="r$2-${1/:/-x}" instances="$INSTANCES"
  if [[ "$1" == *:* ]]; then instances="${1##*:}"; fi
  local dir="$out/$run" cid="ab-$run" provider="" insecure=false
  rm -rf "$dir" && mkdir -p "$dir"
  case "$mode" in
    plain) insecure=true ;;
    tls-openssl) provider="-Dfrsm.tls.provider=openssl" ;;
    tls-jdk) provider="-Dfrsm.tls.provider=jdk" ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
  java -jar "$frsm_jar" certs --dir "$dir/certs" --cluster "$cid" --nodes 3 \
    --client bench=read,write >"$dir/certs.log" 2>&1
  start_zookeeper "$dir" "ab-secret-$round"
  for n in 1 2 3; do
    node_config "$dir" "$cid" "$n" "$insecure"
    if [ "$insecure" = false ]; then
      cat >>"$dir/node-$n.yaml" <<YAML
  caBundle: $dir/certs/ca.pem
  certificateChain: $dir/certs/node-$n.pem
  privateKey: $dir/certs/node-$n-key.pem
YAML
    fi
    local gc_log=""
    if [ "$GC_LOG" = 1 ]; then gc_log="-Xlog:gc*=debug:file=$dir/node-$n-gc.log:uptime,tags"; fi
    # shellcheck disable=SC2086
    launch_node "$dir" "$n" $NODE_JAVA $NODE_HEAP $NODE_GC $gc_log $provider \
      ${NODE_EXTRA//@NODE@/$dir/node-$n}
  done
  await_cluster "$run" "$dir" || return 1

  local load client_args=(--insecure)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if [ "$insecure" = false ]; then
    client_args=(--ca "$dir/certs/ca.pem" --cert "$dir/certs/client-bench.pem"
      --key "$dir/certs/client-bench-key.pem")
  fi
  local line count_args=()
  if [ "$COUNTS" = 1 ]; then
    local metrics_ports
    metrics_ports=$(IFS=,; echo "${health[*]}")
    count_args=(--node-metrics "$metrics_ports" --perf-dir "$dir/perf")
  fi
  # shellcheck disable=SC2086
  java -Xms512m -Xmx512m $provider ${CLIENT_EXTRA//@RUN@/$dir} -cp "$bench_jar" \
    io.frsm.bench.experiment.RemoteWorkloadMain --seeds "$seeds" --cluster "$cid" \
    "${client_args[@]}" --clients "$CLIENTS" --client-instances "$instances" \
    --warmup "$WARMUP" --seconds "$MEASURE" --keys "$KEYS" --node-pids "$node_pids" \
    "${count_args[@]}" $CLIENT_ARGS 2>"$dir/client.err" >"$dir/client.out" || true
  line=$(grep '^REMOTE' "$dir/client.out")
  if [ "$COUNTS" = 1 ]; then
    sed -n "s/^COUNTS /$run /p" "$dir/client.out" >>"$out/counts.txt"
  fi
  # The nodes' own counts over the whole run (warm-up included): CAS rounds by kind (a cold one
  # ran a prepare), gets by how they were served. They do not depend on the machine's speed.
  local counts=""
  for m in "${health[@]}"; do curl -sf "http://127.0.0.1:$m/metrics" || true; done >"$dir/metrics.txt"
  for m in 'frsm_cas_rounds_total{mode="warm"' 'frsm_cas_rounds_total{mode="cold"' \
    'frsm_reads_total{mode="leader_only"' 'frsm_reads_total{mode="quorum"' \
    'frsm_cas_mismatches_total{served="leader_only"'; do
    counts+=" $(echo "$m" | sed 's/_total{[a-z]*="/./; s/"$//')=$(grep -F "$m" "$dir/metrics.txt" \
      | awk '{s += $NF} END {printf "%d", s}')"
  done
  echo "$(date -u +%H:%M:%S) $run load=[$load] $line$counts" | tee -a "$out/results.txt"
  cleanup
  if [ "$GC_LOG" = 1 ]; then # the nodes stop right after the client: the logs' last MEASURE s
    "$repo/frsm-bench/scripts/gc-summary.py" --last "$MEASURE" "$dir"/node-*-gc.log \
      | sed "s|^$dir/|$run |" | tee -a "$out/gc.txt"
  fi
  sync
  sleep 5
}

for r in $(seq 1 "$rounds"); do
  for m in "${modes[@]}"; do
    run_one "$m" "$r" || echo "$(date -u +%H:%M:%S) r$r-$m FAILED" | tee -a "$out/results.txt"
  done
done
