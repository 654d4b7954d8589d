//! Byte-level lexer for MLIR's textual format.
//!
//! [`lex_at`] is a pure function from a byte offset to the next token, so the parser can
//! look ahead any number of tokens without buffering, and can switch to raw byte scanning
//! where MLIR's grammar is not token-based (shapes such as `4x?xi32`, opaque `<...>` bodies).
//! Tokens carry only their kind and byte range; no allocation happens while lexing.
//!
//! Assumes: the input is valid UTF-8 (it is a `&str`); identifiers are ASCII as in MLIR.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `foo`, `tor.addi`, `i32`, `true`.
    BareId,
    /// `%name` (the `#N` result-index suffix is not part of the token).
    PercentId,
    /// `@name` or `@"quoted"`.
    AtId,
    /// `^bb0`.
    CaretId,
    /// `#name` (a dialect attribute or alias).
    HashId,
    /// `!name` (a dialect type or alias).
    BangId,
    /// `42`, `-7`, `0x1F`.
    Int,
    /// `1.5`, `-2.0e+01`.
    Float,
    /// `"text"` including the quotes.
    Str,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    ColonColon,
    Equal,
    Arrow,
    Question,
    Star,
    Plus,
    Minus,
    Ellipsis,
    Eof,
    /// A byte that starts no token, or an unterminated string; the span points at it.
    Error,
}

/// Offsets are `u32` (inputs are below 4 GiB, as [`crate::diag::Span`]s are), so a token is
/// 12 bytes and [`lex_at`] returns it in registers rather than through memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    start: u32,
    end: u32,
}

impl Token {
    #[inline(always)]
    pub(crate) fn new(kind: Kind, start: usize, end: usize) -> Token {
        Token {
            kind,
            start: start as u32,
            end: end as u32,
        }
    }

    /// Byte offset of the first byte.
    #[inline(always)]
    pub(crate) fn start(self) -> usize {
        self.start as usize
    }

    /// Byte offset after the last byte.
    #[inline(always)]
    pub(crate) fn end(self) -> usize {
        self.end as usize
    }
}

impl Kind {
    /// How the kind is named in "expected X" diagnostics.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::BareId => "identifier",
            Kind::PercentId => "SSA value",
            Kind::AtId => "symbol",
            Kind::CaretId => "block label",
            Kind::HashId => "attribute alias",
            Kind::BangId => "dialect type",
            Kind::Int => "integer",
            Kind::Float => "float",
            Kind::Str => "string",
            Kind::LParen => "'('",
            Kind::RParen => "')'",
            Kind::LBracket => "'['",
            Kind::RBracket => "']'",
            Kind::LBrace => "'{'",
            Kind::RBrace => "'}'",
            Kind::Less => "'<'",
            Kind::Greater => "'>'",
            Kind::Comma => "','",
            Kind::Colon => "':'",
            Kind::ColonColon => "'::'",
            Kind::Equal => "'='",
            Kind::Arrow => "'->'",
            Kind::Question => "'?'",
            Kind::Star => "'*'",
            Kind::Plus => "'+'",
            Kind::Minus => "'-'",
            Kind::Ellipsis => "'...'",
            Kind::Eof => "end of input",
            Kind::Error => "invalid token",
        }
    }
}

/// Byte classes, one bit each, looked up in [`CLASS`] (the lexer's inner loops).
const ID_START: u8 = 1;
const ID_CHAR: u8 = 2;
const SUFFIX_CHAR: u8 = 4;
const SPACE: u8 = 8;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let alpha = b.is_ascii_alphabetic();
        let alnum = b.is_ascii_alphanumeric();
        if alpha || b == b'_' {
            t[i] |= ID_START;
        }
        if alnum || b == b'_' || b == b'$' || b == b'.' {
            t[i] |= ID_CHAR | SUFFIX_CHAR;
        }
        if b == b'-' {
            t[i] |= SUFFIX_CHAR;
        }
        if b.is_ascii_whitespace() {
            t[i] |= SPACE;
        }
        i += 1;
    }
    t
};

pub(crate) fn is_id_start(b: u8) -> bool {
    CLASS[b as usize] & ID_START != 0
}

pub(crate) fn is_id_char(b: u8) -> bool {
    CLASS[b as usize] & ID_CHAR != 0
}

