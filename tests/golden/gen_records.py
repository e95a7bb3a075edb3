"""Golden record batches: magic 0, 1 and 2, every codec, control batches, mixed sets.

Run from the repository root (Python 3.11):

    python3 tests/golden/gen_records.py

It rewrites tests/golden/records.json next to this file. The output is deterministic
(every codec here is deterministic for a given library version). The script installs
nothing; it needs these exact versions, which are recorded in every case:

    pip install kio==0.6.5 kafka-python==3.0.12 python-snappy==0.7.3 cramjam==2.14.0 \
        lz4==4.4.4 zstandard==0.23.0 xxhash==3.5.0

None of the bytes comes from kafka-wire's own code. Where they come from:

* Batches and messages: kafka-python's record builders
  (``DefaultRecordBatchBuilder`` for magic 2, ``LegacyRecordBatchBuilder`` for magic 0
  and 1) with kafka-python's codecs (gzip from the standard library, snappy in the
  xerial framing through python-snappy, LZ4 frames through lz4 -- with the old Kafka
  header checksum for magic 0 through xxhash -- and zstd through zstandard).
* kafka-python's gzip writes the current time into the gzip header; the script fixes that
  field at 0 so that the output is deterministic.
* Fields a broker sets after the producer wrote the batch are set here the same way, on
  bytes the CRC does not cover: the base offset and partition leader epoch of some
  magic 2 batches, and the offset of magic 1 compressed wrappers (the absolute offset of
  the last inner message, as a broker writes it; kafka-python's producer writes 0).
* Control batches (transaction markers): kio's ``write_batch`` writes them from a
  ``NewRecordBatch`` with the transactional and control attributes; kafka-python's
  builder, whose only change is the control bit in the attributes, must write the same
  bytes (after the broker fields are set as above). The key and value are built here
  from the documented layouts (key: version i16 0, type i16; value: version i16 0,
  coordinator epoch i32).

Every case is read back by kafka-python's ``MemoryRecords`` (with CRC validation) and
must give the recorded values; uncompressed magic 2 batches are also read by kio's
``read_batch``, which checks their CRC-32C again. For compressed batches the JSON also
holds the decompressed payload (kafka-python's codec output), which kafka-wire's own
decompression and its uncompressed encoding are compared with.
"""

import gzip
import io
import json
import struct
import sys
import types
from datetime import UTC, datetime
from importlib.metadata import version as installed_version
from pathlib import Path

import kafka.codec as codec
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatch, LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords
from kafka.record.util import calc_crc32c
from kio.records.readers import read_batch as kio_read_batch
from kio.records.schema import NewRecordBatch
from kio.records.schema import Record as KioRecord
from kio.records.writers import write_batch as kio_write_batch
from kio.static.primitive import i8, i16, i32, i64

OUTPUT = Path(__file__).with_name("records.json")
VERSIONS = {
    "kafka-python": "3.0.12",
    "kio": "0.6.5",
    "python-snappy": "0.7.3",
    "cramjam": "2.14.0",
    "lz4": "4.4.4",
    "zstandard": "0.23.0",
    "xxhash": "3.5.0",
}
SOURCE = "kafka-python 3.0.12 (snappy: python-snappy 0.7.3, lz4 4.4.4, zstandard 0.23.0)"
CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
BIG = 1 << 30  # batch size: never full


