"""Golden vectors for many Kafka APIs, versions and type features ("the catalogue").

Run from the repository root (Python 3.11):

    python3 tests/golden/gen_catalogue.py

It rewrites tests/golden/catalogue.json next to this file. Running it twice gives the
same bytes. It installs nothing and refuses to run unless exactly these versions are
installed (every vector names the library that wrote it):

    pip install kio==0.6.5 kafka-python==3.0.12

No byte here comes from kafka-wire. Each ``hex`` is a message body only: no size
prefix and no request/response header. The RequestHeader and ResponseHeader vectors
are the header alone.

Who writes what
---------------

* kio 0.6.5 (``kio.schema.<api>.v<N>``, ``kio.serial.entity_writer``) is the source
  whenever it ships classes for that exact version. It ships what Kafka 4.x still
  accepts, e.g. Produce v3-13, Fetch v4-18, Metadata v0-13, OffsetCommit v2-10,
  ListOffsets v1-11, CreateTopics v2-7, RequestHeader v1-2, ResponseHeader v0-1.
* kafka-python 3.0.12 (``kafka.protocol`` ApiMessage classes) is the source for the
  versions kio lacks: ProduceRequest v0, ProduceResponse v0/v2, Fetch v0,
  OffsetCommitRequest v0/v1, OffsetCommitResponse v0, ListOffsets v0, CreateTopics
  v0/v1 and RequestHeader v0. Its encoder reads the Kafka JSON schema it ships and
  encodes any version of it, including versions Kafka 4.0 dropped from
  ``validVersions`` (the fields' ``versions`` ranges still describe them).
* LeaderAndIsr and UpdateMetadata are in neither library (Kafka 4.0 removed them), so
  the catalogue has no vector for them.
* Cross-checks (all must give equal bytes, or the script stops):
  - kio-sourced vectors are encoded again by kafka-python whenever it has the API;
  - kafka-python-sourced vectors are encoded again by kafka-python's *legacy*
    hand-written structs (``kafka.protocol.old``, e.g. ``ProduceRequest_v0``). That is
    a second, separately written layout inside the same package, not a second
    library; it is listed as "kafka-python 3.0.12 (kafka.protocol.old)". kio can't
    encode these versions at all. RequestHeader v0 has no second encoder anywhere, so
    its vectors have an empty ``cross_checked_with``.
  - ConsumerGroupHeartbeat is not in kafka-python, so those vectors (kio only) have
    an empty ``cross_checked_with`` too.
* Unknown tagged fields: neither library writes a tag its schema doesn't declare. So
  each library gets a copy of the schema with extra tagged fields, and the library's
  own encoder writes them (count, tag and size varints, order). kio: copies of its
  dataclasses with added fields carrying a ``tag``; kafka-python: ``json_patch`` on
  its JSON schema, the extra field placed so that it writes tags in ascending order.
  One payload is empty: kio writes a non-flexible struct with no fields, kafka-python
  gets a registered zero-width codec. Our decoder doesn't know these tags, so it must
  keep them as unknown.

Checks on every vector
----------------------

* The value must have exactly the fields of that version (from kafka-python's copy of
  the Kafka JSON schemas; for ConsumerGroupHeartbeat from kio's classes, whose
  field names were compared by hand with Apache Kafka's JSON).
* It is decoded again by kafka-python's stock decoder (it keeps unknown tags as raw
  bytes) and, when kio has stock classes for the version and there are no unknown
  tags, by kio's stock reader; both must give back the recorded value and consume
  every byte. kio's reader rejects unknown tags, so it can't check those vectors.

Value conventions (what "value" holds)
-------------------------------------

Kafka field names in snake_case (``_`` between a lowercase letter or digit and an
uppercase letter, and between two uppercase letters when the second is followed by a
lowercase letter; then lowercased), every field of the version and no other, bytes
and records as lowercase hex, uuids as 32 lowercase hex digits, and
``_unknown_tagged_fields`` on every struct as ``[[tag, payload hex], ...]`` in wire
order. Tagged fields that hold their default are in the value but not on the wire.

Library quirks this script works around (none changes the bytes):

* kio names ``...Ms`` fields of its timedelta/datetime types without ``_ms`` and
  wants ``timedelta``/``datetime`` values; a nullable datetime of -1 and a zero uuid
  are ``None`` for it.
* kafka-python writes a tagged struct or uuid whenever it differs from ``None``, even
  when it equals the Kafka default, so tagged fields holding their default are not
  handed to it. It patches the authorized-operations int32 fields of
  MetadataResponse, DescribeClusterResponse and DescribeGroupsResponse into bit sets
  (some renamed ``authorized_operations``); the script converts to and from int32.
"""

import copy
import dataclasses
import datetime
import importlib
import io
import json
import pkgutil
import re
import sys
import types
import uuid
from dataclasses import MISSING
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import ClassVar, NamedTuple, Union, get_args, get_origin

import kafka.protocol.admin
import kafka.protocol.consumer
import kafka.protocol.metadata
import kafka.protocol.old
import kafka.protocol.producer
from kafka.protocol.api_header import ApiHeader, ResponseClassRegistry
from kafka.protocol.api_header import RequestHeader as KpRequestHeader
from kafka.protocol.api_header import ResponseHeader as KpResponseHeader
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.schemas import load_json
from kafka.protocol.schemas.fields.base import BaseField
from kafka.protocol.schemas.fields.simple import SimpleField
from kio.schema.errors import ErrorCode
from kio.serial import entity_reader, entity_writer
from kio.serial.readers import tz_aware_from_i64
from kio.static.primitive import i16

KIO = "kio 0.6.5"
KAFKA_PYTHON = "kafka-python 3.0.12"
KAFKA_PYTHON_LEGACY = "kafka-python 3.0.12 (kafka.protocol.old)"
OUTPUT = Path(__file__).with_name("catalogue.json")
HEADERS = ("RequestHeader", "ResponseHeader")


def require_library_versions() -> None:
    for dist, wanted in (("kio", "0.6.5"), ("kafka-python", "3.0.12")):
        found = installed_version(dist)
        if found != wanted:
            sys.exit(f"need {dist}=={wanted}, found {found}")


def fail(message: str):
    raise SystemExit(f"FAILED: {message}")


# --- Names and versions --------------------------------------------------------------


