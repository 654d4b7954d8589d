//! Lexical highlighting for editors (LSP semantic tokens): every token of an MLIR text (APS
//! and Handshake alike) or a BLIF text with what it is. Needs no parse, so a text with
//! errors is highlighted too; byte ranges, never across a line.

use crate::mlir::lexer::{Kind, lex_at};

/// What a token is; the order is the legend a language server announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenType {
    /// An op name (`tor.addi`), a directive (`.names`), a keyword of the syntax (`to`).
    Keyword,
    /// An SSA value, a block label, a BLIF net.
    Variable,
    /// An `@symbol`, a BLIF model.
    Function,
    Number,
    String,
    /// A builtin or dialect type (`i32`, `!handshake.channel<i1>`).
    Type,
    /// An attribute's name (`starttime = …`), a `.subckt` pin.
    Property,
    Comment,
    /// `->`.
    Operator,
}

impl TokenType {
    pub const ALL: [TokenType; 9] = [
        TokenType::Keyword,
        TokenType::Variable,
        TokenType::Function,
        TokenType::Number,
        TokenType::String,
        TokenType::Type,
        TokenType::Property,
        TokenType::Comment,
        TokenType::Operator,
    ];

    /// The LSP name of the type.
    pub fn lsp_name(self) -> &'static str {
        match self {
            TokenType::Keyword => "keyword",
            TokenType::Variable => "variable",
            TokenType::Function => "function",
            TokenType::Number => "number",
            TokenType::String => "string",
            TokenType::Type => "type",
            TokenType::Property => "property",
            TokenType::Comment => "comment",
            TokenType::Operator => "operator",
        }
    }
}

/// One highlighted token: bytes `start..start + len` of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub len: usize,
    pub kind: TokenType,
}

/// Words of MLIR's syntax (and TOR's) that are neither ops nor types.
const MLIR_WORDS: &[&str] = &[
    "attributes",
    "module",
    "on",
    "step",
    "to",
    "iter_args",
    "true",
    "false",
    "loc",
];

