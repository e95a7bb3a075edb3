#!/usr/bin/env python3
"""txn-broker against a real Kafka client: librdkafka, through confluent-kafka.

What it does, against a running cluster (see real-client.sh):

1. A transactional producer runs several transactions, each writing to every partition of
   the topic (so to partitions led by different brokers); some are committed, some aborted.
2. It opens one more transaction and sends its data; a second producer with the same
   transactional.id then initialises, which fences the first (its open transaction is
   aborted). The first producer's next transactional call must fail with a fencing error.
3. The second producer commits one transaction and aborts one.
4. A read_committed consumer (assign() with explicit partitions and offsets; confluent-kafka
   insists on a group.id, but the group is never joined nor committed to) must read exactly
   the committed messages, in order per partition, each once; a read_uncommitted consumer
   must read every message that reached the logs, aborted ones included.
5. Before the transactions and after them, list_topics() from an AdminClient and from a
   Producer (what `kcat -L` does) must return the topic with all its partitions, each led by
   a broker the same answer lists. librdkafka asks for all topics with a Metadata request
   whose body Kafka's broker reads with one byte left over, which the broker must ignore as
   Kafka's does.

The consumers start at the end each partition had before the run (asked with ListOffsets),
so the script can run again and again against the same cluster.

Progress and librdkafka's own messages go to standard error. Standard output gets the summary
only: `name=number` pairs that real-client.sh checks (and checks against the brokers' logs when
it runs the cluster itself), then `RESULT: OK` or `RESULT: FAIL`. The exit status is 0 only for
OK.
"""

import argparse
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

FENCING_CODES = {
    KafkaError._FENCED,
    KafkaError.PRODUCER_FENCED,
    KafkaError.INVALID_PRODUCER_EPOCH,
}


def log(msg):
    print(f"[real-client] {msg}", file=sys.stderr, flush=True)


class Plan:
    """What was produced, per partition in send order, and how each transaction ended."""

    def __init__(self, partitions):
        self.partitions = partitions
        self.sent = {p: [] for p in partitions}  # (value, txn name)
        self.outcome = {}  # txn name -> "commit" | "abort"

    def committed(self, p):
        return [v for v, t in self.sent[p] if self.outcome.get(t) == "commit"]

    def everything(self, p):
        return [v for v, t in self.sent[p] if t in self.outcome]

    def count(self, result=None, partitions=None):
        return sum(
            1
            for p in (self.partitions if partitions is None else partitions)
            for _, t in self.sent[p]
            if t in self.outcome and (result is None or self.outcome[t] == result)
        )

    def markers(self, result):
        """How many COMMIT (or ABORT) markers the logs must get: one per partition that a
        transaction with that outcome wrote to."""
        return sum(
            1
            for t, o in self.outcome.items()
            if o == result
            for p in self.partitions
            if any(tt == t for _, tt in self.sent[p])
        )


def make_producer(args, extra=None):
    conf = {
        "bootstrap.servers": args.bootstrap,
        "transactional.id": args.transactional_id,
        "transaction.timeout.ms": 60000,
        "message.timeout.ms": 30000,
        "linger.ms": 5,
    }
    if args.debug:
        conf["debug"] = args.debug
    conf.update(extra or {})
    return Producer(conf)


def shown(values):
    """Values for a report: a padded one by its start and length."""
    return [v if len(v) <= 40 else f"{v[:40]}... ({len(v)} bytes)" for v in values]


def send(producer, plan, args, txn, per_partition, track=True):
    failures = []

    def on_delivery(err, msg):
        if err is not None:
            failures.append(err)

    for p in plan.partitions:
        for i in range(per_partition):
            value = f"{txn}/p{p}/{i}"
            # Padded to --value-bytes: large values make large Produce and Fetch frames.
            value += "." * max(0, args.value_bytes - len(value))
            producer.produce(args.topic, value=value.encode(), key=f"k{i}".encode(),
                             partition=p, on_delivery=on_delivery)
            if track:
                plan.sent[p].append((value, txn))
    return failures


def run_transactions(producer, plan, args, prefix, results):
    for n, result in enumerate(results):
        txn = f"{prefix}-{n}"
        producer.begin_transaction()
        send(producer, plan, args, txn, args.per_partition)
        if result == "commit":
            producer.commit_transaction(args.timeout)
        else:
            # Make sure the data reached the leaders first, so the abort has something to
            # cancel (an abort of unsent messages would just drop them in the client).
            producer.flush(args.timeout)
            producer.abort_transaction(args.timeout)
        plan.outcome[txn] = result
        log(f"{txn}: {result} ({args.per_partition} message(s) on each of "
            f"{len(plan.partitions)} partitions)")