def snake(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return name.lower()


for _camel, _snake in (
    ("ProducerId", "producer_id"),
    ("PartitionIndexes", "partition_indexes"),
    ("ISRReplicas", "isr_replicas"),
    ("ClusterId", "cluster_id"),
    ("TopicID", "topic_id"),
    ("Enable2Pc", "enable2_pc"),
    ("V3AndBelowTopics", "v3_and_below_topics"),
    ("timeoutMs", "timeout_ms"),
):
    assert snake(_camel) == _snake, (_camel, snake(_camel))


def parse_versions(text):
    if text is None or text.strip() in ("", "none"):
        return None
    text = text.strip()
    if text.endswith("+"):
        return int(text[:-1]), 1 << 15
    if "-" in text:
        low, high = text.split("-")
        return int(low), int(high)
    return int(text), int(text)


def in_versions(text, version: int) -> bool:
    span = parse_versions(text)
    return span is not None and span[0] <= version <= span[1]


# --- Schema of one (message, version) ------------------------------------------------

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
SCALARS = set(INT_RANGES) | {"bool", "float64", "string", "bytes", "records", "uuid"}
ZERO_UUID = "0" * 32


@dataclasses.dataclass
class FieldSpec:
    name: str  # Kafka's name
    key: str  # snake_case key in the value
    type: str  # scalar type, or the struct's type name
    is_array: bool
    nullable: bool
    tag: int | None  # set only when the field is tagged in this version
    default: object  # in the value shape
    struct: "StructSpec | None"


@dataclasses.dataclass
class StructSpec:
    name: str
    flexible: bool
    fields: list
    all_keys: frozenset  # keys of this struct in any version


def scalar_default(kafka_type: str, raw, nullable: bool):
    if kafka_type in INT_RANGES:
        if raw in (None, ""):
            return 0
        if isinstance(raw, str) and raw.lower().startswith("0x"):
            return int(raw, 16)
        return int(raw)
    if kafka_type == "bool":
        return str(raw).lower() == "true"
    if kafka_type == "float64":
        return float(raw) if raw not in (None, "") else 0.0
    if kafka_type == "uuid":
        assert raw in (None, ""), raw
        return ZERO_UUID
    if kafka_type == "string":
        return None if raw == "null" else (raw or "")
    if kafka_type == "bytes":
        return None if raw == "null" else ""
    if kafka_type == "records":
        return None if (raw == "null" or nullable) else ""
    raise ValueError(kafka_type)


def struct_default(spec: StructSpec) -> dict:
    value = {f.key: copy.deepcopy(f.default) for f in spec.fields}
    value["_unknown_tagged_fields"] = []
    return value


def json_struct_spec(name, fields_json, version, flexible) -> StructSpec:
    fields = []
    for f in fields_json:
        if not in_versions(f["versions"], version):
            continue
        kafka_type = f["type"]
        is_array = kafka_type.startswith("[]")
        element = kafka_type[2:] if is_array else kafka_type
        tag = None
        if flexible and "tag" in f and in_versions(f.get("taggedVersions"), version):
            tag = int(f["tag"])
        nullable = in_versions(f.get("nullableVersions"), version)
        sub = None
        if "fields" in f:
            sub = json_struct_spec(element, f["fields"], version, flexible)
        raw = f.get("default")
        if is_array:
            default = None if raw == "null" else []
        elif sub is not None:
            default = None if raw == "null" else struct_default(sub)
        else:
            assert element in SCALARS, (name, f["name"], element)
            default = scalar_default(element, raw, nullable)
        fields.append(
            FieldSpec(f["name"], snake(f["name"]), element, is_array, nullable, tag, default, sub)
        )
    all_keys = frozenset(snake(f["name"]) for f in fields_json)
    return StructSpec(name, flexible, fields, all_keys)


def message_json(message: str) -> dict:
    return load_json(message)


def message_flexible(message: str, version: int) -> bool:
    if has_kafka_python(message):
        return in_versions(message_json(message)["flexibleVersions"], version)
    return kio_stock(message, version).__flexible__


def spec_for(message: str, version: int) -> StructSpec:
    if has_kafka_python(message):
        j = message_json(message)
        return json_struct_spec(message, j["fields"], version, message_flexible(message, version))
    stock = kio_stock(message, version)
    if stock is None:
        fail(f"neither library knows {message} v{version}")
    return kio_struct_spec(stock)


# --- Values ---------------------------------------------------------------------------


def normalize(spec: StructSpec, loose: dict, path: str) -> dict:
    """Exact value of one struct from a loose one.

    Keys of other versions are dropped, missing keys take the schema default, and a
    key that no version has is an error.
    """
    stray = set(loose) - spec.all_keys - {"_unknown_tagged_fields"}
    if stray:
        fail(f"{path}: no such field(s) {sorted(stray)}")
    value = {}
    for f in spec.fields:
        if f.key in loose:
            item = loose[f.key]
        elif f.default is MISSING:
            fail(f"{path}.{f.key} needs a value")
        else:
            item = copy.deepcopy(f.default)
        value[f.key] = normalize_field(f, item, f"{path}.{f.key}")
    unknown = [list(x) for x in loose.get("_unknown_tagged_fields", [])]
    if unknown and not spec.flexible:
        fail(f"{path}: unknown tags in a non-flexible struct")
    known_tags = {f.tag for f in spec.fields if f.tag is not None}
    tags = [t for t, _ in unknown]
    if tags != sorted(set(tags)) or known_tags & set(tags):
        fail(f"{path}: bad unknown tags {tags}")
    value["_unknown_tagged_fields"] = unknown
    return value


def normalize_field(f: FieldSpec, item, path: str):
    if item is None:
        if not f.nullable:
            fail(f"{path} is not nullable in this version")
        return None
    if f.is_array:
        if not isinstance(item, list):
            fail(f"{path} must be a list")
        return [normalize_element(f, x, f"{path}[{i}]") for i, x in enumerate(item)]
    return normalize_element(f, item, path)


def normalize_element(f: FieldSpec, item, path: str):
    if f.struct is not None:
        return normalize(f.struct, item, path)
    t = f.type
    if t in INT_RANGES:
        low, high = INT_RANGES[t]
        ok = isinstance(item, int) and not isinstance(item, bool) and low <= item <= high
    elif t == "bool":
        ok = isinstance(item, bool)
    elif t == "float64":
        ok = isinstance(item, float)
    elif t == "string":
        ok = isinstance(item, str)
    elif t in ("bytes", "records"):
        if isinstance(item, bytes):
            item = item.hex()
        ok = isinstance(item, str) and re.fullmatch(r"([0-9a-f]{2})*", item) is not None
    elif t == "uuid":
        ok = isinstance(item, str) and re.fullmatch(r"[0-9a-f]{32}", item) is not None
    else:
        ok = False
    if not ok:
        fail(f"{path}: {item!r} is not a valid {t}")
    return item


def walk_structs(spec: StructSpec, value: dict):
    """Yields (struct spec, struct value) over the whole value tree."""
    yield spec, value
    for f in spec.fields:
        if f.struct is None or value[f.key] is None:
            continue
        for item in value[f.key] if f.is_array else [value[f.key]]:
            yield from walk_structs(f.struct, item)


def extra_tags_in(spec: StructSpec, value: dict) -> dict:
    """Struct name -> the unknown tags it must declare, from the value."""
    extra = {}
    for struct, item in walk_structs(spec, value):
        for tag, _ in item["_unknown_tagged_fields"]:
            extra.setdefault(struct.name, set()).add(tag)
    return {name: tuple(sorted(tags)) for name, tags in extra.items()}


def canonical(value) -> str:
    # Through JSON, so that True and 1, or 1 and 1.0, are not taken as equal.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --- Extra tagged fields (unknown to kafka-wire) ------------------------------------


class ExtraTag(NamedTuple):
    kind: str  # "bytes" (compact bytes), "int32" or "empty" (zero-length payload)
    encoder_value: object
    wire_hex: str  # the payload after the tag and size varints, written by hand


LONG_PAYLOAD = bytes(range(0x20, 0x20 + 150))
EXTRA_TAGS = {
    5: ExtraTag("bytes", b"\xca\xfe", "03cafe"),  # compact bytes: length+1, then data
    9: ExtraTag("empty", None, ""),
    # 130 needs a two-byte tag varint (0x82 0x01).
    130: ExtraTag("int32", 0x12345678, "12345678"),
    # A three-byte tag varint, and a 152-byte payload whose size needs two bytes.
    1_000_000: ExtraTag("bytes", LONG_PAYLOAD, "9701" + LONG_PAYLOAD.hex()),
}


def extra_field_name(tag: int) -> str:
    return f"unknown_tag{tag}"


def unknown(*tags: int) -> list:
    return [[tag, EXTRA_TAGS[tag].wire_hex] for tag in tags]


# --- kio ------------------------------------------------------------------------------


def kio_module(message: str) -> str:
    if message in HEADERS:
        return snake(message)
    return snake(re.sub(r"(Request|Response)$", "", message))


def kio_stock(message: str, version: int):
    try:
        module = importlib.import_module(f"kio.schema.{kio_module(message)}.v{version}")
    except ModuleNotFoundError:
        return None
    return getattr(module, message, None)


def kio_unwrap(annotation):
    """(inner type, optional, is_tuple) of a kio field annotation."""
    optional = False
    if get_origin(annotation) in (types.UnionType, Union):
        args = [a for a in get_args(annotation) if a is not type(None)]
        assert len(args) == 1, annotation
        annotation, optional = args[0], True
    if get_origin(annotation) is tuple:
        return get_args(annotation)[0], optional, True
    return annotation, optional, False


def kio_rewrap(inner, optional: bool, is_tuple: bool):
    annotation = tuple[inner, ...] if is_tuple else inner
    return annotation | None if optional else annotation


KIO_MS_TYPES = ("timedelta_i32", "timedelta_i64", "datetime_i64")


def kio_struct_spec(cls) -> StructSpec:
    """Schema from kio's classes, for APIs that kafka-python lacks."""
    fields = []
    for f in dataclasses.fields(cls):
        inner, optional, is_tuple = kio_unwrap(f.type)
        kafka_type = f.metadata.get("kafka_type")
        key = f.name + ("_ms" if kafka_type in KIO_MS_TYPES else "")
        sub = kio_struct_spec(inner) if dataclasses.is_dataclass(inner) else None
        if sub is not None:
            element = inner.__name__
        else:
            element = {
                "error_code": "int16",
                "timedelta_i32": "int32",
                "timedelta_i64": "int64",
                "datetime_i64": "int64",
            }.get(kafka_type, kafka_type)
            assert element in SCALARS, (cls.__name__, f.name, kafka_type)
        # Nullable uuids don't exist in Kafka; kio types them optional for the zero uuid.
        nullable = optional and element != "uuid"
        tag = f.metadata.get("tag")
        # Defaults are not derived here: every field of these cases is given.
        fields.append(FieldSpec(key, key, element, is_tuple, nullable, tag, MISSING, sub))
    keys = frozenset(f.key for f in fields)
    return StructSpec(cls.__name__, cls.__flexible__, fields, keys)


def kio_pairs(spec: StructSpec, cls):
    declared = [f for f in dataclasses.fields(cls) if not f.name.startswith("unknown_tag")]
    if len(declared) != len(spec.fields):
        fail(f"kio {cls.__name__} has {len(declared)} fields, the schema {len(spec.fields)}")
    for fs, kf in zip(spec.fields, declared):
        if kf.name not in (fs.key, fs.key.removesuffix("_ms")):
            fail(f"kio {cls.__name__}.{kf.name} does not match {fs.name}")
        if kf.metadata.get("tag") != fs.tag:
            fail(f"kio {cls.__name__}.{kf.name} tag {kf.metadata.get('tag')} != {fs.tag}")
    return list(zip(spec.fields, declared))


def kio_scalar(kafka_type: str, item, optional: bool):
    if kafka_type == "error_code":
        return ErrorCode(item)
    if kafka_type in ("timedelta_i32", "timedelta_i64"):
        return datetime.timedelta(milliseconds=item)
    if kafka_type == "datetime_i64":
        return None if optional and item == -1 else tz_aware_from_i64(item)
    if kafka_type == "uuid":
        value = uuid.UUID(hex=item)
        return None if optional and value.int == 0 else value
    if kafka_type in ("bytes", "records"):
        return bytes.fromhex(item)
    return item


def to_kio(spec: StructSpec, cls, value: dict):
    kwargs = {}
    for fs, kf in kio_pairs(spec, cls):
        item = value[fs.key]
        inner, optional, is_tuple = kio_unwrap(kf.type)
        if item is None:
            converted = None
        elif fs.struct is not None:
            if is_tuple:
                converted = tuple(to_kio(fs.struct, inner, x) for x in item)
            else:
                converted = to_kio(fs.struct, inner, item)
        else:
            kafka_type = kf.metadata["kafka_type"]
            scalar_optional = optional and not is_tuple
            if is_tuple:
                converted = tuple(kio_scalar(kafka_type, x, False) for x in item)
            else:
                converted = kio_scalar(kafka_type, item, scalar_optional)
        kwargs[kf.name] = converted
    for tag, _ in value["_unknown_tagged_fields"]:
        # A TypeError here means the struct copy doesn't declare the tag.
        kwargs[extra_field_name(tag)] = kio_payload(tag)
    return cls(**kwargs)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KioEmptyPayload:
    """A struct with no fields. Non-flexible, so kio writes it as zero bytes."""

    __type__: ClassVar = None
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = False


KIO_EXTRA_FIELD_TYPES = {
    "bytes": (bytes | None, {"kafka_type": "bytes"}),
    "int32": (int | None, {"kafka_type": "int32"}),
    "empty": (KioEmptyPayload | None, {}),
}


def kio_payload(tag: int):
    extra = EXTRA_TAGS[tag]
    return KioEmptyPayload() if extra.kind == "empty" else extra.encoder_value


def needs_extra(spec: StructSpec, extra: dict) -> bool:
    return spec.name in extra or any(
        f.struct is not None and needs_extra(f.struct, extra) for f in spec.fields
    )


def kio_with_extra_tags(spec: StructSpec, cls, extra: dict):
    """A copy of a kio class tree whose structs declare extra tagged fields.

    Only the classes on the way to a struct that gets extra tags are copied; the rest
    stay kio's own (so defaults like ``ReplicaState()`` keep comparing equal).
    """
    if not needs_extra(spec, extra):
        return cls
    new_fields = []
    for fs, kf in kio_pairs(spec, cls):
        annotation = kf.type
        if fs.struct is not None:
            inner, optional, is_tuple = kio_unwrap(annotation)
            derived = kio_with_extra_tags(fs.struct, inner, extra)
            if derived is not inner:
                annotation = kio_rewrap(derived, optional, is_tuple)
        options = {"metadata": kf.metadata}
        if kf.default is not MISSING:
            options["default"] = kf.default
        if kf.default_factory is not MISSING:
            options["default_factory"] = kf.default_factory
        new_fields.append((kf.name, annotation, dataclasses.field(**options)))
    for tag in extra.get(spec.name, ()):
        annotation, metadata = KIO_EXTRA_FIELD_TYPES[EXTRA_TAGS[tag].kind]
        # A None default keeps the tag off the wire for instances that don't set it.
        new_fields.append(
            (
                extra_field_name(tag),
                annotation,
                dataclasses.field(default=None, metadata={**metadata, "tag": tag}),
            )
        )
    namespace = {
        name: getattr(cls, name)
        for name in ("__type__", "__version__", "__flexible__", "__api_key__", "__header_schema__")
        if hasattr(cls, name)
    }
    # The name is kept: kio special-cases the client_id of a class named RequestHeader.
    return dataclasses.make_dataclass(
        cls.__name__, new_fields, namespace=namespace, frozen=True, slots=True, kw_only=True
    )


def kio_encode(message: str, version: int, spec: StructSpec, value: dict):
    stock = kio_stock(message, version)
    if stock is None:
        return None
    cls = kio_with_extra_tags(spec, stock, extra_tags_in(spec, value))
    buffer = io.BytesIO()
    entity_writer(cls)(buffer, to_kio(spec, cls, value))
    return buffer.getvalue()


def kio_decode_check(label, message, version, spec, value, body) -> bool:
    stock = kio_stock(message, version)
    if stock is None or extra_tags_in(spec, value):
        return False
    result, size = entity_reader(stock)(body, 0)
    if size != len(body):
        fail(f"kio reads {size} of {len(body)} bytes of {label}")
    if result != to_kio(spec, stock, value):
        fail(f"kio decodes {label} to a different value:\n  {result}")
    return True


# --- kafka-python --------------------------------------------------------------------

KP_MODULES = (
    kafka.protocol.producer,
    kafka.protocol.consumer,
    kafka.protocol.metadata,
    kafka.protocol.admin,
)
KP_HEADERS = {"RequestHeader": KpRequestHeader, "ResponseHeader": KpResponseHeader}
# kafka-python's json_patch renames these fields (and makes them bit sets).
KP_RENAMED = {
    ("DescribeClusterResponse", "ClusterAuthorizedOperations"): "authorized_operations",
    ("MetadataResponse", "ClusterAuthorizedOperations"): "authorized_operations",
    ("MetadataResponse", "TopicAuthorizedOperations"): "authorized_operations",
}


def kp_stock(message: str):
    if message in KP_HEADERS:
        return KP_HEADERS[message]
    for module in KP_MODULES:
        cls = getattr(module, message, None)
        if isinstance(cls, type) and issubclass(cls, ApiMessage):
            return cls
    return None


def has_kafka_python(message: str) -> bool:
    return kp_stock(message) is not None


def kp_pairs(spec: StructSpec, kp_fields, message: str):
    by_name = {f._name: f for f in kp_fields}
    pairs = []
    for fs in spec.fields:
        field = by_name.get(fs.name) or by_name.get(KP_RENAMED.get((message, fs.name)))
        if field is None:
            fail(f"kafka-python {message} has no field {fs.name}")
        pairs.append((fs, field))
    return pairs


def is_bitfield(field) -> bool:
    return getattr(field, "_type_str", None) == "bitfield"


def int32_to_bits(item: int):
    unsigned = item & 0xFFFFFFFF
    return {bit for bit in range(32) if unsigned >> bit & 1}


def bits_to_int32(bits) -> int:
    if bits is None:  # kafka-python decodes 0x80000000 ({31}) as None
        return -(2**31)
    unsigned = sum(1 << bit for bit in bits)
    return unsigned - 2**32 if unsigned >= 2**31 else unsigned


def kp_scalar(fs: FieldSpec, field, item):
    if is_bitfield(field):
        return int32_to_bits(item)
    if fs.type == "uuid":
        return uuid.UUID(hex=item)
    if fs.type in ("bytes", "records"):
        return bytes.fromhex(item)
    return item


def to_kafka_python(spec: StructSpec, data_class, value: dict, message: str):
    kwargs = {}
    for fs, field in kp_pairs(spec, data_class._struct.fields.values(), message):
        item = value[fs.key]
        if fs.tag is not None and canonical(item) == canonical(fs.default):
            continue  # kafka-python would write a default tagged struct or uuid
        if item is None:
            converted = None
        elif fs.struct is not None:
            if fs.is_array:
                converted = [
                    to_kafka_python(fs.struct, field.data_class, x, message) for x in item
                ]
            else:
                converted = to_kafka_python(fs.struct, field.data_class, item, message)
        elif fs.is_array:
            converted = [kp_scalar(fs, field, x) for x in item]
        else:
            converted = kp_scalar(fs, field, item)
        kwargs[field.name] = converted
    for tag, _ in value["_unknown_tagged_fields"]:
        if extra_field_name(tag) not in data_class._struct.fields:
            fail(f"kafka-python {data_class.__name__} does not declare tag {tag}")
        kwargs[extra_field_name(tag)] = kp_payload(tag)
    return data_class(**kwargs)


class ZeroWidthCodec:
    """Encodes nothing. kafka-python's own types all write at least one byte."""

    @classmethod
    def encode(cls, value, compact=False):
        return b""

    @classmethod
    def encode_into(cls, out, value, compact=False):
        pass

    @classmethod
    def emit_encode_into(cls, ctx, val_expr, indent, compact=False):
        ctx.emit(indent, "pass")


KP_EXTRA_TYPES = {"bytes": "bytes", "int32": "int32", "empty": "zero_width"}


def kp_payload(tag: int):
    extra = EXTRA_TAGS[tag]
    # The empty payload must differ from the field's default (None), or
    # kafka-python leaves the tag out.
    return b"" if extra.kind == "empty" else extra.encoder_value


def declare_extra_tags(fields_json: list, struct_name: str, extra: dict, first_flexible: int):
    for child in fields_json:
        if "fields" in child:
            declare_extra_tags(
                child["fields"], child["type"].removeprefix("[]"), extra, first_flexible
            )
    for tag in extra.get(struct_name, ()):
        declaration = {
            "name": f"UnknownTag{tag}",
            "type": KP_EXTRA_TYPES[EXTRA_TAGS[tag].kind],
            "versions": "0+",
            "taggedVersions": f"{first_flexible}+",
            "tag": tag,
        }
        # kafka-python writes tags in declaration order: put it before the first
        # declared tag that is larger.
        at = next(
            (i for i, f in enumerate(fields_json) if "tag" in f and int(f["tag"]) > tag),
            len(fields_json),
        )
        fields_json.insert(at, declaration)


_kp_variants = {}


def kp_class(message: str, extra: dict):
    stock = kp_stock(message)
    if not extra:
        return stock
    key = (message, tuple(sorted(extra.items())))
    if key in _kp_variants:
        return _kp_variants[key]
    SimpleField.TYPES.setdefault("zero_width", ZeroWidthCodec)
    first_flexible = parse_versions(message_json(message)["flexibleVersions"])[0]
    stock_patch = stock.__dict__.get("json_patch")

    def json_patch(cls, schema):
        if stock_patch is not None:
            schema = stock_patch.__func__(cls, schema)
        declare_extra_tags(schema["fields"], message, extra, first_flexible)
        return schema

    base = ApiHeader if message in HEADERS else ApiMessage
    # A new response class registers itself as *the* decoder for its API key. Put
    # the stock one back: the variant only encodes.
    registry = ResponseClassRegistry._response_class_registry
    saved = dict(registry)
    # kafka-python loads the JSON schema by class name, so the copy keeps the name.
    variant = types.new_class(
        message, (base,), exec_body=lambda ns: ns.update(json_patch=classmethod(json_patch))
    )
    registry.clear()
    registry.update(saved)
    for tag in EXTRA_TAGS:
        assert BaseField.underscore_name(f"UnknownTag{tag}") == extra_field_name(tag)
    _kp_variants[key] = variant
    return variant


def header_version_args(message: str, version: int):
    """(flexible) as kafka-python's header classes take it."""
    return {"RequestHeader": {1: False, 2: True}, "ResponseHeader": {0: False, 1: True}}[
        message
    ].get(version)


def kp_encode(message: str, version: int, spec: StructSpec, value: dict):
    if not has_kafka_python(message):
        return None
    cls = kp_class(message, extra_tags_in(spec, value))
    obj = to_kafka_python(spec, cls, value, message)
    if message in HEADERS:
        flexible = header_version_args(message, version)
        if flexible is None:
            # RequestHeader v0: the schema's fields still say "0+", but the header
            # class only encodes its validVersions (1-2), so use the struct itself.
            return bytes(obj._struct.encode(obj, version=version, compact=False, tagged=False))
        return bytes(obj.encode(flexible=flexible))
    return bytes(obj.encode(version=version))


def kp_unscalar(fs: FieldSpec, field, raw):
    if is_bitfield(field):
        return bits_to_int32(raw)
    if raw is None:
        return None
    if fs.type == "uuid":
        return raw.hex
    if fs.type in ("bytes", "records"):
        return bytes(raw).hex()
    if fs.type == "float64":
        return float(raw)
    return raw


def kp_view(spec: StructSpec, obj, message: str) -> dict:
    """A decoded kafka-python object in the value shape."""
    view = {}
    present_tags = obj.tags or set()
    for fs, field in kp_pairs(spec, type(obj)._struct.fields.values(), message):
        if fs.tag is not None and field.name not in present_tags:
            view[fs.key] = copy.deepcopy(fs.default)  # absent on the wire
            continue
        raw = getattr(obj, field.name)
        if raw is None and fs.type == "uuid" and fs.struct is None and not fs.is_array:
            view[fs.key] = ZERO_UUID  # kafka-python decodes the zero uuid as None
        elif raw is None and not is_bitfield(field):
            view[fs.key] = None
        elif fs.struct is not None:
            if fs.is_array:
                view[fs.key] = [kp_view(fs.struct, x, message) for x in raw]
            else:
                view[fs.key] = kp_view(fs.struct, raw, message)
        elif fs.is_array:
            view[fs.key] = [kp_unscalar(fs, field, x) for x in raw]
        else:
            view[fs.key] = kp_unscalar(fs, field, raw)
    view["_unknown_tagged_fields"] = [
        [int(name.removeprefix("_")), bytes(payload).hex()]
        for name, payload in (obj.unknown_tags or {}).items()
    ]
    return view


def kp_decode_check(label, message, version, spec, value, body) -> bool:
    stock = kp_stock(message)
    if stock is None:
        return False
    if message in HEADERS:
        flexible = header_version_args(message, version)
        data = io.BytesIO(body)
        # Decoded to a dict first: the header class refuses version 0 itself.
        decoded = stock._struct.decode(
            data,
            version=version,
            compact=False,
            tagged=bool(flexible),
            data_class=lambda version, **fields: fields,
        )
        obj = stock(**decoded)
        consumed = data.tell()
    else:
        # What ApiMessage.decode runs, keeping the end position to check it.
        flexible = stock.flexible_version_q(version)
        decode = stock._struct.compiled_decode_from(
            version, compact=flexible, tagged=flexible, data_class=stock[None]
        )
        obj, consumed = decode(memoryview(body), 0)
    if consumed != len(body):
        fail(f"kafka-python reads {consumed} of {len(body)} bytes of {label}")
    view = kp_view(spec, obj, message)
    if canonical(view) != canonical(value):
        fail(f"kafka-python decodes {label} to a different value:\n  {canonical(view)}")
    return True


# --- kafka-python's legacy structs ------------------------------------------------------


def legacy_classes() -> dict:
    found = {}
    for info in pkgutil.iter_modules(kafka.protocol.old.__path__):
        module = importlib.import_module(f"kafka.protocol.old.{info.name}")
        for name, obj in vars(module).items():
            match = re.fullmatch(r"(\w+?)_v(\d+)", name)
            if match and isinstance(obj, type) and hasattr(obj, "SCHEMA"):
                found[(match.group(1), int(match.group(2)))] = obj
    return found


LEGACY = legacy_classes()


def to_positional(spec: StructSpec, value: dict) -> list:
    items = []
    for f in spec.fields:
        item = value[f.key]
        if item is None:
            items.append(None)
        elif f.struct is not None:
            if f.is_array:
                items.append([tuple(to_positional(f.struct, x)) for x in item])
            else:
                items.append(tuple(to_positional(f.struct, item)))
        else:
            convert = {
                "bytes": bytes.fromhex,
                "records": bytes.fromhex,
                "uuid": lambda x: uuid.UUID(hex=x),
            }.get(f.type, lambda x: x)
            items.append([convert(x) for x in item] if f.is_array else convert(item))
    return items


def legacy_encode(message: str, version: int, spec: StructSpec, value: dict):
    cls = LEGACY.get((message, version))
    if cls is None or spec.flexible:
        return None
    return bytes(cls.SCHEMA.encode(to_positional(spec, value)))


# --- Building one vector --------------------------------------------------------------


def build_vector(case: str, message: str, version: int, loose: dict) -> dict:
    label = f"{case}/{message}/v{version}"
    spec = spec_for(message, version)
    value = normalize(spec, loose, label)
    encoders = [
        (KIO, kio_encode),
        (KAFKA_PYTHON, kp_encode),
        (KAFKA_PYTHON_LEGACY, legacy_encode),
    ]
    results = []
    for name, encode in encoders:
        if name == KAFKA_PYTHON_LEGACY and results and results[0][0] == KIO:
            continue  # the legacy structs are only needed where kio can't encode
        body = encode(message, version, spec, value)
        if body is not None:
            results.append((name, body))
    if not results:
        fail(f"{label}: no library can encode it")
    source, body = results[0]
    for name, other in results[1:]:
        if other != body:
            fail(f"MISMATCH {label}\n  {source:40} {body.hex()}\n  {name:40} {other.hex()}")
    decoded_by_kp = kp_decode_check(label, message, version, spec, value, body)
    decoded_by_kio = kio_decode_check(label, message, version, spec, value, body)
    if not (decoded_by_kp or decoded_by_kio):
        fail(f"{label}: no decoder checked it")
    return {
        "case": case,
        "message": message,
        "version": version,
        "source": source,
        "cross_checked_with": [name for name, _ in results[1:]],
        "hex": body.hex(),
        "value": value,
    }


# --- Test data ------------------------------------------------------------------------

I16_MIN, I16_MAX = -(2**15), 2**15 - 1
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1

TOPIC_ID_A = "5f8e3c2a9b1d4e7f8a6b0c1d2e3f4a5b"
TOPIC_ID_B = "c0ffee00deadbeef0123456789abcdef"  # top bit set
DIR_ID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
# Opaque record bytes. They need not be a valid RecordBatch: the protocol layer only
# carries them.
RECORDS_A = (b"\x00\x00\x00\x00\x00\x00\x00\x2a" + b"opaque-records" + b"\xff\x00").hex()
RECORDS_B = "ff00ff00"
CONSUMER_METADATA = bytes.fromhex("0001000000010006") + b"orders" + b"\xff\xff\xff\xff"
NON_ASCII = "tópico-ü-日本"

# Error codes (kio checks them against its ErrorCode enum).
NONE = 0
UNKNOWN_SERVER_ERROR = -1
OFFSET_OUT_OF_RANGE = 1
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_LEADER_OR_FOLLOWER = 6
REPLICA_NOT_AVAILABLE = 9
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
UNKNOWN_MEMBER_ID = 25
TOPIC_AUTHORIZATION_FAILED = 29
UNSUPPORTED_VERSION = 35
TOPIC_ALREADY_EXISTS = 36
INVALID_PRODUCER_EPOCH = 47
CONCURRENT_TRANSACTIONS = 51
FENCED_LEADER_EPOCH = 74
MEMBER_ID_REQUIRED = 79
INVALID_RECORD = 87


# Headers


def request_header(api_key, api_version, correlation_id, client_id, tags=()):
    return {
        "request_api_key": api_key,
        "request_api_version": api_version,
        "correlation_id": correlation_id,
        "client_id": client_id,
        "_unknown_tagged_fields": unknown(*tags),
    }


def response_header(correlation_id, tags=()):
    return {"correlation_id": correlation_id, "_unknown_tagged_fields": unknown(*tags)}


# Produce


def produce_request(v, transactional=False, tags=False):
    return {
        "transactional_id": "txn-ü-1" if transactional else None,
        "acks": 1 if transactional else -1,
        "timeout_ms": 0 if transactional else 30000,
        "topic_data": [
            {
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "partition_data": [
                    {
                        "index": 0,
                        "records": RECORDS_A,
                        "_unknown_tagged_fields": unknown(5) if tags else [],
                    },
                    # null records where the version allows it
                    {"index": 1, "records": None if v >= 3 else ""},
                ],
            },
            {
                "name": NON_ASCII,
                "topic_id": TOPIC_ID_B,
                "partition_data": [{"index": 7, "records": RECORDS_B}],
            },
        ],
        "_unknown_tagged_fields": unknown(130) if tags else [],
    }


def produce_response(v, tagged=False):
    return {
        "responses": [
            {
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "partition_responses": [
                    {
                        "index": 0,
                        "error_code": NONE,
                        "base_offset": 1_234_567_890_123,
                        "log_append_time_ms": 1_700_000_000_123,
                        "log_start_offset": 0,
                    },
                    {
                        "index": 1,
                        "error_code": INVALID_RECORD if v >= 8 else NOT_LEADER_OR_FOLLOWER,
                        "base_offset": -1,
                        "log_append_time_ms": -1,
                        "log_start_offset": -1,
                        "record_errors": [
                            {"batch_index": 3, "batch_index_error_message": "bad record ✗"},
                            {"batch_index": 4, "batch_index_error_message": None},
                        ],
                        "error_message": "One or more records have been rejected",
                        "current_leader": (
                            {"leader_id": 2, "leader_epoch": 17}
                            if tagged
                            else {"leader_id": -1, "leader_epoch": -1}
                        ),
                    },
                ],
            }
        ],
        "throttle_time_ms": 250,
        "node_endpoints": (
            [
                {"node_id": 2, "host": "broker-2.example", "port": 9092, "rack": "rack-b"},
                {"node_id": 3, "host": "b3", "port": 19092, "rack": None},
            ]
            if tagged
            else []
        ),
    }


# Fetch


def fetch_partition(partition, offset, v, follower=False):
    return {
        "partition": partition,
        "current_leader_epoch": 5 if partition == 0 else -1,
        "fetch_offset": offset,
        "last_fetched_epoch": 4 if partition == 0 else -1,
        "log_start_offset": 100 if follower else -1,
        "partition_max_bytes": 1_048_576,
        "replica_directory_id": DIR_ID if follower and partition == 0 else ZERO_UUID,
        "high_watermark": 998 if follower and partition == 0 else I64_MAX,
    }


def fetch_request(v, follower=False, tags=False):
    value = {
        "cluster_id": "kw-cluster-ü" if follower else None,
        "replica_id": 3 if follower else -1,
        "replica_state": (
            {"replica_id": 3, "replica_epoch": 42}
            if follower
            else {"replica_id": -1, "replica_epoch": -1}
        ),
        "max_wait_ms": 500,
        "min_bytes": 1,
        "max_bytes": 52_428_800,
        "isolation_level": 1,
        "session_id": 123_456 if v >= 7 else 0,
        "session_epoch": 7 if v >= 7 else -1,
        "topics": [
            {
                "topic": "orders",
                "topic_id": TOPIC_ID_A,
                "partitions": [
                    fetch_partition(0, 1000, v, follower),
                    fetch_partition(1, 0, v, follower),
                ],
                "_unknown_tagged_fields": unknown(130) if tags else [],
            },
            {
                "topic": NON_ASCII,
                "topic_id": TOPIC_ID_B,
                "partitions": [fetch_partition(7, I64_MAX, v, follower)],
            },
        ],
        "forgotten_topics_data": [
            {"topic": "old-topic", "topic_id": TOPIC_ID_B, "partitions": [3, 4]},
            {"topic": "", "topic_id": ZERO_UUID, "partitions": []},
        ],
        "rack_id": "rack-a" if v >= 11 else "",
        "_unknown_tagged_fields": unknown(5, 9) if tags else [],
    }
    return value


def fetch_response(v, tagged=False):
    epoch_end = {"epoch": 3, "end_offset": 4321} if tagged else {"epoch": -1, "end_offset": -1}
    leader = {"leader_id": 1, "leader_epoch": 9} if tagged else {"leader_id": -1, "leader_epoch": -1}
    snapshot = {"end_offset": 777, "epoch": 2} if tagged else {"end_offset": -1, "epoch": -1}
    return {
        "throttle_time_ms": 0,
        "error_code": NONE,
        "session_id": 123_456,
        "responses": [
            {
                "topic": "orders",
                "topic_id": TOPIC_ID_A,
                "partitions": [
                    {
                        "partition_index": 0,
                        "error_code": NONE,
                        "high_watermark": 5000,
                        "last_stable_offset": 4990,
                        "log_start_offset": 100,
                        "diverging_epoch": epoch_end,
                        "current_leader": leader,
                        "snapshot_id": snapshot,
                        "aborted_transactions": [
                            {"producer_id": 4001, "first_offset": 4500},
                            {"producer_id": -1, "first_offset": 0},
                        ],
                        "preferred_read_replica": -1,
                        "records": RECORDS_A,
                    },
                    {
                        "partition_index": 1,
                        "error_code": OFFSET_OUT_OF_RANGE,
                        "high_watermark": -1,
                        "last_stable_offset": -1,
                        "log_start_offset": -1,
                        "aborted_transactions": None,
                        "preferred_read_replica": 2,
                        "records": None if v >= 4 else "",
                    },
                ],
            },
            {"topic": NON_ASCII, "topic_id": TOPIC_ID_B, "partitions": []},
        ],
        "node_endpoints": (
            [{"node_id": 1, "host": "broker-1", "port": 9093, "rack": "r1"}] if tagged else []
        ),
    }


# Metadata


def metadata_request(v, kind="named"):
    if kind == "all":
        topics = None
    elif kind == "none":
        topics = []
    elif kind == "by_id":
        topics = [
            {"topic_id": TOPIC_ID_A, "name": None},
            {"topic_id": ZERO_UUID, "name": "orders"},
        ]
    else:
        topics = [
            {"topic_id": ZERO_UUID, "name": "orders"},
            {"topic_id": ZERO_UUID, "name": NON_ASCII},
            {"topic_id": ZERO_UUID, "name": ""},
        ]
    return {
        "topics": topics,
        "allow_auto_topic_creation": kind != "named",
        "include_cluster_authorized_operations": True,
        "include_topic_authorized_operations": kind == "named",
    }


def metadata_response(v, tags=False):
    return {
        "throttle_time_ms": 0,
        "brokers": [
            {
                "node_id": 1,
                "host": "broker-1.example.com",
                "port": 9092,
                "rack": "rack-a",
                "_unknown_tagged_fields": unknown(9) if tags else [],
            },
            {"node_id": 2, "host": "brøker-2", "port": 9093, "rack": None},
        ],
        "cluster_id": "kw-cluster" if v != 2 else None,
        "controller_id": 1,
        "topics": [
            {
                "error_code": NONE,
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "is_internal": False,
                "partitions": [
                    {
                        "error_code": NONE,
                        "partition_index": 0,
                        "leader_id": 1,
                        "leader_epoch": 7,
                        "replica_nodes": [1, 2],
                        "isr_nodes": [1, 2],
                        "offline_replicas": [],
                        "_unknown_tagged_fields": unknown(5) if tags else [],
                    },
                    {
                        "error_code": REPLICA_NOT_AVAILABLE,
                        "partition_index": 1,
                        "leader_id": -1,
                        "leader_epoch": -1,
                        "replica_nodes": [2, 3],
                        "isr_nodes": [],
                        "offline_replicas": [3],
                    },
                ],
                "topic_authorized_operations": 0b1111_1111_1000,
                "_unknown_tagged_fields": unknown(130) if tags else [],
            },
            {
                "error_code": UNKNOWN_TOPIC_OR_PARTITION if v < 12 else 100,
                # v12+ answers a lookup by unknown topic id with a null name.
                "name": None if v >= 12 else "missing",
                "topic_id": TOPIC_ID_B,
                "is_internal": False,
                "partitions": [],
                "topic_authorized_operations": I32_MIN,
            },
            {
                "error_code": NONE,
                "name": "__consumer_offsets",
                "topic_id": ZERO_UUID,
                "is_internal": True,
                "partitions": [],
                "topic_authorized_operations": -1,
            },
        ],
        "cluster_authorized_operations": 0b1_0000_0000_0100,
        "error_code": NONE,
        "_unknown_tagged_fields": unknown(9, 1_000_000) if tags else [],
    }


# ApiVersions


def api_versions_request(v, empty=False):
    return {
        "client_software_name": "" if empty else "kafka-wire",
        "client_software_version": "" if empty else "0.1.0-ü",
    }


def api_versions_response(v, features=False, tags=False, error=NONE):
    value = {
        "error_code": error,
        "api_keys": (
            []
            if error
            else [
                {"api_key": 0, "min_version": 0, "max_version": 13},
                {"api_key": 1, "min_version": 4, "max_version": 18},
                {
                    "api_key": 18,
                    "min_version": 0,
                    "max_version": 4,
                    "_unknown_tagged_fields": unknown(9) if tags else [],
                },
            ]
        ),
        "throttle_time_ms": 0 if not features else 100,
        "_unknown_tagged_fields": unknown(5, 130) if tags else [],
    }
    if features:
        value.update(
            supported_features=[
                {"name": "metadata.version", "min_version": 1, "max_version": 27},
                {"name": "kraft.version", "min_version": 0, "max_version": 1},
            ],
            finalized_features_epoch=1234,
            finalized_features=[
                {"name": "metadata.version", "max_version_level": 27, "min_version_level": 27}
            ],
            zk_migration_ready=True,
        )
    return value


# FindCoordinator


def find_coordinator_request(v, transaction=False):
    return {
        "key": "txn-ü" if transaction else "my-group",
        "key_type": 1 if transaction else 0,
        "coordinator_keys": ["group-a", "gröup-b", ""],
    }


def find_coordinator_response(v, error=False):
    return {
        "throttle_time_ms": 0 if not error else 10,
        "error_code": COORDINATOR_NOT_AVAILABLE if error else NONE,
        "error_message": "The coordinator is not available." if error else None,
        "node_id": -1 if error else 1,
        "host": "" if error else "broker-1",
        "port": -1 if error else 9092,
        "coordinators": [
            {
                "key": "group-a",
                "node_id": 1,
                "host": "broker-1",
                "port": 9092,
                "error_code": NONE,
                "error_message": None,
            },
            {
                "key": "gröup-b",
                "node_id": -1,
                "host": "",
                "port": -1,
                "error_code": COORDINATOR_NOT_AVAILABLE,
                "error_message": "The coordinator is not available.",
            },
        ],
    }


# JoinGroup


def join_group_request(v, static=False):
    return {
        "group_id": "group-ü",
        "session_timeout_ms": 45000,
        "rebalance_timeout_ms": 300_000,
        "member_id": "member-1-3f2a" if static else "",
        "group_instance_id": "instance-1" if static else None,
        "protocol_type": "consumer",
        "protocols": [
            {"name": "range", "metadata": CONSUMER_METADATA},
            {"name": "cooperative-sticky", "metadata": ""},
        ],
        "reason": "rebalance: ü" if static else None,
    }


def join_group_response(v, error=False):
    if error:
        return {
            "throttle_time_ms": 0,
            "error_code": MEMBER_ID_REQUIRED,
            "generation_id": -1,
            "protocol_type": None,
            "protocol_name": None if v >= 7 else "",
            "leader": "",
            "skip_assignment": False,
            "member_id": "member-2-ab",
            "members": [],
        }
    return {
        "throttle_time_ms": 17,
        "error_code": NONE,
        "generation_id": 5,
        "protocol_type": "consumer",
        "protocol_name": "range",
        "leader": "member-1",
        "skip_assignment": True,
        "member_id": "member-1",
        "members": [
            {"member_id": "member-1", "group_instance_id": "instance-1", "metadata": CONSUMER_METADATA},
            {"member_id": "member-2-ü", "group_instance_id": None, "metadata": ""},
        ],
    }


# OffsetCommit


def offset_commit_request(v):
    return {
        "group_id": "group-ü",
        "generation_id_or_member_epoch": 5,
        "member_id": "member-1",
        "group_instance_id": "instance-1",
        "retention_time_ms": -1,
        "topics": [
            {
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "partitions": [
                    {
                        "partition_index": 0,
                        "committed_offset": 1000,
                        "committed_leader_epoch": 4,
                        "commit_timestamp": 1_700_000_000_000,
                        "committed_metadata": "checkpoint ✓",
                    },
                    {
                        "partition_index": 1,
                        "committed_offset": -1,
                        "committed_leader_epoch": -1,
                        "commit_timestamp": -1,
                        "committed_metadata": None,
                    },
                ],
            },
            {"name": NON_ASCII, "topic_id": TOPIC_ID_B, "partitions": []},
        ],
    }


def offset_commit_response(v):
    return {
        "throttle_time_ms": 5,
        "topics": [
            {
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "partitions": [
                    {"partition_index": 0, "error_code": NONE},
                    {"partition_index": 1, "error_code": UNKNOWN_MEMBER_ID},
                ],
            },
            {
                "name": NON_ASCII,
                "topic_id": TOPIC_ID_B,
                "partitions": [{"partition_index": I32_MAX, "error_code": UNKNOWN_SERVER_ERROR}],
            },
        ],
    }


# ListOffsets


def list_offsets_request(v):
    return {
        "replica_id": -1,
        "isolation_level": 1,
        "topics": [
            {
                "name": "orders",
                "partitions": [
                    {"partition_index": 0, "current_leader_epoch": 3, "timestamp": -1, "max_num_offsets": 1},
                    {"partition_index": 1, "current_leader_epoch": -1, "timestamp": -2, "max_num_offsets": 5},
                    {
                        "partition_index": 2,
                        "current_leader_epoch": -1,
                        "timestamp": 1_700_000_000_000,
                        "max_num_offsets": 1,
                    },
                ],
            }
        ],
        "timeout_ms": 30000,
    }


def list_offsets_response(v):
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": "orders",
                "partitions": [
                    {
                        "partition_index": 0,
                        "error_code": NONE,
                        "old_style_offsets": [1000, 500, 0],
                        "timestamp": -1,
                        "offset": 1000,
                        "leader_epoch": 3,
                    },
                    {
                        "partition_index": 1,
                        "error_code": FENCED_LEADER_EPOCH if v >= 4 else NOT_LEADER_OR_FOLLOWER,
                        "old_style_offsets": [],
                        "timestamp": -1,
                        "offset": -1,
                        "leader_epoch": -1,
                    },
                ],
            }
        ],
    }


