#!/usr/bin/env bash
# Load test of the conversion webhook on loopback (not run by CI).
#
#   bash examples/conversion-webhook/loadtest.sh [DURATION_SECONDS]
#
# Needs wrk (Debian: apt-get install wrk), openssl and python3. Starts the release build of the
# webhook on 127.0.0.1:19443 with a throw-away self-signed certificate, posts a ConversionReview
# of 100 v1beta1 MachinePools (desired v1beta2) for DURATION_SECONDS (default 20) with 2 threads
# and 16 connections, prints requests/s and the latency distribution and the server's peak
# memory (VmHWM); then repeats the load while 100 slow clients each trickle a 3 MB body (the
# slow-body attack the limits are sized for) and prints the peak memory again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
duration="${1:-20}"
work="$(mktemp -d)"
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

cargo build --release -q -p conversion-webhook --manifest-path "$root/Cargo.toml"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null

python3 - "$work/review.json" <<'PY'
import json, sys
objects = []
for i in range(100):
    objects.append({
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
        "metadata": {"name": f"mp-{i}", "namespace": "default", "labels": {"cluster.x-k8s.io/cluster-name": "c1"}},
        "spec": {"clusterName": "c1", "replicas": 3, "minReadySeconds": 10,
                 "providerIDList": [f"aws:///us-east-1a/i-{i:04d}{j}" for j in range(3)],
                 "template": {"spec": {"clusterName": "c1", "version": "v1.33.1", "nodeDrainTimeout": "5m0s",
                     "bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfig", "name": f"cfg-{i}"}},
                     "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "AWSMachinePool", "name": f"amp-{i}"}}}},
        "status": {"replicas": 3, "readyReplicas": 3, "availableReplicas": 3, "phase": "Running",
                   "bootstrapReady": True, "infrastructureReady": True, "observedGeneration": 2,
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
review = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
          "request": {"uid": "load", "desiredAPIVersion": "cluster.x-k8s.io/v1beta2", "objects": objects}}
json.dump(review, open(sys.argv[1], "w"))
PY

cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/review.json", "rb")
wrk.body = f:read("*a")
f:close()
LUA

RUST_LOG=warn "$root/target/release/conversion-webhook" --addr 127.0.0.1:19443 --cert-dir "$work" --cluster-crds never &
pid=$!
for _ in $(seq 50); do
  curl -skf https://127.0.0.1:19443/readyz >/dev/null 2>&1 && break || sleep 0.1
done
echo "body: $(wc -c < "$work/review.json") bytes, 100 MachinePools per request"
wrk -t2 -c16 -d"${duration}s" --latency -s "$work/post.lua" https://127.0.0.1:19443/convert | tee "$work/load.log"
echo "server peak RSS after the load: $(grep VmHWM /proc/$pid/status)"
# A request lost on a connection the server closed (wrk counts it as a socket error) or a
# non-2xx answer fails the run: wrk reconnects silently otherwise (issue 66).
if grep -E "Socket errors|Non-2xx" "$work/load.log"; then
  echo "FAILED: requests lost or refused under the normal load" >&2
  exit 1
fi

# The slow-body attack: 100 TLS connections each announcing a 3 MB body and sending it in
# 64 KB pieces, one piece a second, while the normal load runs again.
python3 - "$duration" > "$work/attack.log" 2>&1 <<'PY' &
import socket, ssl, sys, threading, time
duration = float(sys.argv[1]) + 5
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
closed = []
def slow():
    try:
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", 19443)), server_hostname="localhost")
        size = 3 * 1024 * 1024
        s.sendall(f"POST /convert HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode())
        end = time.time() + duration
        while time.time() < end:
            s.sendall(b" " * 65536)
            time.sleep(1)
    except Exception:
        closed.append(1)
threads = [threading.Thread(target=slow) for _ in range(100)]
[t.start() for t in threads]; [t.join() for t in threads]
print(f"slow clients closed by the server: {len(closed)} of 100")
PY
attack=$!
sleep 2
wrk -t2 -c16 -d"${duration}s" --latency -s "$work/post.lua" https://127.0.0.1:19443/convert
echo "server peak RSS with 100 slow clients: $(grep VmHWM /proc/$pid/status)"
wait "$attack" || true
cat "$work/attack.log"
