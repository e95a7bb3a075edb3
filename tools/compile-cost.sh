#!/usr/bin/env bash
# Compile cost of the whole catalogue: a clean release build of a small binary that encodes and
# decodes every message, once with kafka-wire and once with the kafka-protocol crate 0.18
# (features client and broker, no compression), back to back on this machine.
#
#   tools/compile-cost.sh            # prints both wall-clock times and their ratio
#   RUNS=5 tools/compile-cost.sh     # more alternating rounds (default 3)
#   FEATURES=views tools/compile-cost.sh   # kafka-wire with these features besides its defaults
#
# Timings on a small shared machine wander by 10-20% from one build to the next, so the two
# builds alternate (kafka-wire, kafka-protocol, kafka-wire, ...) for RUNS rounds, and the
# medians are compared.
#
# Both binaries are written under target/compile-cost/ and built with their own target
# directories, so neither reuses the other's (or the workspace's) build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/target/compile-cost"
rm -rf "$out"
mkdir -p "$out/wire/src" "$out/peer/src"

# Every message type, read from the crates' own module lists (kafka-wire's are in the three
# crates its `messages` gathers).
wire_types=$(sed -n 's/^pub use self::\([a-z0-9_]*\)::\([A-Za-z0-9]*\);$/\2/p' \
  kafka-wire-core/src/messages/mod.rs kafka-wire-requests/src/lib.rs kafka-wire-responses/src/lib.rs)
peer_src=$(cargo metadata --format-version 1 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "kafka-protocol" and p["version"] == "0.18.0":
        print(p["manifest_path"].rsplit("/", 1)[0])' | head -n 1)
peer_types=$(sed -n 's/^pub use \([a-z0-9_]*\)::\([A-Za-z0-9]*\);$/\2/p' "$peer_src/src/messages.rs" | sort -u)

features=""
for f in ${FEATURES:-}; do features="$features${features:+, }\"$f\""; done
cat > "$out/wire/Cargo.toml" <<TOML
[package]
name = "cost-wire"
version = "0.0.0"
edition = "2021"
[dependencies]
kafka-wire = { path = "$root/kafka-wire", features = [$features] }
bytes = "1"
[workspace]
TOML
{
  echo 'use kafka_wire::{Decode, Encode, Message};'
  echo 'fn round<M: Message + Default>() -> usize {'
  echo '    let v = M::VERSIONS.end().unwrap_or(0);'
  echo '    let bytes = M::default().encode_to_bytes(v).map(|b| b.len()).unwrap_or(0);'
  echo '    bytes + M::decode(&mut bytes::Bytes::new(), v).is_ok() as usize'
  echo '}'
  echo 'fn main() {'
  echo '    let mut n = 0;'
  for t in $wire_types; do echo "    n += round::<kafka_wire::messages::$t>();"; done
  echo '    println!("{n}");'
  echo '}'
} > "$out/wire/src/main.rs"

cat > "$out/peer/Cargo.toml" <<TOML
[package]
name = "cost-peer"
version = "0.0.0"
edition = "2021"
[dependencies]
kafka-protocol = { version = "=0.18.0", default-features = false, features = ["client", "broker"] }
bytes = "1"
[workspace]
TOML
{
  echo 'use kafka_protocol::protocol::{Decodable, Encodable, Message};'
  echo 'fn round<M: Message + Encodable + Decodable + Default>() -> usize {'
  echo '    let v = M::VERSIONS.max;'
  echo '    let mut buf = bytes::BytesMut::new();'
  echo '    let n = M::default().encode(&mut buf, v).map(|_| buf.len()).unwrap_or(0);'
  echo '    n + M::decode(&mut bytes::Bytes::new(), v).is_ok() as usize'
  echo '}'
  echo 'fn main() {'
  echo '    let mut n = 0;'
  for t in $peer_types; do echo "    n += round::<kafka_protocol::messages::$t>();"; done
  echo '    println!("{n}");'
  echo '}'
} > "$out/peer/src/main.rs"

# Prints "<wall seconds> <cpu seconds>" of a clean release build. CPU time (user + system of
# every compiler process) is the steadier figure when something else shares the machine.
build() {
  local dir=$1
  # Fetch first so that the timing is compilation only.
  (cd "$dir" && cargo fetch -q)
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" python3 -c '
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(["cargo", "build", "-q", "--release"], check=True)
wall = time.monotonic() - start
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.1f} {r.ru_utime + r.ru_stime:.1f}")')
}

runs=${RUNS:-3}
wire_times=() peer_times=()
for ((i = 1; i <= runs; i++)); do
  rm -rf "$out/wire/target" "$out/peer/target"
  wire_times+=("$(build "$out/wire")")
  peer_times+=("$(build "$out/peer")")
  echo "round $i: kafka-wire ${wire_times[-1]% *} s, kafka-protocol ${peer_times[-1]% *} s (wall)"
done
python3 - "$(echo "$wire_types" | wc -l)" "$(echo "$peer_types" | wc -l)" \
  "${wire_times[*]}" "${peer_times[*]}" <<'PY'
import statistics, sys
wire_n, peer_n = sys.argv[1], sys.argv[2]
def parse(s):
    nums = list(map(float, s.split()))
    return nums[0::2], nums[1::2]
ww, wc = parse(sys.argv[3])
pw, pc = parse(sys.argv[4])
m = statistics.median
print(f"kafka-wire:     {wire_n} messages, clean release build, median of {len(ww)}: "
      f"{m(ww):.1f} s wall, {m(wc):.1f} s CPU")
print(f"kafka-protocol: {peer_n} messages, clean release build, median of {len(pw)}: "
      f"{m(pw):.1f} s wall, {m(pc):.1f} s CPU")
print(f"kafka-wire / kafka-protocol = {m(ww) / m(pw):.2f} wall, {m(wc) / m(pc):.2f} CPU")
PY