# DescribeGroups


def describe_groups_request(v):
    return {"groups": ["group-1", "gröup-2", ""], "include_authorized_operations": True}


def describe_groups_response(v):
    return {
        "throttle_time_ms": 0,
        "groups": [
            {
                "error_code": NONE,
                "error_message": None,
                "group_id": "group-1",
                "group_state": "Stable",
                "protocol_type": "consumer",
                "protocol_data": "range",
                "members": [
                    {
                        "member_id": "member-1",
                        "group_instance_id": "instance-1",
                        "client_id": "client-ü",
                        "client_host": "/10.0.0.1",
                        "member_metadata": CONSUMER_METADATA,
                        "member_assignment": "0001000000010006" + b"orders".hex() + "0000000100000000ffffffff",
                    }
                ],
                "authorized_operations": 0b1_1010_0000,
            },
            {
                "error_code": NOT_COORDINATOR,
                "error_message": "This is not the correct coordinator." if v >= 6 else None,
                "group_id": "gröup-2",
                "group_state": "",
                "protocol_type": "",
                "protocol_data": "",
                "members": [],
                "authorized_operations": I32_MIN,
            },
        ],
    }


# CreateTopics


def create_topics_request(v, validate_only=False):
    return {
        "topics": [
            {
                "name": "new-topic",
                "num_partitions": 3,
                "replication_factor": 2,
                "assignments": [],
                "configs": [
                    {"name": "cleanup.policy", "value": "compact"},
                    {"name": "retention.ms", "value": None},
                ],
            },
            {
                "name": "manual-ü",
                "num_partitions": -1,
                "replication_factor": -1,
                "assignments": [
                    {"partition_index": 0, "broker_ids": [1, 2]},
                    {"partition_index": 1, "broker_ids": [2, 3]},
                ],
                "configs": [],
            },
        ],
        "timeout_ms": 60000,
        "validate_only": validate_only,
    }


