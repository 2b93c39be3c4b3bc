//! `sport_table!` and `sport_classes!`: the sport modes of the scoreboard API and the typed
//! fields of each, read once (see the crate documentation for what each makes).
//!
//! ```text
//! sport_table! {
//!     Basketball {
//!         "period" => period: Str,
//!         "team1Bonus1" => team1_bonus1: Bool,
//!     }
//!     Custom;
//! }
//! ```
//!
//! A sport is its wire `sportMode` and either its fields (`"wire" => attribute: Kind`, the
//! kind one of `Str`, `Int`, `Bool`, `Series`) or, for a sport without typed fields, nothing
//! (`Name;`: its binding class is written by hand). At the call site (which has `Field` and
//! `FieldKind` in scope) `sport_table!` makes:
//!
//! - `enum Sport` (a variant per sport, its wire name the variant's), `Sport::ALL` and
//!   `Sport::wire_name`;
//! - `fn fields_of(Sport) -> &'static [Field]`: each sport's fields in order.
//!
//! `sport_classes!` takes the same table behind a head, `binding(record = path::to::PyScoreRecord,
//! build = path::to::build);`, in the binding crate (which has `Sport` in scope), and makes
//! per sport with fields its class `{Name}Score` (extending `record`, an attribute per field,
//! read by `serde` from the record's typed values) and `sport_class()`, which builds a
//! record's object of its sport's class with `build::<{Name}Score>(py, init, typed)` (a sport
//! without fields names the `{Name}Score` written by hand beside the call).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{braced, parenthesized, Ident, LitStr, Path, Token};

use crate::parse::err;

/// The kinds of a field and the attribute type of each in its binding class.
const KINDS: [(&str, &str); 4] = [
    ("Str", "Option<String>"),
    ("Int", "Option<i64>"),
    ("Bool", "Option<bool>"),
    ("Series", "Vec<Option<String>>"),
];

/// `"wire" => attribute: Kind`.
pub(crate) struct SportField {
    pub(crate) wire: LitStr,
    pub(crate) attr: Ident,
    pub(crate) kind: Ident,
}

/// One sport: its fields (none for a sport whose binding class is written by hand).
pub(crate) struct SportEntry {
    pub(crate) name: Ident,
    pub(crate) fields: Vec<SportField>,
}

/// `binding(record = Path, build = Path);`: the binding's record class and builder.
pub(crate) struct Binding {
    pub(crate) record: Path,
    pub(crate) build: Path,
}

/// The table: the binding's head when a binding gives one, then the sports in order.
pub(crate) struct SportTable {
    pub(crate) binding: Option<Binding>,
    pub(crate) sports: Vec<SportEntry>,
}

impl Parse for Binding {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let kw: Ident = input.parse()?;
        let body;
        parenthesized!(body in input);
        let (mut record, mut build) = (None, None);
        while !body.is_empty() {
            let key: Ident = body.parse()?;
            body.parse::<Token![=]>()?;
            let slot = match key.to_string().as_str() {
                "record" => &mut record,
                "build" => &mut build,
                _ => return err(key.span(), "expected `record` or `build`"),
            };
            *slot = Some(body.parse::<Path>()?);
            if !body.is_empty() {
                body.parse::<Token![,]>()?;
            }
        }
        input.parse::<Token![;]>()?;
        let missing = "`binding(...)` names the `record` class and the `build` function";
        let (Some(record), Some(build)) = (record, build) else {
            return err(kw.span(), missing);
        };
        Ok(Binding { record, build })
    }
}

impl Parse for SportTable {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let binding = if input.peek(Ident) && input.fork().parse::<Ident>()? == "binding" {
            Some(input.parse()?)
        } else {
            None
        };
        let mut sports: Vec<SportEntry> = Vec::new();
        while !input.is_empty() {
            sports.push(input.parse()?);
        }
        once(&sports, |s| &s.name, "a sport is listed once")?;
        if sports.is_empty() {
            return err(Span::call_site(), "a table lists its sports");
        }
        Ok(SportTable { binding, sports })
    }
}

