//! `#[derive(ApiSet)]`: one `match` per operation; the API facts are constants read from the
//! wrapped messages, and the rules only the compiler can check are constants that fail at the
//! variant's type.

use super::{view, wrap};
use crate::attr;
use crate::ctxt::Ctxt;
use crate::set::{self, Set, Side};
use crate::versions::RangeExt as _;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let container = attr::SetContainer::from_ast(&cx, &input.attrs);
    let private = set::private_path(&container);
    let set = Set::from_ast(&cx, input, container, private.clone());
    match (cx.check(), set) {
        (Ok(()), Some(set)) => {
            let mut out = if view::ENABLED {
                expand_view_type(&set)
            } else {
                TokenStream::new()
            };
            out.extend(wrap(expand_impls(&set)));
            out
        }
        (Err(err), set) => {
            let response_set = set.as_ref().and_then(|s| match &s.side {
                Some(Side::Requests { response_set }) => Some(response_set.clone()),
                _ => None,
            });
            let mut out = err.to_compile_error();
            out.extend(wrap(fallback(input, &private, response_set.as_ref())));
            if view::ENABLED
                && matches!(input.data, syn::Data::Enum(_))
                && input.generics.params.is_empty()
            {
                let (vis, view) = (&input.vis, view_ident(&input.ident));
                let ident = &input.ident;
                out.extend(quote! {
                    #[derive(Clone, Copy, Debug)]
                    #vis enum #view<'a> {
                        #[doc(hidden)]
                        __Unreachable(::core::marker::PhantomData<&'a ()>),
                    }
                    const _: () = {
                        impl<'a> #private::BodyView<'a> for #view<'a> {
                            type Body = #ident;
                            fn api(&self) -> &'static #private::ApiInfo {
                                ::core::unreachable!()
                            }
                            fn into_owned(self) -> #ident {
                                ::core::unreachable!()
                            }
                        }
                    };
                });
            }
            out
        }
        // `from_ast` returns `None` only after recording an error.
        (Ok(()), None) => TokenStream::new(),
    }
}

/// Stub impls, so that uses of the set report nothing more while its errors are fixed.
fn fallback(
    input: &syn::DeriveInput,
    p: &TokenStream,
    response_set: Option<&syn::Path>,
) -> TokenStream {
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let requests = response_set.map(|r| {
        quote! {
            impl #impl_g #p::RequestSet for #ident #ty_g #where_g {
                type Responses = #r;
            }
        }
    });
    let view = view_ident(ident);
    let view_items = view::ENABLED.then(|| {
        quote! {
            type View<'a> = #view<'a>;
            fn walk_view(_: ::core::primitive::i16, _: #p::Source<'_>, _: ::core::primitive::i16, _: #p::Reading, _: &mut #p::ViewIndex) -> ::core::result::Result<#p::Walked, #p::DecodeError> {
                ::core::unreachable!()
            }
            fn walked_view<'a>(_: ::core::primitive::i16, _: #p::Walked, _: #p::Source<'a>, _: &'a #p::ViewIndex) -> ::core::option::Option<#view<'a>> {
                ::core::unreachable!()
            }
        }
    });
    quote! {
        impl #impl_g #p::ApiSet for #ident #ty_g #where_g {
            const APIS: &'static [#p::ApiInfo] = &[];
            #view_items
            fn api(&self) -> &'static #p::ApiInfo {
                ::core::unreachable!()
            }
            fn decode(_: ::core::primitive::i16, _: &mut #p::Bytes, _: ::core::primitive::i16) -> ::core::result::Result<Self, #p::DecodeError> {
                ::core::unreachable!()
            }
            fn encode(&self, _: &mut impl #p::Sink, _: ::core::primitive::i16) -> ::core::result::Result<(), #p::EncodeError> {
                ::core::unreachable!()
            }
            fn encoded_len(&self, _: ::core::primitive::i16) -> ::core::result::Result<::core::primitive::usize, #p::EncodeError> {
                ::core::unreachable!()
            }
        }
        #requests
    }
}