def create_topics_response(v, tagged=False):
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "name": "new-topic",
                "topic_id": TOPIC_ID_A,
                "error_code": NONE,
                "error_message": None,
                "topic_config_error_code": TOPIC_AUTHORIZATION_FAILED if tagged else 0,
                "num_partitions": 3,
                "replication_factor": 2,
                "configs": (
                    None
                    if tagged
                    else [
                        {
                            "name": "cleanup.policy",
                            "value": "compact",
                            "read_only": False,
                            "config_source": 1,
                            "is_sensitive": False,
                        },
                        {
                            "name": "sasl.jaas.config",
                            "value": None,
                            "read_only": True,
                            "config_source": -1,
                            "is_sensitive": True,
                        },
                    ]
                ),
            },
            {
                "name": "manual-ü",
                "topic_id": ZERO_UUID,
                "error_code": TOPIC_ALREADY_EXISTS,
                "error_message": "Topic 'manual-ü' already exists.",
                "num_partitions": -1,
                "replication_factor": -1,
                "configs": [],
            },
        ],
    }


# Transactions


def init_producer_id_request(v, transactional=True):
    return {
        "transactional_id": "txn-ü-1" if transactional else None,
        "transaction_timeout_ms": 60000 if transactional else -1,
        "producer_id": 4_001_234 if transactional else -1,
        "producer_epoch": 3 if transactional else -1,
        "enable2_pc": transactional,
        "keep_prepared_txn": False,
    }


