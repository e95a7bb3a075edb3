#!/usr/bin/env python3
"""The public API of the published crates, as checked-in listings, and the rule that ties a
change of it to an entry in CHANGELOG.md.

    python3 tools/public-api/public_api.py check    # CI: exit 1 when the API changed unrecorded
    python3 tools/public-api/public_api.py update   # after an API change and its changelog entry
    python3 tools/public-api/public_api.py show kafka-wire-core   # one crate's listing, printed

The published crates are the workspace members that cargo would publish (no `publish = false`).
For each, rustdoc writes its JSON description with every feature on, so that feature-gated
items are listed too, built by the toolchain `rust-toolchain.toml` pins (its JSON output is
reached through `RUSTC_BOOTSTRAP=1`, as on nightly, but its format and the standard library it
describes stay fixed until the pin moves) in a target directory of its own, `target/public-api`,
that leaves the workspace's build alone. This script turns that JSON into a listing: one line for
every public item with its signature, at the path a user names it by, fields and variants, the
methods of inherent impls, every trait impl (derived and automatic ones included, blanket impls
of the standard library left out) with its associated types and constants, re-exports of other
crates' items, and, for kafka-wire-derive, the keys that `#[kafka(...)]` takes, since a derive's
attributes are its API. Items hidden from the docs (`#[doc(hidden)]`, such as `__private`) are
not public API and are not listed. The lines depend only on the sources and the pinned compiler:
two runs write the same files. Listings sit in `tools/public-api/<crate>.txt`.

How a change of the API is tied to the changelog, on a clean checkout with no base branch to
compare with: `tools/public-api/recorded.txt` holds two digests written by `update`, one of the
listings and one of the text of CHANGELOG.md's `## [Unreleased]` section (whitespace
normalised), as they were when the listings were last written.

- `check` regenerates the listings and fails when one differs from the checked-in file (the API
  changed and nobody recorded it), when the checked-in listings do not have the recorded digest
  (a listing edited by hand or merged from two sides), or when the Unreleased section does not
  have the recorded digest (the changelog was edited without `update`, which would let the next
  API change through without an entry of its own).
- `update` writes the listings and the digests; when a listing changes it refuses unless the
  Unreleased section differs from the recorded one, that is, unless the change comes with an
  entry. A changelog edit with no API change is recorded without that condition.

So every commit that passes `check` has listings equal to its API and a changelog whose
Unreleased section changed in the same step as any change to the API.
"""

import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
RECORD = "recorded.txt"
# The rustdoc JSON formats this script reads (rustdoc's FORMAT_VERSION).
FORMATS = {57}
# The lines of each crate's difference that `check` prints; `update` then shows the rest in git.
DIFF_LINES = 200
# Auto traits whose loss breaks users: the compiler's other, unstable ones are left out.
AUTO_TRAITS = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"}


class Failure(Exception):
    """A refusal or a failed check, with the message for the user."""


# ---------------------------------------------------------------------------------------------
# Building the JSON


def published_crates(root):
    """The workspace members cargo would publish, by package name."""
    out = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
        cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise Failure("cargo metadata failed:\n" + out.stderr)
    meta = json.loads(out.stdout)
    members = set(meta["workspace_members"])
    # `publish` is null when a crate may go to any registry, a list of registries otherwise,
    # and the empty list for `publish = false`.
    return sorted(p["name"] for p in meta["packages"]
                  if p["id"] in members and p["publish"] != [])


def build_json(root, crates, target_dir):
    """Runs rustdoc's JSON output on `crates` with every feature; their JSON file paths."""
    target_dir = Path(target_dir).resolve()
    env = dict(os.environ, RUSTC_BOOTSTRAP="1", CARGO_TARGET_DIR=str(target_dir),
               RUSTDOCFLAGS="-Z unstable-options --output-format json")
    cmd = ["cargo", "doc", "--no-deps", "--all-features", "-q"]
    for crate in crates:
        cmd += ["-p", crate]
    done = subprocess.run(cmd, cwd=root, env=env)
    if done.returncode != 0:
        raise Failure("rustdoc failed on " + ", ".join(crates))
    return {c: Path(target_dir) / "doc" / (c.replace("-", "_") + ".json") for c in crates}


