#!/usr/bin/env bash
# txn-broker against librdkafka (confluent-kafka): sets up a virtualenv under target/, builds
# the broker, starts a 3-broker cluster in a temporary directory, runs real_client.py, stops
# the brokers and exits with the script's status.
#
#   examples/txn-broker/tests/real-client.sh                 # own cluster, then removed
#   examples/txn-broker/tests/real-client.sh --bootstrap 127.0.0.1:9092   # a running cluster
#   KEEP=1 examples/txn-broker/tests/real-client.sh          # keep the data dir and logs
#
# Any other argument is passed to real_client.py (e.g. --debug protocol).
set -euo pipefail

CONFLUENT_KAFKA_VERSION=2.16.1   # its manylinux wheels bundle librdkafka 2.16.0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

bootstrap=""
passthrough=()
while [ $# -gt 0 ]; do
    case "$1" in
        --bootstrap) bootstrap=$2; shift 2 ;;
        *) passthrough+=("$1"); shift ;;
    esac
done

venv=$target/real-client-venv
if ! "$venv/bin/python" -c "import confluent_kafka, sys; sys.exit(confluent_kafka.version() != '$CONFLUENT_KAFKA_VERSION')" 2>/dev/null; then
    echo "real-client: creating $venv with confluent-kafka==$CONFLUENT_KAFKA_VERSION" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --only-binary=:all: "confluent-kafka==$CONFLUENT_KAFKA_VERSION"
fi
"$venv/bin/python" -c 'import confluent_kafka as c; print("real-client: confluent-kafka", c.version(), "librdkafka", c.libversion()[0])' >&2

pids=()
dir=""
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$dir" ] && [ -z "${KEEP:-}" ]; then
        rm -rf "$dir"
    elif [ -n "$dir" ]; then
        echo "real-client: kept $dir" >&2
    fi
}
trap cleanup EXIT

if [ -z "$bootstrap" ]; then
    (cd "$root" && cargo build --quiet -p txn-broker)
    exe=$target/debug/txn-broker
    dir=$(mktemp -d "${TMPDIR:-/tmp}/txn-broker-real-client.XXXXXX")
    # A base port whose three client ports and three broker ports are all free.
    base=$("$venv/bin/python" - <<'EOF'
import random, socket
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
    if all(free(base + i) and free(base + 100 + i) for i in range(3)):
        print(base)
        break
EOF
)
    "$exe" init --data "$dir" --brokers 3 --base-port "$base" --topic orders:3
    for id in 0 1 2; do
        "$exe" start --data "$dir" --id "$id" --verbose 2>"$dir/broker-$id.log" &
        pids+=($!)
    done
    bootstrap="127.0.0.1:$base,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
    for port in "$base" "$((base + 1))" "$((base + 2))"; do
        for _ in $(seq 100); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
            sleep 0.1
        done
    done
fi

status=0
"$venv/bin/python" "$here/real_client.py" --bootstrap "$bootstrap" ${passthrough[@]+"${passthrough[@]}"} || status=$?

if [ -n "$dir" ]; then
    echo "real-client: requests the brokers received from clients (count, API, version):"
    grep -ho 'Client [A-Za-z]* v[0-9]*' "$dir"/broker-*.log | sort | uniq -c | sort -k2,2 -k3,3V || true
    echo "real-client: ApiVersions probes answered at v0:"
    grep -ho 'ApiVersions v[0-9]* corr [0-9]*: unsupported' "$dir"/broker-*.log | sed 's/ corr [0-9]*//' | sort | uniq -c || true
    echo "real-client: connections closed by a broker:"
    grep -h 'closing:' "$dir"/broker-*.log | sed 's/^\[[^]]*\] [0-9.:]*: //' | sort | uniq -c || true
fi
exit "$status"
