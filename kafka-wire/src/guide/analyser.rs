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
//! - `records` and `log`: each batch with its place in the input (`position`, `size`), its header
//!   fields under the names `kafka-dump-log` prints, its records, and for a control batch its
//!   marker (`"control": {"type": "COMMIT", "coordinatorEpoch": 1}`).
