#!/usr/bin/env python3
"""Comments state what code promises and why; measurements live in BENCHMARKS.md and in commit
messages. This finds, in the comments of hand-written `.rs` files, what belongs there instead:
timings, measured ratios, percentages, instruction and IR line counts, sizes measured in KB
or MB, and dates.

    python3 tools/check-comments.py        # from the repository root; exit 1 on a finding

Generated files (the message catalogue, the tests' generated support) are left out, and so are
doc-test lines (`# ...` and code inside ``` blocks), which are code, not comments.
"""

import re
import subprocess
import sys

GENERATED = (
    "kafka-wire-requests/src/",
    "kafka-wire-responses/src/",
    "kafka-wire-core/src/messages/",
    "kafka-wire/src/messages/",
    "tests/support/generated.rs",
)

NUMBER = r"\d[\d,]*(?:\.\d+)?"
PATTERNS = [
    ("a timing", rf"\b{NUMBER}\s?(?:ns|µs|us|ms|s|sec|seconds|minutes)\b"),
    # Measured ratios have decimals (`1.36x`); `64 × input length` is a bound, not a figure.
    ("a ratio", r"\b\d+\.\d+\s?[x×](?![0-9a-fA-F])"),
    ("a percentage", rf"\b{NUMBER}\s?%"),
    ("a count of instructions or IR", rf"\b{NUMBER}\s+(?:instructions|lines of (?:LLVM )?IR)\b"),
    ("a measured size", rf"\b{NUMBER}\s?(?:KB|MB|GB)\b"),
    ("a date", r"\b(?:19|20)\d\d-\d\d-\d\d\b|\b\d{1,2} (?:January|February|March|April|May|June|July|"
               r"August|September|October|November|December)\b|\b(?:January|February|March|April|"
               r"May|June|July|August|September|October|November|December) \d{1,2}\b"),
]


def comments(text):
    """(line number, comment text) for every comment of a Rust file, doc tests left out."""
    out = []
    in_block = False
    in_code = False
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if in_block:
            out.append((n, line))
            if "*/" in line:
                in_block = False
            continue
        m = re.search(r"//[/!]?(.*)$", line)
        if m is None:
            if "/*" in line:
                in_block = "*/" not in line[line.index("/*"):]
                out.append((n, line[line.index("/*"):]))
            continue
        # `//` inside a string literal is not a comment.
        before = line[: m.start()]
        if before.count('"') % 2 == 1:
            continue
        body = m.group(1)
        if stripped.startswith(("///", "//!")):
            fence = body.strip().startswith("```")
            if fence:
                in_code = not in_code
                continue
            if in_code:
                continue
        out.append((n, body))
    return out


def main():
    files = subprocess.run(["git", "ls-files", "*.rs"], capture_output=True, text=True,
                           check=True).stdout.split()
    files += subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "*.rs"],
                            capture_output=True, text=True, check=True).stdout.split()
    findings = []
    for path in sorted(set(files)):
        if path.startswith(GENERATED) or "/ui/" in path:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, body in comments(text):
            for what, pattern in PATTERNS:
                m = re.search(pattern, body)
                if m:
                    findings.append(f"{path}:{n}: {what}: {body.strip()}")
                    break
    for finding in findings:
        print(finding)
    if findings:
        print(f"\n{len(findings)} comment lines carry figures or dates: move them to "
              "BENCHMARKS.md or the commit message", file=sys.stderr)
        sys.exit(1)
    print(f"comments: {len(set(files))} files, no figures or dates")


if __name__ == "__main__":
    main()
