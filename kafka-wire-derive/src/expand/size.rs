//! The body of `Codec::value_len`: the same walk as the encoder, adding sizes. Nothing here
//! fails: every value the encoder refuses is refused there, so the sizer is a plain
//! (saturating) sum.

use super::{fields, unknown_ref, FieldGen};
use crate::model::Message;
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand_size(msg: &Message) -> TokenStream {
    let (all, tagged) = fields(msg);
    let p = &msg.private;
    // Fixed-size fields add to a sum of their own, so that the sizes of integers do not wait,
    // one saturating add after another, on the calls that size strings and arrays. Integers,
    // booleans and floats in every version of the struct are one constant.
    let always = |g: &&FieldGen| g.fixed().is_some() && g.always_regular();
    let constant = all.iter().filter(always).map(|g| {
        let fixed = g.fixed();
        quote!(+ #fixed::LEN)
    });
    let regular = all.iter().filter(|g| !always(g)).map(|g| {
        let len = g.len_call();
        if let Some(fixed) = g.fixed() {
            return g.regular_only(quote!(__fixed += #fixed::LEN;));
        }
        let add = match g.fixed_len() {
            Some(fixed) => quote! {
                match #fixed {
                    ::core::option::Option::Some(__n) => __fixed = __fixed.saturating_add(__n),
                    ::core::option::Option::None => __len = __len.saturating_add(#len),
                }
            },
            None => quote!(__len = __len.saturating_add(#len);),
        };
        g.regular_only(add)
    });
    let section = msg.may_be_flexible().then(|| {
        let unknown = unknown_ref(msg);
        if tagged.is_empty() {
            return quote! {
                if __cx.flexible {
                    __len = __len.saturating_add(#p::unknown_tags_len(#unknown));
                }
            };
        }
        let add = tagged.iter().map(|g| {
            let (written, len, tag) = (g.tagged_written(), g.tagged_len_call(), g.tag());
            quote! {
                if #written {
                    __tagged.field(#tag, #len);
                }
            }
        });
        quote! {
            if __cx.flexible {
                let mut __tagged = #p::TaggedLen::new(#unknown);
                #(#add)*
                __len = __len.saturating_add(__tagged.finish());
            }
        }
    });
    quote! {
        let mut __fixed: ::core::primitive::usize = 0 #(#constant)*;
        #(#regular)*
        #section
        __len = __len.saturating_add(__fixed);
    }
}
