//! Orchestration: raw attributes -> model -> checks -> code, and the fallback impls on error.

mod decode;
mod encode;
mod serde;
pub mod set;
mod setters;
mod size;
#[cfg(feature = "views")]
pub(crate) mod view;
/// Views are off: the derive writes none, and the view generator is not compiled.
#[cfg(not(feature = "views"))]
pub(crate) mod view {
    use crate::model::Message;
    use proc_macro2::TokenStream;

    pub const ENABLED: bool = false;

    pub fn expand_type(_: &Message) -> TokenStream {
        TokenStream::new()
    }

    pub fn expand_impls(_: &Message) -> TokenStream {
        TokenStream::new()
    }

    pub fn fallback(_: &syn::DeriveInput, _: &syn::Ident, _: &TokenStream) -> TokenStream {
        TokenStream::new()
    }
}

use crate::attr::{self, DefaultLit};
use crate::ctxt::Ctxt;
use crate::model::{self, Field, Message};
use crate::validate;
use crate::versions::RangeExt as _;
use kafka_wire_schema::VersionRange;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let container = attr::Container::from_ast(&cx, &input.attrs);
    let private = model::private_path(container.krate.get());
    // A struct the derive refuses whole (no named fields, generics) gets no view type either.
    let view_name = (view::ENABLED
        && matches!(
            &input.data,
            syn::Data::Struct(syn::DataStruct {
                fields: syn::Fields::Named(_),
                ..
            })
        )
        && input.generics.params.is_empty())
    .then(|| model::view_ident(input, &container));
    let msg = Message::from_ast(&cx, input, container, private.clone());
    if let Some(msg) = &msg {
        validate::check(&cx, msg);
    }
    let is_top = msg.as_ref().is_some_and(|m| m.top.is_some());
    match (cx.check(), msg) {
        (Ok(()), Some(msg)) => {
            let mut out = if view::ENABLED {
                view::expand_type(&msg)
            } else {
                TokenStream::new()
            };
            out.extend(wrap(expand_impls(&msg)));
            out
        }
        (Err(err), _) => {
            let mut out = err.to_compile_error();
            out.extend(wrap(fallback(input, is_top, &private)));
            if let Some(view) = view_name {
                out.extend(view::fallback(input, &view, &private));
            }
            out
        }
        // `from_ast` returns `None` only after recording an error.
        (Ok(()), None) => TokenStream::new(),
    }
}

/// One anonymous const per expansion, so helper items never leak into the user's scope.
pub(crate) fn wrap(items: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        // `non_snake_case`: decoder locals are named after the fields, which may keep Kafka's
        // camelCase names under the user's own `allow`.
        // `unreachable_patterns`: two variants of an API set with one key are the compile error
        // that names the second; the warning would only repeat it.
        #[allow(non_upper_case_globals, non_snake_case, unused_qualifications, unreachable_patterns, clippy::all, clippy::pedantic)]
        const _: () = {
            #items
        };
    }
}

/// Stub impls that spare users a second wave of "trait not implemented" errors wherever the
/// type is used while the schema errors are being fixed.
fn fallback(input: &syn::DeriveInput, is_top: bool, p: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let json = serde::fallback(input, p);
    let message = is_top.then(|| {
        quote! {
            impl #impl_g #p::Message for #ident #ty_g #where_g {
                const NAME: &'static ::core::primitive::str = "";
                const VERSIONS: #p::VersionRange = #p::VersionRange::NONE;
                const FLEXIBLE_VERSIONS: #p::VersionRange = #p::VersionRange::NONE;
            }
        }
    });
    quote! {
        impl #impl_g #p::Codec for #ident #ty_g #where_g {
            fn encode_value<__B: #p::Sink>(&self, _: &mut __B, _: #p::Ctx) -> ::core::result::Result<(), #p::EncodeError> {
                ::core::unreachable!()
            }
            fn value_len(&self, _: #p::Ctx) -> ::core::primitive::usize {
                ::core::unreachable!()
            }
            fn decode_value(_: &mut #p::Bytes, _: #p::Ctx) -> ::core::result::Result<Self, #p::DecodeError> {
                ::core::unreachable!()
            }
        }
        impl #impl_g #p::Fields for #ident #ty_g #where_g {
            const FIELDS: &'static [#p::FieldInfo] = &[];
        }
        impl #impl_g #p::NullableCodec for #ident #ty_g #where_g {}
        #message
        #json
    }
}

