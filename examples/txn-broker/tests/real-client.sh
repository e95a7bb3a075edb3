#!/usr/bin/env bash
# txn-broker against librdkafka (confluent-kafka): sets up a virtualenv under target/, builds
# the broker, starts a 3-broker cluster on free ports in a temporary directory, runs
# real_client.py (transactions, fencing, consumers, and list_topics() from an AdminClient and a
# Producer), checks its summary (and the brokers' logs against it), stops the brokers and
# exits 0 only when everything matched.
#
#   examples/txn-broker/tests/real-client.sh                 # own cluster, then removed
#   examples/txn-broker/tests/real-client.sh --bootstrap 127.0.0.1:9092   # a running cluster
#   KEEP=1 examples/txn-broker/tests/real-client.sh          # keep the data dir and logs
#   REAL_CLIENT_TIMEOUT=900                                   # bound on the whole run (s)
#   REAL_CLIENT_BASE_PORT=40000                               # fixed ports (a capture filters on them)
#   examples/txn-broker/tests/real-client.sh --tap           # through `kafka-wire tap`
#
# With --tap, the client bootstraps from a `kafka-wire tap` in front of the cluster, and the run
# passes only if it also passes the tap's own check (tap_check.py): every request the brokers'
# traces show is in the tap's output, paired with its response, and every broker address the
# client was given is one of the tap's listeners. Its messages then carry values of 100 kB, so
# that Produce requests and Fetch responses are large enough to move between the sockets in
# the kernel (splice), and the tap's summary must count bytes spliced.
#
# Any other argument is passed to real_client.py (e.g. --debug protocol).
#
# Output: the summary of real_client.py, the requests librdkafka sent (own cluster only) and
# `real-client: PASS`, or on a failure what went wrong with the tails of the client's and the
# brokers' logs. Exit status: 0 pass, 1 a check failed, 124 the time bound ran out, other
# values a setup step failed.
set -euo pipefail

CONFLUENT_KAFKA_VERSION=2.16.1 # its manylinux wheels bundle librdkafka 2.16.0

# The whole run is bounded: the script runs itself again under `timeout`, which sends TERM
# (and KILL 10 s later) when the time is up; the EXIT trap below still stops the brokers.
if [ -z "${REAL_CLIENT_BOUNDED:-}" ]; then
    REAL_CLIENT_BOUNDED=1 exec timeout -k 10 "${REAL_CLIENT_TIMEOUT:-900}" bash "$0" "$@"
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

bootstrap=""
tap=""
passthrough=()
while [ $# -gt 0 ]; do
    case "$1" in
        --tap)
            tap=1
            shift
            ;;
        --bootstrap)
            [ $# -ge 2 ] || { echo "real-client: --bootstrap needs HOST:PORT[,...]" >&2; exit 2; }
            bootstrap=$2
            shift 2
            ;;
        *) passthrough+=("$1"); shift ;;
    esac
done

# shellcheck source=cluster.sh
. "$here/cluster.sh"