def init_producer_id_response(v, error=False):
    return {
        "throttle_time_ms": 0,
        "error_code": CONCURRENT_TRANSACTIONS if error else NONE,
        "producer_id": -1 if error else 98_765_432_100,
        "producer_epoch": -1 if error else I16_MAX,
        "ongoing_txn_producer_id": -1 if error else 98_765_432_099,
        "ongoing_txn_producer_epoch": -1 if error else 7,
    }


def add_partitions_to_txn_request(v):
    topics = [
        {"name": "orders", "partitions": [0, 1, 2]},
        {"name": NON_ASCII, "partitions": []},
    ]
    return {
        "transactions": [
            {
                "transactional_id": "txn-1",
                "producer_id": 4_001_234,
                "producer_epoch": 3,
                "verify_only": False,
                "topics": topics,
            },
            {
                "transactional_id": "txn-ü-2",
                "producer_id": -1,
                "producer_epoch": -1,
                "verify_only": True,
                "topics": [],
            },
        ],
        "v3_and_below_transactional_id": "txn-1",
        "v3_and_below_producer_id": 4_001_234,
        "v3_and_below_producer_epoch": 3,
        "v3_and_below_topics": topics,
    }


def add_partitions_to_txn_response(v):
    topic_results = [
        {
            "name": "orders",
            "results_by_partition": [
                {"partition_index": 0, "partition_error_code": NONE},
                {"partition_index": 1, "partition_error_code": CONCURRENT_TRANSACTIONS},
            ],
        },
        {"name": NON_ASCII, "results_by_partition": []},
    ]
    return {
        "throttle_time_ms": 3,
        "error_code": NONE,
        "results_by_transaction": [
            {"transactional_id": "txn-1", "topic_results": topic_results},
            {"transactional_id": "", "topic_results": []},
        ],
        "results_by_topic_v3_and_below": topic_results,
    }