fn is_type_word(w: &str) -> bool {
    let int = |p: &str| {
        w.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    int("i")
        || int("si")
        || int("ui")
        || int("f")
        || matches!(
            w,
            "index" | "none" | "memref" | "tensor" | "vector" | "bf16"
        )
}

/// The tokens of an MLIR text.
pub fn mlir(text: &str) -> Vec<Token> {
    let src = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut push = |start: usize, end: usize, kind| {
        out.push(Token {
            start,
            len: end - start,
            kind,
        })
    };
    loop {
        // Comments are trivia to the lexer: find them first.
        while pos < src.len() && src[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if src[pos..].starts_with(b"//") {
            let end = src[pos..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| pos + n);
            push(pos, end, TokenType::Comment);
            pos = end;
            continue;
        }
        let t = lex_at(src, pos);
        let (start, end) = (t.start(), t.end());
        match t.kind {
            Kind::Eof => break,
            Kind::Error => {
                pos = end.max(pos + 1);
                continue;
            }
            _ => {}
        }
        let kind = match t.kind {
            Kind::BareId => {
                let word = &text[start..end];
                let next = lex_at(src, end).kind;
                if next == Kind::Equal && word != "to" {
                    Some(TokenType::Property)
                } else if is_type_word(word) {
                    Some(TokenType::Type)
                } else if word.contains('.') || MLIR_WORDS.contains(&word) {
                    Some(TokenType::Keyword)
                } else {
                    None
                }
            }
            Kind::PercentId | Kind::CaretId => Some(TokenType::Variable),
            Kind::AtId => Some(TokenType::Function),
            Kind::BangId | Kind::HashId => Some(TokenType::Type),
            Kind::Int | Kind::Float => Some(TokenType::Number),
            Kind::Str => Some(TokenType::String),
            Kind::Arrow => Some(TokenType::Operator),
            _ => None,
        };
        if let Some(kind) = kind
            && !text[start..end].contains('\n')
        {
            push(start, end, kind);
        }
        pos = end.max(pos + 1);
    }
    out
}

/// The tokens of a BLIF text: directives, models, nets, `.subckt` pins, cover rows and
/// comments.
pub fn blif(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut continued = false;
    for line in text.split_inclusive('\n') {
        let base = at;
        at += line.len();
        let (code, comment) = match line.find('#') {
            Some(k) => (&line[..k], Some(k)),
            None => (line.trim_end_matches(['\n', '\r']), None),
        };
        let words: Vec<(usize, &str)> = code
            .split_ascii_whitespace()
            .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
            .collect();
        let directive = words
            .first()
            .map(|w| w.1)
            .filter(|w| w.starts_with('.') && !continued);
        let cover = !continued
            && directive.is_none()
            && !words.is_empty()
            && words
                .iter()
                .all(|(_, w)| w.bytes().all(|b| matches!(b, b'0' | b'1' | b'-')));
        for (k, (off, w)) in words.iter().enumerate() {
            if *w == "\\" {
                continue;
            }
            let start = base + off;
            let kind = match (directive, k) {
                (Some(_), 0) => TokenType::Keyword,
                (Some(".model" | ".subckt" | ".gate" | ".mlatch"), 1) => TokenType::Function,
                (Some(".subckt" | ".gate"), _) => {
                    if let Some(eq) = w.find('=') {
                        out.push(Token {
                            start,
                            len: eq,
                            kind: TokenType::Property,
                        });
                        out.push(Token {
                            start: start + eq + 1,
                            len: w.len() - eq - 1,
                            kind: TokenType::Variable,
                        });
                        continue;
                    }
                    TokenType::Variable
                }
                _ if cover => TokenType::Number,
                _ => TokenType::Variable,
            };
            out.push(Token {
                start,
                len: w.len(),
                kind,
            });
        }
        continued = code.trim_end().ends_with('\\');
        if let Some(k) = comment {
            let end = line.trim_end_matches(['\n', '\r']).len();
            if end > k {
                out.push(Token {
                    start: base + k,
                    len: end - k,
                    kind: TokenType::Comment,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, tokens: &[Token]) -> Vec<(String, TokenType)> {
        tokens
            .iter()
            .map(|t| (text[t.start..t.start + t.len].to_string(), t.kind))
            .collect()
    }

    #[test]
    fn an_aps_op_line() {
        let text =
            "// c\n%0 = aps.readrf %arg0 {dump = \"op_18\", starttime = 0 : i32} : i5 -> i32\n";
        let k = kinds(text, &mlir(text));
        use TokenType::*;
        assert_eq!(
            k,
            vec![
                ("// c".into(), Comment),
                ("%0".into(), Variable),
                ("aps.readrf".into(), Keyword),
                ("%arg0".into(), Variable),
                ("dump".into(), Property),
                ("\"op_18\"".into(), String),
                ("starttime".into(), Property),
                ("0".into(), Number),
                ("i32".into(), Type),
                ("i5".into(), Type),
                ("->".into(), Operator),
                ("i32".into(), Type),
            ]
        );
    }

    #[test]
    fn a_blif_model() {
        let text =
            ".model m # top\n.inputs a b\n.names a b y\n11 1\n.subckt sub x=a \\\n  z=y\n.end\n";
        let k = kinds(text, &blif(text));
        use TokenType::*;
        assert!(k.contains(&(".model".into(), Keyword)));
        assert!(k.contains(&("m".into(), Function)));
        assert!(k.contains(&("# top".into(), Comment)));
        assert!(k.contains(&("11".into(), Number)));
        assert!(k.contains(&("sub".into(), Function)));
        assert!(k.contains(&("x".into(), Property)));
        assert!(
            k.contains(&("z=y".into(), Variable)),
            "a continued line: {k:?}"
        );
        assert_eq!(k.iter().filter(|x| x.1 == Keyword).count(), 5);
    }
}
