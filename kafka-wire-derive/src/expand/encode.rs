//! The body of `Codec::encode_value`.

use super::{fields, unknown_ref};
use crate::model::Message;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub fn expand_encode(msg: &Message) -> TokenStream {
    let (all, tagged) = fields(msg);
    let p = &msg.private;
    let regular = all.iter().map(|g| g.regular_or_check(g.encode_stmt()));
    let classic = super::classic_check(msg);
    let section = msg.may_be_flexible().then(|| {
        let unknown = unknown_ref(msg);
        if tagged.is_empty() {
            return quote! {
                if __cx.flexible {
                    #p::write_unknown_tags(__buf, #unknown);
                }
            };
        }
        let flags: Vec<_> = (0..tagged.len()).map(|i| format_ident!("__t{}", i)).collect();
        let decide = tagged.iter().zip(&flags).map(|(g, flag)| {
            let written = g.tagged_written();
            quote!(let #flag: ::core::primitive::bool = #written;)
        });
        let write = tagged.iter().zip(&flags).map(|(g, flag)| {
            let (len, call, tag) = (g.tagged_len_call(), g.try_(g.tagged_encode_call()), g.tag());
            // The size is written before the value, so it is computed first; `field` refuses
            // one the prefix cannot carry.
            let start = g.try_(quote!(__w.field(__buf, #tag, #len)));
            quote! {
                if #flag {
                    #start;
                    #call;
                }
            }
        });
        quote! {
            if __cx.flexible {
                #(#decide)*
                let __known: ::core::primitive::usize = 0 #(+ (#flags as ::core::primitive::usize))*;
                let mut __w = #p::TaggedWriter::start(__buf, #unknown, __known);
                #(#write)*
                __w.finish(__buf);
            }
        }
    });
    quote! {
        #classic
        #(#regular)*
        #section
    }
}
