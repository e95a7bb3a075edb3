"""Golden vectors for Kafka WriteTxnMarkers (API key 27) request and response bodies.

Run from the repository root (Python 3.11):

    python3 tests/golden/gen_write_txn_markers.py

It rewrites tests/golden/write_txn_markers.json next to this file. The output is
deterministic. The script installs nothing; it needs these exact versions, which are
recorded in every vector:

    pip install kio==0.6.5 kafka-python==3.0.12

The bytes are message bodies only: no size prefix, no request/response header.
None of them comes from kafka-wire's own code.

Where the bytes come from:

* v1 and v2: kio's ``entity_writer`` over its generated classes in
  ``kio.schema.write_txn_markers.v1`` / ``v2``. kafka-python's ``ApiMessage.encode``
  encodes the same value and the bytes must be equal.
* v0: kafka-python. Kafka 4.0 dropped v0 from its schema, so kio has no v0 classes.
  But v0 has the same fields as v1 and is only non-flexible. So the cross-check runs
  kio's writer over copies of its v1 classes marked non-flexible. kafka-python has
  the same gap: its schema says validVersions 1-2, but ``ApiMessage`` still encodes
  from version 0.
* Unknown tagged fields: neither library writes a tag that its schema doesn't
  declare. So each library gets a copy of the schema that declares extra tagged
  fields, and the library's own encoder writes them. Our decoder doesn't know those
  tags, so it sees them as unknown. kio uses added dataclass fields with a ``tag``.
  One payload must be empty, and kio writes it as a non-flexible struct with no
  fields. kafka-python uses ``json_patch`` on its JSON schema. It has no type that
  encodes to zero bytes, so the script registers a zero-width codec for that one
  field. In both libraries the library itself writes the field count, the tag and
  size varints, and the order.

Every vector is decoded again by kafka-python's stock decoder and must give the
recorded value. That decoder keeps unknown tags as raw bytes, so it also checks the
recorded payloads. Vectors without unknown tags are also decoded by kio's stock
reader. kio's reader raises on unknown tags, so it can't check the others.
"""

import dataclasses
import io
import json
import sys
import types
from dataclasses import MISSING
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import ClassVar, NamedTuple, get_args, get_origin

from kafka.protocol.api_header import ResponseClassRegistry
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.producer import transaction as kp
from kafka.protocol.schemas.fields.base import BaseField
from kafka.protocol.schemas.fields.simple import SimpleField
from kio.schema.errors import ErrorCode
from kio.schema.write_txn_markers import v1 as kio_v1
from kio.schema.write_txn_markers import v2 as kio_v2
from kio.serial import entity_reader, entity_writer
from kio.static.primitive import i16, i32

KIO = "kio 0.6.5"
KAFKA_PYTHON = "kafka-python 3.0.12"
REQUEST = "WriteTxnMarkersRequest"
RESPONSE = "WriteTxnMarkersResponse"
OUTPUT = Path(__file__).with_name("write_txn_markers.json")


def require_library_versions() -> None:
    # The vectors name the library versions, so running against other versions
    # would record something false.
    for dist, wanted in (("kio", "0.6.5"), ("kafka-python", "3.0.12")):
        found = installed_version(dist)
        if found != wanted:
            sys.exit(f"need {dist}=={wanted}, found {found}")


# --- Extra tagged fields (unknown to kafka-wire) ------------------------------------


class ExtraTag(NamedTuple):
    kind: str  # "bytes" (compact bytes), "int32", or "empty" (zero-length payload)
    encoder_value: object  # what the libraries are given to encode
    wire_hex: str  # the payload as it appears after the tag and size varints


# The wire_hex column is written out by hand on purpose. Both encoders must produce
# it, and kafka-python's decoder must read it back as an unknown tag.
EXTRA_TAGS = {
    3: ExtraTag("bytes", b"\xca\xfe", "03cafe"),  # compact bytes: len+1, then data
    7: ExtraTag("empty", None, ""),
    # Tag 130 does not fit in one varint byte (0x82 0x01), so a decoder must read
    # the tag as a real varint.
    130: ExtraTag("int32", 0x12345678, "12345678"),
}

# Which struct declares which extra tags. The list order is ascending on purpose:
# kafka-python writes tags in declaration order, and the protocol requires them in
# ascending order.
EXTRA_TAGS_BY_STRUCT = {
    REQUEST: {REQUEST: (3, 7), "WritableTxnMarker": (130,)},
    RESPONSE: {RESPONSE: (3, 7), "WritableTxnMarkerPartitionResult": (130,)},
}


def extra_field_name(tag: int) -> str:
    return f"unknown_tag{tag}"


