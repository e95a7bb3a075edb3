//! `txn-broker`: start brokers of a small transactional cluster (see `--help`).
#![forbid(unsafe_code)]

fn main() {
    eprintln!("txn-broker: not yet wired up");
    std::process::exit(2);
}