/// The first position at or after `pos` whose byte is not in `class` (or `src.len()`).
/// The lexer's hottest loop (identifiers, indentation): four bytes per step while all four
/// are in the class, then byte by byte.
#[inline(always)]
fn scan_class(src: &[u8], pos: usize, class: u8) -> usize {
    let mut i = pos;
    while let Some(w) = src.get(i..i + 4) {
        let all = CLASS[w[0] as usize]
            & CLASS[w[1] as usize]
            & CLASS[w[2] as usize]
            & CLASS[w[3] as usize];
        if all & class == 0 {
            break;
        }
        i += 4;
    }
    while src.get(i).is_some_and(|&b| CLASS[b as usize] & class != 0) {
        i += 1;
    }
    i
}

/// Skip whitespace and `//` comments starting at `pos`.
#[inline]
pub(crate) fn skip_trivia(src: &[u8], mut pos: usize) -> usize {
    loop {
        pos = scan_class(src, pos, SPACE);
        if src.get(pos) == Some(&b'/') && src.get(pos + 1) == Some(&b'/') {
            pos = src[pos..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| pos + n);
            continue;
        }
        return pos;
    }
}

/// The kind of each byte that is a whole token by itself whatever follows it (`(`, `,`,
/// `=`, ...); [`Kind::Error`] for every other byte. `:`, `-` and `.` are not here: the next
/// byte decides their token.
static PUNCT: [Kind; 256] = {
    let mut t = [Kind::Error; 256];
    t[b'(' as usize] = Kind::LParen;
    t[b')' as usize] = Kind::RParen;
    t[b'[' as usize] = Kind::LBracket;
    t[b']' as usize] = Kind::RBracket;
    t[b'{' as usize] = Kind::LBrace;
    t[b'}' as usize] = Kind::RBrace;
    t[b'<' as usize] = Kind::Less;
    t[b'>' as usize] = Kind::Greater;
    t[b',' as usize] = Kind::Comma;
    t[b'=' as usize] = Kind::Equal;
    t[b'?' as usize] = Kind::Question;
    t[b'*' as usize] = Kind::Star;
    t[b'+' as usize] = Kind::Plus;
    t
};

/// The token starting at or after `pos` (after trivia).
///
/// Inlined into the parser's token steps: a one-byte punctuation token at `pos` or after
/// one space (about half of all tokens) is returned without a call; everything else goes
/// to [`lex_at_general`], which gives the same token for these cases.
#[inline(always)]
pub(crate) fn lex_at(src: &[u8], pos: usize) -> Token {
    let start = if src.get(pos) == Some(&b' ') {
        pos + 1
    } else {
        pos
    };
    if let Some(&b) = src.get(start) {
        let kind = PUNCT[b as usize];
        if kind != Kind::Error {
            return Token::new(kind, start, start + 1);
        }
    }
    lex_at_general(src, pos)
}

/// [`lex_at`] for every token.
#[inline(never)]
fn lex_at_general(src: &[u8], pos: usize) -> Token {
    // Most tokens follow no space or one space; skip those before the general loop.
    let start = match src.get(pos) {
        Some(&b) if CLASS[b as usize] & SPACE == 0 && b != b'/' => pos,
        Some(b' ')
            if src
                .get(pos + 1)
                .is_some_and(|&b| CLASS[b as usize] & SPACE == 0 && b != b'/') =>
        {
            pos + 1
        }
        _ => skip_trivia(src, pos),
    };
    let tok = |kind, end| Token::new(kind, start, end);
    let Some(&b) = src.get(start) else {
        return tok(Kind::Eof, start);
    };
    if is_id_start(b) {
        // The most frequent token: op names, keywords, types.
        return tok(Kind::BareId, scan_class(src, start + 1, ID_CHAR));
    }
    let next = src.get(start + 1).copied().unwrap_or(0);
    match b {
        b'(' => tok(Kind::LParen, start + 1),
        b')' => tok(Kind::RParen, start + 1),
        b'[' => tok(Kind::LBracket, start + 1),
        b']' => tok(Kind::RBracket, start + 1),
        b'{' => tok(Kind::LBrace, start + 1),
        b'}' => tok(Kind::RBrace, start + 1),
        b'<' => tok(Kind::Less, start + 1),
        b'>' => tok(Kind::Greater, start + 1),
        b',' => tok(Kind::Comma, start + 1),
        b'=' => tok(Kind::Equal, start + 1),
        b'?' => tok(Kind::Question, start + 1),
        b'*' => tok(Kind::Star, start + 1),
        b'+' => tok(Kind::Plus, start + 1),
        b':' if next == b':' => tok(Kind::ColonColon, start + 2),
        b':' => tok(Kind::Colon, start + 1),
        b'-' if next == b'>' => tok(Kind::Arrow, start + 2),
        b'-' if next.is_ascii_digit() => lex_number(src, start, start + 1),
        b'-' => tok(Kind::Minus, start + 1),
        b'.' if src.get(start..start + 3) == Some(b"...") => tok(Kind::Ellipsis, start + 3),
        b'"' => lex_string(src, start),
        b'%' => lex_sigil(src, start, Kind::PercentId, SUFFIX_CHAR),
        b'^' => lex_sigil(src, start, Kind::CaretId, SUFFIX_CHAR),
        b'#' => lex_sigil(src, start, Kind::HashId, ID_CHAR),
        b'!' => lex_sigil(src, start, Kind::BangId, ID_CHAR),
        b'@' if next == b'"' => {
            let s = lex_string(src, start + 1);
            let kind = if s.kind == Kind::Str {
                Kind::AtId
            } else {
                Kind::Error
            };
            Token::new(kind, start, s.end())
        }
        b'@' => lex_sigil(src, start, Kind::AtId, SUFFIX_CHAR),
        b'0'..=b'9' => lex_number(src, start, start),
        _ => tok(Kind::Error, start + utf8_len(b)),
    }
}

