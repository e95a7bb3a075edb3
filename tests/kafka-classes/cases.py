"""Which cases to ask Kafka's generated classes for, and the vector file made of their answers.

Driven by ``regenerate.sh``, which runs Kafka's generator and compiles the classes first:

    cases.py usable DIR
        prints the schema files of DIR that Kafka's generator takes (those whose
        validVersions is not "none"), one name a line
    cases.py catalogue PKG=DIR... --classpath CP --out OUT
        every message of the releases (oldest first; Kafka 3.9 and 4.4 for kafka-wire) at every
        version, merged as tools/codegen merges them; the classes of DIR are in package
        oracle.PKG
    cases.py schemas DIR --package PKG --classpath CP --out OUT [--cases N] [--values FILE]
        every message of one folder at every valid version, its unstable last one included;
        the classes are in package oracle.PKG. FILE (JSON) lists cases chosen by hand,
        {"label": ..., "message": ..., "version": ..., "value": ...}, written after the
        random ones with their label

``CP`` is the class path of the compiled classes, ``Vectors`` and Kafka's clients. The output is
deterministic: the values come from fixed seeds and the classes write the same bytes each run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from values import STYLES, class_name, load_schema, parse_versions, random_value, valid_versions

# Cases of each version: one of each style.
CASES = len(STYLES)


def schema_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix == ".json")


def usable(folder: Path) -> list[Path]:
    """The files Kafka's generator takes: it refuses ``"validVersions": "none"``."""
    return [p for p in schema_files(folder) if parse_versions(load_schema(p).get("validVersions"))]


def identity(schema: dict) -> str:
    """Requests and responses are the same message across releases by API key (a release may
    rename them); the others by name. As tools/codegen's ``compat::identity``."""
    if schema["type"] in ("request", "response") and "apiKey" in schema:
        return f"{schema['type']}:{int(schema['apiKey']):03}"
    return schema["name"]


def catalogue_plan(releases: list[tuple[str, Path]]) -> list[dict]:
    """The messages of several releases (oldest first), merged as tools/codegen's ``merge``
    does: each version from the newest release that defines it, a release's unstable last
    request version left out of its request and of its response, and the message named as the
    newest release names it (its ``"none"`` files included)."""
    by_id: dict[str, list[tuple[str, dict]]] = {}
    for package, folder in releases:
        for path in schema_files(folder):
            s = load_schema(path)
            by_id.setdefault(identity(s), []).append((package, s))
    unstable = set()
    for entries in by_id.values():
        for package, s in entries:
            versions = valid_versions(s)
            if s.get("latestVersionUnstable") and "apiKey" in s and versions:
                unstable.add((package, int(s["apiKey"]), versions[-1]))
    plan = []
    for ident in sorted(by_id):
        entries = by_id[ident]
        source: dict[int, tuple[str, dict]] = {}
        for package, s in entries:
            key = int(s.get("apiKey", -1))
            for v in valid_versions(s):
                if (package, key, v) not in unstable:
                    source[v] = (package, s)
        if source:
            plan.append(plan_entry(entries[-1][1], source))
    return plan


def schemas_plan(package: str, folder: Path) -> list[dict]:
    """Every message of one folder at every version it lists."""
    plan = []
    for path in usable(folder):
        s = load_schema(path)
        plan.append(plan_entry(s, {v: (package, s) for v in valid_versions(s)}))
    return plan


def plan_entry(named_by: dict, source: dict[int, tuple[str, dict]]) -> dict:
    return {
        "name": named_by["name"],
        "type": named_by["type"],
        "apiKey": named_by.get("apiKey"),
        "unstable": bool(named_by.get("latestVersionUnstable")),
        "source": {v: source[v] for v in sorted(source)},
    }


def chosen_cases(plan: list[dict], chosen: list[dict], first: int) -> list[dict]:
    """Cases chosen by hand, numbered from ``first``: the value and its records pointers as
    given."""
    by_name = {e["name"]: e for e in plan}
    cases = []
    for i, c in enumerate(chosen, start=first):
        entry = by_name.get(c["message"])
        if entry is None or c["version"] not in entry["source"]:
            sys.exit(f"FAILED: no message {c['message']} v{c['version']} for {c['label']}")
        package, schema = entry["source"][c["version"]]
        cases.append(
            {
                "id": f"{c['message']} v{c['version']} {c['label']}",
                "message": c["message"],
                "version": c["version"],
                "case": i,
                "label": c["label"],
                "class": f"oracle.{package}.{class_name(schema)}",
                "value": c["value"],
                # The pointers of its records fields, which whoever chose the value gives.
                "records": c.get("records", []),
            }
        )
    return cases


