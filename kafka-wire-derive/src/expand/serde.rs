//! The JSON form (`kafka_wire::json`): written only when kafka-wire's `serde` feature is on, so
//! that builds without it pay nothing.

use super::{fields, FieldGen};
use crate::model::Message;
use crate::set::Set;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Whether the JSON form is written: kafka-wire turns this crate's `serde` feature on with its
/// own.
pub const ENABLED: bool = cfg!(feature = "serde");

/// `JsonCodec`, `Serialize` and `Deserialize` for a struct.
pub fn expand(msg: &Message) -> TokenStream {
    let p = &msg.private;
    let j = quote!(#p::json);
    let ident = &msg.input.ident;
    let name = ident.to_string();
    let (all, _) = fields(msg);
    let names: Vec<String> = all
        .iter()
        .map(|g| {
            g.field
                .json_name
                .clone()
                .unwrap_or_else(|| kafka_wire_schema::rules::camel_case(&g.field.name()))
        })
        .collect();
    let count = all.len();

    let written = all.iter().map(written_at);
    let writes = all.iter().zip(&names).enumerate().map(|(i, (g, json))| {
        let (id, ty) = (g.field.ident, &g.field.ast.ty);
        let call = quote_spanned!(ty.span()=> #j::field::<_, #ty>);
        quote!(if __w[#i] { #call(&mut __st, #json, &self.#id, __version)?; })
    });
    let (unknown_write, unknown_count) = match msg.unknown {
        Some(u) => (
            quote! {
                if !#p::UnknownTaggedFields::is_empty(&self.#u) {
                    #j::field(&mut __st, #j::UNKNOWN_TAGGED_FIELDS, &self.#u, __version)?;
                }
            },
            quote!(+ (!#p::UnknownTaggedFields::is_empty(&self.#u) as ::core::primitive::usize)),
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    // Nested structs take the version their message was checked against.
    let version_check = msg.top.as_ref().map(|_| {
        quote! {
            if let ::core::option::Option::Some(__v) = __version {
                if !<Self as #p::Message>::VERSIONS.contains(__v) {
                    return ::core::result::Result::Err(#j::unsupported_version(#name, __v));
                }
            }
        }
    });

    let slots: Vec<_> = (0..count).map(|i| format_ident!("__f{}", i)).collect();
    let declare = all.iter().zip(&slots).map(|(g, slot)| {
        let ty = &g.field.ast.ty;
        quote!(let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;)
    });
    let mut keys: Vec<String> = names.clone();
    let mut reads: Vec<TokenStream> = all
        .iter()
        .zip(&slots)
        .zip(&names)
        .map(|((g, slot), json)| {
            let ty = &g.field.ast.ty;
            let call = quote_spanned!(ty.span()=> #j::next_field::<_, #ty>);
            quote!(#call(&mut __map, &mut #slot, #json)?)
        })
        .collect();
    let mut unknown_declare = TokenStream::new();
    let mut unknown_build = TokenStream::new();
    if let Some(u) = msg.unknown {
        keys.push("_unknownTaggedFields".to_owned());
        reads.push(quote!(#j::next_field(&mut __map, &mut __unknown, #j::UNKNOWN_TAGGED_FIELDS)?));
        unknown_declare = quote! {
            let mut __unknown: ::core::option::Option<#p::UnknownTaggedFields> = ::core::option::Option::None;
        };
        unknown_build = quote! {
            #u: match __unknown {
                ::core::option::Option::Some(__x) => __x,
                ::core::option::Option::None => ::core::default::Default::default(),
            },
        };
    }
    // The key is an index into `__FIELDS`: the last entry takes the `_` arm.
    let dispatch = match reads.split_last() {
        None => quote!(let _ = __k;),
        Some((last, rest)) => {
            let arms = rest.iter().enumerate().map(|(i, read)| {
                let i = Literal::usize_unsuffixed(i);
                quote!(#i => #read,)
            });
            quote!(match __k { #(#arms)* _ => #last, })
        }
    };
    let build = all.iter().zip(&slots).map(|(g, slot)| {
        let id = g.field.ident;
        let default = g.default_value();
        quote! {
            #id: match #slot {
                ::core::option::Option::Some(__x) => __x,
                ::core::option::Option::None => #default,
            },
        }
    });
    let expecting = format!("a {name} object");

    quote! {
        #[automatically_derived]
        #[allow(unused_variables, unused_mut, unused_parens)]
        impl #j::JsonCodec for #ident {
            fn serialize_json<__S: #j::Serializer>(
                &self,
                __version: ::core::option::Option<::core::primitive::i16>,
                __s: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #version_check
                let __w: [::core::primitive::bool; #count] = match __version {
                    ::core::option::Option::None => [true; #count],
                    ::core::option::Option::Some(__v) => [#(#written),*],
                };
                let mut __st = #j::Serializer::serialize_struct(__s, #name, #j::count(&__w) #unknown_count)?;
                #(#writes)*
                #unknown_write
                #j::SerializeStruct::end(__st)
            }

            fn deserialize_json<'de, __D: #j::Deserializer<'de>>(
                __d: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                const __FIELDS: &[&::core::primitive::str] = &[#(#keys),*];
                struct __Visitor;
                impl<'de> #j::Visitor<'de> for __Visitor {
                    type Value = #ident;

                    fn expecting(&self, __f: &mut #j::Formatter<'_>) -> ::core::fmt::Result {
                        __f.write_str(#expecting)
                    }

                    fn visit_map<__A: #j::MapAccess<'de>>(
                        self,
                        mut __map: __A,
                    ) -> ::core::result::Result<#ident, __A::Error> {
                        #(#declare)*
                        #unknown_declare
                        while let ::core::option::Option::Some(__k) = #j::next_key(&mut __map, __FIELDS)? {
                            #dispatch
                        }
                        ::core::result::Result::Ok(#ident {
                            #(#build)*
                            #unknown_build
                        })
                    }
                }
                #j::Deserializer::deserialize_struct(__d, #name, __FIELDS, __Visitor)
            }
        }

        #[automatically_derived]
        impl #j::Serialize for #ident {
            fn serialize<__S: #j::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #j::JsonCodec::serialize_json(self, ::core::option::Option::None, __s)
            }
        }

        #[automatically_derived]
        impl<'de> #j::Deserialize<'de> for #ident {
            fn deserialize<__D: #j::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                #j::JsonCodec::deserialize_json(__d)
            }
        }
    }
}

/// Whether a field is written at version `__v`: in its versions, and for a tagged field only
/// when it holds something other than its default (as Kafka's converter does).
fn written_at(g: &FieldGen) -> TokenStream {
    let present = g.cond_expr(g.field.versions.range);
    let tagged = g.field.tagged_range();
    if tagged.is_empty() {
        return present;
    }
    let t = g.cond_expr(tagged);
    let is_default = g.is_default();
    quote!((#present && !(#t && #is_default)))
}

/// Stubs for a struct whose attributes have errors.
pub fn fallback(input: &syn::DeriveInput, p: &TokenStream) -> TokenStream {
    if !ENABLED {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let j = quote!(#p::json);
    quote! {
        impl #impl_g #j::JsonCodec for #ident #ty_g #where_g {
            fn serialize_json<__S: #j::Serializer>(&self, _: ::core::option::Option<::core::primitive::i16>, _: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                ::core::unreachable!()
            }
            fn deserialize_json<'de, __D: #j::Deserializer<'de>>(_: __D) -> ::core::result::Result<Self, __D::Error> {
                ::core::unreachable!()
            }
        }
    }
}

/// `JsonBody` for an API set: the bare message of each body, read by API key.
pub fn expand_set(set: &Set, key_const: impl Fn(usize) -> syn::Ident) -> TokenStream {
    if !ENABLED {
        return TokenStream::new();
    }
    let p = &set.private;
    let j = quote!(#p::json);
    let ident = &set.input.ident;
    let writes = set.variants.iter().map(|v| {
        let variant = v.ident;
        quote!(Self::#variant(ref __body) => #j::JsonCodec::serialize_json(__body, __version, __s),)
    });
    let reads = set.variants.iter().enumerate().map(|(i, v)| {
        let (variant, ty, key) = (v.ident, v.ty, key_const(i));
        let call = quote_spanned!(ty.span()=> <#ty as #j::JsonCodec>::deserialize_json);
        quote! {
            #key => match #call(__d) {
                ::core::result::Result::Ok(__body) => ::core::result::Result::Ok(Self::#variant(__body)),
                ::core::result::Result::Err(__e) => ::core::result::Result::Err(__e),
            },
        }
    });
    quote! {
        #[automatically_derived]
        impl #j::JsonBody for #ident {
            fn serialize_body<__S: #j::Serializer>(
                &self,
                __version: ::core::option::Option<::core::primitive::i16>,
                __s: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                match *self { #(#writes)* }
            }

            fn deserialize_body<'de, __D: #j::Deserializer<'de>>(
                __key: ::core::primitive::i16,
                __d: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                match __key {
                    #(#reads)*
                    _ => ::core::result::Result::Err(#j::unknown_api_key(__key)),
                }
            }
        }
    }
}