def end_txn_request(v, commit=True):
    return {
        "transactional_id": "txn-ü-1" if commit else "",
        "producer_id": 4_001_234 if commit else I64_MIN,
        "producer_epoch": 3 if commit else I16_MIN,
        "committed": commit,
    }


def end_txn_response(v, error=False):
    return {
        "throttle_time_ms": 0 if not error else I32_MAX,
        "error_code": INVALID_PRODUCER_EPOCH if error else NONE,
        "producer_id": -1 if error else 4_001_234,
        "producer_epoch": -1 if error else 4,
    }


# DescribeCluster


def describe_cluster_request(v):
    return {
        "include_cluster_authorized_operations": True,
        "endpoint_type": 2,
        "include_fenced_brokers": True,
    }


def describe_cluster_response(v):
    return {
        "throttle_time_ms": 0,
        "error_code": NONE,
        "error_message": None,
        "endpoint_type": 2 if v >= 1 else 1,
        "cluster_id": "kw-cluster-ü",
        "controller_id": 1,
        "brokers": [
            {"broker_id": 1, "host": "broker-1", "port": 9092, "rack": "rack-a", "is_fenced": False},
            {"broker_id": 2, "host": "broker-2", "port": 9092, "rack": None, "is_fenced": True},
        ],
        "cluster_authorized_operations": 0b1_0011_1100,
    }