# --- Values, in the JSON shape -------------------------------------------------------


def unknown(*tags: int) -> list:
    return [[tag, EXTRA_TAGS[tag].wire_hex] for tag in tags]


def topic(name, partition_indexes, tags=()):
    return {
        "name": name,
        "partition_indexes": list(partition_indexes),
        "_unknown_tagged_fields": unknown(*tags),
    }


def marker(
    producer_id,
    producer_epoch,
    transaction_result,
    topics,
    coordinator_epoch,
    transaction_version=0,
    tags=(),
):
    return {
        "producer_id": producer_id,
        "producer_epoch": producer_epoch,
        "transaction_result": transaction_result,
        "topics": topics,
        "coordinator_epoch": coordinator_epoch,
        "transaction_version": transaction_version,
        "_unknown_tagged_fields": unknown(*tags),
    }


def request(markers, tags=()):
    return {"markers": markers, "_unknown_tagged_fields": unknown(*tags)}


def partition_result(partition_index, error_code, tags=()):
    return {
        "partition_index": partition_index,
        "error_code": error_code,
        "_unknown_tagged_fields": unknown(*tags),
    }


def topic_result(name, partitions, tags=()):
    return {"name": name, "partitions": partitions, "_unknown_tagged_fields": unknown(*tags)}


def marker_result(producer_id, topics, tags=()):
    return {"producer_id": producer_id, "topics": topics, "_unknown_tagged_fields": unknown(*tags)}


def response(markers, tags=()):
    return {"markers": markers, "_unknown_tagged_fields": unknown(*tags)}


NONE = 0
NOT_LEADER_OR_FOLLOWER = 6
CORRUPT_MESSAGE = 3
INVALID_TXN_STATE = 48
UNKNOWN_SERVER_ERROR = -1

I16_MIN, I16_MAX = -(2**15), 2**15 - 1
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def typical_request(version):
    return request(
        [
            marker(
                4_001_234,
                3,
                True,
                [
                    topic("orders", [0, 1, 2]),
                    topic("payments", [5, 7]),
                    topic("audit-log", [11]),
                ],
                17,
            ),
            marker(
                98_765_432_100,  # needs more than 32 bits
                0,
                False,
                [topic("orders", [3]), topic("inventory.events", [0, 4, 8, 12])],
                17,
            ),
        ]
    )


def typical_response(version):
    return response(
        [
            marker_result(
                4_001_234,
                [
                    topic_result("orders", [partition_result(p, NONE) for p in (0, 1, 2)]),
                    topic_result(
                        "payments",
                        [
                            partition_result(5, INVALID_TXN_STATE),
                            partition_result(7, INVALID_TXN_STATE),
                        ],
                    ),
                    topic_result("audit-log", [partition_result(11, NOT_LEADER_OR_FOLLOWER)]),
                ],
            ),
            marker_result(
                98_765_432_100,
                [
                    topic_result("orders", [partition_result(3, NONE)]),
                    topic_result(
                        "inventory.events",
                        [
                            partition_result(0, CORRUPT_MESSAGE),
                            partition_result(4, NONE),
                            partition_result(8, NOT_LEADER_OR_FOLLOWER),
                            partition_result(12, NONE),
                        ],
                    ),
                ],
            ),
        ]
    )


def negative_and_edge_request(version):
    return request(
        [
            marker(
                -1,
                -1,
                False,
                [topic("", [-1]), topic("tópico-ü", [0, -1])],
                -1,
            ),
            marker(
                I64_MAX,
                I16_MAX,
                True,
                [topic("max-values", [I32_MAX, I32_MIN]), topic("no-partitions", [])],
                I32_MAX,
            ),
            marker(I64_MIN, I16_MIN, False, [], I32_MIN),
        ]
    )


def negative_and_edge_response(version):
    return response(
        [
            marker_result(
                -1,
                [
                    topic_result("", [partition_result(-1, UNKNOWN_SERVER_ERROR)]),
                    topic_result(
                        "tópico-ü",
                        [
                            partition_result(0, UNKNOWN_SERVER_ERROR),
                            partition_result(-1, NONE),
                        ],
                    ),
                ],
            ),
            marker_result(
                I64_MAX,
                [
                    topic_result(
                        "max-values",
                        [
                            partition_result(I32_MAX, NONE),
                            partition_result(I32_MIN, INVALID_TXN_STATE),
                        ],
                    ),
                    topic_result("no-partitions", []),
                ],
            ),
            marker_result(I64_MIN, []),
        ]
    )


