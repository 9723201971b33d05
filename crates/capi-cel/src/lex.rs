//! The CEL lexer (cel-go's grammar tokens), over code points so positions match cel-go's.

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal (the digits, base handled).
    Int(i64),
    /// An unsigned literal.
    Uint(u64),
    /// A floating literal.
    Double(f64),
    /// A string literal, decoded.
    Str(String),
    /// A bytes literal, decoded.
    Bytes(Vec<u8>),
    /// Punctuation or an operator.
    Punct(&'static str),
    /// End of input.
    Eof,
}

/// A token and its code-point offset.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its offset.
    pub pos: usize,
}

/// Why lexing stopped: the offset and whether cel-go's own text for it is known.
#[derive(Clone, Debug)]
pub struct LexError {
    /// The offset.
    pub pos: usize,
    /// cel-go refuses the input for certain (an unknown character, an unterminated string);
    /// otherwise the input is outside what is modelled (an escape or a number literal).
    pub certain: bool,
}

const PUNCTS: [&str; 26] = [
    "==", "!=", "<=", ">=", "&&", "||", ".?", "[?", "<", ">", "!", "=", "+", "-", "*", "/", "%",
    "?", ":", ".", ",", "(", ")", "[", "]", "{",
];

/// Splits `src` into tokens (the last one is [`Tok::Eof`]).
pub fn lex(src: &[char]) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && src.get(i + 1) == Some(&'/') {
            while i < src.len() && src[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_digit()
            || (c == '.' && src.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            number(src, &mut i)?
        } else if let Some(t) = string_like(src, &mut i)? {
            t
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == '_') {
                i += 1;
            }
            Tok::Ident(src[start..i].iter().collect())
        } else if c == '}' {
            i += 1;
            Tok::Punct("}")
        } else {
            let p = PUNCTS
                .iter()
                .find(|p| {
                    p.chars()
                        .enumerate()
                        .all(|(k, pc)| src.get(i + k) == Some(&pc))
                })
                .ok_or(LexError {
                    pos: i,
                    certain: true,
                })?;
            i += p.chars().count();
            Tok::Punct(p)
        };
        out.push(Token { tok, pos: start });
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: src.len(),
    });
    Ok(out)
}

fn number(src: &[char], i: &mut usize) -> Result<Tok, LexError> {
    let start = *i;
    let err = LexError {
        pos: start,
        certain: false,
    };
    if src[*i] == '0' && matches!(src.get(*i + 1), Some('x' | 'X')) {
        *i += 2;
        let ds = *i;
        while *i < src.len() && src[*i].is_ascii_hexdigit() {
            *i += 1;
        }
        let digits: String = src[ds..*i].iter().collect();
        return int_tail(src, i, &digits, 16, err);
    }
    while *i < src.len() && src[*i].is_ascii_digit() {
        *i += 1;
    }
    let mut float = false;
    if src.get(*i) == Some(&'.') && src.get(*i + 1).is_some_and(char::is_ascii_digit) {
        float = true;
        *i += 1;
        while *i < src.len() && src[*i].is_ascii_digit() {
            *i += 1;
        }
    }
    if matches!(src.get(*i), Some('e' | 'E')) {
        let mut j = *i + 1;
        if matches!(src.get(j), Some('+' | '-')) {
            j += 1;
        }
        if src.get(j).is_some_and(char::is_ascii_digit) {
            float = true;
            *i = j;
            while *i < src.len() && src[*i].is_ascii_digit() {
                *i += 1;
            }
        }
    }
    let text: String = src[start..*i].iter().collect();
    if float {
        return text.parse().map(Tok::Double).map_err(|_| err);
    }
    int_tail(src, i, &text, 10, err)
}

fn int_tail(
    src: &[char],
    i: &mut usize,
    digits: &str,
    radix: u32,
    err: LexError,
) -> Result<Tok, LexError> {
    if matches!(src.get(*i), Some('u' | 'U')) {
        *i += 1;
        return u64::from_str_radix(digits, radix)
            .map(Tok::Uint)
            .map_err(|_| err);
    }
    // Out-of-range ints are a parser error in cel-go; the text is not modelled.
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|v| *v <= 1 << 63)
        .map(|v| {
            if v == 1 << 63 {
                Tok::Uint(v)
            } else {
                Tok::Int(v as i64)
            }
        })
        .ok_or(err)
}

/// A string or bytes literal at `i` (with `r`/`b` prefixes), or `None`.
fn string_like(src: &[char], i: &mut usize) -> Result<Option<Tok>, LexError> {
    let start = *i;
    let mut j = *i;
    let (mut raw, mut bytes) = (false, false);
    while j < src.len() && j < start + 2 {
        match src[j] {
            'r' | 'R' if !raw => raw = true,
            'b' | 'B' if !bytes => bytes = true,
            _ => break,
        }
        j += 1;
    }
    let Some(&q) = src.get(j) else {
        return Ok(None);
    };
    if q != '"' && q != '\'' {
        return Ok(None);
    }
    let triple = src.get(j + 1) == Some(&q) && src.get(j + 2) == Some(&q);
    j += if triple { 3 } else { 1 };
    let mut text = String::new();
    let err = LexError {
        pos: start,
        certain: true,
    };
    loop {
        let Some(&c) = src.get(j) else {
            return Err(err);
        };
        if triple && c == q && src.get(j + 1) == Some(&q) && src.get(j + 2) == Some(&q) {
            j += 3;
            break;
        }
        if !triple && c == q {
            j += 1;
            break;
        }
        if !triple && (c == '\n' || c == '\r') {
            return Err(err);
        }
        if c == '\\' && !raw {
            j += 1;
            text.push(escape(src, &mut j).ok_or(LexError {
                pos: start,
                certain: false,
            })?);
            continue;
        }
        text.push(c);
        j += 1;
    }
    *i = j;
    Ok(Some(if bytes {
        Tok::Bytes(text.into_bytes())
    } else {
        Tok::Str(text)
    }))
}

/// The escape after a backslash at `j` (simple escapes only; others are unmodelled).
fn escape(src: &[char], j: &mut usize) -> Option<char> {
    let c = *src.get(*j)?;
    *j += 1;
    Some(match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '\\' => '\\',
        '"' => '"',
        '\'' => '\'',
        '`' => '`',
        '?' => '?',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        'x' | 'X' => hex(src, j, 2)?,
        'u' => hex(src, j, 4)?,
        'U' => hex(src, j, 8)?,
        '0'..='3' => {
            let digits: String = std::iter::once(c)
                .chain(src.get(*j..*j + 2)?.iter().copied())
                .collect();
            *j += 2;
            char::from_u32(u32::from_str_radix(&digits, 8).ok()?)?
        }
        _ => return None,
    })
}

/// `n` hex digits at `j` as a character.
fn hex(src: &[char], j: &mut usize, n: usize) -> Option<char> {
    let digits: String = src.get(*j..*j + n)?.iter().collect();
    *j += n;
    char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
}
