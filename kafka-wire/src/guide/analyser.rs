//! `kafka-wire`, the command line: any Kafka bytes as JSON, and JSON back as bytes.
//!
//! `kafka-wire` (`tools/analyser`, `cargo run -p kafka-wire-analyser --`, or `cargo install --path
//! tools/analyser`) shows any Kafka bytes as JSON, in the form above, one JSON line per item, and
//! turns JSON back into bytes. INPUT is hex, `@FILE` (raw bytes) or `-` (hex on standard input, the
//! default). Errors are one line on standard error, naming the field path and the byte, with a
//! non-zero exit; files above 4 MiB report their progress on standard error.
//!
//! ```console
//! $ kafka-wire decode --api WriteTxnMarkers --version 1 --request 0200000000000003e800000102076f7264657273020000000200000000010000
//! {"markers":[{"producerId":1000,"producerEpoch":0,"transactionResult":true,"topics":[{"name":"orders","partitionIndexes":[2]}],"coordinatorEpoch":1}]}
//!
//! $ kafka-wire encode --api 27 --version 1 --request '{"markers":[{"producerId":1000,"transactionResult":true,"topics":[{"name":"orders","partitionIndexes":[2]}],"coordinatorEpoch":1}]}'
//! 0200000000000003e800000102076f7264657273020000000200000000010000
//!
//! $ kafka-wire decode --api Fetch --version 4 --request 00ff
//! kafka-wire: FetchRequest.replica_id: unexpected end of input at byte 0 (needed 4, 2 left)
//!
//! $ kafka-wire frames requests.bin            # a client's byte stream: size, header, body, ...
//! {"api":"ApiVersions","apiKey":18,"version":3,"correlationId":1,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":1,"clientId":"cli"},"body":{"clientSoftwareName":"kafka-wire","clientSoftwareVersion":"0.1"},"offset":0,"size":30}
//!
//! $ kafka-wire pcap tools/analyser/tests/data/real-client.pcap      # or --port 9092 ...
//! {"connection":"127.0.0.1:36508 -> 127.0.0.1:41700","api":"EndTxn","apiKey":26,"version":1,"correlationId":5,"request":{"timeUs":1796141207612266,"header":{"requestApiKey":26,"requestApiVersion":1,"correlationId":5,"clientId":"rdkafka"},"body":{"transactionalId":"real-client-txn","producerId":0,"producerEpoch":0,"committed":true}},"response":{"timeUs":1796141207613003,"header":{"correlationId":5},"body":{"throttleTimeMs":0,"errorCode":0}}}
//! ...
//! kafka-wire: tools/analyser/tests/data/real-client.pcap: 769 packets, 166 requests, 162 paired with a response, 0 errors
//!
//! $ kafka-wire tap --listen 127.0.0.1:19092 --upstream 127.0.0.1:9092   # a live client and cluster
//! kafka-wire tap: listening on 127.0.0.1:19092, forwarding to 127.0.0.1:9092
//! kafka-wire tap: node 0 at 127.0.0.1:9092: listening on 127.0.0.1:19093
//! {"connection":"127.0.0.1:50312 -> 127.0.0.1:9092","api":"EndTxn","apiKey":26,"version":1,"correlationId":5,"request":{"timeUs":1796141207612266,"header":{"requestApiKey":26,"requestApiVersion":1,"correlationId":5,"clientId":"rdkafka"},"body":{"transactionalId":"real-client-txn","producerId":0,"producerEpoch":0,"committed":true},"bytes":44},"response":{"timeUs":1796141207613003,"header":{"correlationId":5},"body":{"throttleTimeMs":0,"errorCode":0},"bytes":10},"latencyUs":737}
//! ...
//!
//! $ kafka-wire records 0000000000000000000000...   # a records field: one line per batch
//! $ kafka-wire log tools/analyser/tests/data/log-orders-0       # log segments, batches back to back
//! {"position":82,"size":78,"count":1,"lastOffset":1,"crc":3175127773,"control":{"type":"COMMIT","coordinatorEpoch":1},"baseOffset":1,"partitionLeaderEpoch":-1,"magic":2,"compression":"none","timestampType":"CreateTime","isTransactional":true,"isControl":true,"hasDeleteHorizon":false,"lastOffsetDelta":0,"baseTimestamp":1796141207622,"maxTimestamp":1796141207622,"producerId":0,"producerEpoch":0,"baseSequence":-1,"records":[{"offset":1,"timestamp":1796141207622,"key":"AAAAAQ==","value":"AAAAAAAB","headers":[]}]}
//! ```
//!
//! - `decode` / `encode`: `--api` takes a name (any case) or a key; `--request-header` and
//!   `--response-header` take the header version as `--version` and need no `--api`.
//! - `frames [--max-frame BYTES] FILE`: request frames back to back, as a client writes them; a
//!   frame that cannot be read is reported and skipped, an incomplete last frame is an error.
//!   Frames are read as Kafka's broker reads them: bytes after a body are ignored and counted in
//!   `"trailingBytes"`, present only when there are some (librdkafka's Metadata request for all
//!   topics has one); `pcap` does the same for requests and responses.
//! - `pcap [--port PORT]... FILE`: pcap or pcapng (Ethernet, Linux cooked v1 and v2, BSD loopback,
//!   raw IP). Each TCP connection's two directions are reassembled, frames are cut off each, and a
//!   response is read at the API and version of the request with its correlation id. One line per
//!   request, with its response, or `null` when the capture has none (acks=0 produces, fetches
//!   still waiting when the capture ended); what cannot be read (a hole in the capture, a frame cut
//!   off, a response no request asked for, an unknown API) is a line with `"error"`, the reading
//!   goes on, and the exit status is then 1. Without `--port`, every TCP connection is read and its
//!   client is the side that sent the SYN (or spoke first).
//! - `tap --listen HOST:PORT --upstream HOST:PORT`: a proxy that clients bootstrap from. Frames
//!   are forwarded as they came, in order, and each request is printed with its response as it
//!   happens, in `pcap`'s form with each side's `"bytes"` and the `"latencyUs"` between them.
//!   Responses that say where nodes are (Metadata, FindCoordinator, DescribeCluster, the node
//!   endpoints of Produce, Fetch and the share-group APIs, and KRaft's own) come back with each
//!   node's host and port replaced by a listener of the tap's (`--broker-port`, by default the
//!   listen port plus one, plus the node id; `--advertise` for the host), opened the first time a
//!   response names the node, so that every connection of the client passes through the tap.
//!   `--api NAMES` prints only some APIs, `--bodies none` headers, sizes and times only, `--out
//!   FILE` writes to a file; a summary (requests per API, bytes each way, latency percentiles,
//!   lines dropped) goes to standard error every `--summary` seconds and when the tap stops.
//!   Lines wait in a bounded queue (`--queue`, `--queue-bytes`): when the output cannot keep up,
//!   lines are dropped and counted, and forwarding goes on. On Linux, a frame of 64 KiB or more
//!   is read only as far as its line needs (the header, and a Produce request's `acks`) and the
//!   rest moves from socket to socket in the kernel (`splice(2)` through a pipe; with `--bodies
//!   full`, a copy for the line is taken with `tee(2)`). Produce v10+ and Fetch v16+ responses,
//!   which may end with the `NodeEndpoints` tagged field, are read at field level as they
//!   arrive, their records held in the pipe: one that names no broker goes on untouched, one
//!   that does is read back and rewritten, and one larger than a pipe holds (`--pipe-size`, by
//!   default `/proc/sys/fs/pipe-max-size`) is finished in memory. `--copy`, and every other
//!   system, reads and writes every byte instead; the summary counts the bytes spliced. A frame
//!   above `--max-frame` or too short for a header is reported and both sides of its connection
//!   are closed. Ctrl-C or
//!   SIGTERM stops it: connections close, responses already on their way are still read for up to
//!   two seconds, and every line is written. TLS listeners are out of scope, as are the raw
//!   tokens that follow SaslHandshake v0 (SaslAuthenticate passes like any other request).
//! - `records` and `log`: each batch with its place in the input (`position`, `size`), its header
//!   fields under the names `kafka-dump-log` prints, its records, and for a control batch its
//!   marker (`"control": {"type": "COMMIT", "coordinatorEpoch": 1}`).
