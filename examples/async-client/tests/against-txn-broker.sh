#!/usr/bin/env bash
# The async client against a txn-broker cluster of its own: builds both, starts three brokers on
# free ports in a temporary directory (topic orders:3, partition i led by broker i), runs
#
#   cargo run -p async-client -- --bootstrap 127.0.0.1:PORT                (broker 0, partition 0)
#   cargo run -p async-client -- --bootstrap 127.0.0.1:PORT+1 --partition 2 --api-versions 5
#
# (the second asks broker 1 for metadata and goes to broker 2, the leader, after falling back
# from ApiVersions v5, which the broker answers at v0 with UNSUPPORTED_VERSION), and stops the
# brokers whatever happens. Exit status 0 when both runs print `async-client: OK`; on a failure
# the tails of the brokers' logs are printed. KEEP=1 keeps the data directory and logs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
# shellcheck source=../../txn-broker/tests/cluster.sh
. "$root/examples/txn-broker/tests/cluster.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/async-client.XXXXXX")
cleanup() {
    local status=$?
    txn_cluster_stop
    if [ "$status" -ne 0 ]; then
        for log in "$work"/data/broker-*.log; do
            [ -s "$log" ] || continue
            echo "---- last 20 lines of $log" >&2
            tail -n 20 "$log" >&2
        done
    fi
    if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "async-client: kept $work" >&2; fi
    exit "$status"
}
trap cleanup EXIT

cd "$root"
cargo build --quiet -p txn-broker -p async-client
txn_cluster_start "$target/debug/txn-broker" "$work/data" 3 --topic orders:3
base=$TXN_CLUSTER_BASE

client() {
    echo "\$ cargo run -p async-client -- $*"
    timeout 120 cargo run --quiet -p async-client -- "$@"
}
client --bootstrap "127.0.0.1:$base"
client --bootstrap "127.0.0.1:$((base + 1))" --partition 2 --api-versions 5
