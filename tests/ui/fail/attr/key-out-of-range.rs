use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(key = 40000, versions = "0-2")]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
}

fn main() {}