def transaction_version_request(version):
    return request(
        [
            marker(
                5_550_001,
                2,
                True,
                [topic("orders", [0, 1])],
                9,
                transaction_version=2,
            ),
            marker(
                5_550_002,
                4,
                False,
                [topic("payments", [3])],
                9,
                transaction_version=0,
            ),
        ]
    )


def unknown_tags_request(version):
    return request(
        [
            marker(
                7_000_001,
                1,
                True,
                [topic("orders", [0, 1])],
                5,
                transaction_version=2 if version >= 2 else 0,
                tags=(130,),
            ),
            marker(7_000_002, 1, False, [topic("payments", [2])], 5),
        ],
        tags=(3, 7),
    )


def unknown_tags_response(version):
    return response(
        [
            marker_result(
                7_000_001,
                [
                    topic_result(
                        "orders",
                        [partition_result(0, NONE, tags=(130,)), partition_result(1, NONE)],
                    )
                ],
            ),
            marker_result(
                7_000_002, [topic_result("payments", [partition_result(2, INVALID_TXN_STATE)])]
            ),
        ],
        tags=(3, 7),
    )


LARGE_MARKERS, LARGE_TOPICS, LARGE_PARTITIONS = 12, 2, 4
# One topic gets more than 127 partitions so that its compact count needs a two-byte varint.
LARGE_WIDE_PARTITIONS = 130
LARGE_ERRORS = (NONE, NONE, NONE, INVALID_TXN_STATE, NOT_LEADER_OR_FOLLOWER, CORRUPT_MESSAGE)


def large_producer_id(i):
    return 7_000_000_000 + i * 104_729


def large_partitions(i, j):
    count = LARGE_WIDE_PARTITIONS if (i, j) == (0, 0) else LARGE_PARTITIONS
    return [(i + 10 * j + k) % 200 for k in range(count)]


def large_request(version):
    return request(
        [
            marker(
                large_producer_id(i),
                i % 7,
                i % 3 != 0,
                [
                    topic(f"large-topic-{j}", large_partitions(i, j))
                    for j in range(LARGE_TOPICS)
                ],
                1000 + i // 10,
                transaction_version=i % 3 if version >= 2 else 0,
            )
            for i in range(LARGE_MARKERS)
        ]
    )


def large_response(version):
    return response(
        [
            marker_result(
                large_producer_id(i),
                [
                    topic_result(
                        f"large-topic-{j}",
                        [
                            partition_result(p, LARGE_ERRORS[(i + j + k) % len(LARGE_ERRORS)])
                            for k, p in enumerate(large_partitions(i, j))
                        ],
                    )
                    for j in range(LARGE_TOPICS)
                ],
            )
            for i in range(LARGE_MARKERS)
        ]
    )


# (case, message, versions, value builder taking the version)
CASES = [
    ("empty", REQUEST, (0, 1, 2), lambda v: request([])),
    ("empty", RESPONSE, (0, 1, 2), lambda v: response([])),
    ("typical", REQUEST, (0, 1, 2), typical_request),
    ("typical", RESPONSE, (0, 1, 2), typical_response),
    ("negative_and_edge", REQUEST, (0, 1, 2), negative_and_edge_request),
    ("negative_and_edge", RESPONSE, (0, 1, 2), negative_and_edge_response),
    # The response has no transaction_version field, so this case has no response.
    ("transaction_version", REQUEST, (2,), transaction_version_request),
    # v0 is not flexible, so it has no tagged fields.
    ("unknown_tagged_fields", REQUEST, (1, 2), unknown_tags_request),
    ("unknown_tagged_fields", RESPONSE, (1, 2), unknown_tags_response),
    ("large", REQUEST, (0, 1, 2), large_request),
    ("large", RESPONSE, (0, 1, 2), large_response),
]


def has_unknown_tags(value) -> bool:
    if isinstance(value, dict):
        return bool(value["_unknown_tagged_fields"]) or any(
            has_unknown_tags(v) for v in value.values()
        )
    if isinstance(value, list):
        return any(has_unknown_tags(v) for v in value)
    return False


# --- kio ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KioEmptyPayload:
    """A struct with no fields. Non-flexible, so kio writes it as zero bytes."""

    __type__: ClassVar = kio_v1.request.WritableTxnMarker.__type__
    __version__: ClassVar[i16] = i16(1)
    __flexible__: ClassVar[bool] = False


KIO_EXTRA_FIELD_TYPES = {
    # kind: (annotation, metadata without the tag)
    "bytes": (bytes | None, {"kafka_type": "bytes"}),
    "int32": (i32 | None, {"kafka_type": "int32"}),
    "empty": (KioEmptyPayload | None, {}),
}


