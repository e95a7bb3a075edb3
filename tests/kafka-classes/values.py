"""Random values of a message, in the JSON form Kafka's generated converters read.

A value holds every field that exists at the version and no other (the converters refuse a
missing field unless it is tagged), so that it can be handed to
``<Message>JsonConverter.read(node, version)`` as it is. Values are drawn from a
``random.Random`` seeded by the caller, so the same seed gives the same value on every run and
every machine.

What the values cover:

* tagged fields absent (they read as their default) or present at a value that differs from
  their default, so that they are on the wire;
* ``null`` where the version makes the field nullable;
* arrays of 0 to 3 elements, shorter the deeper they sit, so that the values stay small;
* strings with non-ASCII text (two-, three- and four-byte UTF-8);
* bytes and records as base64 (records are arbitrary bytes: the converter and the classes
  carry them without looking inside), uuids in Kafka's text form (22 characters of URL-safe
  base64), float64 only finite, short decimals that any JSON reader parses exactly;
* integer extremes, and the full ranges of uint16 and uint32;
* arrays of structs whose struct has ``mapKey`` fields with each key once.

Each case has a style (``STYLES``): ``full`` (no nulls; arrays, strings and bytes non-empty;
every tagged field present), ``edge`` (every nullable string, bytes, records and uuid null,
arrays of one element, tagged fields present, smallest integers, empty strings and bytes),
``random`` (each choice at random) and ``empty`` (every nullable field null, arrays empty,
tagged fields absent, largest integers).

Kafka's converter writes a records field as an empty value, so each value comes with the
JSON pointers (RFC 6901) of its records fields: there the value handed in is what to compare
with.
"""

from __future__ import annotations

import base64
import json
import random
from dataclasses import dataclass
from pathlib import Path

PRIMITIVES = {
    "bool",
    "int8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "float64",
    "string",
    "bytes",
    "records",
    "uuid",
}

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}

# Floats whose shortest decimal form has few digits and a small exponent, so that every JSON
# reader (Jackson, Python, serde_json without its exact mode) parses them to the same double.
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.75, 0.1, 3.14159, 1e-05, -123456.789, 1e15, 6.25e-08]

# Pieces of strings: ASCII, two-, three- and four-byte UTF-8, and characters JSON escapes.
STRING_PIECES = [
    *("a", "topic", "-", "_", "0"),
    *("é", "ß", "Ω", "日本", "€", "🦀"),
    *("\"", "\\", "\n"),
]

ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"


# --- Schemas ---------------------------------------------------------------------------------


def load_schema(path: str | Path) -> dict:
    """A schema file parsed; its comments are whole lines starting with ``//``."""
    text = Path(path).read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return json.loads("\n".join(kept))


@dataclass(frozen=True)
class Versions:
    """A version range: ``lo`` to ``hi`` included, ``hi`` None when open (``2+``)."""

    lo: int
    hi: int | None

    def __contains__(self, v: int) -> bool:
        return v >= self.lo and (self.hi is None or v <= self.hi)


def parse_versions(text) -> Versions | None:
    """``"none"``, ``"3"``, ``"1-4"`` or ``"2+"``; None for ``none`` (and for a missing range)."""
    if text is None:
        return None
    t = str(text).strip()
    if t == "none":
        return None
    if t.endswith("+"):
        return Versions(int(t[:-1]), None)
    if "-" in t:
        lo, hi = t.split("-", 1)
        return Versions(int(lo), int(hi))
    return Versions(int(t), int(t))


def in_range(text, v: int) -> bool:
    r = parse_versions(text)
    return r is not None and v in r


def valid_versions(schema: dict) -> list[int]:
    """Every version the schema lists, its unstable last version included."""
    r = parse_versions(schema.get("validVersions"))
    if r is None:
        return []
    if r.hi is None:
        raise ValueError(f"{schema['name']}: open validVersions")
    return list(range(r.lo, r.hi + 1))


def class_name(schema: dict) -> str:
    """The simple name of the class Kafka's generator writes for the schema."""
    if schema["type"] in ("request", "response", "header"):
        return schema["name"] + "Data"
    return schema["name"]


def json_name(field_name: str) -> str:
    """A field's name in the converters' JSON: the schema's with its first letter lowered."""
    return field_name[:1].lower() + field_name[1:]