/// `decode_value` and `value_len` are not generic: they are compiled in the crate that defines
/// the message. A nested struct is decoded by `decode_into`, which writes its fields straight
/// into the place that keeps it (an array's element), and `decode_value` reads it through a
/// slot on the stack. That `decode_value` is `#[inline]`, so compiled only where a struct is
/// read on its own rather than for every nested struct, which keeps a share of the library's
/// code from the compiler's backend. The runtime's `slot` module says why decoding into a slot
/// beats inlining the decoder into every array.
///
/// A nested struct's `value_len` is `#[inline]`, so that an array's loop sizes its elements
/// without a call each: arrays of structs size markedly faster so, and the library builds as
/// fast (BENCHMARKS.md, "Why the code is written so").
fn expand_impls(msg: &Message) -> TokenStream {
    let ident = &msg.input.ident;
    let p = &msg.private;
    let encode = encode::expand_encode(msg);
    let size = size::expand_size(msg);
    let decode = decode::expand_decode(msg);
    let min_len = min_len(msg);
    let infos = msg.fields.iter().map(|f| field_info(f, p));
    let json = serde::ENABLED.then(|| serde::expand(msg));
    let setters = setters::expand_setters(msg);
    let views = view::ENABLED.then(|| view::expand_impls(msg));
    let message = msg.top.as_ref().map(|top| {
        let name = ident.to_string();
        let versions = top.versions.range.to_tokens(p);
        let flexible = top.flexible_range().to_tokens(p);
        let api = top.key.as_ref().map(|(key, _)| {
            quote! {
                #[automatically_derived]
                impl #p::ApiMessage for #ident {
                    const API_KEY: ::core::primitive::i16 = #key;
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl #p::Message for #ident {
                const NAME: &'static ::core::primitive::str = #name;
                const VERSIONS: #p::VersionRange = #versions;
                const FLEXIBLE_VERSIONS: #p::VersionRange = #flexible;
            }
            #api
        }
    });
    let len_inline = msg.top.is_none().then(|| quote!(#[inline]));
    let decode_fn = if msg.top.is_none() {
        quote! {
            #[inline]
            fn decode_value(__buf: &mut #p::Bytes, __cx: #p::Ctx) -> ::core::result::Result<Self, #p::DecodeError> {
                #p::decode_via_slot(__buf, __cx)
            }

            fn decode_into<'__a>(__buf: &mut #p::Bytes, __cx: #p::Ctx, __slot: #p::Slot<'__a, Self>) -> ::core::result::Result<#p::Filled<'__a, Self>, #p::DecodeError> {
                let __v = __cx.version;
                #decode
            }
        }
    } else {
        quote! {
            fn decode_value(__buf: &mut #p::Bytes, __cx: #p::Ctx) -> ::core::result::Result<Self, #p::DecodeError> {
                let __v = __cx.version;
                #decode
            }
        }
    };
    quote! {
        #[automatically_derived]
        #[allow(unused_variables, unused_mut, unused_parens)]
        impl #p::Codec for #ident {
            const MIN_LEN: ::core::primitive::usize = #min_len;

            fn encode_value<__B: #p::Sink>(&self, __buf: &mut __B, __cx: #p::Ctx) -> ::core::result::Result<(), #p::EncodeError> {
                let __v = __cx.version;
                #encode
                ::core::result::Result::Ok(())
            }

            #len_inline
            fn value_len(&self, __cx: #p::Ctx) -> ::core::primitive::usize {
                let __v = __cx.version;
                let mut __len: ::core::primitive::usize = 0;
                #size
                __len
            }

            #decode_fn
        }

        #[automatically_derived]
        impl #p::Fields for #ident {
            const FIELDS: &'static [#p::FieldInfo] = &[#(#infos),*];
        }

        // A nullable struct is a presence byte (-1 null, 1 present) and the struct: the
        // trait's default methods.
        #[automatically_derived]
        impl #p::NullableCodec for #ident {}

        #message
        #json
        #setters
        #views
    }
}