/// The second of two items of the same name refused, with `msg`.
fn once<T>(items: &[T], name: impl Fn(&T) -> &Ident, msg: &str) -> syn::Result<()> {
    for (i, item) in items.iter().enumerate() {
        if items[..i].iter().any(|earlier| name(earlier) == name(item)) {
            return err(name(item).span(), msg);
        }
    }
    Ok(())
}

impl Parse for SportEntry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            return Ok(SportEntry {
                name,
                fields: Vec::new(),
            });
        }
        if !input.peek(syn::token::Brace) {
            return err(name.span(), "a sport is `Name { fields }` or `Name;`");
        }
        let body;
        braced!(body in input);
        let fields: Vec<SportField> = Punctuated::<SportField, Token![,]>::parse_terminated(&body)?
            .into_iter()
            .collect();
        once(
            &fields,
            |f| &f.attr,
            "an attribute is listed once per sport",
        )?;
        if fields.is_empty() {
            let msg = "a sport lists its fields (one without typed fields is `Name;`)";
            return err(name.span(), msg);
        }
        Ok(SportEntry { name, fields })
    }
}

impl Parse for SportField {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let wire: LitStr = input.parse()?;
        input.parse::<Token![=>]>()?;
        let attr = input.parse()?;
        input.parse::<Token![:]>()?;
        let kind: Ident = input.parse()?;
        if !KINDS.iter().any(|(k, _)| kind == k) {
            return err(
                kind.span(),
                "a field's kind is `Str`, `Int`, `Bool` or `Series`",
            );
        }
        Ok(SportField { wire, attr, kind })
    }
}

