//! API-set wording and expansion, checked without a compiler (see `tests.rs`).

use crate::tests::errors_of;
use syn::parse_quote;

fn errors(input: syn::DeriveInput) -> Vec<String> {
    errors_of(crate::expand::set::derive(&input))
}

#[test]
fn a_valid_request_set_links_its_responses_and_names_the_crate() {
    let expanded = crate::expand::set::derive(&parse_quote! {
        #[kafka(requests, response_set = Responses, crate = "kw")]
        enum Requests {
            Ping(PingRequest),
            #[kafka(name = "Versions", header_v0 = "0")]
            ApiVersions(kw::messages::ApiVersionsRequest),
        }
    });
    assert_eq!(errors_of(expanded.clone()), Vec::<String>::new());
    let text = expanded.to_string().replace(' ', "");
    assert!(
        text.contains("implkw::__private::RequestSetforRequests{typeResponses=Responses;}"),
        "{text}"
    );
    assert!(text.contains("\"Versions\""), "{text}");
    assert!(!text.contains("kafka_wire"), "{text}");
}

#[test]
fn a_response_set_needs_no_link() {
    let expanded = crate::expand::set::derive(&parse_quote! {
        #[kafka(responses)]
        enum Responses {
            Ping(PingResponse),
        }
    });
    assert_eq!(errors_of(expanded.clone()), Vec::<String>::new());
    assert!(expanded.to_string().contains("ResponseSet for Responses"));
}

#[test]
fn the_side_must_be_given_once() {
    assert_eq!(
        errors(parse_quote! { enum Set { Ping(PingRequest) } }),
        ["an API set holds requests or responses: add `#[kafka(requests, response_set = MyResponses)]` or `#[kafka(responses)]`"]
    );
    assert_eq!(
        errors(parse_quote! {
            #[kafka(requests, responses, response_set = R)]
            enum Set { Ping(PingRequest) }
        }),
        ["a set holds `requests` or `responses`, not both; write one set of each"]
    );
    assert_eq!(
        errors(parse_quote! {
            #[kafka(requests)]
            enum Set { Ping(PingRequest) }
        }),
        ["a request set names the set of its responses: add `response_set = MyResponses`"]
    );
    assert_eq!(
        errors(parse_quote! {
            #[kafka(responses, response_set = R)]
            enum Set { Ping(PingResponse) }
        }),
        ["`response_set` belongs on a set of `requests`; a response set has none"]
    );
}

#[test]
fn every_misshapen_variant_is_reported() {
    let shape = "each variant of an API set wraps one message, as in `Fetch(FetchRequest)`";
    assert_eq!(
        errors(parse_quote! {
            #[kafka(responses)]
            enum Set { Ping, Pong { body: PongResponse }, Two(A, B), Fine(FineResponse) }
        }),
        [shape, shape, shape]
    );
}

#[test]
fn keys_and_values_are_checked_at_their_tokens() {
    assert_eq!(
        errors(parse_quote! {
            #[kafka(responses, crate = 3)]
            enum Set {
                #[kafka(header_v1 = "0")]
                Ping(PingResponse),
                #[kafka(header_v0 = "2-1", name = "")]
                Pong(PongResponse),
            }
        }),
        [
            "`crate` takes a quoted path such as `\"kafka_wire\"` or `\"my_facade::kafka_wire\"`",
            "unknown kafka variant attribute `header_v1`; expected one of `name`, `header_v0`",
            "invalid version range `2-1`: start is greater than end",
            "`name` takes a non-empty quoted string",
        ]
    );
    assert_eq!(
        errors(parse_quote! {
            #[kafka(responses, sorted)]
            enum Set { Ping(PingResponse) }
        }),
        ["unknown kafka enum attribute `sorted`; expected one of `requests`, `responses`, `response_set`, `crate`"]
    );
}

#[test]
fn api_names_are_unique() {
    assert_eq!(
        errors(parse_quote! {
            #[kafka(responses)]
            enum Set {
                Ping(PingResponse),
                #[kafka(name = "Ping")]
                Pong(PongResponse),
            }
        }),
        ["API name `Ping` is already used by variant `Ping`; set another with `#[kafka(name = \"...\")]`"]
    );
}

#[test]
fn only_plain_enums_are_sets() {
    assert_eq!(
        errors(parse_quote! { #[kafka(responses)] struct Set(PingResponse); }),
        ["`ApiSet` can only be derived for enums, one variant per API"]
    );
    assert_eq!(
        errors(parse_quote! { #[kafka(responses)] enum Set<T> { Ping(T) } }),
        ["`ApiSet` does not support generic enums; the set's APIs are fixed"]
    );
}