def structs_of(schema: dict) -> dict[str, list]:
    """The fields of every struct type the schema declares, inline or common, by type name."""
    out: dict[str, list] = {}

    def visit(fields):
        for f in fields:
            if "fields" in f:
                out.setdefault(element_type(f["type"]), f["fields"])
                visit(f["fields"])

    for common in schema.get("commonStructs", []):
        out.setdefault(common["name"], common["fields"])
        visit(common["fields"])
    visit(schema.get("fields", []))
    return out


def element_type(ty: str) -> str:
    return ty[2:] if ty.startswith("[]") else ty


# --- Values ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    """How one case chooses; a probability of 0 or 1 means never or always."""

    # A nullable string, bytes, records or uuid is null.
    null_leaf: float
    # A nullable array or struct is null.
    null_container: float
    # A tagged field is present (at a value other than its default).
    tagged: float
    # How many elements an array has: "some" (1 or 2), "one", "none" or "any" (0 to 3).
    lengths: str
    # Integers: "min", "max" or "any" (extremes, -1, small and uniform values).
    ints: str
    # Strings and bytes: "some" (non-empty), "empty" or "any".
    text: str


# In the order cases take them: the first ones are the most telling.
STYLES = {
    "full": Style(0, 0, 1, "some", "any", "some"),
    "edge": Style(1, 0, 1, "one", "min", "empty"),
    "random": Style(0.3, 0.3, 0.5, "any", "any", "any"),
    "empty": Style(1, 1, 0, "none", "max", "empty"),
}


