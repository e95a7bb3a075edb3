//! Views: beside each struct a `<Struct>View<'a>` with an accessor per field, the walk that
//! checks the struct and records where its fields are, and `Viewable` for the struct.
//!
//! The walk mirrors the decoder field for field (the same version conditions, the same
//! contexts, the same tagged section); the runtime's `view` module holds every rule of the
//! values themselves, shared with decoding, and the layout of the records the walk leaves in the
//! index. Every function here is `#[inline]`: a program pays for the views it reads and for no
//! other, and the catalogue for its views in type checking alone.

use super::{fields, literal, FieldGen};

/// Views are written: the `views` feature, which kafka-wire's `views` turns on, compiles this
/// module.
pub const ENABLED: bool = true;
use crate::attr::DefaultLit;
use crate::model::{Kind, Message};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The view type, declared beside the struct (outside the anonymous const, as users name it).
pub fn expand_type(msg: &Message) -> TokenStream {
    let (ident, view, vis) = (&msg.input.ident, &msg.view, &msg.input.vis);
    let p = &msg.private;
    let n = record(msg).len();
    let doc = format!(
        "The borrowed view of [`{ident}`]: each field read in place from the bytes the view \
was opened on, through an accessor named as the field. See `kafka_wire::view`."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy)]
        #vis struct #view<'a>(#p::RawStruct<'a, #n>);
    }
}

