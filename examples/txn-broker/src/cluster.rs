//! The shape of a cluster: its brokers and their ports, its topics, which broker coordinates
//! transactions, and which broker leads each partition.
//!
//! The brokers of one cluster share a data directory; the cluster file there (`cluster.txt`,
//! see [`Cluster::to_text`]) is the one source of truth for leadership, so moving a partition's
//! leader is an edit of that file that every broker picks up.

use std::collections::BTreeMap;
use std::fmt;

/// A broker's id, as Kafka numbers brokers.
pub type BrokerId = i32;

/// One partition of one topic.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        Self {
            topic: topic.into(),
            partition,
        }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Where a broker listens: clients on one port, other brokers (the coordinator's markers) on
/// another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerInfo {
    pub id: BrokerId,
    pub host: String,
    pub client_port: u16,
    pub broker_port: u16,
}

/// A topic and its partition count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    pub name: String,
    pub partitions: i32,
}

/// Brokers, topics, the transaction coordinator and the leader of every partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub brokers: Vec<BrokerInfo>,
    pub topics: Vec<Topic>,
    /// The broker that runs the transaction coordinator (one for every transactional id).
    pub coordinator: BrokerId,
    /// The leader of each partition of each topic.
    pub leaders: BTreeMap<TopicPartition, BrokerId>,
}

/// A cluster file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cluster file, line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ParseError {}

impl Cluster {
    /// `brokers` brokers with ids 0.. on `host`, broker `i` taking client port `base_port + i`
    /// and broker port `base_port + 100 + i`; the partitions of every topic spread over the
    /// brokers round robin; broker 0 coordinates.
    pub fn new(host: &str, base_port: u16, brokers: i32, topics: &[(&str, i32)]) -> Self {
        let brokers: Vec<BrokerInfo> = (0..brokers.max(1))
            .map(|id| BrokerInfo {
                id,
                host: host.to_owned(),
                client_port: base_port.wrapping_add(id as u16),
                broker_port: base_port.wrapping_add(100).wrapping_add(id as u16),
            })
            .collect();
        let mut leaders = BTreeMap::new();
        let mut next = 0usize;
        let topics: Vec<Topic> = topics
            .iter()
            .map(|&(name, partitions)| Topic {
                name: name.to_owned(),
                partitions,
            })
            .collect();
        for topic in &topics {
            for partition in 0..topic.partitions {
                leaders.insert(
                    TopicPartition::new(topic.name.clone(), partition),
                    brokers[next % brokers.len()].id,
                );
                next += 1;
            }
        }
        Self {
            coordinator: brokers[0].id,
            brokers,
            topics,
            leaders,
        }
    }

    pub fn broker(&self, id: BrokerId) -> Option<&BrokerInfo> {
        self.brokers.iter().find(|b| b.id == id)
    }

    pub fn topic(&self, name: &str) -> Option<&Topic> {
        self.topics.iter().find(|t| t.name == name)
    }

    /// The leader of `tp`, or `None` for a partition the cluster does not have.
    pub fn leader(&self, tp: &TopicPartition) -> Option<BrokerId> {
        self.leaders.get(tp).copied()
    }

    /// The partitions `broker` leads.
    pub fn led_by(&self, broker: BrokerId) -> impl Iterator<Item = &TopicPartition> + '_ {
        self.leaders
            .iter()
            .filter(move |(_, &b)| b == broker)
            .map(|(tp, _)| tp)
    }

    /// Makes `to` the leader of `tp`; false when either is unknown.
    pub fn move_leader(&mut self, tp: &TopicPartition, to: BrokerId) -> bool {
        if self.broker(to).is_none() {
            return false;
        }
        match self.leaders.get_mut(tp) {
            Some(leader) => {
                *leader = to;
                true
            }
            None => false,
        }
    }

    /// The cluster file: one line per fact, in a fixed order.
    ///
    /// ```text
    /// broker 0 127.0.0.1 9092 9192
    /// topic orders 3
    /// coordinator 0
    /// leader orders 0 0
    /// ```
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for b in &self.brokers {
            out += &format!(
                "broker {} {} {} {}\n",
                b.id, b.host, b.client_port, b.broker_port
            );
        }
        for t in &self.topics {
            out += &format!("topic {} {}\n", t.name, t.partitions);
        }
        out += &format!("coordinator {}\n", self.coordinator);
        for (tp, leader) in &self.leaders {
            out += &format!("leader {} {} {}\n", tp.topic, tp.partition, leader);
        }
        out
    }

    /// Reads what [`Cluster::to_text`] writes. Blank lines and `#` comments are skipped.
    pub fn from_text(text: &str) -> Result<Self, ParseError> {
        let mut cluster = Cluster {
            brokers: Vec::new(),
            topics: Vec::new(),
            coordinator: 0,
            leaders: BTreeMap::new(),
        };
        let mut coordinator = None;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |reason: &str| ParseError {
                line,
                reason: reason.to_owned(),
            };
            let words: Vec<&str> = raw.split_whitespace().collect();
            let num = |s: &str| s.parse::<i32>().map_err(|_| err("expected a number"));
            let port = |s: &str| s.parse::<u16>().map_err(|_| err("expected a port"));
            match words.as_slice() {
                [] => {}
                [first, ..] if first.starts_with('#') => {}
                ["broker", id, host, client, broker] => cluster.brokers.push(BrokerInfo {
                    id: num(id)?,
                    host: (*host).to_owned(),
                    client_port: port(client)?,
                    broker_port: port(broker)?,
                }),
                ["topic", name, partitions] => cluster.topics.push(Topic {
                    name: (*name).to_owned(),
                    partitions: num(partitions)?,
                }),
                ["coordinator", id] => coordinator = Some(num(id)?),
                ["leader", topic, partition, id] => {
                    cluster
                        .leaders
                        .insert(TopicPartition::new(*topic, num(partition)?), num(id)?);
                }
                _ => return Err(err("unknown line")),
            }
        }
        cluster.coordinator = coordinator.ok_or(ParseError {
            line: 0,
            reason: "no coordinator line".to_owned(),
        })?;
        Ok(cluster)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_partitions_and_round_trips_through_text() {
        let mut c = Cluster::new("127.0.0.1", 9092, 3, &[("orders", 3), ("payments", 2)]);
        assert_eq!(c.leader(&TopicPartition::new("orders", 0)), Some(0));
        assert_eq!(c.leader(&TopicPartition::new("orders", 2)), Some(2));
        assert_eq!(c.leader(&TopicPartition::new("payments", 0)), Some(0));
        assert_eq!(c.led_by(1).count(), 2);
        assert!(c.move_leader(&TopicPartition::new("orders", 0), 2));
        assert!(!c.move_leader(&TopicPartition::new("orders", 9), 2));
        assert!(!c.move_leader(&TopicPartition::new("orders", 0), 7));
        let text = c.to_text();
        assert_eq!(Cluster::from_text(&text).unwrap(), c);
        assert_eq!(Cluster::from_text("broker x").unwrap_err().line, 1);
    }
}
