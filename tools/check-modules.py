#!/usr/bin/env python3
"""Module structure of the library and tool crates: no two files import each other, and no
crate renames another with `extern crate ... as`.

    python3 tools/check-modules.py          # from the repository root; exit 1 on a finding

A file imports another when its code names a path into the other's module (`use
crate::writer::BatchWriter`, `super::builder::f(...)`, `crate::{a::B, c}`), comments and an
inline test module at the end of the file aside. A
crate root (`lib.rs`, `main.rs`) or a directory module's `mod.rs` that only declares modules and
re-exports their items, owning none, is the crate's front, not a room: paths through it are not
counted as importing it, nor its re-exports as importing the modules they come from.
"""

import re
import sys
from pathlib import Path

ROOT = Path.cwd()
# The crates whose structure is held to this: the libraries and the tools.
CRATES = [
    "kafka-wire", "kafka-wire-schema", "kafka-wire-core", "kafka-wire-records",
    "kafka-wire-requests", "kafka-wire-responses", "kafka-wire-derive", "tools/codegen",
    "tools/analyser",
]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments(text):
    """The code of a file without its comments and without an inline test module at its end
    (whose `super` is the file itself)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())
    tests = re.search(r"(?m)^#\[cfg\(test\)\]\s*\nmod \w+ \{", text)
    return text[: tests.start()] if tests else text


def module_of(src, path):
    """The module path of a file: `[]` for the crate root."""
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return parts


def file_of(src, module):
    """The file of a module path, or None when the path names no module file."""
    if not module:
        for root in ("lib.rs", "main.rs"):
            if (src / root).exists():
                return src / root
        return None
    base = src.joinpath(*module)
    for candidate in (base.with_suffix(".rs"), base / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def expand(path):
    """`a::{b::C, d}` into `a::b::C` and `a::d` (nested braces included)."""
    m = re.search(r"\{", path)
    if not m:
        return [path]
    prefix = path[: m.start()]
    depth, start, parts = 0, m.end(), []
    for i in range(m.start(), len(path)):
        if path[i] == "{":
            depth += 1
        elif path[i] == "}":
            depth -= 1
            if depth == 0:
                parts.append(path[start:i])
                break
        elif path[i] == "," and depth == 1:
            parts.append(path[start:i])
            start = i + 1
    out = []
    for part in parts:
        part = part.strip()
        if part:
            out.extend(expand(prefix + part))
    return out


def references(src, path, text):
    """The module paths the code of `path` names."""
    here = module_of(src, path)
    paths = []
    for m in re.finditer(r"\buse\s+((?:crate|super|self)::[^;]*);", text, flags=re.S):
        paths.extend(expand(re.sub(r"\s+", "", m.group(1))))
    for m in re.finditer(rf"\b(?:crate|super|self)(?:::{IDENT})+", text):
        paths.append(m.group(0))
    out = set()
    for p in paths:
        p = re.sub(r"\s+as\s+" + IDENT + "$", "", p)
        segs = [s for s in p.split("::") if s]
        if segs[0] == "crate":
            base, segs = [], segs[1:]
        else:
            base = list(here)
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        # The deepest prefix that is a module file.
        for n in range(len(segs), -1, -1):
            f = file_of(src, base + segs[:n])
            if f is not None:
                out.add(f)
                break
    return out


def front(path):
    """Whether `path` is a front: a crate root or a directory module that declares modules and
    re-exports, and owns no item of its own."""
    if path.name not in ("lib.rs", "main.rs", "mod.rs"):
        return False
    text = strip_comments(path.read_text(encoding="utf-8"))
    # Items a pure front would not hold (a crate root's `__private` module aside).
    own = re.search(
        r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+fn|fn|struct|enum|union|trait|impl|"
        r"static|const|macro_rules!|type)\b",
        text,
    )
    return own is None or path.name == "main.rs"


def main():
    findings = []
    for crate in CRATES:
        src = ROOT / crate / "src"
        files = sorted(src.rglob("*.rs"))
        imports = {}
        for f in files:
            text = strip_comments(f.read_text(encoding="utf-8"))
            for m in re.finditer(r"\bextern\s+crate\s+(" + IDENT + r")\s+as\s+(" + IDENT + r")", text):
                findings.append(f"{f.relative_to(ROOT)}: extern crate {m.group(1)} as {m.group(2)}")
            imports[f] = {g for g in references(src, f, text) if g != f and not front(g)}
        for a in files:
            if front(a):
                continue
            for b in imports[a]:
                if a < b and a in imports.get(b, ()):
                    findings.append(
                        f"{a.relative_to(ROOT)} and {b.relative_to(ROOT)} import each other")
    for f in findings:
        print(f)
    if findings:
        sys.exit(1)
    print(f"module structure: {len(CRATES)} crates, no file pair imports each other")


if __name__ == "__main__":
    main()