# DescribeTopicPartitions: nullable structs and nullable int arrays


def describe_topic_partitions_request(v, cursor=True):
    return {
        "topics": [{"name": "orders"}, {"name": NON_ASCII}],
        "response_partition_limit": 2000 if cursor else 1,
        "cursor": {"topic_name": "orders", "partition_index": 5} if cursor else None,
    }


def describe_topic_partitions_response(v, next_cursor=True):
    return {
        "throttle_time_ms": 0,
        "topics": [
            {
                "error_code": NONE,
                "name": "orders",
                "topic_id": TOPIC_ID_A,
                "is_internal": False,
                "partitions": [
                    {
                        "error_code": NONE,
                        "partition_index": 5,
                        "leader_id": 1,
                        "leader_epoch": 7,
                        "replica_nodes": [1, 2, 3],
                        "isr_nodes": [1, 2],
                        "eligible_leader_replicas": [3] if next_cursor else None,
                        "last_known_elr": [] if next_cursor else None,
                        "offline_replicas": [],
                    }
                ],
                "topic_authorized_operations": I32_MIN,
            },
            {
                "error_code": 100,  # UNKNOWN_TOPIC_ID
                "name": None,
                "topic_id": TOPIC_ID_B,
                "is_internal": False,
                "partitions": [],
                "topic_authorized_operations": I32_MIN,
            },
        ],
        "next_cursor": {"topic_name": "orders", "partition_index": 6} if next_cursor else None,
    }


# ConsumerGroupHeartbeat (kio only): another nullable struct


def consumer_group_heartbeat_request(v, joining=True):
    value = {
        "group_id": "group-ü",
        "member_id": "3f2a9c1e-member",
        "member_epoch": 0 if joining else -1,
        "instance_id": "instance-1" if joining else None,
        "rack_id": "rack-a" if joining else None,
        "rebalance_timeout_ms": 300_000 if joining else -1,
        "subscribed_topic_names": ["orders", NON_ASCII] if joining else None,
        "server_assignor": "uniform" if joining else None,
        "topic_partitions": [{"topic_id": TOPIC_ID_A, "partitions": [0, 1]}] if joining else None,
    }
    if v >= 1:
        value["subscribed_topic_regex"] = "orders-.*" if joining else None
    return value


def consumer_group_heartbeat_response(v, assignment=True):
    return {
        "throttle_time_ms": 0,
        "error_code": NONE,
        "error_message": None,
        "member_id": "3f2a9c1e-member" if assignment else None,
        "member_epoch": 12,
        "heartbeat_interval_ms": 5000,
        "assignment": (
            {
                "topic_partitions": [
                    {"topic_id": TOPIC_ID_A, "partitions": [0, 1, 2]},
                    {"topic_id": TOPIC_ID_B, "partitions": []},
                ]
            }
            if assignment
            else None
        ),
    }


# Client quotas: float64


def quota_entity():
    return [
        {"entity_type": "user", "entity_name": "alice-ü"},
        {"entity_type": "client-id", "entity_name": None},
    ]


def describe_client_quotas_response(v, error=False):
    if error:
        return {
            "throttle_time_ms": 0,
            "error_code": UNKNOWN_SERVER_ERROR,
            "error_message": "quota lookup failed",
            "entries": None,
        }
    return {
        "throttle_time_ms": 0,
        "error_code": NONE,
        "error_message": None,
        "entries": [
            {
                "entity": quota_entity(),
                "values": [
                    {"key": "producer_byte_rate", "value": 1048576.0},
                    {"key": "request_percentage", "value": 12.5},
                    {"key": "controller_mutation_rate", "value": -0.25},
                ],
            }
        ],
    }


def alter_client_quotas_request(v):
    return {
        "entries": [
            {
                "entity": quota_entity(),
                "ops": [
                    {"key": "consumer_byte_rate", "value": 2097152.0, "remove": False},
                    {"key": "request_percentage", "value": 0.0, "remove": True},
                ],
            }
        ],
        "validate_only": True,
    }


# --- The catalogue --------------------------------------------------------------------

P = "ProduceRequest"
PR = "ProduceResponse"
F = "FetchRequest"
FR = "FetchResponse"
M = "MetadataRequest"
MR = "MetadataResponse"


def case(name, message, versions, build):
    return [(name, message, v, build) for v in versions]


