#!/usr/bin/env bash
# Like for like against ZooKeeper and etcd (issue 26, point 4): frsm, ZooKeeper and etcd, each as
# three server processes on loopback, under the same workload from the same number of independent
# clients.
#
#   frsm-bench/scripts/peers-ab.sh OUT_DIR ROUNDS
#
# Per round, for each caller count in $CLIENTS (default "16 64"), the systems in $SYSTEMS (default
# "frsm zookeeper etcd") run one after another, each on a fresh cluster, so a change in the shared
# machine's load falls on all of them alike:
# - frsm: tls-ab.sh's plain mode (three `frsm server` processes, security.insecure, heaps
#   $NODE_HEAP, its own standalone ZooKeeper for leases), RemoteWorkloadMain with $CLIENTS callers
#   over $INSTANCES independent clients.
# - zookeeper: three QuorumPeerMain JVMs (ZooKeeper 3.9.5, the version frsm depends on; classes
#   from frsm-bench.jar unless ZK_CP), heaps $NODE_HEAP and the same collector, forceSync=yes,
#   each its own data directory; RemoteWorkloadMain --zookeeper: one session per independent
#   client, client i on server i mod 3, reads sync + getData (linearizable). zookeeper-plain in
#   $SYSTEMS adds plain getData reads as a labelled extra.
# - etcd: three members of etcd as shipped (etcdmain, default fsync on), built from the Go modules
#   pinned in frsm-bench/peers/etcd (GOMEMLIMIT $ETCD_MEMLIMIT, Go's counterpart of a heap limit);
#   etcd-workload: the same workload, one clientv3.Client per independent client, linearizable Get,
#   CAS as a Txn on ModRevision.
# Every run: $WARMUP s unmeasured, then $MEASURE s measured; the measured processes run at normal
# priority. One line per run goes to OUT_DIR/results.txt: load average before the run, the system,
# then the client's REMOTE line (ops_per_s, p50/p99/p99.9 per operation, client and servers' CPU per
# operation: nodes_cpu_us_per_op is the three servers' CPU over the measured window divided by its
# operations; frsm's lease ZooKeeper is not in it). At the end OUT_DIR/ratios.txt gives
# frsm/ZooKeeper and frsm/etcd throughput per round and caller count. Each process's output stays
# in OUT_DIR/<run>/. Everything on 127.0.0.1, ports picked free, data in OUT_DIR, every process
# started here killed at exit.
# Needs frsm-server/target/frsm.jar, frsm-bench/target/frsm-bench.jar
# (./mvnw -B -q -ntp -pl frsm-server,frsm-bench -am package -DskipTests) and Go (PATH or
# /usr/local/go/bin) to build frsm-bench/peers/etcd/bin/ on first use.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
frsm_jar="${SERVER_JAR:-$repo/frsm-server/target/frsm.jar}"
bench_jar="${BENCH_JAR:-$repo/frsm-bench/target/frsm-bench.jar}"
out="${1:?usage: peers-ab.sh OUT_DIR ROUNDS}"
rounds="${2:?rounds}"
SYSTEMS="${SYSTEMS:-frsm zookeeper etcd}"
CLIENTS="${CLIENTS:-16 64}"
INSTANCES="${INSTANCES:-8}"
WARMUP="${WARMUP:-30}"
MEASURE="${MEASURE:-20}"
KEYS="${KEYS:-100000}"
NODE_HEAP="${NODE_HEAP:--Xms1g -Xmx1g}"
NODE_GC="${NODE_GC:--XX:+UseG1GC}"
ETCD_MEMLIMIT="${ETCD_MEMLIMIT:-1GiB}"
ZK_CP="${ZK_CP:-$bench_jar}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

etcd_dir="$repo/frsm-bench/peers/etcd"
if [ ! -x "$etcd_dir/bin/etcd-server" ] || [ ! -x "$etcd_dir/bin/etcd-workload" ]; then
  (cd "$etcd_dir" && PATH="$PATH:/usr/local/go/bin" nice -n 19 go build -o bin/ ./cmd/...)