/// Fallback for a struct whose attributes have errors: the type alone, and `Viewable` with
/// bodies that never run.
pub fn fallback(input: &syn::DeriveInput, view: &syn::Ident, p: &TokenStream) -> TokenStream {
    let (ident, vis) = (&input.ident, &input.vis);
    quote! {
        #[derive(Clone, Copy, Debug)]
        #vis struct #view<'a>(::core::marker::PhantomData<&'a ()>);

        const _: () = {
            impl #p::Viewable for #ident {
                type View<'a> = #view<'a>;
                fn walk(_: &mut #p::Cursor<'_>, _: #p::Ctx, _: &mut #p::ViewIndex) -> ::core::option::Option<::core::primitive::u32> {
                    ::core::unreachable!()
                }
                fn view_at<'a>(_: &mut #p::Cursor<'a>, _: #p::Ctx) -> #view<'a> {
                    ::core::unreachable!()
                }
                fn empty<'a>() -> #view<'a> {
                    ::core::unreachable!()
                }
                fn from_view<'a>(_: #view<'a>, _: #p::Source<'a>) -> Self {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// Where a field's view finds it in its struct's record.
enum Place {
    /// In word `i` of the record, where the walk noted it.
    Word(usize),
    /// In words `i` and `i + 1`, where the walk noted the start and the end of its bytes: a
    /// string, bytes or records field, whose accessor then takes them without reading their
    /// length.
    Span(usize),
    /// This many bytes after the struct's start, which the record's first word holds: a field
    /// of the opening run, or the one field after it when its view is found by its position.
    Prefix(TokenStream),
}

/// The layout of a struct's record.
///
/// A struct that opens with fields of one width (integers, floats, booleans, uuids; never
/// tagged, never null) keeps one word for that run: where the struct starts. Each field of the
/// run is then the sum of the widths before it, a width that the version may lack counted under
/// its version's test. The walk steps over the whole run with one bounds check and notes one
/// word, and an accessor adds its field's offset to that word. The field right after the run
/// starts where the run ends, so when its view is found by its position (a string, bytes or
/// records, an array of integers; never null, never tagged, read in the struct's own context)
/// it needs no word either. A string, bytes or records field elsewhere, never tagged, has two:
/// where its bytes start and end. Every other field has a word of its own, and the tagged section
/// the last.
struct Record {
    /// Per field, in declaration order.
    places: Vec<Place>,
    /// What the walk steps over at the struct's start: the run's widths, when there is one.
    run: Option<TokenStream>,
    /// The field after the run that its start places, walked without a word.
    after: Option<usize>,
    /// The words before the tagged section's.
    words: usize,
    /// Whether the struct's start places every field: all are in the run, none is tagged. Its
    /// tagged section is then the run's width after the start, and an array of such structs
    /// keeps no record per element when their sections are empty (`Viewable::PLACED`).
    placed: bool,
    /// The widths of the run's types, one constant each, which the widths name.
    consts: Vec<TokenStream>,
}

impl Record {
    /// The words of the record, the tagged section's included.
    fn len(&self) -> Literal {
        Literal::usize_unsuffixed(self.words.saturating_add(1))
    }

    /// The word of the tagged section.
    fn tagged(&self) -> Literal {
        Literal::usize_unsuffixed(self.words)
    }
}

fn record(msg: &Message) -> Record {
    let p = &msg.private;
    let mut widths: Vec<TokenStream> = Vec::new();
    let mut consts: Vec<TokenStream> = Vec::new();
    let mut open = true;
    let mut after = None;
    // Each field's place, its words numbered once all are known.
    let mut places = Vec::with_capacity(msg.fields.len());
    for (i, f) in msg.fields.iter().enumerate() {
        let g = FieldGen::new(msg, f);
        let own = if spans(&g) {
            Place::Span(0)
        } else {
            Place::Word(0)
        };
        // A field that is only ever tagged takes no place among the regular ones.
        if g.regular().is_empty() || !open {
            places.push(own);
            continue;
        }
        let fixed = matches!(
            f.ty.kind,
            Kind::Int { .. } | Kind::Bool | Kind::Float | Kind::Uuid
        );
        let plain = !f.ty.option && f.tagged_range().is_empty();
        let offset = quote!(0usize #(+ #widths)*);
        if fixed && plain {
            places.push(Place::Prefix(offset));
            let inner = f.ty.inner;
            // Named once, so that a type without a fixed length is one error, not one per use.
            let width = quote::format_ident!("__WIDTH{}", consts.len(), span = inner.span());
            consts.push(quote_spanned! {inner.span()=>
                const #width: ::core::primitive::usize = #p::fixed_width::<#inner>();
            });
            let width = quote_spanned!(inner.span()=> #width);
            widths.push(match g.cond(g.regular()) {
                None => width,
                Some(c) => quote!((if #c { #width } else { 0 })),
            });
            continue;
        }
        // The run ends at this field, which starts where the run's widths end.
        open = false;
        if !widths.is_empty() && plain && f.flexible.is_none() && found_by_position(&g) {
            after = Some(i);
            places.push(Place::Prefix(offset));
        } else {
            places.push(own);
        }
    }
    let run = (!widths.is_empty()).then(|| quote!(0usize #(+ #widths)*));
    let placed = run.is_some()
        && after.is_none()
        && places.iter().all(|place| matches!(place, Place::Prefix(_)));
    let mut words = usize::from(run.is_some());
    for place in &mut places {
        let (i, n) = match place {
            Place::Word(i) => (i, 1),
            Place::Span(i) => (i, 2),
            Place::Prefix(_) => continue,
        };
        *i = words;
        words = words.saturating_add(n);
    }
    Record {
        places,
        run,
        after,
        words,
        placed,
        consts,
    }
}

/// Whether a field that is not placed by its struct's start keeps the start and end of its bytes:
/// a string, bytes or records (by the type's name, which `walk_span` checks when the program is
/// built), never tagged, so that only the regular walk notes them.
fn spans(g: &FieldGen) -> bool {
    matches!(g.field.ty.kind, Kind::Str | Kind::Bytes)
        && g.field.tagged_range().is_empty()
        && !g.regular().is_empty()
}

/// Whether a field's view is found by its position in the input rather than by a record of the
/// index, judged by its type's name as its kind is; `RawStruct::fixed` checks the type itself
/// when the program is built.
fn found_by_position(g: &FieldGen) -> bool {
    match g.field.ty.kind {
        Kind::Str | Kind::Bytes => true,
        Kind::Array => {
            array_parts(g.field.ty.inner).is_some_and(|(container, _)| container == "IntArray")
        }
        _ => false,
    }
}

/// The walk, `Viewable`, the accessors, `into_owned` and `Debug`.
pub fn expand_impls(msg: &Message) -> TokenStream {
    let (ident, view) = (&msg.input.ident, &msg.view);
    let p = &msg.private;
    let record = record(msg);
    let n = record.len();
    let walk = expand_walk(msg, &record);
    let placed = record.run.as_ref().filter(|_| record.placed).map(|width| {
        quote! {
            const PLACED: ::core::primitive::bool = true;

            #[inline]
            #[allow(unused_variables)]
            fn placed_width(__cx: #p::Ctx) -> ::core::primitive::usize {
                let __v = __cx.version;
                #width
            }

            #[inline]
            fn view_placed<'a>(__r: #p::Reader<'a>, __start: ::core::primitive::u32, __cx: #p::Ctx) -> #view<'a> {
                #view(#p::RawStruct::placed(__r, __start, __cx))
            }
        }
    });
    let accessors = msg.fields.iter().zip(&record.places).map(|(f, place)| {
        let g = FieldGen::new(msg, f);
        accessor(&g, place)
    });
    let unknown_accessor = msg.unknown.map(|u| {
        let doc = "The tagged fields this struct does not know, in wire order.";
        let known = quote!(<#ident as #p::Fields>::FIELDS);
        let read = if record.placed {
            quote! {
                self.0.unknown_after(<#ident as #p::Viewable>::placed_width(self.0.cx()), #known)
            }
        } else {
            quote!(self.0.unknown(#known))
        };
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #u(&self) -> #p::TaggedFields<'a> {
                #read
            }
        }
    });
    let owned = msg.fields.iter().zip(&record.places).map(|(f, place)| {
        let g = FieldGen::new(msg, f);
        let (field, inner) = (f.ident, f.ty.inner);
        let owned = quote_spanned!(inner.span()=> <#inner as #p::Viewable>::from_view);
        let (i, present) = match place {
            Place::Word(i) => {
                let method = if f.ty.option {
                    quote_spanned!(inner.span()=> owned_option::<#inner>)
                } else {
                    quote_spanned!(inner.span()=> owned::<#inner>)
                };
                let i = Literal::usize_unsuffixed(*i);
                // A field with flexible versions of its own is read in its own context.
                let present = match &f.flexible {
                    None => quote!(self.0.#method(#i)),
                    Some(flexible) => {
                        let c = g.cond_expr(flexible.range);
                        quote!(self.0.with_flexible(#c).#method(#i))
                    }
                };
                (i, present)
            }
            Place::Span(i) => {
                let i = Literal::usize_unsuffixed(*i);
                let present = if f.ty.option {
                    let read = quote_spanned!(inner.span()=> span_option::<#inner>);
                    quote! {
                        self.0.#read(#i, ::core::option::Option::None)
                            .map(|__v| #owned(__v, self.0.source()))
                    }
                } else {
                    let read = quote_spanned!(inner.span()=> span::<#inner>);
                    quote!(#owned(self.0.#read(#i), self.0.source()))
                };
                (i, present)
            }
            // A field its struct's start places is read through its accessor.
            Place::Prefix(_) => {
                return quote!(#field: #owned(self.#field(), self.0.source()),);
            }
        };
        if g.always_regular() {
            quote!(#field: #present,)
        } else {
            let default = g.default_value();
            quote!(#field: if self.0.has(#i) { #present } else { #default },)
        }
    });
    let unknown_owned = msg.unknown.map(|u| {
        if msg.may_be_flexible() {
            quote!(#u: self.0.unknown_owned(self.#u()),)
        } else {
            quote!(#u: ::core::default::Default::default(),)
        }
    });
    let version = msg
        .fields
        .iter()
        .any(|f| f.flexible.is_some())
        .then(|| quote!(let __v = self.0.cx().version;));
    let debug_name = view.to_string();
    // Spanned at the field's type, where a type that is not `Viewable` is reported.
    let debug_fields = msg
        .fields
        .iter()
        .map(|f| (f.name(), f.ident, f.ty.inner.span()))
        .chain(
            msg.unknown
                .map(|u| (syn::ext::IdentExt::unraw(u).to_string(), u, u.span())),
        )
        .map(|(name, field, span)| quote_spanned!(span=> .field(#name, &self.#field())));
    let owned_doc = format!(
        "The owned [`{ident}`], equal to what decoding the same bytes gives. Strings, bytes \
and records share the input when the view was opened on a `Bytes`, and are copied otherwise."
    );
    let consts = &record.consts;
    quote! {
        #(#consts)*

        #walk

        #[automatically_derived]
        impl #p::Viewable for #ident {
            type View<'a> = #view<'a>;

            const INDEXED: ::core::primitive::bool = true;

            #placed

            #[inline]
            fn walk(__c: &mut #p::Cursor<'_>, __cx: #p::Ctx, __i: &mut #p::ViewIndex) -> ::core::option::Option<::core::primitive::u32> {
                if __LEAF {
                    #p::RawStruct::<#n>::walk_leaf(__c, __cx, __i, __walk)
                } else {
                    #p::RawStruct::<#n>::walk_node(__c, __cx, __i, __walk)
                }
            }

            /// A struct is found through its record in the index, never at a cursor.
            #[inline]
            fn view_at<'a>(_: &mut #p::Cursor<'a>, _: #p::Ctx) -> #view<'a> {
                #view(#p::RawStruct::absent())
            }

            #[inline]
            fn view_found<'a>(__r: #p::Reader<'a>, __at: ::core::primitive::u32, __cx: #p::Ctx) -> #view<'a> {
                #view(#p::RawStruct::view(__r, __at, __cx))
            }

            #[inline]
            fn element<'a>(__r: #p::Reader<'a>, __at: ::core::primitive::u32, __cx: #p::Ctx) -> (#view<'a>, ::core::primitive::u32) {
                let (__s, __next) = #p::RawStruct::element(__r, __at, __cx, __LEAF);
                (#view(__s), __next)
            }

            #[inline]
            fn empty<'a>() -> #view<'a> {
                #view(#p::RawStruct::absent())
            }

            #[inline]
            fn from_view<'a>(__view: #view<'a>, _: #p::Source<'a>) -> Self {
                __view.into_owned()
            }
        }

        #[automatically_derived]
        impl<'a> #view<'a> {
            #(#accessors)*
            #unknown_accessor

            #[doc = #owned_doc]
            #[inline]
            pub fn into_owned(self) -> #ident {
                #version
                #ident {
                    #(#owned)*
                    #unknown_owned
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #view<'_> {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_struct(#debug_name)#(#debug_fields)*.finish()
            }
        }
    }
}

/// `fn __walk`: steps over the struct's fields in wire order, as `decode_value` reads them,
/// recording where each starts; false where decoding would fail.
fn expand_walk(msg: &Message, record: &Record) -> TokenStream {
    let p = &msg.private;
    let (all, tagged) = fields(msg);
    let last = record.tagged();
    let position = |g: &FieldGen| msg.fields.iter().position(|f| f.ident == g.field.ident);
    let place = |g: &FieldGen| record.places.get(position(g).unwrap_or_default());
    let index = |g: &FieldGen| match place(g) {
        Some(Place::Word(i) | Place::Span(i)) => Literal::usize_unsuffixed(*i),
        _ => Literal::usize_unsuffixed(0),
    };
    // The opening run of fields of one width: one step over all of them, and its start noted.
    let run = record.run.as_ref().map(|width| {
        quote! {
            let __at = __c.place();
            if !__c.skip(#width) {
                return false;
            }
            #p::Slots::set(__s, __i, 0, __at);
        }
    });
    let steps = all.iter().filter(|g| !g.regular().is_empty()).map(|g| {
        let placed = record.after.is_some() && record.after == position(g);
        if let (Some(Place::Prefix(_)), false) = (place(g), placed) {
            return TokenStream::new();
        }
        let i = index(g);
        let inner = g.field.ty.inner;
        let cx = g.ctx();
        // The word after a span's start holds its end.
        let end = match place(g) {
            Some(Place::Span(i)) => Some(Literal::usize_unsuffixed(i.saturating_add(1))),
            _ => None,
        };
        let call = if end.is_some() {
            let nullable = if g.field.ty.option {
                g.nullable()
            } else {
                quote!(false)
            };
            let call = quote_spanned!(inner.span()=> #p::walk_span::<#inner>);
            quote!(#call(__c, #cx, #nullable))
        } else if g.field.ty.option {
            let nullable = g.nullable();
            let call = quote_spanned!(inner.span()=> #p::walk_option::<#inner>);
            quote!(#call(__c, #cx, __i, #nullable))
        } else {
            let walk = quote_spanned!(inner.span()=> <#inner as #p::Viewable>::walk);
            quote!(#walk(__c, #cx, __i))
        };
        // The field after the run is stepped over; where it is follows from the struct's start.
        let note = if placed {
            quote!({})
        } else if let Some(end) = end {
            quote! {{
                #p::Slots::set(__s, __i, #i, __at.0);
                #p::Slots::set(__s, __i, #end, __at.1);
            }}
        } else {
            quote!(#p::Slots::set(__s, __i, #i, __at))
        };
        let step = quote! {
            match #call {
                ::core::option::Option::Some(__at) => #note,
                ::core::option::Option::None => return false,
            }
        };
        match g.cond(g.regular()) {
            None => step,
            Some(c) => quote!(if #c { #step }),
        }
    });
    let section = msg.may_be_flexible().then(|| {
        let keeps = msg.unknown.is_some();
        let known = if tagged.is_empty() {
            quote!(&mut #p::no_known_tag)
        } else {
            let arms = tagged.iter().map(|g| {
                let i = index(g);
                let inner = g.field.ty.inner;
                let cx = g.ctx();
                let guard = g.cond(g.field.tagged_range()).map(|c| quote!(if #c));
                let tag = g.tag();
                let call = if g.field.ty.option {
                    let nullable = g.nullable();
                    let call = quote_spanned!(inner.span()=> #p::walk_tagged_option::<#inner>);
                    quote!(#call(__c, #cx, __i, #nullable))
                } else {
                    let walk = quote_spanned!(inner.span()=> <#inner as #p::Viewable>::walk);
                    quote!(#walk(__c, #cx, __i))
                };
                let body = quote! {
                    match #call {
                        ::core::option::Option::Some(__at) => {
                            #p::Slots::set(__s, __i, #i, __at);
                            ::core::option::Option::Some(true)
                        }
                        ::core::option::Option::None => ::core::option::Option::Some(false),
                    }
                };
                quote!(#tag #guard => { #body })
            });
            quote! {
                &mut |__tag: ::core::primitive::u32, __c: &mut #p::Cursor<'_>, __i: &mut #p::ViewIndex| -> ::core::option::Option<::core::primitive::bool> {
                    match __tag {
                        #(#arms)*
                        _ => ::core::option::Option::None,
                    }
                }
            }
        };
        quote! {
            if __cx.flexible {
                match __c.tagged(__cx, #keeps, __i, #known) {
                    ::core::option::Option::Some(__at) => #p::Slots::set(__s, __i, #last, __at),
                    ::core::option::Option::None => return false,
                }
            }
        }
    });
    // Whether the struct holds no indexed value: its record then needs no word for where the
    // next one starts.
    let indexed = msg.fields.iter().map(|f| {
        let inner = f.ty.inner;
        quote_spanned!(inner.span()=> <#inner as #p::Viewable>::INDEXED)
    });
    quote! {
        const __LEAF: ::core::primitive::bool = !(false #(|| #indexed)*);

        #[inline]
        #[allow(unused_variables)]
        fn __walk<__S: #p::Slots>(__c: &mut #p::Cursor<'_>, __cx: #p::Ctx, __i: &mut #p::ViewIndex, __s: &mut __S) -> ::core::primitive::bool {
            let __v = __cx.version;
            #run
            #(#steps)*
            #section
            true
        }
    }
}

/// The accessor of field `i`: named as the field, with the field's documentation, returning
/// its view; a field that is not there reads as its default.
fn accessor(g: &FieldGen, place: &Place) -> TokenStream {
    let f = g.field;
    let p = g.p;
    let (ident, inner, vis) = (f.ident, f.ty.inner, &f.ast.vis);
    let docs = f.ast.attrs.iter().filter(|a| a.path().is_ident("doc"));
    // A span's readers take its bytes from the two words the walk noted.
    let (i, [field, field_or, option]) = match place {
        Place::Word(i) => (*i, ["field", "field_or", "option"]),
        Place::Span(i) => (*i, ["span", "span_or", "span_option"]),
        Place::Prefix(offset) => return run_accessor(g, offset),
    };
    let i = Literal::usize_unsuffixed(i);
    let [field, field_or, option] = [field, field_or, option].map(|m| Ident::new(m, inner.span()));
    let ret = view_type(g);
    let ret = if f.ty.option {
        quote!(::core::option::Option<#ret>)
    } else {
        ret
    };
    let default = f.default.as_ref().map(|d| &d.value);
    let call = match (f.ty.option, default) {
        (false, None) => quote_spanned!(inner.span()=> #field::<#inner>(#i)),
        (false, Some(lit)) => {
            let value = view_literal(g, lit);
            quote_spanned!(inner.span()=> #field_or::<#inner>(#i, #value))
        }
        (true, Some(DefaultLit::Null)) => {
            quote_spanned!(inner.span()=> #option::<#inner>(#i, ::core::option::Option::None))
        }
        (true, Some(lit)) => {
            let value = view_literal(g, lit);
            quote_spanned!(inner.span()=> #option::<#inner>(#i, ::core::option::Option::Some(#value)))
        }
        (true, None) => {
            let empty = quote_spanned!(inner.span()=> <#inner as #p::Viewable>::empty());
            quote_spanned!(inner.span()=> #option::<#inner>(#i, ::core::option::Option::Some(#empty)))
        }
    };
    // A field with flexible versions of its own is read in its own context.
    let body = match &f.flexible {
        None => quote!(self.0.#call),
        Some(flexible) => {
            let c = g.cond_expr(flexible.range);
            quote! {
                let __v = self.0.cx().version;
                self.0.with_flexible(#c).#call
            }
        }
    };
    quote! {
        #(#docs)*
        #[inline]
        #vis fn #ident(&self) -> #ret {
            #body
        }
    }
}

/// The accessor of a field its struct's start places (of the opening run, or right after it):
/// its offset from the start, under its version's test where the struct has versions without
/// it.
fn run_accessor(g: &FieldGen, offset: &TokenStream) -> TokenStream {
    let (f, p) = (g.field, g.p);
    let (ident, inner, vis) = (f.ident, f.ty.inner, &f.ast.vis);
    let docs = f.ast.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let ret = view_type(g);
    let read = quote_spanned!(inner.span()=> self.0.fixed::<#inner>(#offset));
    let body = match g.cond(g.regular()) {
        None => read,
        Some(c) => {
            let default = match f.default.as_ref().map(|d| &d.value) {
                Some(lit) => view_literal(g, lit),
                None => quote_spanned!(inner.span()=> <#inner as #p::Viewable>::empty()),
            };
            quote!(if #c { #read } else { #default })
        }
    };
    quote! {
        #(#docs)*
        #[inline]
        #vis fn #ident(&self) -> #ret {
            #[allow(unused_variables)]
            let __v = self.0.cx().version;
            #body
        }
    }
}

/// What the accessor of a field of this type returns (inside `Option` for an optional field).
fn view_type(g: &FieldGen) -> TokenStream {
    let (ty, p) = (&g.field.ty, g.p);
    let inner = ty.inner;
    match ty.kind {
        Kind::Int { .. } | Kind::Bool | Kind::Float | Kind::Uuid => quote!(#inner),
        Kind::Str => quote!(&'a ::core::primitive::str),
        Kind::Bytes => quote!(&'a [::core::primitive::u8]),
        Kind::Array => match array_parts(inner) {
            Some((container, elem)) if container == "IntArray" => {
                quote_spanned!(inner.span()=> #p::Ints<'a, #elem>)
            }
            Some((_, elem)) => quote_spanned!(inner.span()=> #p::Array<'a, #elem>),
            None => quote_spanned!(inner.span()=> #p::ViewOf<'a, #inner>),
        },
        Kind::Struct => quote_spanned!(inner.span()=> #p::ViewOf<'a, #inner>),
    }
}

/// `Vec` or `IntArray`, and the element type, of an array field's type.
fn array_parts(ty: &syn::Type) -> Option<(String, &syn::Type)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let seg = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(elem)) => Some((seg.ident.to_string(), elem)),
        _ => None,
    }
}

/// A declared default as the field's view: numbers, booleans and uuids as they are, a string
/// as a `&'static str` (bytes as its bytes).
fn view_literal(g: &FieldGen, lit: &DefaultLit) -> TokenStream {
    match lit {
        DefaultLit::Str(s) if matches!(g.field.ty.kind, Kind::Bytes) => quote!(#s.as_bytes()),
        DefaultLit::Str(s) => quote!(#s),
        lit => literal(g.field, lit, g.p),
    }
}
