"""Frames for tools/analyser/tests/tap_kernel.rs, written by kio, not by kafka-wire.

Run from the repository root (Python 3.11):

    python3 tools/analyser/tests/data/tap/gen_frames.py

It rewrites the .bin.gz files beside it; running it twice gives the same bytes. It refuses to
run unless kio 0.6.5 is installed (`pip install kio==0.6.5`).

Each file is one whole frame, its size field first, gzip'd (records of a repeating pattern
compress to almost nothing). Every response has correlation id 7, as has the request.

* fetch-v16-held: Fetch v16, three partitions of records (600 KiB in all), tagged fields in
  the partitions, no NodeEndpoints: the tap holds it in a pipe and forwards it untouched.
* fetch-v16-endpoints: the same records, a partition that moved, and NodeEndpoints naming
  node 1 at broker-1.test:9093: the tap rewrites it.
* fetch-v16-beyond: Fetch v16 with 5 MiB of records, more than a pipe holds.
* fetch-v12: Fetch v12 with 3 MiB of records (no NodeEndpoints in that version).
* produce-v9-request: a Produce v9 request with 3 MiB of records, acks -1.
* produce-v10-endpoints: a Produce v10 response naming node 2 at broker-2.test:9094.
"""

import gzip
import io
import sys
import uuid
from pathlib import Path

from datetime import timedelta
from importlib.metadata import version

if version("kio") != "0.6.5":
    sys.exit(f"kio 0.6.5 is required, not {version('kio')}")

from kio.serial import entity_writer
from kio.schema.errors import ErrorCode
from kio.schema.fetch.v12 import response as f12
from kio.schema.fetch.v16 import response as f16
from kio.schema.produce.v9 import request as p9
from kio.schema.produce.v10 import response as p10
from kio.schema.request_header.v2.header import RequestHeader
from kio.schema.response_header.v1.header import ResponseHeader
from kio.static.primitive import i16, i32, i64

NO_TIME = timedelta(0)

HERE = Path(__file__).parent
KIB = 1024
TOPIC_ID = uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")


def records(n, salt):
    return bytes((i * 31 + salt) % 251 for i in range(n))


def encode(header, body):
    buf = io.BytesIO()
    entity_writer(type(header))(buf, header)
    entity_writer(type(body))(buf, body)
    frame = buf.getvalue()
    return len(frame).to_bytes(4, "big") + frame


def response(body):
    return encode(ResponseHeader(correlation_id=i32(7)), body)


def partition(index, size, **extra):
    return f16.PartitionData(
        partition_index=i32(index),
        error_code=extra.pop("error_code", ErrorCode.none),
        high_watermark=i64(1 << 30),
        aborted_transactions=extra.pop("aborted_transactions", None),
        records=records(size, index),
        **extra,
    )


def fetch_v16(sizes, **extra):
    parts = [partition(i, size) for i, size in enumerate(sizes)]
    parts[0] = partition(
        0,
        sizes[0],
        aborted_transactions=(f16.AbortedTransaction(producer_id=i64(3), first_offset=i64(40)),),
        current_leader=f16.LeaderIdAndEpoch(leader_id=i32(0), leader_epoch=i32(5)),
    )
    moved = extra.pop("moved", False)
    if moved:
        parts[-1] = partition(
            len(sizes) - 1,
            sizes[-1],
            error_code=ErrorCode.not_leader_or_follower,
            current_leader=f16.LeaderIdAndEpoch(leader_id=i32(1), leader_epoch=i32(6)),
        )
    return f16.FetchResponse(
        throttle_time=NO_TIME,
        error_code=ErrorCode.none,
        session_id=i32(11),
        responses=(f16.FetchableTopicResponse(topic_id=TOPIC_ID, partitions=tuple(parts)),),
        **extra,
    )


def frames():
    held = [200 * KIB, 300 * KIB, 100 * KIB]
    yield "fetch-v16-held", response(fetch_v16(held))
    yield "fetch-v16-endpoints", response(
        fetch_v16(
            held,
            moved=True,
            node_endpoints=(f16.NodeEndpoint(node_id=i32(1), host="broker-1.test", port=i32(9093), rack="r1"),),
        )
    )
    yield "fetch-v16-beyond", response(fetch_v16([3 * KIB * KIB, 2 * KIB * KIB]))
    yield "fetch-v12", response(
        f12.FetchResponse(
            throttle_time=NO_TIME,
            error_code=ErrorCode.none,
            session_id=i32(0),
            responses=(
                f12.FetchableTopicResponse(
                    topic="bench",
                    partitions=(
                        f12.PartitionData(
                            partition_index=i32(0),
                            error_code=ErrorCode.none,
                            high_watermark=i64(1 << 30),
                            aborted_transactions=None,
                            records=records(3 * KIB * KIB, 0),
                        ),
                    ),
                ),
            ),
        )
    )
    yield "produce-v9-request", encode(
        RequestHeader(request_api_key=i16(0), request_api_version=i16(9), correlation_id=i32(7), client_id="tap-test"),
        p9.ProduceRequest(
            acks=i16(-1),
            timeout=timedelta(seconds=30),
            topic_data=(
                p9.TopicProduceData(
                    name="orders",
                    partition_data=(
                        p9.PartitionProduceData(index=i32(0), records=records(2 * KIB * KIB, 1)),
                        p9.PartitionProduceData(index=i32(1), records=records(KIB * KIB, 2)),
                    ),
                ),
            ),
        ),
    )
    yield "produce-v10-endpoints", response(
        p10.ProduceResponse(
            responses=(
                p10.TopicProduceResponse(
                    name="orders",
                    partition_responses=(
                        p10.PartitionProduceResponse(
                            index=i32(0),
                            error_code=ErrorCode.not_leader_or_follower,
                            base_offset=i64(-1),
                            record_errors=(),
                            current_leader=p10.LeaderIdAndEpoch(leader_id=i32(2), leader_epoch=i32(9)),
                        ),
                    ),
                ),
            ),
            throttle_time=NO_TIME,
            node_endpoints=(p10.NodeEndpoint(node_id=i32(2), host="broker-2.test", port=i32(9094), rack=None),),
        )
    )


def main():
    for name, frame in frames():
        # mtime 0: the same bytes every run.
        with open(HERE / f"{name}.bin.gz", "wb") as f:
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
                gz.write(frame)
        print(f"{name}: {len(frame)} bytes")


if __name__ == "__main__":
    main()