def kio_payload(tag: int):
    extra = EXTRA_TAGS[tag]
    return KioEmptyPayload() if extra.kind == "empty" else extra.encoder_value


def derive_kio_schema(entity, *, version: int, flexible: bool, extra_tags: dict):
    """Copy a kio entity class tree with another version and flexibility.

    extra_tags maps struct names to the extra tags that struct declares. The copies
    keep kio's own field metadata, so kio's writer treats them like generated
    classes.
    """
    new_fields = []
    for f in dataclasses.fields(entity):
        annotation = f.type
        if get_origin(annotation) is tuple and dataclasses.is_dataclass(get_args(annotation)[0]):
            child = derive_kio_schema(
                get_args(annotation)[0], version=version, flexible=flexible, extra_tags=extra_tags
            )
            annotation = tuple[child, ...]
        new_fields.append(
            (f.name, annotation, dataclasses.field(default=f.default, metadata=f.metadata))
        )
    for tag in extra_tags.get(entity.__name__, ()):
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
        "__type__": entity.__type__,
        "__version__": i16(version),
        "__flexible__": flexible,
        "__api_key__": entity.__api_key__,
        "__header_schema__": entity.__header_schema__,
    }
    return dataclasses.make_dataclass(
        entity.__name__, new_fields, namespace=namespace, frozen=True, slots=True, kw_only=True
    )


def kio_stock_class(message: str, version: int):
    module = {1: kio_v1, 2: kio_v2}[version]
    return getattr(module, message)


def kio_class(message: str, version: int, with_extra_tags: bool):
    if version == 0:
        assert not with_extra_tags, "v0 cannot carry tagged fields"
        # v0 has the same fields as v1, only without flexible encoding.
        return derive_kio_schema(
            kio_stock_class(message, 1), version=0, flexible=False, extra_tags={}
        )
    stock = kio_stock_class(message, version)
    if not with_extra_tags:
        return stock
    return derive_kio_schema(
        stock, version=version, flexible=True, extra_tags=EXTRA_TAGS_BY_STRUCT[message]
    )


def to_kio(entity, value):
    declared = {f.name: f for f in dataclasses.fields(entity)}
    kwargs = {}
    for key, item in value.items():
        if key == "_unknown_tagged_fields":
            for tag, _ in item:
                # A TypeError here means the case uses a tag this struct doesn't declare.
                kwargs[extra_field_name(tag)] = kio_payload(tag)
            continue
        if key not in declared:
            # Only transaction_version is missing below v2, and the JSON must then
            # hold its default.
            assert key == "transaction_version" and item == 0, (entity.__name__, key, item)
            continue
        field = declared[key]
        if get_origin(field.type) is tuple:
            inner = get_args(field.type)[0]
            if dataclasses.is_dataclass(inner):
                kwargs[key] = tuple(to_kio(inner, v) for v in item)
            else:
                kwargs[key] = tuple(item)
        elif field.metadata.get("kafka_type") == "error_code":
            kwargs[key] = ErrorCode(item)
        else:
            kwargs[key] = item
    return entity(**kwargs)


def kio_encode(entity, value) -> bytes:
    buffer = io.BytesIO()
    entity_writer(entity)(buffer, to_kio(entity, value))
    return buffer.getvalue()


# --- kafka-python --------------------------------------------------------------------


class ZeroWidthCodec:
    """Encodes nothing. kafka-python's own types all write at least one byte."""

    @classmethod
    def encode(cls, value, compact=False):
        return b""

    @classmethod
    def encode_into(cls, out, value, compact=False):
        pass


KAFKA_PYTHON_EXTRA_TYPES = {"bytes": "bytes", "int32": "int32", "empty": "zero_width"}


def kafka_python_payload(tag: int):
    extra = EXTRA_TAGS[tag]
    # The empty payload must differ from the field's default (None), or
    # kafka-python leaves the tag out.
    return b"" if extra.kind == "empty" else extra.encoder_value


def _declare_extra_tags(struct_json: dict, struct_name: str, extra_tags: dict) -> None:
    for child in struct_json["fields"]:
        if "fields" in child:
            _declare_extra_tags(child, child["type"].removeprefix("[]"), extra_tags)
    for tag in extra_tags.get(struct_name, ()):
        struct_json["fields"].append(
            {
                "name": f"UnknownTag{tag}",
                "type": KAFKA_PYTHON_EXTRA_TYPES[EXTRA_TAGS[tag].kind],
                "versions": "1+",
                "taggedVersions": "1+",
                "tag": tag,
            }
        )


_kafka_python_variants = {}