class Generator:
    """Values of one schema, in one of the ``STYLES``."""

    def __init__(self, schema: dict, rng: random.Random, style: str):
        self.schema = schema
        self.structs = structs_of(schema)
        self.rng = rng
        self.style = STYLES[style]
        self.records: list[str] = []

    # Whole messages.

    def message(self, version: int) -> dict:
        return self.struct(self.schema.get("fields", []), version, "", 0)

    def struct(self, fields: list, v: int, path: str, depth: int) -> dict:
        out = {}
        for f in fields:
            if not in_range(f["versions"], v):
                continue
            name = json_name(f["name"])
            here = f"{path}/{escape_pointer(name)}"
            if "tag" in f and in_range(f.get("taggedVersions"), v):
                value = self.tagged(f, v, here, depth)
                if value is not ABSENT:
                    out[name] = value
            else:
                out[name] = self.field(f, v, here, depth)
        return out

    def tagged(self, f: dict, v: int, path: str, depth: int):
        """A tagged field: absent, or present at a value other than its default."""
        if not self.chance(self.style.tagged):
            return ABSENT
        mark = len(self.records)
        for _ in range(8):
            del self.records[mark:]
            value = self.field(f, v, path, depth)
            if not self.is_default(f, value, v):
                return value
        if f["type"] == "bool":
            return not self.default(f, v)
        # Nothing but the default fits (the style's only string is the default, say).
        del self.records[mark:]
        return ABSENT

    def field(self, f: dict, v: int, path: str, depth: int):
        ty = f["type"]
        if in_range(f.get("nullableVersions"), v):
            leaf = ty in PRIMITIVES
            if self.chance(self.style.null_leaf if leaf else self.style.null_container):
                if ty == "records":
                    self.records.append(path)
                return None
        if ty.startswith("[]"):
            elem = ty[2:]
            count = self.length(depth)
            if elem in PRIMITIVES:
                return [self.primitive(elem, f"{path}/{i}") for i in range(count)]
            return self.struct_array(self.struct_fields(f, elem), v, path, depth, count)
        if ty in PRIMITIVES:
            return self.primitive(ty, path)
        return self.struct(self.struct_fields(f, ty), v, path, depth + 1)

    def struct_fields(self, f: dict, name: str) -> list:
        if "fields" in f:
            return f["fields"]
        if name not in self.structs:
            raise ValueError(f"{self.schema['name']}: unknown struct {name}")
        return self.structs[name]

    def struct_array(self, fields: list, v: int, path: str, depth: int, count: int) -> list:
        """Elements of an array of structs; where the struct has ``mapKey`` fields at this
        version, no two elements share a key (an element whose key is taken is drawn again, and
        left out after a few tries)."""
        # An element with no field at a version without tagged sections takes no byte, and
        # Kafka's reader refuses to read more elements than there are bytes left: such an
        # array is written, by Kafka as by kafka-wire, but Kafka cannot read it back.
        flexible = in_range(self.schema.get("flexibleVersions"), v)
        if not flexible and not any(in_range(f["versions"], v) for f in fields):
            return []
        keys = [
            json_name(f["name"])
            for f in fields
            if f.get("mapKey") and in_range(f["versions"], v)
        ]
        seen = set()
        out = []
        for _ in range(count):
            for _ in range(8):
                mark = len(self.records)
                element = self.struct(fields, v, f"{path}/{len(out)}", depth + 1)
                key = json.dumps([element.get(k) for k in keys])
                if not keys or key not in seen:
                    seen.add(key)
                    out.append(element)
                    break
                del self.records[mark:]
        return out

    # Choices.

    def chance(self, p: float) -> bool:
        return p >= 1 or (p > 0 and self.rng.random() < p)

    def length(self, depth: int) -> int:
        """An array's length; arrays deep in a value are shorter, to keep values small."""
        most = max(1, 3 - depth)
        return {
            "some": lambda: self.rng.randint(1, min(most, 2)),
            "one": lambda: 1,
            "none": lambda: 0,
            "any": lambda: self.rng.randint(0, most),
        }[self.style.lengths]()

    def text_length(self, most: int) -> int:
        return {
            "some": lambda: self.rng.randint(1, most),
            "empty": lambda: 0,
            "any": lambda: self.rng.randint(0, most),
        }[self.style.text]()

    def primitive(self, ty: str, path: str):
        r = self.rng
        if ty == "bool":
            return r.random() < 0.5
        if ty in INT_RANGES:
            lo, hi = INT_RANGES[ty]
            if self.style.ints != "any":
                return lo if self.style.ints == "min" else hi
            picks = [lo, hi, r.randint(lo, hi), r.randint(max(lo, -1000), min(hi, 1000))]
            if lo < 0:
                picks.append(-1)
            return r.choice(picks)
        if ty == "float64":
            return r.choice(FLOATS + [r.randint(-(2**20), 2**20) / 1024])
        if ty == "string":
            return "".join(r.choice(STRING_PIECES) for _ in range(self.text_length(5)))
        if ty == "bytes":
            return b64(self.random_bytes(self.text_length(8)))
        if ty == "records":
            self.records.append(path)
            return b64(self.random_bytes(self.text_length(16)))
        if ty == "uuid":
            if self.style.text == "empty" or r.random() < 0.1:
                return ZERO_UUID
            return base64.urlsafe_b64encode(self.random_bytes(16)).decode().rstrip("=")
        raise ValueError(f"unknown type {ty}")

    def random_bytes(self, n: int) -> bytes:
        return bytes(self.rng.getrandbits(8) for _ in range(n))

    # Defaults, to keep tagged fields off their default.

    def default(self, f: dict, v: int):
        """The field's default at version ``v``, in the JSON form."""
        ty = f["type"]
        given = f.get("default")
        text = "" if given is None else str(given)
        nullable = in_range(f.get("nullableVersions"), v)
        if text == "null" and nullable:
            return None
        if ty.startswith("[]"):
            return []
        if ty == "bool":
            return text.lower() == "true"
        if ty in INT_RANGES:
            if text == "":
                return 0
            neg = text.startswith("-")
            digits = text.lstrip("-")
            n = int(digits[2:], 16) if digits.lower().startswith("0x") else int(digits)
            return -n if neg else n
        if ty == "float64":
            return float(text) if text else 0.0
        if ty == "string":
            return text
        if ty in ("bytes", "records"):
            return ""
        if ty == "uuid":
            return canonical_uuid(text) if text else ZERO_UUID
        return STRUCT

    def is_default(self, f: dict, value, v: int) -> bool:
        default = self.default(f, v)
        if default is not STRUCT or value is None:
            return value == default
        # A struct holds its default when each of its fields does.
        for sub in self.struct_fields(f, f["type"]):
            if not in_range(sub["versions"], v):
                continue
            name = json_name(sub["name"])
            if name not in value:
                continue  # an absent tagged field holds its default
            if not self.is_default(sub, value[name], v):
                return False
        return True


class _Mark:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


# A tagged field left out of the value.
ABSENT = _Mark("ABSENT")
# The default of a struct field that is not null: every field of the struct at its default.
STRUCT = _Mark("STRUCT")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def canonical_uuid(text: str) -> str:
    """A uuid's text form as Kafka writes it, from any padding of its base64."""
    data = base64.urlsafe_b64decode(text.rstrip("=") + "==")[:16]
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def random_value(schema: dict, version: int, seed: str, style: str) -> tuple[dict, list[str]]:
    """A value of ``schema`` at ``version`` and the JSON pointers of its records fields.

    ``seed`` fixes the value: the same seed, schema, version and style give the same value.
    """
    gen = Generator(schema, random.Random(seed), style)
    value = gen.message(version)
    return value, gen.records
