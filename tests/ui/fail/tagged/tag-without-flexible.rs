use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-2")]
pub struct Request {
    #[kafka(versions = "0+", tag = 0, tagged = "0+")]
    pub id: i32,
}

fn main() {}