def fencing(args, plan, first):
    """Opens a transaction on `first`, fences it with a second producer, checks the error."""
    txn = "zombie"
    first.begin_transaction()
    failures = send(first, plan, args, txn, 1)
    first.flush(args.timeout)
    if failures:
        raise RuntimeError(f"the zombie's data was not delivered: {failures}")
    # The coordinator aborts the open transaction while fencing.
    plan.outcome[txn] = "abort"
    log("second producer with the same transactional.id: init_transactions")
    second = make_producer(args)
    second.init_transactions(args.timeout)
    log("first producer, now a zombie, tries to go on")
    error = None
    try:
        # Not tracked: a fenced producer's data must never reach a log.
        send(first, plan, args, "zombie-late", 1, track=False)
        first.commit_transaction(args.timeout)
    except KafkaException as e:
        error = e.args[0]
    if error is None:
        return second, "the zombie's commit succeeded", False
    fenced = error.code() in FENCING_CODES or error.fatal()
    detail = f"{error.name()} (code {error.code()}, fatal={error.fatal()}): {error.str()}"
    return second, detail, fenced


def list_topics(args, client, name):
    """list_topics() for all topics from `client`: the partitions of the scenario's topic it
    returns (0 when the topic is missing), and what is wrong with the answer."""
    metadata = client.list_topics(timeout=args.timeout)
    problems = []
    log(f"{name} list_topics(): brokers {sorted(metadata.brokers)}, "
        f"topics {sorted(metadata.topics)}")
    topic = metadata.topics.get(args.topic)
    if topic is None:
        return 0, [f"{name} list_topics(): no topic {args.topic} in {sorted(metadata.topics)}"]
    if topic.error is not None:
        problems.append(f"{name} list_topics(): {args.topic}: {topic.error}")
    if sorted(topic.partitions) != list(range(args.partitions)):
        problems.append(f"{name} list_topics(): {args.topic} has partitions "
                        f"{sorted(topic.partitions)}, expected 0..{args.partitions - 1}")
    for p, part in sorted(topic.partitions.items()):
        if part.error is not None:
            problems.append(f"{name} list_topics(): {args.topic}/{p}: {part.error}")
        if part.leader not in metadata.brokers:
            problems.append(f"{name} list_topics(): {args.topic}/{p} led by {part.leader}, "
                            f"not among the brokers {sorted(metadata.brokers)}")
    return len(topic.partitions), problems


def list_topics_both(args):
    """list_topics() from an AdminClient and from a (non-transactional) Producer."""
    conf = {"bootstrap.servers": args.bootstrap}
    if args.debug:
        conf["debug"] = args.debug
    admin_partitions, problems = list_topics(args, AdminClient(conf), "AdminClient")
    producer = Producer(conf)
    producer_partitions, more = list_topics(args, producer, "Producer")
    producer.flush(args.timeout)
    return admin_partitions, producer_partitions, problems + more


def end_offsets(args, partitions):
    """The high watermark of each partition now (librdkafka asks with ListOffsets)."""
    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "enable.auto.commit": False,
        **({"debug": args.debug} if args.debug else {}),
    })
    try:
        return {
            p: consumer.get_watermark_offsets(TopicPartition(args.topic, p),
                                              timeout=args.timeout, cached=False)[1]
            for p in partitions
        }
    finally:
        consumer.close()


