# Shell helpers of the benchmark scripts that start clusters of processes (tls-ab.sh,
# scrub-ab.sh, peers-ab.sh), sourced by them, not run. A script adds the pid of each process it
# starts to `pids`; `cleanup` stops them all (the script sets `trap cleanup EXIT`, so none outlives
# it). The cluster helpers at the end start the processes from `$frsm_jar`, which the script sets.
# shellcheck shell=bash

pids=()

# Stops every process in `pids`: TERM, up to 15 s to go, then KILL; empties `pids`.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  pids=()
}

# A TCP port free on 127.0.0.1 now (the kernel's pick).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

until_ok() { # deadline_s command...: runs command every 0.5 s until it succeeds
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then return 1; fi
    sleep 0.5
  done
}

await_health() { # port deadline_s: an frsm node's metrics endpoint on port answers /health
  until_ok "$2" curl -sf "http://127.0.0.1:$1/health"
}

# A run's cluster: start_zookeeper, then node_config and launch_node for nodes 1 to 3, then
# await_cluster. One run at a time: they share the variables zk_port, seeds, health, node_pids.

start_zookeeper() { # dir secret: a standalone ZooKeeper on a fresh port, its data in dir/zk
  # Also writes the nodes' credential file, dir/zookeeper.credential (owner-only); sets zk_port and
  # empties seeds, health and node_pids for the nodes to come.
  echo "frsm:$2" >"$1/zookeeper.credential"
  chmod 600 "$1/zookeeper.credential"
  zk_port=$(free_port)
  seeds="" health=() node_pids=""
  mkdir -p "$1/zk"
  java -Xmx256m -Dzookeeper.admin.enableServer=false -cp "$frsm_jar" \
    org.apache.zookeeper.server.ZooKeeperServerMain "$zk_port" "$1/zk" >"$1/zk.log" 2>&1 &
  pids+=($!)
}

node_config() { # dir cid n insecure: writes dir/node-n.yaml, node n of 3 on loopback
  # Fresh ports, data under dir/nN, start_zookeeper's ZooKeeper. Appends the node's client
  # address to `seeds` and its metrics port to `health`. The file ends with the `security:` block,
  # so the caller may append keys of that block (indented two spaces) or blocks of its own.
  local dir="$1" cid="$2" n="$3" peer client metrics
  peer=$(free_port); client=$(free_port); metrics=$(free_port)
  seeds="${seeds:+$seeds,}127.0.0.1:$client"
  health+=("$metrics")
  cat >"$dir/node-$n.yaml" <<YAML
cluster:
  id: $cid
  initialNodes: 3
node:
  id: $n
  rack: rack$n
  dataDirectory: $dir/n$n/data
  commitLogDirectories: [$dir/n$n/commitlog]
  peerAddress: 127.0.0.1:$peer
  clientAddress: 127.0.0.1:$client
  advertisedHost: 127.0.0.1
  drainTimeout: 1s
zookeeper:
  connect: 127.0.0.1:$zk_port
  credentialFile: $dir/zookeeper.credential
metrics:
  port: $metrics
  bindAddress: 127.0.0.1
security:
  insecure: $4
YAML
}

launch_node() { # dir n java [java-option...]: `frsm server` with dir/node-n.yaml, in the background
  # Output to dir/node-n.log. The pid goes first in `pids` (stopped before their ZooKeeper, nodes
  # deregister fast) and last in `node_pids` (comma-separated, for the client's CPU counts).
  local dir="$1" n="$2"
  shift 2
  "$@" -jar "$frsm_jar" server --config "$dir/node-$n.yaml" >"$dir/node-$n.log" 2>&1 &
  pids=($! "${pids[@]}")
  node_pids="${node_pids:+$node_pids,}$!"
}

await_cluster() { # run dir: every node in `health` healthy within 180 s, else cleanup and false
  local m
  for m in "${health[@]}"; do
    if ! await_health "$m" 180; then
      echo "$1: a node did not become healthy; see $2" >&2
      cleanup
      return 1
    fi
  done
}
