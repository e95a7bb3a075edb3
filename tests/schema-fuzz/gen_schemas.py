"""Random message schemas in Kafka's JSON format, within the rules of Kafka's message generator.

Run from the repository root (Python 3.11, nothing to install):

    python3 tests/schema-fuzz/gen_schemas.py

It rewrites tests/schema-fuzz/schemas/random/ from a fixed seed: running it twice gives the
same files. The schemas go through kafka-wire's generator and derive (the crate beside this
script builds them), and through Kafka's own generator, whose classes write the vectors the
tests compare against (tests/kafka-classes/regenerate.sh). The hand-written cases in
tests/schema-fuzz/schemas/cases/ are not touched.

What the schemas exercise, each now and then: every field type, arrays of each and of structs,
inline and common structs nested up to three deep, fields that come and go with versions,
nullable ranges, tagged fields (nullable structs among them) with their tags numbered from 0,
defaults of every kind (uuids in Kafka's text form, `""` on nullable values, `null`),
ignorable fields, map keys, flexible overrides on strings, an unstable last version on
requests, field names Rust reads differently (`TopicID`, keywords), struct names Rust or
kafka-wire already use (`Box`, `Option`, `Vec`, ...), and messages with no flexible version.

The rules kept are those Kafka's generator enforces (its FieldSpec, StructSpec, MessageSpec
and StructRegistry), plus names that Kafka's generated Java compiles with: a field name
may not lower to a Java keyword or to a method every message class has, and a struct may not
take the name of a class the generated Java imports.
"""

import base64
import json
import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "schemas", "random")
SEED = 20261202
COUNT = 320

WORDS = [
    "Topic", "Partition", "Leader", "Epoch", "Offset", "Member", "Group", "Broker", "Replica",
    "Record", "Batch", "Quota", "Client", "Host", "Port", "Rack", "Config", "Token", "Owner",
    "Marker", "Result", "Error", "Code", "Message", "Level", "Index", "Count", "Start", "End",
    "Time", "Delta", "Hint", "State", "Voter", "Node", "Cluster", "Feature", "Range", "Weight",
]
ACRONYMS = ["ID", "ISR", "URL", "TLS", "QoS", "ACL"]
# Field names Rust reads as keywords or takes for its own: the generated field is raw, or
# renamed, and keeps Kafka's JSON name.
RUST_FIELD_NAMES = ["Type", "Match", "Loop", "Ref", "Move", "Async", "Await", "Dyn", "Crate",
                    "Super", "Impl", "Trait", "Mod", "Fn", "Where", "Use", "Mut", "Box", "Gen",
                    "Struct", "Self"]
# Struct names Rust or kafka-wire already use. Java compiles them (unlike `String`, `Uuid` or
# `Bytes`, which the generated classes import).
RUST_STRUCT_NAMES = ["Box", "Vec", "Option", "Default", "Result", "HashMap", "VecDeque", "Rc",
                     "Arc", "Cow", "KafkaString", "IntArray", "UnknownTaggedFields", "Some",
                     "BTreeMap", "Self"]
# Lowered at the first letter, these are Java keywords or name methods every generated message
# class has: Kafka's classes would not compile.
JAVA_TAKEN = {
    "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
    "continue", "default", "do", "double", "else", "enum", "extends", "final", "finally",
    "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface",
    "long", "native", "new", "package", "private", "protected", "public", "return", "short",
    "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws",
    "transient", "try", "void", "volatile", "while", "true", "false", "null", "var", "record",
    "yield", "apiKey", "size", "read", "write", "duplicate", "hashCode", "toString", "equals",
    "unknownTaggedFields", "lowestSupportedVersion", "highestSupportedVersion", "getClass",
    "next", "prev", "setNext", "setPrev", "elementKeysAreEqual", "addSize", "notify", "wait",
    "clone", "finalize",
}

# Classes the generated Java imports or names by their simple name: a struct of that name
# would shadow them.
JAVA_CLASSES = {
    "Message", "ApiMessage", "Readable", "Writable", "MessageUtil", "ObjectSerializationCache",
    "RawTaggedField", "RawTaggedFieldWriter", "Field", "Schema", "Type", "ArrayOf",
    "CompactArrayOf", "TaggedFieldsSection", "List", "ArrayList", "Iterator", "Objects",
    "Arrays", "Collections", "ByteBuffer", "MemoryRecords", "BaseRecords", "Uuid", "Bytes",
    "ByteUtils", "String", "Integer", "Short", "Long", "Double", "Byte", "Boolean", "Object",
    "ImplicitLinkedHashCollection", "ImplicitLinkedHashMultiCollection",
    "UnsupportedVersionException", "JsonNode", "ArrayNode", "ObjectNode", "TextNode", "IntNode",
    "ShortNode", "LongNode", "BooleanNode", "DoubleNode", "BinaryNode", "NullNode",
    "JsonNodeFactory", "NavigableMap", "TreeMap",
    # java.lang, which every Java file sees.
    "Record", "Error", "Exception", "Thread", "Process", "Runtime", "System", "Math", "Number",
    "Character", "Void", "Class", "Enum", "Iterable", "Comparable", "Override", "Module",
    "Package", "StringBuilder", "Float", "Throwable", "Cloneable", "Runnable",
}