class FixedTimeGzipFile(gzip.GzipFile):
    """gzip as kafka-python uses it, with the header's modification time fixed at 0."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("mtime", 0)
        super().__init__(*args, **kwargs)


# kafka-python's gzip_encode stamps the current time into the gzip header; fixing it keeps
# the output deterministic. Everything else about its gzip stays as it is.
codec.gzip = types.SimpleNamespace(GzipFile=FixedTimeGzipFile)


def require_library_versions() -> None:
    for dist, wanted in VERSIONS.items():
        found = installed_version(dist)
        if found != wanted:
            sys.exit(f"need {dist}=={wanted}, found {found}")


def hexs(b):
    return None if b is None else bytes(b).hex()


# --- Input records ---------------------------------------------------------------------

T0 = 1_700_000_000_123
# Compressible values, so that kafka-python keeps the compressed form of magic 2 batches
# (it falls back to no compression when that is not smaller).
LONG = b"kafka-wire golden value " * 8

V2_RECORDS = [
    # (timestamp, key, value, headers)
    (T0, b"key-0", LONG, [("trace", b"abc"), ("empty", b""), ("null", None)]),
    (T0 + 5, None, LONG + b"1", []),
    (T0 - 1_000_000, b"key-2", b"", [("h\u00e9", b"\x00\xff")]),
    (T0 + (1 << 40), b"key-3", None, []),  # a timestamp delta beyond 32 bits
    (T0 + 7, b"", LONG + b"4", [("a", None), ("b", b"x")]),
]

LEGACY_RECORDS = [
    # (timestamp, key, value); magic 0 has no timestamps
    (T0, b"key-0", LONG),
    (T0 + 5, None, LONG + b"1"),
    (T0 - 1_000_000, b"key-2", b""),
    (T0 + 9, b"key-3", None),
]


# --- Writers ---------------------------------------------------------------------------


class ControlBatchBuilder(DefaultRecordBatchBuilder):
    """kafka-python's builder with the control bit added to the attributes it writes."""

    __slots__ = ()

    def _get_attributes(self, include_compression_type=True):
        return super()._get_attributes(include_compression_type) | self.CONTROL_MASK


def set_broker_fields(batch: bytearray, base_offset: int, leader_epoch: int) -> bytearray:
    # Base offset and partition leader epoch lie before the CRC-covered part.
    struct.pack_into(">q", batch, 0, base_offset)
    struct.pack_into(">i", batch, 12, leader_epoch)
    return batch


def v2_batch(codec_name, records, *, producer=(-1, -1, -1), transactional=False, builder=None):
    pid, epoch, seq = producer
    cls = builder or DefaultRecordBatchBuilder
    b = cls(
        magic=2,
        compression_type=CODECS[codec_name],
        is_transactional=transactional,
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=seq,
        batch_size=BIG,
    )
    for offset, (ts, key, value, headers) in enumerate(records):
        assert b.append(offset, timestamp=ts, key=key, value=value, headers=headers) is not None
    out = bytearray(b.build())
    attributes = struct.unpack_from(">h", out, 21)[0]
    assert attributes & 0x07 == CODECS[codec_name], "kafka-python fell back to no compression"
    return out


def legacy_batch(magic, codec_name, records, base_offset):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=CODECS[codec_name], batch_size=BIG)
    # Compressed sets take relative offsets (magic 1) or offsets from 0 (magic 0), as
    # kafka-python's producer writes them.
    for i, (ts, key, value) in enumerate(records):
        offset = i if codec_name != "none" else base_offset + i
        assert b.append(offset, timestamp=ts, key=key, value=value) is not None
    out = bytearray(b.build())
    if codec_name != "none" and magic == 1:
        # The broker stamps the wrapper with the absolute offset of the last inner message.
        struct.pack_into(">q", out, 0, base_offset + len(records) - 1)
    return out


def control_batch(commit: bool, coordinator_epoch: int, offset: int, ts_seconds: int,
                  leader_epoch: int, pid: int, epoch: int) -> bytes:
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    ts = ts_seconds * 1000  # kio keeps whole seconds
    # kio
    buf = io.BytesIO()
    kio_write_batch(
        buf,
        NewRecordBatch(
            producer_id=i64(pid),
            producer_epoch=i16(epoch),
            partition_leader_epoch=i32(leader_epoch),
            base_sequence=i32(-1),
            attributes=i16(0x10 | 0x20),
            records=(
                KioRecord(
                    attributes=i8(0),
                    timestamp=datetime.fromtimestamp(ts_seconds, UTC),
                    offset=i64(offset),
                    key=key,
                    value=value,
                    headers=(),
                ),
            ),
        ),
    )
    from_kio = buf.getvalue()
    # kafka-python
    kp = v2_batch("none", [(ts, key, value, [])], producer=(pid, epoch, -1),
                  transactional=True, builder=ControlBatchBuilder)
    kp = bytes(set_broker_fields(kp, offset, leader_epoch))
    assert kp == from_kio, f"control batch differs:\n{kp.hex()}\n{from_kio.hex()}"
    return from_kio


# --- Reading back with kafka-python (and kio) ------------------------------------------