def consume(args, plan, isolation, expected, start):
    conf = {
        "bootstrap.servers": args.bootstrap,
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "enable.partition.eof": False,
        "auto.offset.reset": "earliest",
    }
    conf["group.id"] = args.group
    if args.debug:
        conf["debug"] = args.debug
    consumer = Consumer(conf)
    consumer.assign([TopicPartition(args.topic, p, start[p]) for p in plan.partitions])
    got = {p: [] for p in plan.partitions}
    errors = []
    want = sum(len(v) for v in expected.values())
    deadline = time.monotonic() + args.timeout
    settle_until = None
    while time.monotonic() < deadline:
        msg = consumer.poll(0.2)
        if msg is not None:
            if msg.error():
                if msg.error().fatal():
                    errors.append(msg.error())
                else:
                    log(f"{isolation} consumer: {msg.error()}")
            else:
                got[msg.partition()].append((msg.offset(), msg.value().decode()))
        have = sum(len(v) for v in got.values())
        if have >= want and settle_until is None:
            # Everything expected is there: keep polling a little to catch extras.
            settle_until = time.monotonic() + args.settle
        if settle_until is not None and time.monotonic() >= settle_until:
            break
    consumer.close()
    problems = []
    for p in plan.partitions:
        offsets = [o for o, _ in got[p]]
        if offsets != sorted(set(offsets)):
            problems.append(f"partition {p}: offsets not increasing or repeated: {offsets}")
        values = [v for _, v in got[p]]
        if values != expected[p]:
            problems.append(f"partition {p}: read {shown(values)}, expected {shown(expected[p])}")
    for e in errors:
        problems.append(f"consumer error: {e}")
    return {p: len(got[p]) for p in plan.partitions}, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--topic", default="orders")
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--transactional-id", default="real-client-txn")
    ap.add_argument("--per-partition", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--value-bytes", type=int, default=0,
                    help="pad every message's value to at least this many bytes")
    # confluent-kafka refuses to create a Consumer without group.id, even for assign(); the
    # consumers never join the group nor commit, so the brokers need no group coordinator.
    ap.add_argument("--group", default="real-client-reader", help="group.id of the consumers")
    ap.add_argument("--debug", default="", help="librdkafka debug contexts, e.g. protocol")
    args = ap.parse_args()

    plan = Plan(list(range(args.partitions)))
    problems = []
    log(f"bootstrap {args.bootstrap}, topic {args.topic} partitions {plan.partitions}")
    listed_before = list_topics_both(args)
    problems += listed_before[2]
    start = end_offsets(args, plan.partitions)
    log(f"start offsets {start}")

    first = make_producer(args)
    first.init_transactions(args.timeout)
    log("first producer: init_transactions done")
    run_transactions(first, plan, args, "first",
                     ["commit", "abort", "commit", "commit", "abort"])

    second, detail, fenced = fencing(args, plan, first)
    log(f"zombie's error: {detail}")
    if not fenced:
        problems.append(f"the first producer was not fenced: {detail}")

    run_transactions(second, plan, args, "second", ["commit", "abort"])
    second.flush(args.timeout)

    expected_committed = {p: plan.committed(p) for p in plan.partitions}
    expected_all = {p: plan.everything(p) for p in plan.partitions}
    read_committed, issues = consume(args, plan, "read_committed", expected_committed, start)
    problems += [f"read_committed: {i}" for i in issues]
    read_uncommitted, issues = consume(args, plan, "read_uncommitted", expected_all, start)
    problems += [f"read_uncommitted: {i}" for i in issues]
    listed_after = list_topics_both(args)
    problems += listed_after[2]

    outcomes = list(plan.outcome.values())
    # Every line is `name=value` pairs; real-client.sh reads the numbers back.
    print("real-client summary")
    print(f"  produced={plan.count()} committed={plan.count('commit')} "
          f"aborted={plan.count('abort')}")
    print(f"  read_committed={sum(read_committed.values())} "
          f"read_uncommitted={sum(read_uncommitted.values())}")
    print(f"  transactions_committed={outcomes.count('commit')} "
          f"transactions_aborted={outcomes.count('abort')} fenced={int(fenced)}")
    print(f"  commit_markers={plan.markers('commit')} abort_markers={plan.markers('abort')}")
    # The fewest partitions of the topic one list_topics() call returned, of the two calls
    # of each client.
    print(f"  list_topics_admin={min(listed_before[0], listed_after[0])} "
          f"list_topics_producer={min(listed_before[1], listed_after[1])}")
    for p in plan.partitions:
        print(f"  partition={p} start={start[p]} produced={plan.count(partitions=[p])} "
              f"committed={plan.count('commit', [p])} aborted={plan.count('abort', [p])} "
              f"read_committed={read_committed[p]} read_uncommitted={read_uncommitted[p]}")
    print(f"  fencing_error={detail}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    print("RESULT:", "OK" if not problems else "FAIL")
    return 0 if not problems else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KafkaException as e:
        err = e.args[0]
        print(f"RESULT: FAIL: {err.name()} (code {err.code()}, fatal={err.fatal()}): {err.str()}")
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - any failure is a failed run
        print(f"RESULT: FAIL: {type(e).__name__}: {e}")
        sys.exit(1)
