//! `#[inherit_methods(from = "self.rb")]` on an impl block whose methods have no body (`fn f(&self)
//! -> T;`) gives each of them the body `{ self.rb.f(args) }`. Written with `proc_macro` alone,
//! because no crate registry (syn, quote) is reachable; it handles the plain signatures the ring
//! buffer uses (no generics on the methods).

use proc_macro::{Delimiter, Group, Spacing, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn inherit_methods(attr: TokenStream, item: TokenStream) -> TokenStream {
    let target = forward_target(attr);
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    let body = match tokens.pop() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => g,
        _ => panic!("inherit_methods: expected an impl block"),
    };
    let mut out: TokenStream = tokens.into_iter().collect();
    let new_body = forward_methods(body.stream(), &target);
    out.extend([TokenTree::Group(Group::new(Delimiter::Brace, new_body))]);
    out
}

/// The expression in `from = "<expr>"`.
fn forward_target(attr: TokenStream) -> TokenStream {
    for tree in attr {
        if let TokenTree::Literal(lit) = tree {
            let text = lit.to_string();
            let inner = text.trim_matches('"');
            return inner.parse().expect("inherit_methods: `from` is not an expression");
        }
    }
    panic!("inherit_methods: expected from = \"<expr>\"");
}

fn forward_methods(body: TokenStream, target: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut current: Vec<TokenTree> = Vec::new();
    for tree in body {
        let ends_item = matches!(&tree, TokenTree::Punct(p) if p.as_char() == ';' && p.spacing() == Spacing::Alone);
        if ends_item {
            out.extend(with_body(std::mem::take(&mut current), target));
        } else {
            current.push(tree);
        }
    }
    out.extend(current);
    out
}

fn with_body(signature: Vec<TokenTree>, target: &TokenStream) -> TokenStream {
    let fn_at = signature
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(i) if i.to_string() == "fn"))
        .expect("inherit_methods: item is not a method");
    let name = match &signature[fn_at + 1] {
        TokenTree::Ident(i) => i.clone(),
        _ => panic!("inherit_methods: method name expected"),
    };
    let params = signature[fn_at + 2..]
        .iter()
        .find_map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => Some(g.stream()),
            _ => None,
        })
        .expect("inherit_methods: parameter list expected");
    let call = format!("{}.{}({})", target, name, argument_names(params).join(", "));
    let mut out: TokenStream = signature.into_iter().collect();
    let call: TokenStream = call.parse().expect("inherit_methods: bad forwarding call");
    out.extend([TokenTree::Group(Group::new(Delimiter::Brace, call))]);
    out
}

/// The binding name of each non-`self` parameter (`name: Type`).
fn argument_names(params: TokenStream) -> Vec<String> {
    let mut names = Vec::new();
    let mut first_ident: Option<String> = None;
    let mut has_self = false;
    let mut flush = |first: &mut Option<String>, has_self: &mut bool| {
        if let Some(name) = first.take() {
            if !*has_self {
                names.push(name);
            }
        }
        *has_self = false;
    };
    for tree in params {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => flush(&mut first_ident, &mut has_self),
            TokenTree::Ident(i) => {
                let text = i.to_string();
                if text == "self" {
                    has_self = true;
                }
                if first_ident.is_none() && text != "mut" {
                    first_ident = Some(text);
                }
            }
            _ => {}
        }
    }
    flush(&mut first_ident, &mut has_self);
    names
}