impl SportTable {
    /// The core's part (`sport_table!`): `Sport` and `fields_of`; a table with a binding head
    /// is refused.
    pub(crate) fn expand(&self) -> syn::Result<TokenStream> {
        if let Some(b) = &self.binding {
            return err(
                b.record.span(),
                "a core table names no binding: the binding hands the table to `sport_classes!`",
            );
        }
        let names: Vec<&Ident> = self.sports.iter().map(|s| &s.name).collect();
        let wires = names.iter().map(|n| n.to_string());
        let count = names.len();
        let tables = self.sports.iter().map(|s| {
            let fields = s.fields.iter().map(|f| {
                let (attr, wire, kind) = (f.attr.to_string(), &f.wire, &f.kind);
                quote! { Field { attr: #attr, wire: #wire, kind: FieldKind::#kind } }
            });
            quote! { &[#(#fields),*] }
        });
        Ok(quote! {
            /// The sport modes of the API document.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum Sport { #(#names),* }

            impl Sport {
                /// Every sport, in the table's order.
                pub const ALL: [Sport; #count] = [#(Sport::#names),*];

                /// The wire `sportMode` of the sport.
                pub fn wire_name(self) -> &'static str {
                    match self { #(Sport::#names => #wires),* }
                }
            }

            /// The typed fields of a sport (none for a sport whose class is written by hand:
            /// Custom, whose games are user-defined).
            pub fn fields_of(sport: Sport) -> &'static [Field] {
                match sport { #(Sport::#names => #tables),* }
            }
        })
    }

    /// The binding's part (`sport_classes!`): each sport's record class and `sport_class()`.
    pub(crate) fn classes(&self) -> syn::Result<TokenStream> {
        let Some(Binding { record, build }) = &self.binding else {
            return err(
                Span::call_site(),
                "`sport_classes!` takes the table with a head: `binding(record = .., build = ..);`",
            );
        };
        let names: Vec<&Ident> = self.sports.iter().map(|s| &s.name).collect();
        let classes: Vec<Ident> = names.iter().map(|n| format_ident!("{}Score", n)).collect();
        let structs = self
            .sports
            .iter()
            .filter(|s| !s.fields.is_empty())
            .map(|s| {
                let class = format_ident!("{}Score", s.name);
                let fields = s.fields.iter().map(|f| {
                    let doc = format!(
                        "The `{}` field of the {class} record, typed (None when absent).",
                        f.attr
                    );
                    let ty = KINDS.iter().find(|(k, _)| f.kind == k).map(|(_, ty)| ty);
                    let ty: syn::Type =
                        syn::parse_str(ty.expect("a kind checked by the parser")).expect("a type");
                    let attr = &f.attr;
                    quote! { #[doc = #doc] #attr: #ty }
                });
                quote! {
                    /// The score record of one sport, with a typed attribute for each of its wire fields.
                    #[::pyo3::pyclass(module = "showctl._core", frozen, extends = #record, get_all)]
                    #[derive(::serde::Deserialize)]
                    pub struct #class { #(#fields),* }
                }
            });
        Ok(quote! {
            #(#structs)*

            /// The Python object of a record of `sport`, of its sport's class (`build` reads the
            /// attributes from the record's typed values).
            pub fn sport_class(
                py: ::pyo3::Python<'_>,
                sport: Sport,
                init: ::pyo3::PyClassInitializer<#record>,
                typed: ::serde_json::Value,
            ) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                match sport { #(Sport::#names => #build::<#classes>(py, init, typed)),* }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "binding(record = R, build = b);";

    fn refusal(table: &str) -> String {
        match syn::parse_str::<SportTable>(table) {
            Ok(_) => panic!("accepted: {table}"),
            Err(e) => e.to_string(),
        }
    }

    const TABLE: &str = "Tennis { \"currentSet\" => current_set: Int, \"team1Set\" => team1_set_scores: Series } Custom;";

    #[test]
    fn a_sport_of_each_form_parses_into_the_core_part() {
        let t: SportTable = syn::parse_str(TABLE).unwrap();
        assert_eq!(t.sports.len(), 2);
        let tennis = &t.sports[0];
        assert_eq!(tennis.name.to_string(), "Tennis");
        let f = &tennis.fields[1];
        assert_eq!(
            (f.wire.value(), f.attr.to_string(), f.kind.to_string()),
            (
                "team1Set".into(),
                "team1_set_scores".into(),
                "Series".into()
            )
        );
        assert!(t.sports[1].fields.is_empty());
        let out = t.expand().unwrap().to_string();
        for want in [
            "pub enum Sport { Tennis , Custom }",
            "Sport :: Custom => & []",
            "attr : \"team1_set_scores\" , wire : \"team1Set\" , kind : FieldKind :: Series",
        ] {
            assert!(out.contains(want), "{want}\n  not in: {out}");
        }
        assert!(
            !out.contains("pyo3"),
            "the core's part names no binding: {out}"
        );
        assert!(t.classes().is_err(), "no head: no classes");
    }

    #[test]
    fn the_binding_part_makes_each_sport_class() {
        let t: SportTable = syn::parse_str(&format!("{HEAD} {TABLE}")).unwrap();
        let out = t.classes().unwrap().to_string();
        for want in [
            "pub struct TennisScore",
            "The `current_set` field of the TennisScore record, typed (None when absent).",
            "current_set : Option < i64 >",
            "team1_set_scores : Vec < Option < String > >",
            "Sport :: Custom => b :: < CustomScore >",
        ] {
            assert!(out.contains(want), "{want}\n  not in: {out}");
        }
        assert!(!out.contains("struct CustomScore"), "{out}");
        let e = t.expand().err().unwrap().to_string();
        assert!(e.contains("a core table names no binding"), "{e}");
    }

    #[test]
    fn each_broken_rule_is_refused_by_what_it_breaks() {
        let cases = [
            (
                "binding(record = R); A { \"a\" => a: Str }",
                "names the `record` class and the `build`",
            ),
            (
                "binding(record = R, make = b);",
                "expected `record` or `build`",
            ),
            (HEAD, "a table lists its sports"),
            (
                "A { \"a\" => a: Str } A { \"b\" => b: Str }",
                "a sport is listed once",
            ),
            (
                "A { \"a\" => a: Str, \"b\" => a: Int }",
                "an attribute is listed once per sport",
            ),
            (
                "A { \"a\" => a: Text }",
                "a field's kind is `Str`, `Int`, `Bool` or `Series`",
            ),
            ("A { }", "a sport lists its fields"),
            ("A => B;", "a sport is `Name { fields }` or `Name;`"),
            ("A { a => a: Str }", "expected string literal"),
        ];
        for (table, want) in cases {
            let got = refusal(table);
            assert!(got.contains(want), "{table}\n  said: {got}\n  want: {want}");
        }
    }
}
