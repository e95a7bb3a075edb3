//! The rules a merged model must keep before anything is written, one function per rule;
//! what a single file gets wrong is found when it is parsed.

use crate::model::{Api, Message};
use crate::schema::{Kind, Literal};
use kafka_wire_schema::rules;

/// Every problem of `messages` under the rules that need the merged model.
pub fn messages(messages: &[Message]) -> Vec<String> {
    let mut problems = Vec::new();
    for msg in messages {
        check_null_defaults(msg, &mut problems);
    }
    problems
}

/// A field defaulting to null is null wherever it exists: Kafka fills an absent field with its
/// default, and a version where it cannot be null would have nothing to fill it with.
fn check_null_defaults(msg: &Message, problems: &mut Vec<String>) {
    for s in &msg.structs {
        for f in &s.fields {
            let null = f.default.as_ref().is_some_and(|d| d.value == Literal::Null);
            if null && !rules::null_default_fits(f.versions, f.nullable) {
                problems.push(format!(
                    "{}.{}.{}: default `null` but nullable in versions {} of {}",
                    msg.name, s.name, f.name, f.nullable, f.versions
                ));
            }
        }
    }
}

/// The APIs of `messages` by key: each request has a key and a response with the same key, for
/// API sets dispatch on the key and answer with the response.
pub fn apis(messages: &[Message]) -> Result<Vec<Api<'_>>, Vec<String>> {
    let mut apis = Vec::new();
    let mut problems = Vec::new();
    for request in messages.iter().filter(|m| m.kind == Kind::Request) {
        let Some(key) = request.api_key else {
            problems.push(format!("{}: request without apiKey", request.name));
            continue;
        };
        let response = messages
            .iter()
            .find(|m| m.kind == Kind::Response && m.api_key == Some(key));
        match response {
            Some(response) => apis.push(Api {
                key,
                request,
                response,
            }),
            None => problems.push(format!(
                "{}: no response schema with apiKey {key}",
                request.name
            )),
        }
    }
    apis.sort_by_key(|api| api.key);
    if problems.is_empty() {
        Ok(apis)
    } else {
        Err(problems)
    }
}
