//! Every function of include/glia/glia.h is declared in src/lib.rs with the same arity,
//! and nothing else is declared there.
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

fn strip_comments(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Top-level comma-separated items of a parameter list ("void" and "" count 0).
fn count_params(params: &str) -> usize {
    let p = params.trim();
    if p.is_empty() || p == "void" {
        return 0;
    }
    let mut depth = 0i32;
    let mut n = 1;
    for c in p.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => n += 1,
            _ => {}
        }
    }
    // a trailing comma (rustfmt style) does not add a parameter
    if p.ends_with(',') {
        n -= 1;
    }
    n
}

/// The text from `open` (an index of '(') to its matching ')', exclusive.
fn parenthesised(s: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &s[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses after {}", &s[open..(open + 60).min(s.len())]);
}

fn ident_before(s: &str, end: usize) -> &str {
    let start = s[..end]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &s[start..end]
}

fn header_functions() -> BTreeMap<String, usize> {
    // glia.h and glia_base.h, which it includes
    let mut text = String::new();
    for name in ["glia_base.h", "glia.h"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include/glia").join(name);
        text += &fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
    }
    let text = strip_comments(&text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    // every declaration "GLIA_API <ret> name(params);" (skipping the #define lines)
    while let Some(at) = rest.find("GLIA_API") {
        let decl = &rest[at..];
        let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
        let is_define = rest[line_start..at].trim_start().starts_with('#');
        let semi = decl.find(';').expect("declaration ends with ;");
        let stmt = &decl[..semi];
        rest = &decl[8..];
        if is_define {
            continue;
        }
        let open = stmt.find('(').expect("a parameter list");
        let name = ident_before(stmt, open).to_string();
        assert!(name.starts_with("glia_"), "unexpected declaration: {}", stmt);
        let n = count_params(parenthesised(stmt, open));
        assert!(
            out.insert(name.clone(), n).is_none(),
            "{} declared twice in glia.h",
            name
        );
    }
    out
}

fn rust_functions() -> BTreeMap<String, usize> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let text = strip_comments(&fs::read_to_string(&path).unwrap());
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    // the functions inside `extern "C" { ... }` blocks (the scalar helpers outside are Rust code)
    while let Some(at) = rest.find("extern \"C\" {") {
        let block_start = at + "extern \"C\" {".len();
        let block_end = block_start + rest[block_start..].find("\n}").expect("end of extern block");
        let block = &rest[block_start..block_end];
        let mut b = block;
        while let Some(f) = b.find("fn ") {
            let after = &b[f + 3..];
            let open = after.find('(').unwrap();
            let name = after[..open].trim().to_string();
            let n = count_params(parenthesised(after, open));
            assert!(
                out.insert(name.clone(), n).is_none(),
                "{} declared twice in lib.rs",
                name
            );
            b = &after[open..];
            // skip the rest of this declaration (it may contain "fn(" in callback types)
            b = &b[b.find(';').unwrap() + 1..];
        }
        rest = &rest[block_end..];
    }
    out
}

#[test]
fn every_header_function_is_declared_with_its_arity() {
    let h = header_functions();
    let r = rust_functions();
    assert!(h.len() > 300, "parsed only {} functions from glia.h", h.len());
    let mut problems = Vec::new();
    for (name, n) in &h {
        match r.get(name) {
            None => problems.push(format!("missing in glia-sys: {} ({} params)", name, n)),
            Some(m) if m != n => problems.push(format!(
                "arity mismatch: {} has {} params in glia.h, {} in glia-sys",
                name, n, m
            )),
            _ => {}
        }
    }
    for name in r.keys() {
        if !h.contains_key(name) {
            problems.push(format!("extra in glia-sys (not in glia.h): {}", name));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn parser_counts_callback_parameters_as_one() {
    assert_eq!(count_params("void"), 0);
    assert_eq!(count_params(""), 0);
    assert_eq!(
        count_params("glia_log_fn fn, void *u, void (*free_user_data)(void *)"),
        3
    );
    assert_eq!(
        count_params("f: Option<unsafe extern \"C\" fn(*mut c_void, i64)>, n: i64"),
        2
    );
}

#[test]
fn links_and_reports_the_version() {
    let v = unsafe { glia_sys::glia_version() };
    assert_eq!(v, glia_sys::GLIA_VERSION_NUMBER);
}
