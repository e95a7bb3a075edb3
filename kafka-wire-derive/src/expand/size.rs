//! The body of `Codec::value_len`: the same walk as the encoder, adding sizes. Nothing here
//! fails: every value the encoder refuses is refused there, so the sizer is a plain
//! (saturating) sum.

use super::{fields, unknown_ref};
use crate::model::Message;
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand_size(msg: &Message) -> TokenStream {
    let (all, tagged) = fields(msg);
    let p = &msg.private;
    let regular = all.iter().map(|g| {
        let len = g.fixed_or_len_call();
        g.regular_only(quote!(__len = __len.saturating_add(#len);))
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
            let (written, len, tag) = (g.tagged_written(), g.len_call(), g.tag());
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
        #(#regular)*
        #section
    }
}