def kafka_python_class(message: str, with_extra_tags: bool):
    if not with_extra_tags:
        return getattr(kp, message)
    if message not in _kafka_python_variants:
        SimpleField.TYPES.setdefault("zero_width", ZeroWidthCodec)
        extra_tags = EXTRA_TAGS_BY_STRUCT[message]

        def json_patch(cls, schema):
            _declare_extra_tags(schema, message, extra_tags)
            return schema

        # A new response class registers itself as *the* decoder for API key 27.
        # Put the stock one back, so the variant is used for encoding only.
        registry = ResponseClassRegistry._response_class_registry
        saved = dict(registry)
        # kafka-python loads the JSON schema by class name, so the variant has to
        # keep the stock name.
        variant = types.new_class(
            message,
            (ApiMessage,),
            exec_body=lambda ns: ns.update(json_patch=classmethod(json_patch)),
        )
        registry.clear()
        registry.update(saved)
        for tag in EXTRA_TAGS:
            assert BaseField.underscore_name(f"UnknownTag{tag}") == extra_field_name(tag)
        _kafka_python_variants[message] = variant
    return _kafka_python_variants[message]


def to_kafka_python(data_class, value):
    fields = data_class._struct.fields
    kwargs = {}
    for key, item in value.items():
        if key == "_unknown_tagged_fields":
            for tag, _ in item:
                if extra_field_name(tag) not in fields:
                    raise ValueError(f"{data_class.__name__} does not declare tag {tag}")
                kwargs[extra_field_name(tag)] = kafka_python_payload(tag)
            continue
        field = fields[key]
        if field.is_struct_array():
            kwargs[key] = [to_kafka_python(field.data_class, v) for v in item]
        else:
            kwargs[key] = item
    return data_class(**kwargs)


def kafka_python_encode(message: str, version: int, value, with_extra_tags: bool) -> bytes:
    message_class = kafka_python_class(message, with_extra_tags)
    return bytes(to_kafka_python(message_class, value).encode(version=version))


def kafka_python_view(obj, struct) -> dict:
    """A decoded kafka-python object in the JSON value shape."""
    view = {}
    for field in struct._fields:
        # Fields outside the decoded version read back as the schema default.
        item = getattr(obj, field.name)
        if field.is_struct_array():
            item = [kafka_python_view(v, field.array_of) for v in item]
        elif field.is_array():
            item = list(item)
        view[field.name] = item
    view["_unknown_tagged_fields"] = [
        [int(name.removeprefix("_")), bytes(payload).hex()]
        for name, payload in (obj.unknown_tags or {}).items()
    ]
    return view


# --- Checks and output ---------------------------------------------------------------


def canonical(value) -> str:
    # Compare through JSON so that True and 1 are not taken as equal.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def check_equal(what: str, expected: bytes, got: bytes) -> None:
    if expected != got:
        raise SystemExit(f"MISMATCH {what}\n  expected {expected.hex()}\n  got      {got.hex()}")


def verify_by_decoding(label: str, message: str, version: int, value, body: bytes) -> None:
    stock = getattr(kp, message)
    decoded = stock.decode(body, version=version)
    if canonical(kafka_python_view(decoded, stock._struct)) != canonical(value):
        raise SystemExit(f"kafka-python decodes {label} to a different value")
    if version >= 1 and not has_unknown_tags(value):
        entity = kio_stock_class(message, version)
        result, size = entity_reader(entity)(body, 0)
        if size != len(body) or result != to_kio(entity, value):
            raise SystemExit(f"kio decodes {label} to a different value")


def build_vector(case: str, message: str, version: int, value) -> dict:
    label = f"{case}/{message}/v{version}"
    extra = has_unknown_tags(value)
    if version == 0:
        source, checker = KAFKA_PYTHON, KIO
        body = kafka_python_encode(message, 0, value, extra)
        check_equal(label, body, kio_encode(kio_class(message, 0, extra), value))
    else:
        source, checker = KIO, KAFKA_PYTHON
        body = kio_encode(kio_class(message, version, extra), value)
        check_equal(label, body, kafka_python_encode(message, version, value, extra))
    verify_by_decoding(label, message, version, value, body)
    return {
        "case": case,
        "message": message,
        "version": version,
        "source": source,
        "cross_checked_with": [checker],
        "hex": body.hex(),
        "value": value,
    }


def main() -> None:
    require_library_versions()
    vectors = [
        build_vector(case, message, version, build(version))
        for case, message, versions, build in CASES
        for version in versions
    ]
    text = json.dumps(vectors, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(vectors)} vectors to {OUTPUT}")


if __name__ == "__main__":
    main()
