# Shell helpers of the benchmark scripts that start clusters of processes (tls-ab.sh,
# peers-ab.sh), sourced by them, not run. A script adds the pid of each process it starts to
# `pids`; `cleanup` stops them all (the script sets `trap cleanup EXIT`, so none outlives it).
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
