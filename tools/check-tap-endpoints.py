#!/usr/bin/env python3
"""The responses `kafka-wire tap` rewrites, held to Kafka's schemas.

    tools/check-tap-endpoints.py SCHEMA_DIR...

Every response schema with a struct that holds both a `Host` and a `Port` field tells its reader
where a node is. Each must be in the tap's ENDPOINT_APIS (tools/analyser/src/tap/rewrite/mod.rs),
or in LEFT_OUT below with the reason; and ENDPOINT_APIS names nothing else.
"""

import json
import pathlib
import re
import sys

# Responses whose endpoints are not Kafka nodes: the tap leaves them as they are.
LEFT_OUT = {
    # The endpoints of a Kafka Streams application's own instances, which its members reach
    # directly, not through the cluster.
    "StreamsGroupHeartbeat",
    "StreamsGroupDescribe",
}

REWRITE = pathlib.Path(__file__).resolve().parent / "analyser/src/tap/rewrite/mod.rs"


def carries_endpoints(fields):
    names = {f["name"] for f in fields}
    if {"Host", "Port"} <= names:
        return True
    return any(carries_endpoints(f.get("fields", [])) for f in fields)


def main():
    found = set()
    for folder in sys.argv[1:]:
        for path in sorted(pathlib.Path(folder).glob("*Response.json")):
            text = re.sub(r"^\s*//.*$", "", path.read_text(encoding="utf-8"), flags=re.M)
            schema = json.loads(text)
            structs = [schema.get("fields", [])] + [s["fields"] for s in schema.get("commonStructs", [])]
            if any(carries_endpoints(fields) for fields in structs):
                found.add(schema["name"].removesuffix("Response"))
    source = REWRITE.read_text(encoding="utf-8")
    listed = re.search(r"ENDPOINT_APIS: \[&str; \d+\] = \[(.*?)\];", source, re.S)
    if not listed:
        print(f"check-tap-endpoints: no ENDPOINT_APIS in {REWRITE}", file=sys.stderr)
        return 1
    rewritten = set(re.findall(r'"(\w+)"', listed.group(1)))
    problems = []
    for api in sorted(found - rewritten - LEFT_OUT):
        problems.append(f"{api}Response carries hosts and ports, and the tap does not rewrite it")
    for api in sorted(rewritten - found):
        problems.append(f"the tap rewrites {api}, whose response carries no host and port")
    for api in sorted(LEFT_OUT - found):
        problems.append(f"{api} is left out, but its response carries no host and port")
    for p in problems:
        print(f"check-tap-endpoints: {p}", file=sys.stderr)
    if not problems:
        print(f"check-tap-endpoints: {len(rewritten)} responses rewritten, {len(LEFT_OUT)} left out, as the schemas say")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