fn utf8_len(b: u8) -> usize {
    match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// `class` is the byte class (bit of [`CLASS`]) allowed after the sigil.
fn lex_sigil(src: &[u8], start: usize, kind: Kind, class: u8) -> Token {
    let end = scan_class(src, start + 1, class);
    let kind = if end == start + 1 { Kind::Error } else { kind };
    Token::new(kind, start, end)
}

fn lex_string(src: &[u8], start: usize) -> Token {
    let mut i = start + 1;
    while i < src.len() {
        match src[i] {
            b'"' => return Token::new(Kind::Str, start, i + 1),
            b'\\' => i += 2,
            b'\n' => break,
            _ => i += 1,
        }
    }
    Token::new(Kind::Error, start, start + 1)
}

/// `digits_start` is after an optional leading `-`.
fn lex_number(src: &[u8], start: usize, digits_start: usize) -> Token {
    let mut i = digits_start;
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    if at(i) == b'0' && at(i + 1) == b'x' && at(i + 2).is_ascii_hexdigit() {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
        return Token::new(Kind::Int, start, i);
    }
    while at(i).is_ascii_digit() {
        i += 1;
    }
    if at(i) != b'.' || !at(i + 1).is_ascii_digit() {
        return Token::new(Kind::Int, start, i);
    }
    i += 1;
    while at(i).is_ascii_digit() {
        i += 1;
    }
    if matches!(at(i), b'e' | b'E') {
        let mut j = i + 1;
        if matches!(at(j), b'+' | b'-') {
            j += 1;
        }
        if at(j).is_ascii_digit() {
            while at(j).is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    Token::new(Kind::Float, start, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Kind> {
        let src = text.as_bytes();
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let t = lex_at(src, pos);
            out.push(t.kind);
            if matches!(t.kind, Kind::Eof | Kind::Error) {
                return out;
            }
            pos = t.end();
        }
    }

    #[test]
    fn lexes_op_line() {
        use Kind::*;
        assert_eq!(
            kinds("%19 = tor.addi %17 %18 on (7 to 8) : (i32) -> i32 // c\n"),
            vec![
                PercentId, Equal, BareId, PercentId, PercentId, BareId, LParen, Int, BareId, Int,
                RParen, Colon, LParen, BareId, RParen, Arrow, BareId, Eof
            ]
        );
    }

    #[test]
    fn lexes_numbers_and_sigils() {
        use Kind::*;
        assert_eq!(
            kinds("-7 1.000000e+01 0x1F @a::@\"b c\" ^bb0 #x.y !seq.clock ..."),
            vec![
                Int, Float, Int, AtId, ColonColon, AtId, CaretId, HashId, BangId, Ellipsis, Eof
            ]
        );
    }

    #[test]
    fn inline_punctuation_path_agrees_with_general_lexer() {
        let samples = [
            include_str!("../../../examples/aps/flow_burst_add.mlir"),
            include_str!("../../../examples/handshake/gcd.mlir"),
            "a ::b : (c)->d -1 - > ... . ( ,  , //x\n) \t= ",
        ];
        for text in samples {
            let src = text.as_bytes();
            for pos in 0..=src.len() {
                assert_eq!(lex_at(src, pos), lex_at_general(src, pos), "at {pos}");
            }
        }
    }

    #[test]
    fn unterminated_string_is_error() {
        let t = lex_at(b"  \"abc\n", 0);
        assert_eq!((t.kind, t.start()), (Kind::Error, 2));
    }

    #[test]
    fn stray_byte_is_error() {
        assert_eq!(kinds("a ` b"), vec![Kind::BareId, Kind::Error]);
    }
}
