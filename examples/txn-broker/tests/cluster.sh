# Shell functions that start and stop a txn-broker cluster on free ports, for the scripts that
# run a client against one (real-client.sh, examples/async-client/tests/against-txn-broker.sh).
# Source this file; it needs python3 (to find free ports) and a built txn-broker.
#
#   txn_free_base OFFSET...
#       Prints a port BASE such that BASE + OFFSET is free now for every OFFSET.
#   txn_cluster_start EXE DIR BROKERS [init options...]
#       Writes DIR/cluster.txt for BROKERS brokers on a base port whose client and broker ports
#       are all free now, or on TXN_CLUSTER_BASE_PORT when it is set (a capture filters on fixed
#       ports) (`txn-broker init`, which gets the init options, e.g. --topic orders:3),
#       starts each broker with --verbose (its log in DIR/broker-ID.log) and waits until every
#       one is up. Sets TXN_CLUSTER_BASE (broker i's client port is TXN_CLUSTER_BASE + i),
#       TXN_CLUSTER_BOOTSTRAP (every client address, comma-separated) and TXN_CLUSTER_PIDS.
#       On failure it prints why on standard error and returns 1; brokers it started stay in
#       TXN_CLUSTER_PIDS for txn_cluster_stop.
#   txn_cluster_stop
#       Stops the brokers and waits for them. Safe to call more than once, or before a start.
#
# The brokers also end by themselves within a second of the calling script's end, even a
# kill -9 of it: their standard input is a pipe from a loop that lives as long as the script.

TXN_CLUSTER_PIDS=()

# A base port such that base + OFFSET is free for every OFFSET given.
txn_free_base() {
    python3 - "$@" <<'PY'
import random, socket, sys
offsets = [int(a) for a in sys.argv[1:]]
def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()
for _ in range(200):
    base = random.randrange(20000, 60000)
    if all(free(base + i) for i in offsets):
        print(base)
        break
PY
}

# A base port whose BROKERS client ports (base + i) and broker ports (base + 100 + i) are free.
txn_cluster_free_base() {
    # shellcheck disable=SC2046 # one offset per word
    txn_free_base $(seq 0 $(($1 - 1))) $(seq 100 $((99 + $1)))
}

txn_cluster_start() {
    local exe=$1 dir=$2 brokers=$3
    shift 3
    local base id
    base=${TXN_CLUSTER_BASE_PORT:-}
    [ -n "$base" ] || base=$(txn_cluster_free_base "$brokers")
    [ -n "$base" ] || { echo "txn-cluster: no free ports" >&2; return 1; }
    mkdir -p "$dir"
    "$exe" init --data "$dir" --brokers "$brokers" --base-port "$base" "$@" >&2 ||
        { echo "txn-cluster: txn-broker init failed" >&2; return 1; }
    TXN_CLUSTER_PIDS=()
    for ((id = 0; id < brokers; id++)); do
        "$exe" start --data "$dir" --id "$id" --verbose --exit-with-stdin \
            2>"$dir/broker-$id.log" >/dev/null \
            < <(while kill -0 $$ 2>/dev/null; do sleep 1; done) &
        TXN_CLUSTER_PIDS+=($!)
    done
    for ((id = 0; id < brokers; id++)); do
        for _ in $(seq 200); do
            grep -q "broker $id up" "$dir/broker-$id.log" 2>/dev/null && break
            kill -0 "${TXN_CLUSTER_PIDS[$id]}" 2>/dev/null ||
                { echo "txn-cluster: broker $id ended at start" >&2; return 1; }
            sleep 0.05
        done
        grep -q "broker $id up" "$dir/broker-$id.log" ||
            { echo "txn-cluster: broker $id did not start within 10 s" >&2; return 1; }
    done
    TXN_CLUSTER_BASE=$base
    TXN_CLUSTER_BOOTSTRAP=""
    for ((id = 0; id < brokers; id++)); do
        TXN_CLUSTER_BOOTSTRAP+="${TXN_CLUSTER_BOOTSTRAP:+,}127.0.0.1:$((base + id))"
    done
}

txn_cluster_stop() {
    local pid
    for pid in ${TXN_CLUSTER_PIDS[@]+"${TXN_CLUSTER_PIDS[@]}"}; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in ${TXN_CLUSTER_PIDS[@]+"${TXN_CLUSTER_PIDS[@]}"}; do
        wait "$pid" 2>/dev/null || true
    done
    TXN_CLUSTER_PIDS=()
}