PRIMITIVES = ["bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
              "string", "bytes", "uuid"]
INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-2**63, 2**63 - 1),
}
NULLABLE = {"string", "bytes", "records"}


def kafka_snake_case(name):
    """Kafka's rule: an underscore before an upper-case letter that follows a lower-case one."""
    out, prev_upper = [], True
    for c in name:
        if c.isupper():
            if not prev_upper:
                out.append("_")
            out.append(c.lower())
            prev_upper = True
        else:
            out.append(c)
            prev_upper = False
    return "".join(out)


def rng_for(i):
    return random.Random(f"{SEED}-{i}")


class Versions:
    """A range as the schemas write it: `lo`..`hi` both included, `hi` None when open."""

    def __init__(self, lo, hi=None):
        self.lo, self.hi = lo, hi

    def __str__(self):
        if self.hi is None:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


class Gen:
    def __init__(self, r, index):
        self.r = r
        self.index = index
        self.struct_names = set()
        self.common = []
        self.kind = None

    def chance(self, p):
        return self.r.random() < p

    def field_name(self, taken):
        r = self.r
        for _ in range(100):
            pick = r.random()
            if pick < 0.10:
                name = r.choice(RUST_FIELD_NAMES)
            elif pick < 0.20:
                name = r.choice(WORDS) + r.choice(ACRONYMS)
            elif pick < 0.25:
                # Names whose snake case is the same in Rust but not in Kafka's classes:
                # `ISRReplicas` beside `IsrReplicas`.
                word = r.choice(WORDS)
                acronym = r.choice(ACRONYMS)
                upper, capital = acronym.upper() + word, acronym.capitalize() + word
                if upper in taken:
                    name = capital
                elif capital in taken:
                    name = upper
                else:
                    name = r.choice([upper, capital])
            elif pick < 0.30:
                name = r.choice(WORDS).lower() + r.choice(WORDS)
            else:
                name = "".join(r.choice(WORDS) for _ in range(r.randint(1, 3)))
            if name in taken or name[0].lower() + name[1:] in JAVA_TAKEN:
                continue
            # Kafka's classes name a field's schema by its snake case, which must be unique.
            if kafka_snake_case(name) in {kafka_snake_case(t) for t in taken}:
                continue
            if name[0].lower() + name[1:] in {t[0].lower() + t[1:] for t in taken}:
                continue
            taken.add(name)
            return name
        raise RuntimeError("no free field name")

    def struct_name(self, message):
        r = self.r
        for _ in range(100):
            pick = r.random()
            if pick < 0.15:
                name = r.choice(RUST_STRUCT_NAMES)
            elif pick < 0.18:
                name = message
            else:
                name = "".join(r.choice(WORDS) for _ in range(r.randint(1, 2))) + r.choice(
                    ["", "Entry", "Data", "Item", "Set"])
            if name in self.struct_names or name in JAVA_CLASSES:
                continue
            # A data schema's class is named after the message, and Java forbids a nested
            # class with the name of the class around it.
            if name == message and self.kind == "data":
                continue
            self.struct_names.add(name)
            return name
        raise RuntimeError("no free struct name")

    def field_versions(self, valid):
        """A range that often is the message's, sometimes starts later, ends earlier, or lies
        partly outside it; open-ended most of the time, as fields are."""
        r = self.r
        lo = valid.lo if self.chance(0.6) else r.randint(valid.lo, valid.hi)
        if self.chance(0.8):
            return Versions(lo)
        return Versions(lo, r.randint(lo, valid.hi))

    def default_for(self, ty, nullable_all):
        r = self.r
        if ty in INT_RANGES:
            lo, hi = INT_RANGES[ty]
            # Kafka's Java writes a uint32 default as an `int` literal, which cannot hold one
            # past 2^31 - 1.
            hi = min(hi, 2**31 - 1) if ty == "uint32" else hi
            v = r.choice([r.randint(lo, hi), -1 if lo < 0 else 1, hi, lo, 0])
            if v >= 0 and self.chance(0.2):
                return hex(v)
            return str(v)
        if ty == "bool":
            return r.choice(["true", "false", "True"])
        if ty == "float64":
            return r.choice(["1.5", "-0.25", "1e10", "0.0", "3"])
        if ty == "string":
            if nullable_all and self.chance(0.3):
                return "null"
            return r.choice(["", "none", "café", "a b"])
        if ty == "uuid":
            raw = struct.pack(">QQ", r.getrandbits(64), r.getrandbits(64))
            text = base64.urlsafe_b64encode(raw).decode().rstrip("=")
            return r.choice([text, "AAAAAAAAAAAAAAAAAAAAAQ", ""])
        # bytes, arrays and structs: the empty value, or null when nullable everywhere.
        if nullable_all and self.chance(0.5):
            return "null"
        return ""

    def fields(self, message, valid, flexible, depth, top, in_common=False):
        r = self.r
        out = []
        taken = set()
        tags = 0
        for _ in range(r.randint(1, 5 if depth < 2 else 3)):
            f = {"name": self.field_name(taken)}
            versions = self.field_versions(valid)
            kind = r.random()
            nested = None
            if kind < 0.55 or depth >= 3:
                ty = r.choice(PRIMITIVES + (["records"] if self.chance(0.1) else []))
            elif kind < 0.75:
                # Kafka's Java reads an array of bytes into a list of the wrong type: none here.
                ty = "[]" + r.choice([p for p in PRIMITIVES if p != "bytes"])
            else:
                # Kafka registers inline structs from the message's fields only: inside a
                # common struct, a struct is another common one.
                sname = self.common_struct(message, valid, flexible, depth) if (
                    in_common or self.chance(0.3)) else self.struct_name(message)
                ty = ("[]" if self.chance(0.6) else "") + sname
                if not any(c["name"] == sname for c in self.common):
                    nested = sname
            f["type"] = ty
            f["versions"] = str(versions)
            base = ty[2:] if ty.startswith("[]") else ty
            can_null = ty.startswith("[]") or base in NULLABLE or base[0].isupper()
            nullable = None
            if can_null and self.chance(0.4):
                nullable = Versions(r.choice([versions.lo, versions.lo + 1, 0]))
                f["nullableVersions"] = str(nullable)
            nullable_all = nullable is not None and nullable.lo <= versions.lo
            # A tagged field: open-ended versions, all within the flexible ones, and all
            # nullable or none; records are never tagged.
            tag_from = None
            if (flexible is not None and versions.hi is None and base != "records"
                    and self.chance(0.3)):
                tag_from = max(versions.lo, flexible.lo) + r.choice([0, 0, 1])
                if nullable is not None:
                    nullable = Versions(min(nullable.lo, tag_from))
                    f["nullableVersions"] = str(nullable)
                    nullable_all = nullable.lo <= versions.lo
                f["taggedVersions"] = f"{tag_from}+"
                f["tag"] = tags
                tags += 1
            # Kafka reads no default on records (a records field starts out null in Java).
            if base != "records" and self.chance(0.35):
                f["default"] = self.default_for(
                    base if not ty.startswith("[]") else "array", nullable_all)
            if self.chance(0.1):
                f["ignorable"] = True
            if ty == "string" and flexible is not None and self.chance(0.05):
                # The header's client id: a classic string even where the message is flexible.
                f["flexibleVersions"] = "none"
                if tag_from is not None:
                    del f["taggedVersions"], f["tag"]
                    tags -= 1
            # Kafka's Java writes a tagged zero-copy bytes field as a byte array: not tagged.
            if ty == "bytes" and "tag" not in f and self.chance(0.1):
                f["zeroCopy"] = True
            if nested is not None:
                inner_valid = Versions(versions.lo, valid.hi if versions.hi is None else versions.hi)
                f["fields"] = self.fields(message, inner_valid, flexible, depth + 1, False,
                                          in_common)
                # A map key: one or two non-tagged fields of an array's elements.
                if ty.startswith("[]") and not top and self.chance(0.2):
                    for g in f["fields"]:
                        if "tag" not in g and not g["type"].startswith("[]") and not g["type"][0].isupper():
                            g["mapKey"] = True
                            break
            out.append(f)
        return out

    def common_struct(self, message, valid, flexible, depth):
        """A struct of `commonStructs`: a new one, or one already written (never one still
        being written, which would hold itself)."""
        done = [c for c in self.common if c["fields"]]
        if done and self.chance(0.5):
            return self.r.choice(done)["name"]
        name = self.struct_name(message)
        # Its versions cover every field that may use it.
        struct = {"name": name, "versions": "0+", "fields": []}
        self.common.append(struct)
        struct["fields"] = self.fields(message, valid, flexible, depth + 1, False, True)
        return name

    def message(self):
        r = self.r
        kind = r.choice(["request", "response", "data"])
        self.kind = kind
        name = "".join(r.choice(WORDS) for _ in range(2)) + {
            "request": "Request", "response": "Response", "data": "Record"}[kind]
        name = f"{name}{self.index}"
        lo = r.choice([0, 0, 0, 1, 2])
        valid = Versions(lo, lo + r.randint(0, 4))
        flexible = None
        if self.chance(0.75):
            flexible = Versions(r.randint(lo, valid.hi + (1 if self.chance(0.1) else 0)))
        spec = {"type": kind, "name": name}
        if kind != "data":
            spec["apiKey"] = 1000 + self.index
        spec["validVersions"] = str(valid)
        spec["flexibleVersions"] = str(flexible) if flexible else "none"
        if kind == "request" and valid.hi > valid.lo and self.chance(0.15):
            spec["latestVersionUnstable"] = True
        spec["fields"] = self.fields(name, valid, flexible, 0, True)
        if self.common:
            spec["commonStructs"] = self.common
        return spec


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    for i in range(COUNT):
        spec = Gen(rng_for(i), i).message()
        with open(os.path.join(OUT, f"{spec['name']}.json"), "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print(f"wrote {COUNT} schemas to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