# ---------------------------------------------------------------------------------------------
# Rendering


class Renderer:
    """Renders one crate's rustdoc JSON as sorted listing lines."""

    def __init__(self, doc, canonical=None):
        if doc["format_version"] not in FORMATS:
            raise Failure(
                f"rustdoc JSON format {doc['format_version']} is not one this script reads "
                f"({sorted(FORMATS)}): the pinned toolchain moved; teach the script the new "
                "format and regenerate the listings")
        self.doc = doc
        self.index = doc["index"]
        self.paths = doc["paths"]
        # Local item id -> the public path it is listed at.
        self.public = {}
        # Where an item of one of the crates listed together is defined -> its public path, so
        # that a type of a sibling crate is named as its users name it, and a move between
        # private modules of that crate changes no listing.
        self.canonical = canonical if canonical is not None else {}

    def item(self, id_):
        return self.index.get(str(id_))

    # -- paths --------------------------------------------------------------------------------

    def path_of(self, id_, written):
        """The path a type or trait is named by: its public path when this crate lists it, the
        path rustdoc knows for other crates' items, or the path as written."""
        if id_ is not None:
            if id_ in self.public:
                return self.public[id_]
            known = self.paths.get(str(id_))
            if known is not None:
                defined = "::".join(known["path"])
                return self.canonical.get(defined, defined)
        return written.replace("$crate::", "")

    # -- types --------------------------------------------------------------------------------

    def ty(self, t):
        if t is None:
            return "_"
        (kind, v), = t.items()
        if kind == "resolved_path":
            return self.path_of(v["id"], v["path"]) + self.args(v.get("args"))
        if kind == "generic":
            return v
        if kind == "primitive":
            return v
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if kind == "slice":
            return "[" + self.ty(v) + "]"
        if kind == "array":
            return "[" + self.ty(v["type"]) + "; " + v["len"] + "]"
        if kind == "borrowed_ref":
            life = v["lifetime"] + " " if v["lifetime"] else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if kind == "raw_pointer":
            return "*" + ("mut " if v["is_mutable"] else "const ") + self.ty(v["type"])
        if kind == "dyn_trait":
            parts = [self.poly_trait(p) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "function_pointer":
            hrtb = self.hrtb(v["generic_params"])
            return hrtb + self.header(v["header"]) + "fn(" + ", ".join(
                self.ty(a) for _, a in v["sig"]["inputs"]) + ")" + self.output(v["sig"]["output"])
        if kind == "qualified_path":
            trait = v.get("trait")
            self_ty = self.ty(v["self_type"])
            if trait is None:
                return f"{self_ty}::{v['name']}{self.args(v.get('args'))}"
            return (f"<{self_ty} as {self.path_of(trait['id'], trait['path'])}"
                    f"{self.args(trait.get('args'))}>::{v['name']}{self.args(v.get('args'))}")
        if kind == "infer":
            return "_"
        if kind == "pat":
            return self.ty(v["type"])
        raise Failure(f"unknown type kind {kind}")

    def args(self, a):
        if not a:
            return ""
        (kind, v), = a.items()
        if kind == "angle_bracketed":
            parts = [self.generic_arg(x) for x in v["args"]]
            parts += [self.constraint(c) for c in v["constraints"]]
            return "<" + ", ".join(parts) + ">" if parts else ""
        if kind == "parenthesized":
            return "(" + ", ".join(self.ty(x) for x in v["inputs"]) + ")" + self.output(v["output"])
        return "(..)"

    def generic_arg(self, g):
        if g == "infer":
            return "_"
        (kind, v), = g.items()
        if kind == "lifetime":
            return v
        if kind == "type":
            return self.ty(v)
        if kind == "const":
            return v.get("expr") or v.get("value") or "_"
        return "_"

    def constraint(self, c):
        name = c["name"] + self.args(c.get("args"))
        (kind, v), = c["binding"].items()
        if kind == "equality":
            return name + " = " + self.term(v)
        return name + ": " + " + ".join(self.bound(b) for b in v)

    def term(self, t):
        (kind, v), = t.items()
        return self.ty(v) if kind == "type" else (v.get("expr") or "_")

    def poly_trait(self, p):
        return self.hrtb(p["generic_params"]) + self.trait_path(p["trait"])

    def trait_path(self, p):
        return self.path_of(p["id"], p["path"]) + self.args(p.get("args"))

    def bound(self, b):
        (kind, v), = b.items()
        if kind == "trait_bound":
            modifier = {"none": "", "maybe": "?", "maybe_const": "~const "}[v["modifier"]]
            return self.hrtb(v["generic_params"]) + modifier + self.trait_path(v["trait"])
        if kind == "outlives":
            return v
        if kind == "use":
            return "use<" + ", ".join(
                x if isinstance(x, str) else next(iter(x.values())) for x in v) + ">"
        raise Failure(f"unknown bound kind {kind}")

    def hrtb(self, params):
        return "for<" + ", ".join(self.param(p) for p in params) + "> " if params else ""

    # -- generics -----------------------------------------------------------------------------

    def param(self, p):
        (kind, v), = p["kind"].items()
        if kind == "lifetime":
            return p["name"] + (": " + " + ".join(v["outlives"]) if v["outlives"] else "")
        if kind == "type":
            s = p["name"]
            if v["bounds"]:
                s += ": " + " + ".join(self.bound(b) for b in v["bounds"])
            if v.get("default"):
                s += " = " + self.ty(v["default"])
            return s
        s = "const " + p["name"] + ": " + self.ty(v["type"])
        return s + (" = " + v["default"] if v.get("default") else "")

    def generics(self, g):
        """(`<...>`, ` where ...`) of a generics block; synthetic `impl Trait` params left out."""
        params = [p for p in g["params"]
                  if not (p["kind"].get("type") or {}).get("is_synthetic")]
        head = "<" + ", ".join(self.param(p) for p in params) + ">" if params else ""
        preds = [self.predicate(w) for w in g["where_predicates"]]
        return head, (" where " + ", ".join(preds) if preds else "")

    def predicate(self, w):
        (kind, v), = w.items()
        if kind == "bound_predicate":
            return (self.hrtb(v["generic_params"]) + self.ty(v["type"]) + ": "
                    + " + ".join(self.bound(b) for b in v["bounds"]))
        if kind == "lifetime_predicate":
            return v["lifetime"] + ": " + " + ".join(v["outlives"])
        return self.ty(v["lhs"]) + " = " + self.term(v["rhs"])

    # -- functions ----------------------------------------------------------------------------

    @staticmethod
    def header(h):
        s = ""
        if h["is_const"]:
            s += "const "
        if h["is_async"]:
            s += "async "
        if h["is_unsafe"]:
            s += "unsafe "
        abi = h["abi"]
        if abi != "Rust":
            s += 'extern "' + (abi if isinstance(abi, str) else next(iter(abi))) + '" '
        return s

    def output(self, out):
        return " -> " + self.ty(out) if out is not None else ""

    def fn_sig(self, name, f):
        head, where = self.generics(f["generics"])
        inputs = []
        for arg, t in f["sig"]["inputs"]:
            if arg == "self":
                if t == {"generic": "Self"}:
                    inputs.append("self")
                    continue
                ref = t.get("borrowed_ref")
                if ref is not None and ref["type"] == {"generic": "Self"}:
                    life = ref["lifetime"] + " " if ref["lifetime"] else ""
                    inputs.append("&" + life + ("mut " if ref["is_mutable"] else "") + "self")
                    continue
            # Argument names are not API: a rename changes no caller.
            inputs.append(self.ty(t))
        return (self.header(f["header"]) + "fn " + name + head + "(" + ", ".join(inputs) + ")"
                + self.output(f["sig"]["output"]) + where)

    # -- items --------------------------------------------------------------------------------

    @staticmethod
    def marks(it):
        """The attributes that change what users may do with an item, before its line."""
        out = []
        for a in it.get("attrs", []):
            if a == "non_exhaustive" or a == {"non_exhaustive": None}:
                out.append("#[non_exhaustive] ")
            elif isinstance(a, dict) and "other" in a and "non_exhaustive" in a["other"]:
                out.append("#[non_exhaustive] ")
        if it.get("deprecation"):
            out.append("#[deprecated] ")
        return "".join(out)

    def walk(self):
        """Every local public item and re-export, each at the shortest public path (then the
        first in sorting order) that reaches it."""
        root = self.doc["root"]
        crate = self.item(root)["name"]
        found = {}  # id -> path
        reexports = []  # (path, what it names)
        queue = [(crate, root)]
        seen_modules = set()
        while queue:
            queue.sort(key=lambda x: (x[0].count("::"), x[0]))
            path, mid = queue.pop(0)
            if mid in seen_modules:
                continue
            seen_modules.add(mid)
            for child in self.item(mid)["inner"]["module"]["items"]:
                it = self.item(child)
                if it is None or it["visibility"] != "public":
                    continue
                kind = next(iter(it["inner"]))
                if kind == "use":
                    self.walk_use(path, it["inner"]["use"], queue, found, reexports)
                    continue
                name = it["name"]
                if kind == "impl" or name is None:
                    continue
                sub = path + "::" + name
                self.found(child, sub, found)
                if kind == "module":
                    queue.append((sub, child))
        return found, reexports

    def found(self, id_, path, found):
        old = found.get(id_)
        if old is None or (old.count("::"), old) > (path.count("::"), path):
            found[id_] = path

    def walk_use(self, path, use, queue, found, reexports):
        target = use["id"]
        it = self.item(target) if target is not None else None
        local = it is not None and it["crate_id"] == 0
        if use["is_glob"]:
            if local and "module" in it["inner"]:
                # A glob of a local module: its public items are this module's.
                for child in it["inner"]["module"]["items"]:
                    c = self.item(child)
                    if c is None or c["visibility"] != "public":
                        continue
                    ckind = next(iter(c["inner"]))
                    if ckind == "use":
                        self.walk_use(path, c["inner"]["use"], queue, found, reexports)
                    elif c["name"] is not None and ckind != "impl":
                        self.found(child, path + "::" + c["name"], found)
                        if ckind == "module":
                            queue.append((path + "::" + c["name"], child))
            else:
                reexports.append((path + "::*", self.source_of(use)))
            return
        sub = path + "::" + use["name"]
        if local:
            self.found(target, sub, found)
            if "module" in it["inner"]:
                queue.append((sub, target))
        else:
            reexports.append((sub, self.source_of(use)))

    def source_of(self, use):
        known = self.paths.get(str(use["id"])) if use["id"] is not None else None
        if known is not None:
            defined = "::".join(known["path"])
            return self.canonical.get(defined, defined) + ("::*" if use["is_glob"] else "")
        return use["source"]

    def public_paths(self):
        """Where each public item of this crate is defined -> the path it is listed at."""
        found, _ = self.walk()
        return {"::".join(self.paths[str(i)]["path"]): p for i, p in found.items()
                if str(i) in self.paths}

    def listing(self):
        """The listing's lines: every item in the order of its path, each followed by its
        fields or variants (in declaration order), its inherent impls with their items and its
        trait impls (each group sorted); then re-exports of other crates' items."""
        found, reexports = self.walk()
        self.public = dict(found)
        impls = set()
        blocks = []
        for id_, path in sorted(found.items(), key=lambda x: x[1]):
            blocks.append((id_, self.render(id_, path, impls)))
        # Impls of this crate's traits for types it does not list (the standard library's,
        # other crates', primitives), after the trait.
        for id_, block in blocks:
            it = self.item(id_)
            if "trait" in it["inner"]:
                extra = [self.impl_lines(impl, impls)
                         for impl in it["inner"]["trait"]["implementations"] if impl not in impls]
                block += [line for group in sorted(e for e in extra if e) for line in group]
        lines = [line for _, block in blocks for line in block]
        lines += sorted(f"pub use {path} = {source}" for path, source in reexports)
        return lines

    def render(self, id_, path, impls):
        it = self.item(id_)
        kind, v = next(iter(it["inner"].items()))
        mark = self.marks(it)
        if kind == "module":
            return [f"{mark}pub mod {path}"]
        if kind == "function":
            return [f"{mark}pub " + self.fn_sig(path, v)]
        if kind == "constant":
            value = v["const"].get("value") or v["const"]["expr"]
            return [f"{mark}pub const {path}: {self.ty(v['type'])} = {value}"]
        if kind == "static":
            mut = "mut " if v["is_mutable"] else ""
            return [f"{mark}pub static {mut}{path}: {self.ty(v['type'])}"]
        if kind == "type_alias":
            head, where = self.generics(v["generics"])
            return [f"{mark}pub type {path}{head} = {self.ty(v['type'])}{where}"]
        if kind == "macro":
            return [f"{mark}pub macro {path}! " + " ".join(v.split())]
        if kind == "proc_macro":
            helpers = ", ".join(v["helpers"])
            line = f"{mark}pub {v['kind']} macro {path}"
            return [line + (f" (helper attributes: {helpers})" if helpers else "")]
        if kind == "struct":
            return self.render_struct(id_, path, mark, v, impls)
        if kind == "union":
            head, where = self.generics(v["generics"])
            out = [f"{mark}pub union {path}{head}{where}"]
            out += self.fields(path, v["fields"])
            return out + self.type_impls(id_, v["impls"], impls)
        if kind == "enum":
            head, where = self.generics(v["generics"])
            out = [f"{mark}pub enum {path}{head}{where}"]
            for var in v["variants"]:
                out.append(self.variant(path, self.item(var)))
            return out + self.type_impls(id_, v["impls"], impls)
        if kind == "trait":
            return self.render_trait(path, mark, v)
        if kind in ("trait_alias", "extern_type", "primitive"):
            return [f"{mark}pub {kind} {path}"]
        raise Failure(f"unknown item kind {kind} at {path}")

    def render_struct(self, id_, path, mark, v, impls):
        head, where = self.generics(v["generics"])
        (skind, sv), = v["kind"].items() if isinstance(v["kind"], dict) else (("unit", None),)
        if skind == "unit":
            out = [f"{mark}pub struct {path}{head}{where};"]
        elif skind == "tuple":
            fields = ["pub " + self.ty(self.item(f)["inner"]["struct_field"]) if f is not None
                      else "_" for f in sv]
            out = [f"{mark}pub struct {path}{head}(" + ", ".join(fields) + f"){where}"]
        else:
            hidden = " (has private fields)" if sv["has_stripped_fields"] else ""
            out = [f"{mark}pub struct {path}{head}{where}{hidden}"]
            out += self.fields(path, sv["fields"])
        return out + self.type_impls(id_, v["impls"], impls)

    def fields(self, path, ids):
        out = []
        for f in ids:
            it = self.item(f)
            out.append(f"{self.marks(it)}pub {path}::{it['name']}: "
                       + self.ty(it["inner"]["struct_field"]))
        return out

    def variant(self, path, it):
        v = it["inner"]["variant"]
        kind = v["kind"]
        name = f"{self.marks(it)}pub {path}::{it['name']}"
        if isinstance(kind, dict) and "tuple" in kind:
            name += "(" + ", ".join(self.ty(self.item(f)["inner"]["struct_field"])
                                    if f is not None else "_" for f in kind["tuple"]) + ")"
        elif isinstance(kind, dict) and "struct" in kind:
            fields = [self.item(f)["name"] + ": " + self.ty(self.item(f)["inner"]["struct_field"])
                      for f in kind["struct"]["fields"]]
            if kind["struct"]["has_stripped_fields"]:
                fields.append("..")
            name += " { " + ", ".join(fields) + " }"
        if v.get("discriminant"):
            name += " = " + v["discriminant"]["expr"]
        return name

    def render_trait(self, path, mark, v):
        head, where = self.generics(v["generics"])
        bounds = ": " + " + ".join(self.bound(b) for b in v["bounds"]) if v["bounds"] else ""
        unsafe = "unsafe " if v["is_unsafe"] else ""
        out = [f"{mark}pub {unsafe}trait {path}{head}{bounds}{where}"]
        for member in v["items"]:
            it = self.item(member)
            kind, m = next(iter(it["inner"].items()))
            name = f"{path}::{it['name']}"
            if kind == "function":
                provided = " (provided)" if m["has_body"] else ""
                out.append(f"{self.marks(it)}pub " + self.fn_sig(name, m) + provided)
            elif kind == "assoc_type":
                h, w = self.generics(m["generics"])
                b = ": " + " + ".join(self.bound(x) for x in m["bounds"]) if m["bounds"] else ""
                d = " = " + self.ty(m["type"]) if m.get("type") else ""
                out.append(f"pub type {name}{h}{b}{w}{d}")
            elif kind == "assoc_const":
                d = " = " + m["value"] if m.get("value") else ""
                out.append(f"pub const {name}: {self.ty(m['type'])}{d}")
        return out

    def type_impls(self, owner, ids, impls):
        """A type's inherent impls, each followed by its items sorted, then its trait impls.
        rustdoc also hands a type the impls that name it elsewhere (as a trait's argument, say):
        those are listed under the type they are for, when this crate lists that type."""
        inherent, traits = [], []
        for id_ in ids:
            if id_ in impls:
                continue
            for_ = (self.item(id_) or {}).get("inner", {}).get("impl", {}).get("for", {})
            target = (for_.get("resolved_path") or {}).get("id")
            if target != owner and target in self.public:
                continue
            group = self.impl_lines(id_, impls)
            if not group:
                continue
            if self.item(id_)["inner"]["impl"]["trait"] is None:
                inherent.append([group[0]] + sorted(group[1:], key=sort_key))
            else:
                traits.append(group)
        return ([line for g in sorted(inherent) for line in g]
                + [line for g in sorted(traits) for line in g])

    def impl_lines(self, id_, impls):
        """The lines of one impl block, or none for what is not part of this crate's API."""
        impls.add(id_)
        it = self.item(id_)
        if it is None:
            return []
        v = it["inner"]["impl"]
        if v["blanket_impl"] is not None:
            return []
        trait = v["trait"]
        auto = trait is not None and trait["path"].split("::")[-1] in AUTO_TRAITS
        if v["is_synthetic"] and not auto:
            return []
        head, where = self.generics(v["generics"])
        for_ = self.ty(v["for"])
        unsafe = "unsafe " if v["is_unsafe"] else ""
        if trait is None:
            out = [f"impl{head} {for_}{where}"]
            owner = self.owner(v["for"], for_)
            for member in v["items"]:
                m = self.item(member)
                if m is None or m["visibility"] != "public":
                    continue
                kind, mv = next(iter(m["inner"].items()))
                name = f"{owner}::{m['name']}"
                if kind == "function":
                    out.append(f"{self.marks(m)}pub " + self.fn_sig(name, mv))
                elif kind == "assoc_const":
                    out.append(f"{self.marks(m)}pub const {name}: {self.ty(mv['type'])}")
                elif kind == "assoc_type":
                    out.append(f"pub type {name} = {self.ty(mv.get('type'))}")
            return out
        neg = "!" if v["is_negative"] else ""
        header = f"{unsafe}impl{head} {neg}{self.trait_path(trait)} for {for_}"
        out = [header + where]
        # What a trait impl decides beyond the trait: its associated types and constants.
        for member in v["items"]:
            m = self.item(member)
            if m is None:
                continue
            kind, mv = next(iter(m["inner"].items()))
            if kind == "assoc_type":
                h, _ = self.generics(mv["generics"])
                out.append(f"{header}: type {m['name']}{h} = " + self.ty(mv.get("type")))
            elif kind == "assoc_const":
                out.append(f"{header}: const {m['name']}: " + self.ty(mv["type"]))
        return out

    def owner(self, t, rendered):
        """The path an inherent impl's items are listed under: the type's, without arguments."""
        rp = t.get("resolved_path") if isinstance(t, dict) else None
        if rp is not None:
            return self.path_of(rp["id"], rp["path"])
        return rendered


def sort_key(line):
    """Members sort by the path they name (`Type::name`), then by the whole line."""
    m = re.search(r"[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)+", line)
    return (m.group(0) if m else line, line)


# ---------------------------------------------------------------------------------------------
# kafka-wire-derive's attribute vocabulary


DERIVE_KEY_LISTS = {
    "CONTAINER_KEYS": "#[derive(KafkaMessage)] struct",
    "FIELD_KEYS": "#[derive(KafkaMessage)] field",
    "SET_KEYS": "#[derive(ApiSet)] enum",
    "VARIANT_KEYS": "#[derive(ApiSet)] variant",
}


def derive_keys(root):
    """The `#[kafka(...)]` keys the derive takes where, from the key lists in its `attr.rs`
    (the ones its error for an unknown key names), checked against every key that file reads,
    so that a key added to the parser and not to its list fails here."""
    src = (Path(root) / "kafka-wire-derive" / "src" / "attr.rs").read_text()
    lines = []
    listed = set()
    for const, where in DERIVE_KEY_LISTS.items():
        m = re.search(rf"const {const}: &str =\s*(\"(?:[^\"\\]|\\[\s\S])*\");", src)
        if m is None:
            raise Failure(f"kafka-wire-derive/src/attr.rs: no `const {const}: &str`")
        text = re.sub(r"\\\n\s*", "", m.group(1))
        keys = sorted(re.findall(r"`([a-z_0-9]+)`", text))
        listed |= set(keys)
        lines.append(f"attribute #[kafka(...)] on a {where}: " + ", ".join(keys))
    read = set(re.findall(r"is_ident\(\"([a-z_0-9]+)\"\)", src)) - {"kafka"}
    if read != listed:
        raise Failure("kafka-wire-derive/src/attr.rs: the keys it reads "
                      f"({', '.join(sorted(read - listed)) or 'none'} not listed) and its key "
                      f"lists ({', '.join(sorted(listed - read)) or 'none'} not read) disagree")
    return lines


# ---------------------------------------------------------------------------------------------
# Listings, the changelog and the record


def render_crates(json_paths, root):
    """Each crate's listing, rendered together so that each names the others' items by their
    public paths."""
    renderers = {c: Renderer(json.loads(Path(p).read_text())) for c, p in json_paths.items()}
    canonical = {}
    for r in renderers.values():
        canonical.update(r.public_paths())
    out = {}
    for crate, r in renderers.items():
        r.canonical = canonical
        out[crate] = render_crate(crate, r, root)
    return out


def render_crate(crate, renderer, root):
    lines = renderer.listing()
    if crate == "kafka-wire-derive":
        lines += derive_keys(root)
    head = [f"# The public API of {crate} with every feature on, as "
            "tools/public-api/public_api.py lists it.",
            "# Regenerate with `python3 tools/public-api/public_api.py update` "
            "(CONTRIBUTING.md, \"The changelog\")."]
    return "\n".join(head + lines) + "\n"


def unreleased(changelog):
    """The Unreleased section of a Keep a Changelog file, whitespace normalised."""
    text = Path(changelog).read_text()
    m = re.search(r"^## \[Unreleased\][^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if m is None:
        raise Failure(f"{changelog}: no `## [Unreleased]` section")
    return "\n".join(" ".join(line.split()) for line in m.group(1).strip().splitlines())


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def listings_digest(listings):
    return sha("".join(f"{name}\n{text}" for name, text in sorted(listings.items())))


def read_record(listing_dir):
    path = Path(listing_dir) / RECORD
    record = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.partition(" ")
                record[key] = value.strip()
    return record


def write_record(listing_dir, listings, section):
    text = ("# Written by `python3 tools/public-api/public_api.py update`: the digests of the\n"
            "# listings beside this file and of CHANGELOG.md's Unreleased section when the\n"
            "# listings were last written. `check` requires both to be current.\n"
            f"listings {listings_digest(listings)}\n"
            f"unreleased {sha(section)}\n")
    (Path(listing_dir) / RECORD).write_text(text)


def committed_listings(listing_dir):
    return {p.stem: p.read_text() for p in sorted(Path(listing_dir).glob("*.txt"))
            if p.name != RECORD}


def generate(root, target_dir, crates=None):
    crates = crates or published_crates(root)
    return render_crates(build_json(root, crates, target_dir), root)


def check(root, listing_dir, changelog, target_dir):
    fresh = generate(root, target_dir)
    old = committed_listings(listing_dir)
    record = read_record(listing_dir)
    problems = []
    for crate in sorted(set(fresh) | set(old)):
        if fresh.get(crate) != old.get(crate):
            diff = difflib.unified_diff(
                (old.get(crate) or "").splitlines(), (fresh.get(crate) or "").splitlines(),
                f"{crate}.txt (checked in)", f"{crate}.txt (this tree)", lineterm="", n=0)
            diff = list(diff)
            if len(diff) > DIFF_LINES:
                diff = diff[:DIFF_LINES] + [f"... and {len(diff) - DIFF_LINES} lines more"]
            problems.append(f"the public API of {crate} changed:\n" + "\n".join(diff))
    if not problems and record.get("listings") != listings_digest(old):
        problems.append("the checked-in listings are not the ones `update` last recorded "
                        "(edited by hand, or merged from two sides)")
    if record.get("unreleased") != sha(unreleased(changelog)):
        problems.append("CHANGELOG.md's Unreleased section changed since `update` last recorded "
                        "it")
    if problems:
        raise Failure("\n\n".join(problems) + "\n\nA change to a published crate's public API "
                      "needs an entry in CHANGELOG.md's Unreleased section; with it, run\n"
                      "    python3 tools/public-api/public_api.py update\n"
                      "and commit the listings and tools/public-api/recorded.txt with it.")
    print(f"public API of {len(fresh)} crates unchanged: " + ", ".join(sorted(fresh)))


def update(root, listing_dir, changelog, target_dir):
    fresh = generate(root, target_dir)
    old = committed_listings(listing_dir)
    record = read_record(listing_dir)
    section = unreleased(changelog)
    changed = sorted(c for c in set(fresh) | set(old) if fresh.get(c) != old.get(c))
    if changed and record.get("unreleased") == sha(section):
        raise Failure("the public API of " + ", ".join(changed) + " changed, and CHANGELOG.md's "
                      "Unreleased section did not since the listings were last written: add an "
                      "entry that tells users what changed (and, for a breaking change, what to "
                      "write instead), then run update again.")
    for crate in old:
        if crate not in fresh:
            (Path(listing_dir) / f"{crate}.txt").unlink()
    for crate, text in fresh.items():
        (Path(listing_dir) / f"{crate}.txt").write_text(text)
    write_record(listing_dir, fresh, section)
    print("listings written" + (": " + ", ".join(changed) + " changed" if changed
                                 else ", unchanged; the changelog's Unreleased section recorded"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["check", "update", "show"])
    ap.add_argument("crate", nargs="?", help="for show: the crate to list")
    ap.add_argument("--root", default=str(REPO), help="the workspace (default: this repository)")
    ap.add_argument("--listings", help="where the listings are (default: ROOT/tools/public-api)")
    ap.add_argument("--changelog", help="the changelog (default: ROOT/CHANGELOG.md)")
    ap.add_argument("--target-dir", help="rustdoc's target directory (default: "
                    "ROOT/target/public-api)")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    listing_dir = Path(args.listings or root / "tools" / "public-api")
    changelog = Path(args.changelog or root / "CHANGELOG.md")
    target_dir = Path(args.target_dir or root / "target" / "public-api")
    try:
        if args.command == "check":
            check(root, listing_dir, changelog, target_dir)
        elif args.command == "update":
            update(root, listing_dir, changelog, target_dir)
        else:
            if not args.crate:
                raise Failure("show needs a crate")
            listings = generate(root, target_dir)
            if args.crate not in listings:
                raise Failure(f"{args.crate} is not a published crate: {', '.join(listings)}")
            sys.stdout.write(listings[args.crate])
    except Failure as e:
        print(f"public_api.py {args.command}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
