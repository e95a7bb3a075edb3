//! Message wording, checked on the expansion without a compiler: each case builds an input with
//! `parse_quote!` and reads back the `compile_error!` messages.

use proc_macro2::{TokenStream, TokenTree};
use syn::parse_quote;

/// The messages of every `compile_error!` in `tokens`, in order.
fn errors_in(tokens: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    for window in tokens.windows(3) {
        if let [TokenTree::Ident(name), TokenTree::Punct(bang), TokenTree::Group(args)] = window {
            if name == "compile_error" && bang.as_char() == '!' {
                let lit: syn::LitStr = syn::parse2(args.stream()).expect("a string literal");
                out.push(lit.value());
            }
        }
    }
    out
}

pub(crate) fn errors_of(tokens: TokenStream) -> Vec<String> {
    errors_in(tokens)
}

fn errors(input: syn::DeriveInput) -> Vec<String> {
    errors_in(crate::expand::derive(&input))
}

/// The one error `input` must produce.
fn error(input: syn::DeriveInput) -> String {
    let mut errors = errors(input);
    assert_eq!(
        errors.len(),
        1,
        "expected exactly one error, got {errors:#?}"
    );
    errors.remove(0)
}

#[test]
fn a_valid_message_has_no_errors() {
    let expanded = crate::expand::derive(&parse_quote! {
        #[kafka(key = 27, versions = "0-2", flexible = "1+")]
        struct Request {
            #[kafka(versions = "0+", nullable = "1+")]
            name: Option<String>,
            #[kafka(versions = "1+", tag = 0, tagged = "1+", default = -1)]
            epoch: i32,
            #[kafka(unknown_tagged_fields)]
            unknown_tagged_fields: UnknownTaggedFields,
        }
    });
    assert_eq!(errors_in(expanded.clone()), Vec::<String>::new());
    let text = expanded.to_string();
    assert!(text.contains("ApiMessage for Request"), "{text}");
}

#[test]
fn unknown_field_key_lists_the_accepted_keys() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", taged = "1+")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "unknown kafka field attribute `taged`; expected one of `versions`, `nullable`, `tag`, \
         `tagged`, `default`, `ignorable`, `flexible`, `json_name`, `unknown_tagged_fields`"
    );
}

#[test]
fn unknown_struct_key_lists_the_accepted_keys() {
    let msg = error(parse_quote! {
        #[kafka(version = "0-2")]
        struct Request {}
    });
    assert_eq!(
        msg,
        "unknown kafka struct attribute `version`; expected one of `key`, `versions`, `flexible`, \
         `crate`, `no_setters`, `reserved_tags`, `view`"
    );
}

#[test]
fn a_misspelt_key_is_not_also_a_missing_one() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(version = "0+")]
            id: i32,
        }
    });
    assert!(
        msg.starts_with("unknown kafka field attribute `version`;"),
        "{msg}"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            id: i32,
            name: String,
        }
    });
    assert_eq!(
        msg,
        "missing `versions` on field `name`; add e.g. `#[kafka(versions = \"0+\")]`"
    );
}

#[test]
fn keys_after_an_unknown_one_are_still_read() {
    let errors = errors(parse_quote! {
        struct Entry {
            #[kafka(nulable = "0+", versions = "0+", versions = "1+")]
            name: Option<String>,
        }
    });
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].starts_with("unknown kafka field attribute `nulable`"));
    assert_eq!(errors[1], "duplicate kafka attribute `versions`");
}

#[test]
fn duplicate_key_is_reported_once() {
    let msg = error(parse_quote! {
        #[kafka(key = 1, versions = "0-2", key = 2)]
        struct Request {}
    });
    assert_eq!(msg, "duplicate kafka attribute `key`");
}

#[test]
fn range_errors_name_the_range_and_do_not_cascade() {
    // A rejected `versions` is not also a missing one.
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "3-1")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "invalid version range `3-1`: start is greater than end"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0-")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "expected a version range such as `0-3`, `2+`, `1` or `none`, found `0-`"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = 2)]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "`versions` takes a quoted version range such as `\"0-3\"`, `\"2+\"` or `\"none\"`"
    );
}