CASES = [
    # Headers (the header alone).
    *case("typical", "RequestHeader", (0,), lambda v: request_header(7, 0, 42, None)),
    *case("negative", "RequestHeader", (0,), lambda v: request_header(-1, I16_MIN, I32_MIN, None)),
    *case("typical", "RequestHeader", (1, 2), lambda v: request_header(3, 12, 1234, "kafka-wire-client")),
    *case("null_client_id", "RequestHeader", (1, 2), lambda v: request_header(18, 4, -1, None)),
    *case("empty_client_id", "RequestHeader", (1,), lambda v: request_header(0, 13, I32_MAX, "")),
    *case("non_ascii_client_id", "RequestHeader", (1, 2), lambda v: request_header(1, 18, 7, "klient-ß-日本")),
    *case("unknown_tagged_fields", "RequestHeader", (2,), lambda v: request_header(1, 18, 8, "c", (5, 130))),
    *case("typical", "ResponseHeader", (0, 1), lambda v: response_header(42)),
    *case("negative", "ResponseHeader", (0, 1), lambda v: response_header(I32_MIN)),
    *case("unknown_tagged_fields", "ResponseHeader", (1,), lambda v: response_header(9, (9, 1_000_000))),
    # Produce
    *case("typical", P, (0, 3, 7, 9, 12, 13), produce_request),
    *case("transactional", P, (3, 13), lambda v: produce_request(v, transactional=True)),
    *case("unknown_tagged_fields", P, (9,), lambda v: produce_request(v, tags=True)),
    *case("typical", PR, (0, 2, 8, 9, 13), produce_response),
    *case("tagged", PR, (10, 13), lambda v: produce_response(v, tagged=True)),
    # Fetch
    *case("consumer", F, (0, 4, 7, 11, 12, 13, 16, 18), fetch_request),
    *case("follower_tagged", F, (12, 15, 17, 18), lambda v: fetch_request(v, follower=True)),
    *case("unknown_tagged_fields", F, (12,), lambda v: fetch_request(v, follower=True, tags=True)),
    *case("typical", FR, (0, 4, 7, 11, 12, 13, 16, 18), fetch_response),
    *case("tagged", FR, (12, 16, 18), lambda v: fetch_response(v, tagged=True)),
    # Metadata
    *case("named_topics", M, (0, 1, 4, 8, 9, 10, 12, 13), metadata_request),
    *case("all_topics", M, (1, 9, 13), lambda v: metadata_request(v, "all")),
    *case("empty_topic_list", M, (0, 4), lambda v: metadata_request(v, "none")),
    *case("by_topic_id", M, (10, 12, 13), lambda v: metadata_request(v, "by_id")),
    *case("typical", MR, (0, 1, 2, 5, 8, 9, 10, 12, 13), metadata_response),
    *case("unknown_tagged_fields", MR, (9, 12), lambda v: metadata_response(v, tags=True)),
    # ApiVersions
    *case("typical", "ApiVersionsRequest", (0, 1, 2, 3, 4), api_versions_request),
    *case("empty_strings", "ApiVersionsRequest", (3,), lambda v: api_versions_request(v, empty=True)),
    *case("typical", "ApiVersionsResponse", (0, 1, 2, 3, 4), api_versions_response),
    *case(
        "features_tagged",
        "ApiVersionsResponse",
        (3, 4),
        lambda v: api_versions_response(v, features=True),
    ),
    *case(
        "unsupported_version",
        "ApiVersionsResponse",
        (0,),
        lambda v: api_versions_response(v, error=UNSUPPORTED_VERSION),
    ),
    *case(
        "unknown_tagged_fields",
        "ApiVersionsResponse",
        (3,),
        lambda v: api_versions_response(v, features=True, tags=True),
    ),
    # FindCoordinator
    *case("typical", "FindCoordinatorRequest", (0, 1, 3, 4, 6), find_coordinator_request),
    *case(
        "transaction", "FindCoordinatorRequest", (1,), lambda v: find_coordinator_request(v, True)
    ),
    *case("typical", "FindCoordinatorResponse", (0, 1, 3, 4, 6), find_coordinator_response),
    *case("error", "FindCoordinatorResponse", (1, 3), lambda v: find_coordinator_response(v, True)),
    # JoinGroup
    *case("typical", "JoinGroupRequest", (0, 1, 5, 6, 9), join_group_request),
    *case("static_member", "JoinGroupRequest", (5, 8, 9), lambda v: join_group_request(v, True)),
    *case("typical", "JoinGroupResponse", (0, 2, 5, 6, 7, 9), join_group_response),
    *case("member_id_required", "JoinGroupResponse", (4, 7, 9), lambda v: join_group_response(v, True)),
    # OffsetCommit
    *case("typical", "OffsetCommitRequest", (0, 1, 2, 6, 7, 8, 9, 10), offset_commit_request),
    *case("typical", "OffsetCommitResponse", (0, 3, 8, 9, 10), offset_commit_response),
    # ListOffsets
    *case("typical", "ListOffsetsRequest", (0, 1, 2, 4, 6, 10, 11), list_offsets_request),
    *case("typical", "ListOffsetsResponse", (0, 1, 4, 6, 11), list_offsets_response),
    # DescribeGroups
    *case("typical", "DescribeGroupsRequest", (0, 3, 5, 6), describe_groups_request),
    *case("typical", "DescribeGroupsResponse", (0, 1, 4, 5, 6), describe_groups_response),
    # CreateTopics
    *case("typical", "CreateTopicsRequest", (0, 1, 2, 5, 7), create_topics_request),
    *case("validate_only", "CreateTopicsRequest", (1, 7), lambda v: create_topics_request(v, True)),
    *case("typical", "CreateTopicsResponse", (0, 1, 2, 5, 7), create_topics_response),
    *case("tagged", "CreateTopicsResponse", (5, 7), lambda v: create_topics_response(v, True)),
    # InitProducerId: Kafka 4.4 still marks v6 unstable, so v5 is the newest version the
    # catalogue covers.
    *case("transactional", "InitProducerIdRequest", (0, 2, 3, 5), init_producer_id_request),
    *case("idempotent", "InitProducerIdRequest", (0, 5), lambda v: init_producer_id_request(v, False)),
    *case("typical", "InitProducerIdResponse", (0, 2, 5), init_producer_id_response),
    *case("error", "InitProducerIdResponse", (5,), lambda v: init_producer_id_response(v, True)),
    # AddPartitionsToTxn
    *case("typical", "AddPartitionsToTxnRequest", (0, 3, 4, 5), add_partitions_to_txn_request),
    *case("typical", "AddPartitionsToTxnResponse", (0, 3, 4, 5), add_partitions_to_txn_response),
    # EndTxn
    *case("commit", "EndTxnRequest", (0, 3, 5), end_txn_request),
    *case("abort_extremes", "EndTxnRequest", (0, 5), lambda v: end_txn_request(v, False)),
    *case("typical", "EndTxnResponse", (0, 3, 5), end_txn_response),
    *case("error", "EndTxnResponse", (5,), lambda v: end_txn_response(v, True)),
    # DescribeCluster
    *case("typical", "DescribeClusterRequest", (0, 1, 2), describe_cluster_request),
    *case("typical", "DescribeClusterResponse", (0, 1, 2), describe_cluster_response),
    # Nullable structs
    *case("with_cursor", "DescribeTopicPartitionsRequest", (0,), describe_topic_partitions_request),
    *case(
        "null_cursor",
        "DescribeTopicPartitionsRequest",
        (0,),
        lambda v: describe_topic_partitions_request(v, False),
    ),
    *case(
        "with_next_cursor",
        "DescribeTopicPartitionsResponse",
        (0,),
        describe_topic_partitions_response,
    ),
    *case(
        "null_next_cursor",
        "DescribeTopicPartitionsResponse",
        (0,),
        lambda v: describe_topic_partitions_response(v, False),
    ),
    *case("joining", "ConsumerGroupHeartbeatRequest", (0, 1), consumer_group_heartbeat_request),
    *case(
        "unchanged",
        "ConsumerGroupHeartbeatRequest",
        (1,),
        lambda v: consumer_group_heartbeat_request(v, False),
    ),
    *case(
        "with_assignment",
        "ConsumerGroupHeartbeatResponse",
        (0, 1),
        consumer_group_heartbeat_response,
    ),
    *case(
        "null_assignment",
        "ConsumerGroupHeartbeatResponse",
        (1,),
        lambda v: consumer_group_heartbeat_response(v, False),
    ),
    # float64
    *case("typical", "DescribeClientQuotasResponse", (0, 1), describe_client_quotas_response),
    *case("error", "DescribeClientQuotasResponse", (1,), lambda v: describe_client_quotas_response(v, True)),
    *case("typical", "AlterClientQuotasRequest", (0, 1), alter_client_quotas_request),
]


def main() -> None:
    require_library_versions()
    vectors = [build_vector(name, message, v, build(v)) for name, message, v, build in CASES]
    keys = [(x["case"], x["message"], x["version"]) for x in vectors]
    if len(keys) != len(set(keys)):
        fail("duplicate (case, message, version)")
    text = json.dumps(vectors, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    OUTPUT.write_text(text, encoding="utf-8")
    pairs = {(x["message"], x["version"]) for x in vectors}
    print(f"wrote {len(vectors)} vectors ({len(pairs)} message/version pairs) to {OUTPUT}")


if __name__ == "__main__":
    main()