/// `Codec::MIN_LEN` of the struct: what the fields present in every version of it take at least
/// (a nullable one, a null at least, which is one byte), plus the tagged section's byte when
/// every version is flexible. Tagged fields may be absent and count for nothing.
fn min_len(msg: &Message) -> TokenStream {
    let p = &msg.private;
    let universe = msg.universe();
    let fields = msg
        .fields
        .iter()
        .filter(|f| !f.is_tagged() && universe.within(f.versions.range))
        .map(|f| {
            let inner = f.ty.inner;
            let codec = quote_spanned!(inner.span()=> <#inner as #p::Codec>::MIN_LEN);
            if f.ty.option {
                quote!(if #codec < 1 { #codec } else { 1 })
            } else {
                codec
            }
        });
    let tags = msg
        .top
        .as_ref()
        .is_some_and(|t| universe.within(t.flexible_range()))
        .then(|| quote!(+ 1));
    quote!(0 #(+ (#fields))* #tags)
}

/// A field's `FieldInfo`: its attributes as the derive understood them.
fn field_info(f: &Field, p: &TokenStream) -> TokenStream {
    let name = f.name();
    let versions = f.versions.range.to_tokens(p);
    let nullable = f.nullable_range().to_tokens(p);
    let tag = match &f.tag {
        Some((t, _)) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let tagged = f.tagged_range().to_tokens(p);
    let flexible = match &f.flexible {
        Some(s) => {
            let r = s.range.to_tokens(p);
            quote!(::core::option::Option::Some(#r))
        }
        None => quote!(::core::option::Option::None),
    };
    let default = match f.default.as_ref().map(|d| &d.value) {
        None => quote!(::core::option::Option::None),
        Some(lit) => {
            let value = match lit {
                DefaultLit::Int(v) => {
                    let abs = Literal::u128_unsuffixed(v.unsigned_abs());
                    let sign = (*v < 0).then(|| quote!(-));
                    quote!(#p::DefaultInfo::Int(#sign #abs))
                }
                DefaultLit::Float(v) => {
                    let value = float_literal(*v);
                    quote!(#p::DefaultInfo::Float(#value))
                }
                DefaultLit::Bool(b) => quote!(#p::DefaultInfo::Bool(#b)),
                DefaultLit::Str(s) => quote!(#p::DefaultInfo::Str(#s)),
                DefaultLit::Null => quote!(#p::DefaultInfo::Null),
                DefaultLit::Uuid(v) => {
                    let v = Literal::u128_suffixed(*v);
                    quote!(#p::DefaultInfo::Uuid(#p::Uuid::from_u128(#v)))
                }
            };
            quote!(::core::option::Option::Some(#value))
        }
    };
    let ignorable = f.ignorable;
    quote! {
        #p::FieldInfo {
            name: #name,
            versions: #versions,
            nullable: #nullable,
            tag: #tag,
            tagged: #tagged,
            flexible: #flexible,
            default: #default,
            ignorable: #ignorable,
        }
    }
}

/// Per-field pieces shared by the encoder, the sizer and the decoder, so that a rule lives in
/// one place.
pub(crate) struct FieldGen<'a> {
    pub field: &'a Field<'a>,
    ty_name: String,
    universe: VersionRange,
    /// The path of the runtime's `__private`.
    p: &'a TokenStream,
}

impl<'a> FieldGen<'a> {
    pub fn new(msg: &'a Message, field: &'a Field<'a>) -> Self {
        FieldGen {
            field,
            ty_name: msg.input.ident.to_string(),
            universe: msg.universe(),
            p: &msg.private,
        }
    }

    /// Versions where the field sits among the regular fields: its versions minus the tagged
    /// ones (a suffix, as `tagged` is open-ended).
    pub fn regular(&self) -> VersionRange {
        let v = self.field.versions.range;
        match self.field.tagged_range().start() {
            None => v,
            Some(tagged) => v.before(tagged),
        }
    }

    /// Condition for `range`, `None` when it always holds.
    pub fn cond(&self, range: VersionRange) -> Option<TokenStream> {
        range.condition(self.universe)
    }

    /// Condition for `range` as an expression.
    pub fn cond_expr(&self, range: VersionRange) -> TokenStream {
        self.cond(range).unwrap_or_else(|| quote!(true))
    }

    /// The context passed to the field's codec.
    pub fn ctx(&self) -> TokenStream {
        match &self.field.flexible {
            None => quote!(__cx),
            Some(f) => {
                let c = self.cond_expr(f.range);
                quote!(__cx.with_flexible(#c))
            }
        }
    }

    /// The value of `call`, or a return of its error with this field added to the path.
    ///
    /// A plain `match` rather than `.map_err(..)?`: the compiler then builds one result per
    /// field instead of three, which is a third of the code the backend sees for a message.
    pub fn try_(&self, call: TokenStream) -> TokenStream {
        let err = self.err(quote!(__e));
        quote! {
            match #call {
                ::core::result::Result::Ok(__ok) => __ok,
                ::core::result::Result::Err(__e) => return ::core::result::Result::Err(#err),
            }
        }
    }

    /// `error` with this field added to its path.
    pub fn err(&self, error: TokenStream) -> TokenStream {
        let ty = &self.ty_name;
        let field = self.field.name();
        let p = self.p;
        quote!(#p::at_field(#error, #ty, #field))
    }

    pub fn nullable(&self) -> TokenStream {
        self.cond_expr(self.field.nullable_range())
    }

    /// A call of the field's codec: `Codec::<method>` on the type, or for an `Option` the
    /// private `<option_fn>`, which also takes whether the version is nullable. Spanned at the
    /// type, so that a missing impl is reported on the field.
    fn codec_call(&self, method: &str, option_fn: &str, args: TokenStream) -> TokenStream {
        let inner = self.field.ty.inner;
        let cx = self.ctx();
        let span = inner.span();
        let p = self.p;
        if self.field.ty.option {
            let function = format_ident!("{}", option_fn);
            let nullable = self.nullable();
            let call = quote_spanned!(span=> #p::#function::<#inner>);
            quote!(#call(#args #cx, #nullable))
        } else {
            let method = format_ident!("{}", method);
            let codec = quote_spanned!(span=> <#inner as #p::Codec>);
            quote!(#codec::#method(#args #cx))
        }
    }

    /// Writes `self.<field>` into `__buf`.
    pub fn encode_call(&self) -> TokenStream {
        let ident = self.field.ident;
        self.codec_call(
            "encode_value",
            "encode_option",
            quote!(&self.#ident, __buf,),
        )
    }

    /// The size of `self.<field>`.
    pub fn len_call(&self) -> TokenStream {
        let ident = self.field.ident;
        self.codec_call("value_len", "option_len", quote!(&self.#ident,))
    }

    /// [`encode_call`](Self::encode_call) in the tagged section, where a nullable struct's
    /// presence is a varint (`NullableCodec`'s `tagged_` methods).
    pub fn tagged_encode_call(&self) -> TokenStream {
        let ident = self.field.ident;
        self.codec_call(
            "encode_value",
            "encode_tagged_option",
            quote!(&self.#ident, __buf,),
        )
    }

    /// [`len_call`](Self::len_call) in the tagged section.
    pub fn tagged_len_call(&self) -> TokenStream {
        let ident = self.field.ident;
        self.codec_call("value_len", "tagged_option_len", quote!(&self.#ident,))
    }

    /// [`decode_call`](Self::decode_call) in the tagged section.
    pub fn tagged_decode_call(&self, buf: TokenStream) -> TokenStream {
        self.codec_call("decode_value", "decode_tagged_option", quote!(#buf,))
    }

    /// `<T as Codec>::FIXED_LEN` of the field's type, `None` for an optional field.
    pub fn fixed_len(&self) -> Option<TokenStream> {
        if self.field.ty.option {
            return None;
        }
        let inner = self.field.ty.inner;
        let p = self.p;
        Some(quote_spanned!(inner.span()=> <#inner as #p::Codec>::FIXED_LEN))
    }

    /// `<T as Fixed>` when the field is an integer, a `bool` or an `f64` (not an `Option`):
    /// written with no error path and sized by a constant. Spanned at the type, like the codec
    /// calls.
    pub fn fixed(&self) -> Option<TokenStream> {
        let ty = &self.field.ty;
        let fixed = matches!(
            ty.kind,
            model::Kind::Int { .. } | model::Kind::Bool | model::Kind::Float
        );
        if ty.option || !fixed {
            return None;
        }
        let (inner, p) = (ty.inner, self.p);
        Some(quote_spanned!(inner.span()=> <#inner as #p::Fixed>))
    }

    /// Writes the field into `__buf`, returning its error with the field's path.
    pub fn encode_stmt(&self) -> TokenStream {
        let ident = self.field.ident;
        match self.fixed() {
            Some(fixed) => quote!(#fixed::put(self.#ident, __buf);),
            None => {
                let call = self.try_(self.encode_call());
                quote!(#call;)
            }
        }
    }

    /// Reads the field from `buf`.
    pub fn decode_call(&self, buf: TokenStream) -> TokenStream {
        self.codec_call("decode_value", "decode_option", quote!(#buf,))
    }

    /// True when `self.<field>` holds its default.
    pub fn is_default(&self) -> TokenStream {
        let f = self.field;
        let ident = f.ident;
        let ty = &f.ast.ty;
        match f.default.as_ref().map(|d| &d.value) {
            // As in Kafka, a nullable field without a default defaults to the empty value, not
            // to null: `default = "null"` asks for null.
            None if f.ty.option => {
                let inner = f.ty.inner;
                quote!(::core::option::Option::as_ref(&self.#ident) == ::core::option::Option::Some(&<#inner as ::core::default::Default>::default()))
            }
            None => quote!(self.#ident == <#ty as ::core::default::Default>::default()),
            Some(DefaultLit::Null) => quote!(::core::option::Option::is_none(&self.#ident)),
            Some(DefaultLit::Str(s)) if f.ty.option => {
                quote!(::core::option::Option::as_deref(&self.#ident) == ::core::option::Option::Some(#s))
            }
            // Compares bytes: no UTF-8 check on the way to `str`.
            Some(DefaultLit::Str(s)) => {
                quote!(<#ty as ::core::cmp::PartialEq<::core::primitive::str>>::eq(&self.#ident, #s))
            }
            Some(lit) => {
                let value = literal(f, lit, self.p);
                quote!(self.#ident == #value)
            }
        }
    }

    /// The field's value when the version lacks it.
    pub fn default_value(&self) -> TokenStream {
        let f = self.field;
        let ty = &f.ast.ty;
        let inner = f.ty.inner;
        match f.default.as_ref().map(|d| &d.value) {
            None if f.ty.option => {
                quote!(::core::option::Option::Some(<#inner as ::core::default::Default>::default()))
            }
            None => quote!(<#ty as ::core::default::Default>::default()),
            Some(DefaultLit::Null) => quote!(::core::option::Option::None),
            Some(DefaultLit::Str(s)) if f.ty.option => {
                quote!(::core::option::Option::Some(<#inner as ::core::convert::From<&'static ::core::primitive::str>>::from(#s)))
            }
            Some(DefaultLit::Str(s)) => {
                quote!(<#inner as ::core::convert::From<&'static ::core::primitive::str>>::from(#s))
            }
            Some(lit) => literal(f, lit, self.p),
        }
    }

    /// Returns the non-default error for this field when the version lacks it; nothing for an
    /// `ignorable` field, which is dropped silently.
    pub fn check_absent(&self) -> TokenStream {
        if self.field.ignorable {
            return TokenStream::new();
        }
        let is_default = self.is_default();
        let p = self.p;
        let err = self.err(quote!(#p::non_default(__v)));
        quote! {
            if !(#is_default) {
                return ::core::result::Result::Err(#err);
            }
        }
    }

    /// `if regular { on_regular } else if the version lacks the field { check }`, with the
    /// branches that cannot run left out.
    pub fn regular_or_check(&self, on_regular: TokenStream) -> TokenStream {
        let regular = self.regular();
        let check = self.check_absent();
        // Where the field is tagged and the version flexible, the tagged section carries it.
        let check = if self.field.tagged_range().is_empty() || check.is_empty() {
            check
        } else {
            let t = self.cond_expr(self.field.tagged_range());
            quote!(if !(#t && __cx.flexible) { #check })
        };
        if regular.is_empty() {
            return check;
        }
        match self.cond(regular) {
            None => on_regular,
            Some(c) if check.is_empty() => quote!(if #c { #on_regular }),
            Some(c) => quote!(if #c { #on_regular } else { #check }),
        }
    }

    /// `if regular { on_regular }`, with the condition left out when it always holds. The
    /// sizer's form of [`regular_or_check`](Self::regular_or_check): a value the version cannot
    /// carry is the encoder's to refuse.
    pub fn regular_only(&self, on_regular: TokenStream) -> TokenStream {
        let regular = self.regular();
        if regular.is_empty() {
            return TokenStream::new();
        }
        match self.cond(regular) {
            None => on_regular,
            Some(c) => quote!(if #c { #on_regular }),
        }
    }

    /// Whether the field is in the regular part of every version of its struct.
    pub fn always_regular(&self) -> bool {
        let regular = self.regular();
        !regular.is_empty() && self.cond(regular).is_none()
    }

    /// For a tagged field: whether it goes into this version's tagged section.
    pub fn tagged_written(&self) -> TokenStream {
        let t = self.cond_expr(self.field.tagged_range());
        let is_default = self.is_default();
        quote!(#t && !(#is_default))
    }

    pub fn tag(&self) -> TokenStream {
        let tag = self.field.tag.as_ref().map_or(0, |(t, _)| *t);
        quote!(#tag)
    }
}

/// A numeric or bool default as an unsuffixed literal, which takes the field's type; a uuid as
/// the value. `p` is the path of the runtime's `__private`.
fn literal(field: &Field, lit: &DefaultLit, p: &TokenStream) -> TokenStream {
    let float = matches!(field.ty.kind, crate::model::Kind::Float);
    match *lit {
        DefaultLit::Uuid(v) => {
            let v = Literal::u128_suffixed(v);
            quote!(#p::Uuid::from_u128(#v))
        }
        DefaultLit::Bool(b) => quote!(#b),
        DefaultLit::Int(v) if float => float_literal(v as f64),
        DefaultLit::Float(v) => float_literal(v),
        DefaultLit::Int(v) => {
            let abs = Literal::u128_unsuffixed(v.unsigned_abs());
            if v < 0 {
                quote!((-#abs))
            } else {
                quote!(#abs)
            }
        }
        // Strings and null are handled by the callers.
        DefaultLit::Str(_) | DefaultLit::Null => quote!(::core::default::Default::default()),
    }
}

fn float_literal(v: f64) -> TokenStream {
    let abs = Literal::f64_unsuffixed(v.abs());
    if v < 0.0 {
        quote!((-#abs))
    } else {
        quote!(#abs)
    }
}

/// Fields in declaration order, and the tagged ones by ascending tag.
pub(crate) fn fields<'a>(msg: &'a Message<'a>) -> (Vec<FieldGen<'a>>, Vec<FieldGen<'a>>) {
    let all: Vec<FieldGen> = msg.fields.iter().map(|f| FieldGen::new(msg, f)).collect();
    let mut tagged: Vec<FieldGen> = msg
        .fields
        .iter()
        .filter(|f| f.is_tagged())
        .map(|f| FieldGen::new(msg, f))
        .collect();
    tagged.sort_by_key(|g| g.field.tag.as_ref().map(|(t, _)| *t));
    (all, tagged)
}

/// `Some(&self.unknown)` or `None`, for the tagged-section helpers.
pub(crate) fn unknown_ref(msg: &Message) -> TokenStream {
    match msg.unknown {
        Some(ident) => quote!(::core::option::Option::Some(&self.#ident)),
        None => quote!(::core::option::Option::None),
    }
}

/// In a version without tagged-field sections, unknown tagged fields would be dropped: Kafka
/// refuses to write them, and so do we.
pub(crate) fn classic_check(msg: &Message) -> Option<TokenStream> {
    let ident = msg.unknown?;
    let ty = msg.input.ident.to_string();
    let field = ident.to_string();
    let p = &msg.private;
    Some(quote! {
        if !__cx.flexible && !#p::UnknownTaggedFields::is_empty(&self.#ident) {
            return ::core::result::Result::Err(#p::at_field(
                #p::tags_in_classic_version(__v), #ty, #field));
        }
    })
}