#[test]
fn a_rejected_struct_value_skips_the_checks_against_it() {
    // The bad `flexible` would otherwise also make the tagged field "not within" it.
    let msg = error(parse_quote! {
        #[kafka(versions = "0-2", flexible = "1")]
        struct Request {
            #[kafka(versions = "1+", tag = 0, tagged = "1+")]
            id: i32,
            #[kafka(unknown_tagged_fields)]
            unknown_tagged_fields: UnknownTaggedFields,
        }
    });
    assert_eq!(
        msg,
        "`flexible` versions must be open-ended, like `1+`, or `none`"
    );
    let msg = error(parse_quote! {
        #[kafka(versions = "0-2", flexible = "1+-")]
        struct Request {
            #[kafka(versions = "1+", tag = 0, tagged = "1+")]
            id: i32,
        }
    });
    assert!(msg.starts_with("expected a version range"), "{msg}");
}

#[test]
fn key_and_tag_bounds() {
    let msg = error(parse_quote! {
        #[kafka(key = 40000, versions = "0-2")]
        struct Request {}
    });
    assert_eq!(msg, "`key` must be an integer from 0 to 32767");
    let msg = error(parse_quote! {
        #[kafka(key = -1, versions = "0-2")]
        struct Request {}
    });
    assert_eq!(msg, "`key` must be an integer from 0 to 32767");
    let msg = error(parse_quote! {
        #[kafka(key = 27)]
        struct Request {}
    });
    assert_eq!(
        msg,
        "`key` needs `versions` on the struct, e.g. `versions = \"0-2\"`"
    );
}

#[test]
fn flexible_rules() {
    let msg = error(parse_quote! {
        #[kafka(versions = "0-2", flexible = "3+")]
        struct Request {
            #[kafka(unknown_tagged_fields)]
            unknown_tagged_fields: UnknownTaggedFields,
        }
    });
    assert_eq!(
        msg,
        "`flexible` versions `3+` start after the last valid version `2`"
    );
    let msg = error(parse_quote! {
        #[kafka(versions = "0-2", flexible = "1+")]
        struct Request {}
    });
    assert_eq!(
        msg,
        "a message with flexible versions needs a field \
         `#[kafka(unknown_tagged_fields)] unknown_tagged_fields: UnknownTaggedFields`"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", flexible = "none")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "only string and bytes fields can override `flexible` versions"
    );
}

#[test]
fn tag_rules() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", tag = 0, tagged = "0+")]
            transactional_id: String,
            #[kafka(versions = "0+", tag = 0, tagged = "0+")]
            producer_id: i64,
        }
    });
    assert_eq!(msg, "tag 0 is already used by field `transactional_id`");
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", tag = 1, tagged = "0+")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "tags must be numbered from 0 without gaps; expected tag 0 before tag 1 (tags that \
         only versions left out of this struct use go in `reserved_tags`)"
    );
    let msg = error(parse_quote! {
        #[kafka(versions = "0-2")]
        struct Request {
            #[kafka(versions = "0+", tag = 0, tagged = "0+")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "a tagged field needs flexible versions, and the message has none; \
         add e.g. `flexible = \"0+\"` to the struct's `#[kafka(...)]`"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", tag = 0)]
            id: i32,
        }
    });
    assert_eq!(msg, "`tag` needs `tagged` versions, e.g. `tagged = \"0+\"`");
}

#[test]
fn reserved_tags_fill_gaps_and_stay_unused() {
    // A struct made of the stable versions of a schema whose unstable version added tag 0.
    assert!(errors(parse_quote! {
        #[kafka(reserved_tags = "0")]
        struct Entry {
            #[kafka(versions = "0+", tag = 1, tagged = "0+")]
            kept: i32,
        }
    })
    .is_empty());
    let msg = error(parse_quote! {
        #[kafka(reserved_tags = "0, 1")]
        struct Entry {
            #[kafka(versions = "0+", tag = 1, tagged = "0+")]
            kept: i32,
        }
    });
    assert_eq!(msg, "tag 1 is reserved but used by field `kept`");
    let msg = error(parse_quote! {
        #[kafka(reserved_tags = "0, 1")]
        struct Entry {
            #[kafka(versions = "0+", tag = 3, tagged = "0+")]
            kept: i32,
        }
    });
    assert!(
        msg.starts_with("tags must be numbered from 0 without gaps; expected tag 2 before tag 3"),
        "{msg}"
    );
    let msg = error(parse_quote! {
        #[kafka(reserved_tags = "0 1")]
        struct Entry {}
    });
    assert_eq!(
        msg,
        "`reserved_tags` takes a quoted list of tags such as `\"0\"` or `\"0, 3\"`"
    );
}

