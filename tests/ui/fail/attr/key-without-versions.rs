use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(key = 27)]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
}

fn main() {}