fi

# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$repo/frsm-bench/scripts/bench-common.sh" # pids, cleanup, free_port, until_ok
trap cleanup EXIT

zk_serving() { # port: the server is in the quorum (leader or follower)
  python3 - "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.sendall(b"srvr")
data = b""
while chunk := s.recv(4096):
    data += chunk
sys.exit(0 if b"Mode: leader" in data or b"Mode: follower" in data else 1)
PY
}

record() { # run system line: one results line
  local load="$3"
  echo "$(date -u +%H:%M:%S) $1 load=[$load] system=$2 $4" | tee -a "$out/results.txt"
}

not_started() { # run system why dir: the results line of a cluster that never served; stops it
  echo "$(date -u +%H:%M:%S) $1 system=$2 FAILED: $3 (see $4)" | tee -a "$out/results.txt"
  cleanup
}

measure() { # run system dir client...: runs the client, records its REMOTE line, stops the servers
  local run="$1" system="$2" dir="$3" load line
  shift 3
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  "$@" 2>"$dir/client.err" >"$dir/client.out" || true
  line=$(grep '^REMOTE' "$dir/client.out" || echo "FAILED (see $dir)")
  record "$run" "$system" "$load" "$line"
  cleanup
}

run_frsm() { # callers round run
  local dir="$out/$3"
  rm -rf "$dir"
  # shellcheck disable=SC2097,SC2098 # INSTANCES is handed on unchanged
  CLIENTS="$1" INSTANCES="$INSTANCES" WARMUP="$WARMUP" MEASURE="$MEASURE" KEYS="$KEYS" \
    NODE_HEAP="$NODE_HEAP" NODE_GC="$NODE_GC" SERVER_JAR="$frsm_jar" BENCH_JAR="$bench_jar" \
    "$repo/frsm-bench/scripts/tls-ab.sh" "$dir" 1 "plain:$INSTANCES" >/dev/null 2>&1 || true
  local line
  line=$(grep -o 'load=\[[^]]*\] REMOTE.*' "$dir/results.txt" 2>/dev/null | head -1 || true)
  if [ -z "$line" ]; then
    echo "$(date -u +%H:%M:%S) $3 system=frsm FAILED (see $dir)" | tee -a "$out/results.txt"
    return 0
  fi
  local load="${line#load=[}"
  load="${load%%]*}"
  record "$3" frsm "$load" "REMOTE${line#*REMOTE}"
}

run_zookeeper() { # callers round run reads(sync|plain)
  local dir="$out/$3" servers="" conn="" ports=() n
  rm -rf "$dir" && mkdir -p "$dir"
  for n in 1 2 3; do
    local q e c
    q=$(free_port); e=$(free_port); c=$(free_port)
    servers+="server.$n=127.0.0.1:$q:$e"$'\n'
    ports+=("$c")
    conn="${conn:+$conn,}127.0.0.1:$c"
  done
  local node_pids=""
  for n in 1 2 3; do
    mkdir -p "$dir/zk$n/data"
    echo "$n" >"$dir/zk$n/data/myid"
    cat >"$dir/zk$n/zoo.cfg" <<CFG
tickTime=2000
initLimit=10
syncLimit=5
dataDir=$dir/zk$n/data
clientPort=${ports[$((n - 1))]}
clientPortAddress=127.0.0.1
forceSync=yes
admin.enableServer=false
4lw.commands.whitelist=srvr
$servers
CFG
    # shellcheck disable=SC2086
    java $NODE_HEAP $NODE_GC -Dzookeeper.admin.enableServer=false -cp "$ZK_CP" \
      org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zk$n/zoo.cfg" \
      >"$dir/zk$n.log" 2>&1 &
    pids+=($!)
    node_pids="${node_pids:+$node_pids,}$!"
  done
  for n in 0 1 2; do
    if ! until_ok 120 zk_serving "${ports[$n]}"; then
      not_started "$3" zookeeper "no quorum" "$dir"
      return 0
    fi
  done
  local name=zookeeper
  if [ "$4" = plain ]; then name=zookeeper-plain; fi
  measure "$3" "$name" "$dir" \
    java -Xms512m -Xmx512m -cp "$bench_jar" io.frsm.bench.experiment.RemoteWorkloadMain \
    --zookeeper "$conn" --zk-reads "$4" --clients "$1" --client-instances "$INSTANCES" \
    --warmup "$WARMUP" --seconds "$MEASURE" --keys "$KEYS" --node-pids "$node_pids"
}