/// `decode` and `encoded_len` are `#[inline]`, as the message derive's methods that are not
/// generic: a set of every Kafka API then costs machine code only in the crates that use it.
fn expand_impls(set: &Set) -> TokenStream {
    let p = &set.private;
    let ident = &set.input.ident;
    let (side, side_impl) = match &set.side {
        Some(Side::Requests { response_set }) => {
            let bound = quote_spanned!(response_set.span()=> #response_set);
            (
                quote!(#p::Side::Request),
                quote! {
                    #[automatically_derived]
                    impl #p::RequestSet for #ident {
                        type Responses = #bound;
                    }
                },
            )
        }
        _ => (
            quote!(#p::Side::Response),
            quote! {
                #[automatically_derived]
                impl #p::ResponseSet for #ident {}
            },
        ),
    };
    // The one place each variant's type is asked for its key, so that a type that is not an API
    // message is one error at the variant.
    let keys = set.variants.iter().enumerate().map(|(i, v)| {
        let (ty, key) = (v.ty, key_const(i));
        quote_spanned!(ty.span()=> const #key: ::core::primitive::i16 = <#ty as #p::ApiMessage>::API_KEY;)
    });
    let infos = set.variants.iter().enumerate().map(|(i, v)| {
        let (ty, key) = (v.ty, key_const(i));
        let name = &v.name;
        let header_v0 = v.header_v0.to_tokens(p);
        quote_spanned!(ty.span()=> #p::api_info::<#ty>(#key, #name, #header_v0, #side))
    });
    let apis = set.variants.iter().enumerate().map(|(i, v)| {
        let variant = v.ident;
        quote!(Self::#variant(_) => &<Self as #p::ApiSet>::APIS[#i],)
    });
    let decodes = set.variants.iter().enumerate().map(|(i, v)| {
        let (variant, ty, key) = (v.ident, v.ty, key_const(i));
        quote! {
            #key => match <#ty as #p::Decode>::decode(__buf, __version) {
                ::core::result::Result::Ok(__body) => ::core::result::Result::Ok(Self::#variant(__body)),
                ::core::result::Result::Err(__e) => ::core::result::Result::Err(__e),
            },
        }
    });
    let per_body = |method: TokenStream| {
        let arms = set.variants.iter().map(move |v| {
            let variant = v.ident;
            quote!(Self::#variant(ref __body) => #method,)
        });
        quote!(match *self { #(#arms)* })
    };
    let view = view_ident(ident);
    let walks = set.variants.iter().enumerate().map(|(i, v)| {
        let (ty, key) = (v.ty, key_const(i));
        quote!(#key => #p::walk_view::<#ty>(__src, __version, __reading, __index),)
    });
    let walked = set.variants.iter().enumerate().map(|(i, v)| {
        let (variant, ty, key) = (v.ident, v.ty, key_const(i));
        quote!(#key => ::core::option::Option::Some(#view::#variant(__walked.view::<#ty>(__src, __index))),)
    });
    let view_apis = set.variants.iter().enumerate().map(|(i, v)| {
        let variant = v.ident;
        quote!(Self::#variant(_) => &<#ident as #p::ApiSet>::APIS[#i],)
    });
    let owned = set.variants.iter().map(|v| {
        let variant = v.ident;
        quote!(Self::#variant(__body) => #ident::#variant(__body.into_owned()),)
    });
    let view_items = view::ENABLED.then(|| {
        quote! {
            type View<'a> = #view<'a>;

            #[inline]
            fn walk_view(
                __key: ::core::primitive::i16,
                __src: #p::Source<'_>,
                __version: ::core::primitive::i16,
                __reading: #p::Reading,
                __index: &mut #p::ViewIndex,
            ) -> ::core::result::Result<#p::Walked, #p::DecodeError> {
                match __key {
                    #(#walks)*
                    _ => ::core::result::Result::Err(#p::unknown_api_key(__key, __src.bytes().len())),
                }
            }

            #[inline]
            fn walked_view<'a>(
                __key: ::core::primitive::i16,
                __walked: #p::Walked,
                __src: #p::Source<'a>,
                __index: &'a #p::ViewIndex,
            ) -> ::core::option::Option<#view<'a>> {
                match __key {
                    #(#walked)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    let view_impls = view::ENABLED.then(|| {
        quote! {
        #[automatically_derived]
        impl<'a> #p::BodyView<'a> for #view<'a> {
            type Body = #ident;

            #[inline]
            fn api(&self) -> &'static #p::ApiInfo {
                match *self { #(#view_apis)* }
            }

            #[inline]
            fn into_owned(self) -> #ident {
                match self { #(#owned)* }
            }
        }

        #[automatically_derived]
        impl<'a> #view<'a> {
            /// The API of this body.
            #[inline]
            pub fn api(&self) -> &'static #p::ApiInfo {
                #p::BodyView::api(self)
            }

            /// The owned body, equal to what decoding the same bytes gives.
            #[inline]
            pub fn into_owned(self) -> #ident {
                #p::BodyView::into_owned(self)
            }
        }
        }
    });
    let encode = per_body(quote!(#p::Encode::encode(__body, __buf, __version)));
    let encoded_len = per_body(quote!(#p::Encode::encoded_len(__body, __version)));
    let checks = checks(set);
    let json = super::serde::expand_set(set, key_const);
    quote! {
        #(#keys)*

        #[automatically_derived]
        impl #p::ApiSet for #ident {
            const APIS: &'static [#p::ApiInfo] = &[#(#infos),*];

            #view_items

            #[inline]
            fn api(&self) -> &'static #p::ApiInfo {
                match *self { #(#apis)* }
            }

            #[inline]
            fn decode(__key: ::core::primitive::i16, __buf: &mut #p::Bytes, __version: ::core::primitive::i16) -> ::core::result::Result<Self, #p::DecodeError> {
                match __key {
                    #(#decodes)*
                    _ => ::core::result::Result::Err(#p::unknown_api_key(__key, __buf.len())),
                }
            }

            fn encode(&self, __buf: &mut impl #p::Sink, __version: ::core::primitive::i16) -> ::core::result::Result<(), #p::EncodeError> {
                #encode
            }

            #[inline]
            fn encoded_len(&self, __version: ::core::primitive::i16) -> ::core::result::Result<::core::primitive::usize, #p::EncodeError> {
                #encoded_len
            }
        }

        #view_impls

        #side_impl

        #checks

        #json
    }
}

/// Constants that fail to evaluate, at the variant's type, when two variants share an API key
/// or a request has no response in the response set; and at the response set when it answers
/// an API the request set lacks.
fn checks(set: &Set) -> TokenStream {
    let p = &set.private;
    let ident = &set.input.ident;
    let mut out = TokenStream::new();
    for (i, v) in set.variants.iter().enumerate().skip(1) {
        let msg = format!(
            "variant `{}` wraps a message with the API key of an earlier variant; each API appears once in a set",
            v.ident
        );
        out.extend(quote_spanned! {v.ty.span()=>
            const _: () = ::core::assert!(#p::key_is_new(<#ident as #p::ApiSet>::APIS, #i), #msg);
        });
    }
    if let Some(Side::Requests { response_set }) = &set.side {
        let responses = quote!(<#response_set as #p::ApiSet>::APIS);
        for (i, v) in set.variants.iter().enumerate() {
            let (ty, key) = (v.ty, key_const(i));
            let msg = format!(
                "the response set `{}` has no API with the key of variant `{}`",
                path_name(response_set),
                v.ident
            );
            out.extend(quote_spanned! {ty.span()=>
                const _: () = ::core::assert!(#p::has_key(#responses, #key), #msg);
            });
        }
        let msg = format!(
            "the response set `{}` has an API that `{ident}` lacks; the two sets list the same APIs",
            path_name(response_set)
        );
        out.extend(quote_spanned! {response_set.span()=>
            const _: () = ::core::assert!(#p::keys_within(#responses, <#ident as #p::ApiSet>::APIS), #msg);
        });
    }
    out
}

/// The view type of a set, beside the set (outside the anonymous const, as users name it):
/// `<Set>View<'a>`, a variant per API holding the view of its message.
fn expand_view_type(set: &Set) -> TokenStream {
    let (ident, vis, p) = (&set.input.ident, &set.input.vis, &set.private);
    let view = view_ident(ident);
    let doc = format!(
        "The borrowed view of a [`{ident}`]: the view of the message of one of its APIs, as \
`ApiSet::view` opens it."
    );
    let variants = set.variants.iter().map(|v| {
        let (variant, ty) = (v.ident, v.ty);
        let doc = format!("The view of a `{}` body.", path_name_ty(ty));
        quote_spanned!(ty.span()=> #[doc = #doc] #variant(#p::ViewOf<'a, #ty>),)
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        #vis enum #view<'a> {
            #(#variants)*
        }
    }
}

/// The name of a set's view type.
fn view_ident(set: &syn::Ident) -> syn::Ident {
    quote::format_ident!("{}View", set)
}

fn path_name_ty(ty: &syn::Type) -> String {
    quote!(#ty).to_string().replace(' ', "")
}

/// The constant holding the key of variant `i`.
fn key_const(i: usize) -> syn::Ident {
    quote::format_ident!("__KEY_{}", i)
}

fn path_name(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}
