#!/usr/bin/env python3
"""The output of `kafka-wire tap` against the traces of the brokers behind it.

    tap_check.py TAP.jsonl BROKER_BASE_PORT TAP_PORT broker-0.log broker-1.log ...

Passes (exit 0) when:
- every request a broker's --verbose trace shows from a client ("Client API vN corr C") is a
  line of the tap's, on a connection to that broker, with the same API, version and correlation
  id, and the tap has no request the brokers did not receive;
- every one of those lines has its response, and the tap reported no error;
- every broker address in the Metadata and FindCoordinator responses the client received is one
  of the tap's listeners (TAP_PORT + 1 + node id), so that no connection went around the tap.
"""

import collections
import json
import re
import sys


def main():
    tap_file, base, tap_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    logs = sys.argv[4:]
    problems = []

    traced = collections.Counter()
    pattern = re.compile(r"^\[broker (\d+)\] Client (\w+) v(\d+) corr (-?\d+) from ")
    for log in logs:
        with open(log, encoding="utf-8") as f:
            for line in f:
                m = pattern.match(line)
                if m:
                    broker, api, version, corr = m.groups()
                    traced[(base + int(broker), api, int(version), int(corr))] += 1

    seen = collections.Counter()
    lines = unanswered = errors = 0
    endpoints = collections.Counter()
    with open(tap_file, encoding="utf-8") as f:
        for text in f:
            lines += 1
            line = json.loads(text)
            if "apiKey" not in line:
                errors += 1
                problems.append(f"the tap reported: {line.get('error')}")
                continue
            upstream = int(line["connection"].rsplit(":", 1)[1])
            seen[(upstream, line["api"], line["version"], line["correlationId"])] += 1
            response = line["response"]
            if response is None:
                unanswered += 1
                problems.append(f"no response: {line['api']} corr {line['correlationId']}: {line.get('note')}")
                continue
            body = response.get("body") or {}
            found = []
            if line["api"] == "Metadata":
                found = [(b["nodeId"], b["host"], b["port"]) for b in body.get("brokers", [])]
            elif line["api"] == "FindCoordinator":
                found = [(c["nodeId"], c["host"], c["port"]) for c in body.get("coordinators", [])]
                if "host" in body and body.get("nodeId", -1) >= 0:
                    found.append((body["nodeId"], body["host"], body["port"]))
            for node, host, port in found:
                endpoints[line["api"]] += 1
                if (host, port) != ("127.0.0.1", tap_port + 1 + node):
                    problems.append(f"{line['api']} gave the client node {node} at {host}:{port}, not the tap's listener")

    missing = traced - seen
    extra = seen - traced
    for key, n in sorted(missing.items()):
        problems.append(f"the brokers received {key} {n} time(s) more than the tap shows")
    for key, n in sorted(extra.items()):
        problems.append(f"the tap shows {key} {n} time(s) more than the brokers received")
    if not endpoints["Metadata"] or not endpoints["FindCoordinator"]:
        problems.append(f"too few endpoints rewritten to check: {dict(endpoints)}")

    connections = len({json.loads(t)["connection"] for t in open(tap_file, encoding="utf-8")})
    print(
        f"  tap: {lines} lines on {connections} connections, {sum(seen.values())} requests, "
        f"{unanswered} without response, {errors} errors; brokers' traces: "
        f"{sum(traced.values())} client requests; endpoints given to the client: "
        f"{', '.join(f'{api} {n}' for api, n in sorted(endpoints.items()))}, all the tap's"
    )
    for p in problems[:20]:
        print(f"tap-check: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