def payload_of(raw: bytes):
    """The decompressed payload of a single compressed batch, by kafka-python's codecs."""
    magic = raw[16]
    if magic == 2:
        comp = struct.unpack_from(">h", raw, 21)[0] & 0x07
        data = bytes(raw[61:])
    else:
        comp = raw[17] & 0x07
        key_at = 18 if magic == 0 else 26
        key_len = struct.unpack_from(">i", raw, key_at)[0]
        value_at = key_at + 4 + max(key_len, 0)
        data = bytes(raw[value_at + 4:])
    if comp == 0:
        return None
    if comp == 1:
        return codec.gzip_decode(data)
    if comp == 2:
        return codec.snappy_decode(data)
    if comp == 3:
        return codec.lz4_decode_old_kafka(data) if magic == 0 else codec.lz4_decode(data)
    return codec.zstd_decode(data)


def read_back(raw: bytes) -> list:
    """Every complete batch of `raw`, as kafka-python reads it, in the JSON shape."""
    out = []
    records = MemoryRecords(bytes(raw))
    while records.has_next():
        batch = records.next_batch()
        if isinstance(batch, DefaultRecordBatch):
            assert batch.validate_crc()
            recs = []
            for r in batch:
                recs.append({
                    "offset": r.offset,
                    "timestamp": r.timestamp,
                    "key": hexs(r.key),
                    "value": hexs(r.value),
                    "headers": [[k, hexs(v)] for k, v in r.headers],
                })
            out.append({
                "magic": 2,
                "base_offset": batch.base_offset,
                "partition_leader_epoch": batch.leader_epoch,
                "compression": batch.compression_type,
                "timestamp_type": batch.timestamp_type,
                "is_transactional": batch.is_transactional,
                "is_control": batch.is_control_batch,
                "last_offset_delta": batch.last_offset_delta,
                "base_timestamp": batch.first_timestamp,
                "max_timestamp": batch.max_timestamp,
                "producer_id": batch.producer_id,
                "producer_epoch": batch.producer_epoch,
                "base_sequence": batch.base_sequence,
                "records": recs,
            })
        else:
            assert isinstance(batch, LegacyRecordBatch)
            assert batch.validate_crc()
            recs = []
            for r in batch:
                assert r.validate_crc()
                recs.append({
                    "offset": r.offset,
                    "timestamp": -1 if r.timestamp is None else r.timestamp,
                    "key": hexs(r.key),
                    "value": hexs(r.value),
                    "headers": [],
                })
            wrapper_ts = batch._timestamp  # the (wrapper) message's own timestamp
            out.append({
                "magic": batch.magic,
                "base_offset": recs[0]["offset"],
                "partition_leader_epoch": -1,
                "compression": batch.compression_type,
                "timestamp_type": batch.timestamp_type or 0,
                "is_transactional": False,
                "is_control": False,
                "last_offset_delta": recs[-1]["offset"] - recs[0]["offset"],
                "base_timestamp": -1 if wrapper_ts is None else wrapper_ts,
                "max_timestamp": -1 if wrapper_ts is None else wrapper_ts,
                "producer_id": -1,
                "producer_epoch": -1,
                "base_sequence": -1,
                "records": recs,
            })
    return out


def kio_check(raw: bytes, expected: dict) -> None:
    """kio reads an uncompressed magic 2 batch (checking its CRC) to the same records."""
    batch, size = kio_read_batch(bytes(raw), 0)
    assert size == len(raw)
    assert batch.attributes & 0x07 == 0
    assert len(batch.records) == len(expected["records"])
    for got, want in zip(batch.records, expected["records"]):
        assert got.offset == want["offset"]
        assert hexs(got.key) == want["key"] and hexs(got.value) == want["value"]
        assert [[h.key.decode(), hexs(h.value)] for h in got.headers] == want["headers"]
        # kio keeps whole seconds only.
        assert int(got.timestamp.timestamp()) == want["timestamp"] // 1000


def expect_input(batch: dict, records, magic: int, base_offset: int) -> None:
    """The values read back are the values the builder was given."""
    assert len(batch["records"]) == len(records)
    for i, (got, rec) in enumerate(zip(batch["records"], records)):
        ts, key, value = rec[0], rec[1], rec[2]
        assert got["offset"] == base_offset + i
        assert got["timestamp"] == (-1 if magic == 0 else ts)
        assert got["key"] == hexs(key) and got["value"] == hexs(value)
        if magic == 2:
            assert got["headers"] == [[k, hexs(v)] for k, v in rec[3]]


# --- Cases -----------------------------------------------------------------------------

cases = []