dir=""
tap_pid=""
work=$(mktemp -d "${TMPDIR:-/tmp}/txn-broker-real-client.XXXXXX")
cleanup() {
    local status=$?
    [ -z "$tap_pid" ] || { kill "$tap_pid" 2>/dev/null; wait "$tap_pid" 2>/dev/null; }
    txn_cluster_stop
    if [ -z "${KEEP:-}" ]; then
        rm -rf "$work"
    else
        echo "real-client: kept $work" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
stopped() {
    echo "real-client: FAIL: stopped by $1 (REAL_CLIENT_TIMEOUT=${REAL_CLIENT_TIMEOUT:-900} s bounds the run)" >&2
    show_logs
    exit "$2"
}
trap 'stopped TERM 143' TERM
trap 'stopped INT 130' INT

# Prints the last lines of the client's and of every broker's log.
show_logs() {
    local f
    for f in "$work"/client.log "$work"/setup.log "$work"/tap.log ${dir:+"$dir"/broker-*.log}; do
        [ -s "$f" ] || continue
        echo "---- last 40 lines of $f" >&2
        tail -n 40 "$f" >&2
    done
}

fail() {
    echo "real-client: FAIL: $*" >&2
    show_logs
    exit 1
}

# The virtualenv, made once and reused while it has the pinned version. A lock keeps two runs
# from building it at the same time.
venv=$target/real-client-venv
mkdir -p "$target"
(
    flock 9
    if ! "$venv/bin/python" -c "import confluent_kafka, sys; sys.exit(confluent_kafka.version() != '$CONFLUENT_KAFKA_VERSION')" 2>/dev/null; then
        python3 -m venv --clear "$venv"
        timeout 600 "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input \
            --only-binary=:all: "confluent-kafka==$CONFLUENT_KAFKA_VERSION"
    fi
) 9>"$target/real-client-venv.lock" >"$work/setup.log" 2>&1 || fail "virtualenv with confluent-kafka==$CONFLUENT_KAFKA_VERSION"

if [ -z "$bootstrap" ]; then
    (cd "$root" && cargo build --quiet -p txn-broker) >>"$work/setup.log" 2>&1 || fail "cargo build"
    exe=$target/debug/txn-broker
    dir=$work/data
    TXN_CLUSTER_BASE_PORT=${REAL_CLIENT_BASE_PORT:-} \
        txn_cluster_start "$exe" "$dir" 3 --topic orders:3 2>>"$work/setup.log" ||
        fail "$(tail -n 1 "$work/setup.log")"
    bootstrap=$TXN_CLUSTER_BOOTSTRAP
fi

if [ -n "$tap" ]; then
    [ -n "$dir" ] || fail "--tap runs against the script's own cluster, not --bootstrap"
    (cd "$root" && cargo build --quiet -p kafka-wire-analyser) >>"$work/setup.log" 2>&1 ||
        fail "cargo build -p kafka-wire-analyser"
    # The tap's port and, after it, one for each broker's listener (node id 0, 1, 2).
    tap_port=$(txn_free_base 0 1 2 3)
    [ -n "$tap_port" ] || fail "no free ports for the tap"
    "$target/debug/kafka-wire" tap --listen "127.0.0.1:$tap_port" \
        --upstream "127.0.0.1:$TXN_CLUSTER_BASE" --out "$work/tap.jsonl" --summary 0 \
        2>"$work/tap.log" &
    tap_pid=$!
    for _ in $(seq 100); do
        grep -q "listening on" "$work/tap.log" 2>/dev/null && break
        kill -0 "$tap_pid" 2>/dev/null || fail "kafka-wire tap ended at start"
        sleep 0.05
    done
    grep -q "listening on" "$work/tap.log" || fail "kafka-wire tap did not start"
    bootstrap=127.0.0.1:$tap_port
    passthrough=(--value-bytes 100000 ${passthrough[@]+"${passthrough[@]}"})
fi

status=0
timeout 300 "$venv/bin/python" "$here/real_client.py" --bootstrap "$bootstrap" \
    ${passthrough[@]+"${passthrough[@]}"} >"$work/summary.txt" 2>"$work/client.log" || status=$?
cat "$work/summary.txt"

# The numbers of the summary: `value NAME` reads NAME=N from its lines before the per-partition
# ones.
value() {
    grep -v 'partition=' "$work/summary.txt" | grep -o "\b$1=[0-9]*" | head -n 1 | cut -d= -f2 || true
}
problems=()
[ "$status" -eq 0 ] || problems+=("real_client.py exited with status $status")
grep -qx 'RESULT: OK' "$work/summary.txt" || problems+=("real_client.py did not report RESULT: OK")
produced=$(value produced)
committed=$(value committed)
aborted=$(value aborted)
if [ -z "$produced" ] || [ -z "$committed" ] || [ -z "$aborted" ]; then
    problems+=("no summary")
else
    [ "$((committed + aborted))" -eq "$produced" ] || problems+=("committed + aborted != produced")
    [ "$(value read_committed)" = "$committed" ] || problems+=("read_committed != committed")
    [ "$(value read_uncommitted)" = "$produced" ] || problems+=("read_uncommitted != produced")
    [ "$(value fenced)" = 1 ] || problems+=("the first producer was not fenced")
    # list_topics() from an AdminClient and from a Producer: the topic, with every partition.
    partitions=$(grep -c 'partition=' "$work/summary.txt" || true)
    [ "$(value list_topics_admin)" = "$partitions" ] ||
        problems+=("AdminClient list_topics() returned $(value list_topics_admin) of $partitions partitions")
    [ "$(value list_topics_producer)" = "$partitions" ] ||
        problems+=("Producer list_topics() returned $(value list_topics_producer) of $partitions partitions")
    [ "$committed" -gt 0 ] && [ "$aborted" -gt 0 ] || problems+=("nothing committed or nothing aborted")
fi

if [ -n "$dir" ] && [ ${#problems[@]} -eq 0 ]; then
    # The logs on disk against the summary, from each partition's start offset on: every data
    # record produced (and none of the fenced producer's late ones), one COMMIT marker per
    # partition of each committed transaction, one ABORT marker per partition of each aborted
    # one. Markers go out after EndTxn is answered, so give the last ones a moment.
    starts=$(grep -o 'partition=[0-9]* start=[0-9]*' "$work/summary.txt" | tr -c '0-9\n' ' ')
    for _ in $(seq 50); do
        "$exe" dump --data "$dir" >"$work/dump.txt" 2>&1 || fail "txn-broker dump"
        read -r records commits aborts < <(awk -v starts="$starts" '
            BEGIN { n = split(starts, s, "\n"); for (i = 1; i <= n; i++) { split(s[i], f, " "); if (f[1] != "") start[f[1]] = f[2] } }
            /^[^ ].*\(leader/ { part = $1; sub(/.*-/, "", part); next }
            /^  offset/ {
                if ($2 < start[part]) next
                if ($0 ~ /COMMIT marker/) c++
                else if ($0 ~ /ABORT marker/) a++
                else if (match($0, /[0-9]+ record\(s\)/)) r += substr($0, RSTART, RLENGTH) + 0
            }
            END { print r + 0, c + 0, a + 0 }' "$work/dump.txt")
        [ "$commits" = "$(value commit_markers)" ] && [ "$aborts" = "$(value abort_markers)" ] && break
        sleep 0.1
    done
    echo "  in the logs: records=$records commit_markers=$commits abort_markers=$aborts"
    [ "$records" = "$produced" ] || problems+=("the logs hold $records records, $produced were produced")
    [ "$commits" = "$(value commit_markers)" ] || problems+=("the logs hold $commits COMMIT markers")
    [ "$aborts" = "$(value abort_markers)" ] || problems+=("the logs hold $aborts ABORT markers")
fi

if [ -n "$dir" ]; then
    # Which version of each API librdkafka used (from the brokers' --verbose traces), and
    # which the coordinator used for its markers.
    echo "  requests from clients (API version count):" \
        "$(grep -ho 'Client [A-Za-z]* v[0-9]*' "$dir"/broker-*.log | sort | uniq -c |
            awk '{ printf "%s %s %s, ", $3, $4, $1 }' | sed 's/, $//')"
    echo "  requests between brokers (API version count):" \
        "$(grep -ho 'InterBroker [A-Za-z]* v[0-9]*' "$dir"/broker-*.log | sort | uniq -c |
            awk '{ printf "%s %s %s, ", $3, $4, $1 } END { if (NR == 0) printf "none" }' | sed 's/, $//')"
    # Requests whose frame held bytes after the body, which the brokers ignored as Kafka's do:
    # librdkafka's Metadata request for all topics (list_topics(), four calls) has one.
    echo "  requests with bytes after the body (API version bytes count):" \
        "$(grep -ho 'Client [A-Za-z]* v[0-9]* corr [0-9]* from [^ ]*, [0-9]* bytes after the body ignored' "$dir"/broker-*.log |
            awk '{ printf "%s %s %s\n", $2, $3, $8 }' | sort | uniq -c |
            awk '{ printf "%s %s %s %s, ", $2, $3, $4, $1 } END { if (NR == 0) printf "none" }' | sed 's/, $//')"
    lenient=$({ grep -c 'Client Metadata v[0-9]* corr [0-9]* from [^ ]*, 1 bytes after the body ignored' "$dir"/broker-*.log || true; } |
        awk -F: '{ n += $NF } END { print n + 0 }')
    [ "$lenient" -ge 4 ] ||
        problems+=("$lenient Metadata requests with a byte after the body reached the brokers; list_topics() sends 4")
fi

if [ -n "$tap" ]; then
    # Stopped by SIGTERM, the tap writes every line and its summary, and exits 0.
    kill -TERM "$tap_pid"
    tap_status=0
    wait "$tap_pid" || tap_status=$?
    tap_pid=""
    [ "$tap_status" -eq 0 ] || problems+=("kafka-wire tap exited with status $tap_status")
    tail -n 1 "$work/tap.log" | sed 's/^/  /'
    spliced=$(tail -n 1 "$work/tap.log" | grep -o '[0-9]* of them spliced' | cut -d' ' -f1)
    [ "${spliced:-0}" -gt 0 ] ||
        problems+=("the tap spliced no bytes: its large frames did not move in the kernel")
    python3 "$here/tap_check.py" "$work/tap.jsonl" "$TXN_CLUSTER_BASE" "$tap_port" "$dir"/broker-*.log ||
        problems+=("the tap's output does not match the brokers' traces")
fi

if [ ${#problems[@]} -gt 0 ]; then
    for p in "${problems[@]}"; do
        echo "real-client: FAIL: $p" >&2
    done
    show_logs
    exit 1
fi
echo "real-client: PASS"
