//! The body of `Codec::value_len`: the same walk as the encoder, adding sizes.

use super::{fields, unknown_ref};
use crate::model::Message;
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand_size(msg: &Message) -> TokenStream {
    let (all, tagged) = fields(msg);
    let regular = all.iter().map(|g| {
        let len = g.fixed_or_len_call();
        g.regular_or_check(quote!(__len += #len;))
    });
    let classic = super::classic_check(msg);
    let section = msg.may_be_flexible().then(|| {
        let unknown = unknown_ref(msg);
        if tagged.is_empty() {
            return quote! {
                if __cx.flexible {
                    __len += ::kafka_wire::__private::unknown_tags_len(#unknown);
                }
            };
        }
        let add = tagged.iter().map(|g| {
            let (written, len, tag) = (g.tagged_written(), g.try_(g.len_call()), g.tag());
            quote! {
                if #written {
                    __tagged.field(#tag, #len);
                }
            }
        });
        quote! {
            if __cx.flexible {
                let mut __tagged = ::kafka_wire::__private::TaggedLen::new(#unknown);
                #(#add)*
                __len += __tagged.finish();
            }
        }
    });
    quote! {
        #classic
        #(#regular)*
        #section
    }
}
