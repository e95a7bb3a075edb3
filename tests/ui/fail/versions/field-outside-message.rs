use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-2")]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(versions = "3+")]
    pub epoch: i16,
}

fn main() {}