run_etcd() { # callers round run
  local dir="$out/$3" cluster="" endpoints="" peers=() clients=() n
  rm -rf "$dir" && mkdir -p "$dir"
  for n in 1 2 3; do
    peers+=("http://127.0.0.1:$(free_port)")
    clients+=("http://127.0.0.1:$(free_port)")
    cluster="${cluster:+$cluster,}m$n=${peers[$((n - 1))]}"
    endpoints="${endpoints:+$endpoints,}${clients[$((n - 1))]}"
  done
  local node_pids=""
  for n in 1 2 3; do
    GOMEMLIMIT="$ETCD_MEMLIMIT" "$etcd_dir/bin/etcd-server" --name "m$n" \
      --data-dir "$dir/m$n" --listen-peer-urls "${peers[$((n - 1))]}" \
      --initial-advertise-peer-urls "${peers[$((n - 1))]}" \
      --listen-client-urls "${clients[$((n - 1))]}" \
      --advertise-client-urls "${clients[$((n - 1))]}" \
      --initial-cluster "$cluster" --initial-cluster-state new \
      --initial-cluster-token "peers-$3" --log-level warn >"$dir/m$n.log" 2>&1 &
    pids+=($!)
    node_pids="${node_pids:+$node_pids,}$!"
  done
  for n in 0 1 2; do
    if ! until_ok 120 curl -sf "${clients[$n]}/health"; then
      not_started "$3" etcd "not healthy" "$dir"
      return 0
    fi
  done
  measure "$3" etcd "$dir" \
    "$etcd_dir/bin/etcd-workload" --endpoints "$endpoints" --clients "$1" \
    --client-instances "$INSTANCES" --warmup "$WARMUP" --seconds "$MEASURE" --keys "$KEYS" \
    --node-pids "$node_pids"
}

for r in $(seq 1 "$rounds"); do
  for c in $CLIENTS; do
    for s in $SYSTEMS; do
      run="r$r-c$c-$s"
      case "$s" in
        frsm) run_frsm "$c" "$r" "$run" ;;
        zookeeper) run_zookeeper "$c" "$r" "$run" sync ;;
        zookeeper-plain) run_zookeeper "$c" "$r" "$run" plain ;;
        etcd) run_etcd "$c" "$r" "$run" ;;
        *) echo "unknown system $s" >&2; exit 2 ;;
      esac
      sync
      sleep 5
    done
  done
done

# frsm's throughput over each peer's, per round and caller count (runs minutes apart at most).
awk '{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  split($2, run, "-"); key = run[1] " " run[2]
  ops[key, f["system"]] = f["ops_per_s"]; keys[key] = 1
} END {
  for (k in keys) {
    fr = ops[k, "frsm"]
    line = k " frsm=" fr
    n = split("zookeeper zookeeper-plain etcd", peers, " ")
    for (p = 1; p <= n; p++) {
      v = ops[k, peers[p]]
      if (v > 0 && fr > 0) line = line sprintf(" %s=%s frsm/%s=%.2f", peers[p], v, peers[p], fr / v)
    }
    print line
  }
}' "$out/results.txt" | sort >"$out/ratios.txt"
cat "$out/ratios.txt"