#[test]
fn uuid_defaults_are_kafkas_text_form() {
    assert!(errors(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", default = "AAAAAAAAAAAAAAAAAAAAAQ")]
            id: Uuid,
            #[kafka(versions = "0+", default = "AAAAAAAAAAAAAAAAAAAAAQ==")]
            padded: Uuid,
        }
    })
    .is_empty());
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", default = "00000000-0000-0000-0000-000000000001")]
            id: Uuid,
        }
    });
    assert!(
        msg.starts_with("invalid uuid default `00000000-0000-0000-0000-000000000001`"),
        "{msg}"
    );
}

#[test]
fn an_empty_default_is_the_empty_value_of_bytes_arrays_and_structs() {
    assert!(errors(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", nullable = "0+", default = "")]
            names: Option<Vec<String>>,
            #[kafka(versions = "0+", nullable = "0+", default = "")]
            data: Option<Bytes>,
            #[kafka(versions = "0+", nullable = "0+", default = "")]
            inner: Option<Inner>,
        }
    })
    .is_empty());
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", default = "x")]
            names: Vec<String>,
        }
    });
    assert_eq!(
        msg,
        "a string default does not fit field type `Vec<String>`"
    );
}

#[test]
fn a_local_path_names_a_struct_whatever_its_name() {
    // `self::Box`, `self::Option` and `self::String` are structs of the crate, not Rust's.
    assert!(errors(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            boxes: Vec<self::Box>,
            #[kafka(versions = "0+", nullable = "0+")]
            option: Option<self::Option>,
            #[kafka(versions = "0+")]
            string: crate::String,
        }
    })
    .is_empty());
    // A nullable field of a local struct named `String` is still a struct: it may be null.
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            boxes: self::Box<i32>,
        }
    });
    assert!(
        msg.starts_with("unsupported field type `self::Box<i32>`"),
        "{msg}"
    );
}

#[test]
fn a_field_left_out_for_its_own_error_keeps_its_tag() {
    // Tag 0 is on a field with an unsupported type; tag 1 is not a gap.
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", tag = 0, tagged = "0+")]
            offset: u64,
            #[kafka(versions = "0+", tag = 1, tagged = "0+")]
            id: i32,
        }
    });
    assert!(
        msg.starts_with("unsupported field type `u64`; expected `bool`"),
        "{msg}"
    );
}

#[test]
fn nullable_rules() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", nullable = "0+")]
            id: i32,
        }
    });
    assert_eq!(
        msg,
        "`i32` cannot be null on the wire, so it cannot be `nullable`; \
         only strings, bytes, records, arrays and structs can"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            id: Option<i32>,
        }
    });
    assert_eq!(
        msg,
        "`i32` cannot be null on the wire; use `i32` instead of `Option<i32>`"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", nullable = "0+")]
            name: String,
        }
    });
    assert_eq!(
        msg,
        "a `nullable` field needs an `Option` type to hold the null; use `Option<String>`"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            name: Option<String>,
        }
    });
    assert_eq!(
        msg,
        "`Option` field without `nullable` versions; add e.g. `nullable = \"0+\"` or drop the `Option`"
    );
}

#[test]
fn default_rules() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "1+", default = 300)]
            level: i8,
        }
    });
    assert_eq!(
        msg,
        "default `300` does not fit in `i8`, which holds -128 to 127"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "1+", default = "-1")]
            id: i32,
        }
    });
    assert_eq!(msg, "a string default does not fit field type `i32`");
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+", nullable = "1+", default = "null")]
            name: Option<String>,
        }
    });
    assert_eq!(
        msg,
        "default `null` needs the field to be `nullable` in all its versions `0+`"
    );
}

#[test]
fn flags_take_no_value() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "1+", ignorable = true)]
            id: i32,
        }
    });
    assert_eq!(msg, "`ignorable` takes no value; write `ignorable` alone");
    let msg = error(parse_quote! {
        #[kafka(no_setters = "yes")]
        struct Entry {}
    });
    assert_eq!(msg, "`no_setters` takes no value; write `no_setters` alone");
}

#[test]
fn type_errors_show_the_type_as_written() {
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            name: &'static str,
        }
    });
    assert!(
        msg.starts_with("unsupported field type `&'static str`;"),
        "{msg}"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            configs: HashMap<String, String>,
        }
    });
    assert!(
        msg.starts_with("unsupported field type `HashMap<String, String>`;"),
        "{msg}"
    );
    let msg = error(parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            payload: Vec<u8>,
        }
    });
    assert_eq!(
        msg,
        "unsupported field type `Vec<u8>`; use `Bytes` for Kafka `bytes`, or `Vec<i8>` for an array of `int8`"
    );
}