def add(case, raw, *, magic, codec_name, truncated=None, source=SOURCE, check=None):
    raw = bytes(raw)
    complete = raw if truncated is None else raw[: truncated["offset"]]
    batches = read_back(complete)
    if check:
        check(batches)
    payload = payload_of(raw) if len(batches) == 1 and truncated is None else None
    cases.append({
        "case": case,
        "magic": magic,
        "codec": codec_name,
        "source": source,
        "hex": raw.hex(),
        "batches": batches,
        "payload": hexs(payload),
        "truncated": truncated,
    })
    return raw


def main() -> None:
    require_library_versions()
    pieces = {}
    # Magic 2, every codec.
    for name in CODECS:
        raw = v2_batch(name, V2_RECORDS)
        if name == "none":
            raw = set_broker_fields(raw, 5000, 7)
        base = 5000 if name == "none" else 0

        def check(batches, base=base):
            assert len(batches) == 1
            expect_input(batches[0], V2_RECORDS, 2, base)

        pieces[("v2", name)] = add(f"v2 {name}: null and empty keys and values, headers, "
                                   "large timestamp deltas", raw, magic=2, codec_name=name,
                                   check=check)
        if name == "none":
            kio_check(pieces[("v2", name)], cases[-1]["batches"][0])
    # Magic 2: idempotent and transactional producers.
    raw = v2_batch("none", V2_RECORDS[:2], producer=(123456789, 3, 41))
    add("v2 none: idempotent producer", raw, magic=2, codec_name="none",
        check=lambda b: expect_input(b[0], V2_RECORDS[:2], 2, 0))
    kio_check(raw, cases[-1]["batches"][0])
    raw = v2_batch("gzip", V2_RECORDS, producer=(99, 0, 2147483640), transactional=True)
    add("v2 gzip: transactional producer, sequence near the i32 limit", raw, magic=2,
        codec_name="gzip", check=lambda b: expect_input(b[0], V2_RECORDS, 2, 0))
    # Legacy, magic 0 and 1, every codec they allow.
    for magic in (0, 1):
        for name in ("none", "gzip", "snappy", "lz4"):
            base = 1000

            def check(batches, magic=magic, name=name):
                flat = [r for b in batches for r in b["records"]]
                assert len(batches) == (len(LEGACY_RECORDS) if name == "none" else 1)
                expect_input({"records": flat}, LEGACY_RECORDS, magic,
                             base if (name == "none" or magic == 1) else 0)

            raw = legacy_batch(magic, name, LEGACY_RECORDS, base)
            pieces[(magic, name)] = add(
                f"magic {magic} {name}: null key, empty and null values", raw, magic=magic,
                codec_name=name, check=check)
    # Control batches.
    for commit, label in ((True, "COMMIT"), (False, "ABORT")):
        raw = control_batch(commit, coordinator_epoch=17 if commit else 5, offset=8000,
                            ts_seconds=1_700_000_123, leader_epoch=4, pid=424242, epoch=9)

        def check(batches, commit=commit):
            (b,) = batches
            assert b["is_control"] and b["is_transactional"] and b["base_sequence"] == -1
            assert b["records"][0]["key"] == struct.pack(">hh", 0, int(commit)).hex()

        add(f"control batch: {label} marker", raw, magic=2, codec_name="none",
            source="kio 0.6.5 = kafka-python 3.0.12", check=check)
        kio_check(raw, cases[-1]["batches"][0])
        pieces[("control", label)] = raw
    # Mixed sets back to back, then a truncated tail.
    mixed = (pieces[(0, "none")] + pieces[(1, "gzip")] + pieces[("v2", "none")]
             + pieces[("v2", "snappy")] + pieces[("control", "COMMIT")])
    add("mixed magics back to back", mixed, magic=-1, codec_name="mixed")
    cut = pieces[("v2", "lz4")]
    for keep in (5, 40, len(cut) - 1):
        raw = mixed + cut[:keep]
        add(f"mixed, then a last batch cut to {keep} bytes", raw, magic=-1, codec_name="mixed",
            truncated={"offset": len(mixed), "available": keep,
                       "needed": len(cut) if keep >= 12 else None})
    # kafka-python itself skips the incomplete tail: its batch count must match.
    for c in cases:
        if c["truncated"]:
            assert len(read_back(bytes.fromhex(c["hex"]))) == len(c["batches"])
    text = json.dumps(cases, indent=1, sort_keys=True) + "\n"
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUTPUT}")


if __name__ == "__main__":
    main()