def make_cases(plan: list[dict], per_version: int) -> list[dict]:
    cases = []
    for entry in plan:
        for v, (package, schema) in entry["source"].items():
            for i in range(per_version):
                style = list(STYLES)[i] if i < len(STYLES) else "random"
                seed = f"{entry['name']}:{v}:{i}"
                value, records = random_value(schema, v, seed, style)
                cases.append(
                    {
                        "id": f"{entry['name']} v{v} case {i} ({style})",
                        "message": entry["name"],
                        "version": v,
                        "case": i,
                        "class": f"oracle.{package}.{class_name(schema)}",
                        "value": value,
                        "records": records,
                    }
                )
    return cases


def run_classes(cases: list[dict], classpath: str) -> list[dict]:
    """The vectors Kafka's classes write for the cases, in order; stops on any failure."""
    lines = "".join(
        json.dumps(
            {k: c[k] for k in ("id", "class", "version", "value")}, ensure_ascii=False
        )
        + "\n"
        for c in cases
    )
    done = subprocess.run(
        ["java", "-cp", classpath, "Vectors"],
        input=lines.encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        # Only then: on success the clients' logging library says nothing worth reading.
        sys.stderr.write(done.stderr.decode(errors="replace"))
        sys.exit(f"FAILED: Kafka's classes refused a case (exit status {done.returncode})")
    answers = [json.loads(line) for line in done.stdout.decode().splitlines() if line]
    if [a["id"] for a in answers] != [c["id"] for c in cases]:
        sys.exit("FAILED: the vectors do not answer the cases one for one")
    return answers


def write_output(
    out: Path,
    about: str,
    plan: list[dict],
    cases: list[dict],
    answers: list[dict],
    unstable_kept: bool,
):
    messages = [
        {
            "name": e["name"],
            "type": e["type"],
            "apiKey": e["apiKey"],
            "versions": list(e["source"]),
            # Only where the last version is unstable (the schemas mode keeps it).
            **({"latestVersionUnstable": True} if e["unstable"] and unstable_kept else {}),
        }
        for e in plan
    ]
    vectors = [
        {
            "message": c["message"],
            "version": c["version"],
            "case": c["case"],
            **({"label": c["label"]} if "label" in c else {}),
            "class": c["class"],
            "value": c["value"],
            "records": c["records"],
            "hex": a["hex"],
            "json": a["json"],
        }
        for c, a in zip(cases, answers)
    ]

    def line(item) -> str:
        return json.dumps(item, ensure_ascii=False, separators=(",", ":"))

    text = (
        "{\n"
        f'"about":{line(about)},\n'
        '"messages":[\n' + ",\n".join(map(line, messages)) + "\n],\n"
        '"vectors":[\n' + ",\n".join(map(line, vectors)) + "\n]\n"
        "}\n"
    )
    out.write_text(text, encoding="utf-8")
    print(f"{out}: {len(vectors)} vectors of {len(messages)} messages", file=sys.stderr)


ABOUT = (
    "Test vectors written by the Java classes Kafka's message generator writes for {what}: "
    "each value (Kafka's JSON form) read by the class's JSON converter, written at the version "
    "(hex), read back to an equal object, and written again by the converter (json; a records "
    "field shows as empty there, the value holds its bytes at the pointers in records). "
    "Case i of a version has style i of tests/kafka-classes/values.py ({styles}), random after "
    "them. "
    "Written by tests/kafka-classes/regenerate.sh {mode}; do not edit."
)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    u = sub.add_parser("usable")
    u.add_argument("dir", type=Path)
    c = sub.add_parser("catalogue")
    c.add_argument("releases", nargs="+", metavar="PKG=DIR")
    s = sub.add_parser("schemas")
    s.add_argument("dir", type=Path)
    s.add_argument("--package", required=True)
    s.add_argument("--cases", type=int, default=CASES)
    s.add_argument("--values", type=Path)
    for q in (c, s):
        q.add_argument("--classpath", required=True)
        q.add_argument("--out", type=Path, required=True)
    args = p.parse_args()

    if args.mode == "usable":
        for path in usable(args.dir):
            print(path.name)
        return
    if args.mode == "catalogue":
        releases = [(pkg, Path(d)) for pkg, d in (r.split("=", 1) for r in args.releases)]
        plan = catalogue_plan(releases)
        per_version = CASES
        names = " and ".join(d.name for _, d in releases)
        about = ABOUT.format(
            what=f"the schemas of Kafka {names}, every version from the newest release that "
            "defines it, unstable versions left out",
            mode="catalogue",
            styles=", ".join(STYLES),
        )
    else:
        plan = schemas_plan(args.package, args.dir)
        per_version = args.cases
        about = ABOUT.format(
            what=f"the schemas of {args.dir.name}", mode="schemas", styles=", ".join(STYLES)
        )
    if not plan or per_version < 1:
        sys.exit("FAILED: no message, or no case, to write vectors for")
    cases = make_cases(plan, per_version)
    if args.mode == "schemas" and args.values:
        chosen = json.loads(args.values.read_text(encoding="utf-8"))
        cases += chosen_cases(plan, chosen, per_version)
    answers = run_classes(cases, args.classpath)
    write_output(args.out, about, plan, cases, answers, unstable_kept=args.mode == "schemas")


if __name__ == "__main__":
    main()
