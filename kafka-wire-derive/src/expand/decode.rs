//! The body of `Codec::decode_value`.

use super::fields;
use crate::model::Message;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub fn expand_decode(msg: &Message) -> TokenStream {
    let (all, tagged) = fields(msg);
    let p = &msg.private;
    let local = |g: &super::FieldGen| format_ident!("__f_{}", g.field.ident);
    let reads = all.iter().map(|g| {
        let name = local(g);
        let ty = &g.field.ast.ty;
        let mutable = g.field.is_tagged().then(|| quote!(mut));
        let (call, default) = (g.try_(g.decode_call(quote!(__buf))), g.default_value());
        let regular = g.regular();
        let value = if regular.is_empty() {
            default
        } else {
            match g.cond(regular) {
                None => call,
                Some(c) => quote!(if #c { #call } else { #default }),
            }
        };
        quote!(let #mutable #name: #ty = #value;)
    });
    let unknown_local = msg.unknown.map(|_| quote!(let mut __unknown = <#p::UnknownTaggedFields as ::core::default::Default>::default();));
    let section = msg.may_be_flexible().then(|| {
        let arms = tagged.iter().map(|g| {
            let name = local(g);
            let (call, tag) = (g.try_(g.tagged_decode_call(quote!(__data))), g.tag());
            let guard = g.cond(g.field.tagged_range()).map(|c| quote!(if #c));
            quote! {
                #tag #guard => {
                    #name = #call;
                    ::core::result::Result::Ok(true)
                }
            }
        });
        let sink = match msg.unknown {
            Some(_) => quote!(::core::option::Option::Some(&mut __unknown)),
            None => quote!(::core::option::Option::None),
        };
        // Most structs know no tagged field: no closure for them.
        if tagged.is_empty() {
            return quote! {
                if __cx.flexible {
                    #p::decode_tagged(__buf, __cx, #sink, &mut #p::no_known_tags)?;
                }
            };
        }
        quote! {
            if __cx.flexible {
                #p::decode_tagged(__buf, __cx, #sink, &mut |__tag: ::core::primitive::u32, __data: &mut #p::Bytes| -> ::core::result::Result<::core::primitive::bool, #p::DecodeError> {
                    match __tag {
                        #(#arms)*
                        _ => ::core::result::Result::Ok(false),
                    }
                })?;
            }
        }
    });
    let inits = all.iter().map(|g| {
        let ident = g.field.ident;
        let name = local(g);
        quote!(#ident: #name,)
    });
    let unknown_init = msg.unknown.map(|ident| {
        if msg.may_be_flexible() {
            quote!(#ident: __unknown,)
        } else {
            quote!(#ident: ::core::default::Default::default(),)
        }
    });
    let unknown_local = if msg.may_be_flexible() {
        unknown_local
    } else {
        None
    };
    let value = quote! {
        Self {
            #(#inits)*
            #unknown_init
        }
    };
    // A nested struct is read into its slot (`Codec::decode_into`), a message returned.
    let value = if msg.top.is_none() {
        quote!(__slot.fill(#value))
    } else {
        value
    };
    quote! {
        #(#reads)*
        #unknown_local
        #section
        ::core::result::Result::Ok(#value)
    }
}