#[test]
fn shapes_other_than_a_struct_with_named_fields() {
    let msg = error(parse_quote! {
        enum Entry { A }
    });
    assert_eq!(
        msg,
        "`KafkaMessage` can only be derived for structs, not enums"
    );
    let msg = error(parse_quote! {
        struct Entry(i32);
    });
    assert_eq!(
        msg,
        "`KafkaMessage` needs a struct with named fields; each field is a schema field"
    );
}

#[test]
fn unknown_tagged_fields_stands_alone() {
    let errors = errors(parse_quote! {
        struct Entry {
            #[kafka(unknown_tagged_fields, versions = "0+")]
            unknown_tagged_fields: Vec<u8>,
            #[kafka(unknown_tagged_fields)]
            more: UnknownTaggedFields,
        }
    });
    assert_eq!(
        errors,
        [
            "`unknown_tagged_fields` cannot be combined with other kafka attributes",
            "the `unknown_tagged_fields` field must have type `kafka_wire::UnknownTaggedFields`",
            "only one field may hold `unknown_tagged_fields`",
        ]
    );
}

#[test]
fn every_mistake_is_reported_in_one_pass() {
    let errors = errors(parse_quote! {
        #[kafka(key = 27, versions = "0-2", flexible = "1+")]
        struct Request {
            #[kafka(versions = "2-0")]
            id: i32,
            #[kafka(versions = "0+", nullable = "0+")]
            epoch: i16,
            #[kafka(versions = "1+", tag = 0, tagged = "1+", default = 300)]
            level: i8,
            #[kafka(versions = "1+", tag = 0, tagged = "1+")]
            name: Option<String>,
            #[kafka(unknown_tagged_fields)]
            unknown_tagged_fields: UnknownTaggedFields,
        }
    });
    assert_eq!(errors.len(), 5, "{errors:#?}");
}

#[test]
fn error_paths_name_raw_fields_without_their_prefix() {
    let expanded = crate::expand::derive(&parse_quote! {
        struct Entry {
            #[kafka(versions = "0+")]
            r#type: i8,
        }
    });
    assert_eq!(errors_in(expanded.clone()), Vec::<String>::new());
    let text = expanded.to_string();
    assert!(
        text.contains("at_field (__e , \"Entry\" , \"type\")"),
        "{text}"
    );
}

/// The setters of `input`'s expansion, as `name (parameter)`, in field order.
fn setters(input: syn::DeriveInput) -> Vec<String> {
    let expanded = crate::expand::derive(&input);
    assert_eq!(errors_in(expanded.clone()), Vec::<String>::new());
    let text = expanded.to_string();
    text.split("fn with_")
        .skip(1)
        .map(|rest| {
            let sig = &rest[..rest.find(" -> Self").expect("a setter returns Self")];
            format!("with_{}", sig.replace("(mut self , ", "("))
        })
        .collect()
}

#[test]
fn every_field_has_a_setter_strings_and_bytes_take_conversions() {
    let found = setters(parse_quote! {
        #[kafka(versions = "0-1", flexible = "1+")]
        pub struct Request {
            #[kafka(versions = "0+")]
            pub name: KafkaString,
            #[kafka(versions = "0+", nullable = "0+")]
            pub id: Option<KafkaString>,
            #[kafka(versions = "0+")]
            pub r#type: i8,
            #[kafka(versions = "0+")]
            pub metadata: Bytes,
            #[kafka(versions = "0+")]
            pub topics: Vec<Topic>,
            #[kafka(versions = "0+")]
            pub partitions: IntArray<i32>,
            #[kafka(unknown_tagged_fields)]
            pub unknown_tagged_fields: UnknownTaggedFields,
        }
    });
    assert_eq!(
        found,
        [
            "with_name (name : impl :: core :: convert :: Into < KafkaString >)",
            "with_id (id : Option < KafkaString >)",
            "with_type (r#type : i8)",
            "with_metadata (metadata : impl :: core :: convert :: Into < Bytes >)",
            "with_topics (topics : Vec < Topic >)",
            "with_partitions (partitions : IntArray < i32 >)",
            "with_unknown_tagged_fields (unknown_tagged_fields : UnknownTaggedFields)",
        ]
    );
}

#[test]
fn no_setters_leaves_them_out() {
    let found = setters(parse_quote! {
        #[kafka(versions = "0", no_setters)]
        pub struct Request {
            #[kafka(versions = "0+")]
            pub id: i32,
        }
    });
    assert_eq!(found, Vec::<String>::new());
}
