use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "3-1")]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
}

fn main() {}
