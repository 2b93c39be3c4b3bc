//! No hand-written code inside macro input in the binding (`binding/src/`): rustfmt and clippy
//! do not reach into a macro call, and compiler errors point into its expansion. A method is
//! written in an ordinary `#[pymethods] impl` block (its `_async` twin comes from
//! `#[twin]`, see `macros/`); a macro call may pass names, types and declarations, but no
//! `fn` item and no `#[pymethods]` block. `macro_rules!` definitions are not macro input:
//! what they generate is not written by hand.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// What is wrong in `source`: one line per `fn` item or `#[pymethods]` inside a macro call.
fn findings(source: &str) -> Vec<String> {
    let tokens = TokenStream::from_str(source).expect("the file is Rust tokens");
    let mut out = Vec::new();
    walk(tokens, &mut out);
    out
}

/// Finds the macro calls in `tokens` (at any depth) and looks inside each.
fn walk(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        if let (TokenTree::Ident(name), Some(TokenTree::Punct(bang))) =
            (&tokens[i], tokens.get(i + 1))
        {
            if bang.as_char() == '!' {
                match tokens.get(i + 2) {
                    // `macro_rules! name { ... }`: a definition, not macro input.
                    Some(TokenTree::Ident(_)) if name == "macro_rules" => {
                        i += 4;
                        continue;
                    }
                    Some(TokenTree::Group(input)) => {
                        inside(&name.to_string(), input.stream(), out);
                        i += 3;
                        continue;
                    }
                    _ => {}
                }
            }
        }
        if let TokenTree::Group(g) = &tokens[i] {
            walk(g.stream(), out);
        }
        i += 1;
    }
}

/// Looks for `fn name` and `#[pymethods]` in the input of the macro `mac`, at any depth.
fn inside(mac: &str, tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match (token, tokens.get(i + 1)) {
            // `fn name`, not a function pointer type `fn(...)`.
            (TokenTree::Ident(kw), Some(TokenTree::Ident(name))) if kw == "fn" => {
                out.push(format!("`fn {name}` inside `{mac}!(...)`"));
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(attr)))
                if p.as_char() == '#' && attr.delimiter() == Delimiter::Bracket =>
            {
                let first = attr.stream().into_iter().next();
                if matches!(&first, Some(TokenTree::Ident(id)) if id == "pymethods") {
                    out.push(format!("`#[pymethods]` inside `{mac}!(...)`"));
                }
            }
            _ => {}
        }
        if let TokenTree::Group(g) = token {
            inside(mac, g.stream(), out);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("binding/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_method_is_written_inside_macro_input_in_the_binding() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 10, "binding/src/ not found: {files:?}");
    let mut problems = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a readable source file");
        let rel = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        problems.extend(findings(&source).into_iter().map(|p| format!("{rel}: {p}")));
    }
    assert!(
        problems.is_empty(),
        "hand-written code inside macro input (move it into an ordinary `#[pymethods] impl` \
         block; an `_async` twin comes from `#[twin]` under `#[twins]`):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scan_finds_a_method_or_pymethods_inside_macro_input() {
    let source = r#"
        media_ops!(methods! { {
            /// A method.
            fn extra(&self) -> u32 { 1 }
        } });
        fn outer() {
            wrap!({ #[pymethods] impl Thing {} });
        }
    "#;
    assert_eq!(
        findings(source),
        [
            "`fn extra` inside `media_ops!(...)`",
            "`#[pymethods]` inside `wrap!(...)`"
        ]
    );
}

#[test]
fn the_scan_leaves_definitions_and_ordinary_code_alone() {
    let source = r#"
        macro_rules! gen { ($n:ident) => { fn $n() {} #[pymethods] impl X {} }; }
        #[pymethods]
        impl X {
            fn method(&self) -> Option<fn(u8) -> u8> { format!("{}", 1); None }
        }
        client_constructor!(X, ENV, |config| { let t = make(&config)?; Ok(t) });
        decoders!(parse: fn(&[u8]) -> u8);
    "#;
    assert_eq!(findings(source), Vec::<String>::new());
}
