#!/usr/bin/env bash
# Remakes real-client.pcap: a packet capture, on loopback, of librdkafka (confluent-kafka)
# against a 3-broker txn-broker cluster, as examples/txn-broker/tests/real-client.sh runs it
# (transactions committed and aborted, a fenced producer, read_committed and
# read_uncommitted consumers), including the brokers' WriteTxnMarkers to each other. Also
# keeps the partition log files the brokers wrote, as log-orders-<partition>.
#
#   tools/analyser/tests/data/make-capture.sh          # needs root (tcpdump) and PyPI
#
# The cluster listens on fixed ports (BASE_PORT, default 41700: clients on BASE_PORT+0..2,
# brokers on BASE_PORT+100..102) so that the capture takes only its traffic.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
base=${BASE_PORT:-41700}
command -v tcpdump >/dev/null || { echo "make-capture: tcpdump is needed (apt-get install tcpdump)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kafka-wire-capture.XXXXXX")
trap 'kill "${dump:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

filter="tcp and (portrange $base-$((base + 2)) or portrange $((base + 100))-$((base + 102)))"
tcpdump -i lo -s 0 -U -w "$work/real-client.pcap" "$filter" 2>"$work/tcpdump.log" &
dump=$!
for _ in $(seq 100); do
    grep -q "listening on" "$work/tcpdump.log" && break
    sleep 0.1
done

# One record per partition and transaction keeps the capture small; the run still commits,
# aborts and fences.
KEEP=1 REAL_CLIENT_BASE_PORT=$base bash "$root/examples/txn-broker/tests/real-client.sh" \
    --per-partition 1 2>"$work/run.log"
kept=$(sed -n 's/^real-client: kept //p' "$work/run.log")

sleep 1
kill -INT "$dump"
wait "$dump" || true
dump=""
cp "$work/real-client.pcap" "$here/real-client.pcap"
for f in $(find "$kept/data" -name 'log-orders-*' | sort); do
    cp "$f" "$here/$(basename "$f")"
done
rm -rf "$kept"
ls -l "$here"
