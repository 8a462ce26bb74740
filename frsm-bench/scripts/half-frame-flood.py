# The half-sent frame flood of issue 24 (docs/BENCHMARKS.md): 80 connections to a node's client
# port over mutual TLS, each sending a 16 MiB frame's length prefix and BODY_BYTES of its body, then
# holding the connection; prints the node process's RSS before, at peak over 30 s, and after.
#
#   python3 half-frame-flood.py HOST PORT CERT_DIR NODE_PID BODY_BYTES
#
# CERT_DIR holds ca.pem and client-local-admin.pem/-key.pem (what `frsm local` writes in
# <dir>/certs). Linux only (reads /proc/NODE_PID/status). Hostile by design: run it against a test
# cluster only.
import socket, ssl, struct, sys, time, os
host, port, certs, pid, sent_body = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
N = 80
DECLARED = 16 * 1024 * 1024

def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.load_verify_locations(os.path.join(certs, "ca.pem"))
ctx.load_cert_chain(os.path.join(certs, "client-local-admin.pem"), os.path.join(certs, "client-local-admin-key.pem"))
print(f"before: rss {rss_mib(pid):.0f} MiB", flush=True)
conns, closed = [], 0
chunk = b"\x00" * (1 << 20)
for i in range(N):
    s = ctx.wrap_socket(socket.create_connection((host, port), timeout=60))
    try:
        s.sendall(struct.pack(">i", DECLARED))
        left = sent_body
        while left > 0:
            n = min(left, len(chunk)); s.sendall(chunk[:n]); left -= n
        conns.append(s)
    except (ConnectionError, ssl.SSLError, OSError) as e:
        closed += 1
        s.close()
print(f"sent {N} half frames of {sent_body} bytes: {closed} closed while sending", flush=True)
peak = 0
for t in range(30):
    time.sleep(1)
    r = rss_mib(pid); peak = max(peak, r)
# which are still open?
still = 0
for s in conns:
    s.setblocking(False)
    try:
        d = s.recv(1)
        if d == b"": pass
        else: still += 1
    except ssl.SSLWantReadError:
        still += 1
    except (BlockingIOError,):
        still += 1
    except Exception:
        pass
print(f"after 30 s: rss {rss_mib(pid):.0f} MiB, peak {peak:.0f} MiB; connections still open: {still}", flush=True)
for s in conns: s.close()
time.sleep(5)
print(f"5 s after closing all: rss {rss_mib(pid):.0f} MiB", flush=True)
