//! Setters: a `with_<field>` per field, the way to build a message outside its crate when the
//! struct is `#[non_exhaustive]`.

use crate::model::{Kind, Message};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt as _;

/// `impl Struct { with_<field> .. }`, or nothing under `#[kafka(no_setters)]`.
///
/// Each setter is `#[inline]`: like every inherent method that is not generic, it is then
/// compiled only where it is called, so a catalogue of messages pays for its setters in parsing
/// and type checking alone.
pub fn expand_setters(msg: &Message) -> TokenStream {
    let syn::Data::Struct(data) = &msg.input.data else {
        return TokenStream::new();
    };
    if !msg.setters {
        return TokenStream::new();
    }
    let setters = data.fields.iter().filter_map(|field| {
        let ident = field.ident.as_ref()?;
        let name = ident.unraw();
        let setter = format_ident!("with_{}", name, span = ident.span());
        let (vis, ty) = (&field.vis, &field.ty);
        let doc = format!("Sets `{name}`.");
        // Strings and bytes take anything that converts (`with_name("x")`); every other type
        // is taken as it is, so that `with_topics(iter.collect())`, `with_id(5)` and
        // `with_name(None)` infer their types from the field.
        let into = msg
            .fields
            .iter()
            .find(|f| f.ident == ident)
            .is_some_and(|f| !f.ty.option && matches!(f.ty.kind, Kind::Str | Kind::Bytes));
        let (param, value) = if into {
            (
                quote!(impl ::core::convert::Into<#ty>),
                quote!(::core::convert::Into::into(#ident)),
            )
        } else {
            (quote!(#ty), quote!(#ident))
        };
        Some(quote! {
            #[doc = #doc]
            #[inline]
            #[must_use]
            #vis fn #setter(mut self, #ident: #param) -> Self {
                self.#ident = #value;
                self
            }
        })
    });
    let ident = &msg.input.ident;
    quote! {
        #[automatically_derived]
        impl #ident {
            #(#setters)*
        }
    }
}
