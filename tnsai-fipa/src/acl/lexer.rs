//! Splits FIPA ACL text into tokens (FIPA SC00070 lexical rules).
//!
//! Bytes up to 0x20 separate tokens. A word runs until such a byte or a
//! parenthesis and may not start with a digit, `-`, `#` or `@`: those starts
//! belong to numbers, date-times and byte-length encoded strings.

use super::AclError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    Open,
    Close,
    Word,
    /// A string literal or byte-length encoded string, already unescaped.
    Str(String),
    Number,
    DateTime,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Token {
    /// The token as written, for words, numbers and date-times.
    pub(super) fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or_default()
    }

    /// A short description for error messages.
    pub(super) fn describe(&self, src: &str) -> String {
        match &self.kind {
            Kind::Open => "`(`".to_owned(),
            Kind::Close => "`)`".to_owned(),
            Kind::Str(_) => "a string".to_owned(),
            Kind::Word | Kind::Number | Kind::DateTime => {
                let text = self.text(src);
                match text.char_indices().nth(40) {
                    Some((cut, _)) => format!("`{}…`", &text[..cut]),
                    None => format!("`{text}`"),
                }
            }
        }
    }
}

fn is_delimiter(b: u8) -> bool {
    b <= 0x20 || b == b'(' || b == b')'
}

pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    peeked: Option<Token>,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        Self {
            src,
            pos: 0,
            peeked: None,
        }
    }

    pub(super) fn src(&self) -> &'a str {
        self.src
    }

    pub(super) fn peek(&mut self) -> Result<Option<&Token>, AclError> {
        if self.peeked.is_none() {
            self.peeked = self.lex()?;
        }
        Ok(self.peeked.as_ref())
    }

    pub(super) fn next_token(&mut self) -> Result<Option<Token>, AclError> {
        match self.peeked.take() {
            Some(token) => Ok(Some(token)),
            None => self.lex(),
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    fn skip_space(&mut self) {
        while self.bytes().get(self.pos).is_some_and(|&b| b <= 0x20) {
            self.pos += 1;
        }
    }

    fn lex(&mut self) -> Result<Option<Token>, AclError> {
        self.skip_space();
        let start = self.pos;
        let Some(&first) = self.bytes().get(start) else {
            return Ok(None);
        };
        let second = self.bytes().get(start + 1).copied();
        let kind = match first {
            b'(' => {
                self.pos += 1;
                Kind::Open
            }
            b')' => {
                self.pos += 1;
                Kind::Close
            }
            b'"' => Kind::Str(self.string_literal(start)?),
            b'#' => Kind::Str(self.byte_length_string(start)?),
            b'0'..=b'9' | b'-' => self.numeric(start)?,
            b'+' | b'.' if second.is_some_and(|b| b.is_ascii_digit() || b == b'.') => {
                self.numeric(start)?
            }
            b'@' => {
                self.run_to_delimiter();
                return Err(AclError::UnexpectedToken {
                    offset: start,
                    expected: "a word, which may not start with `@`",
                    found: Token {
                        kind: Kind::Word,
                        start,
                        end: self.pos,
                    }
                    .describe(self.src),
                });
            }
            _ => {
                self.run_to_delimiter();
                Kind::Word
            }
        };
        Ok(Some(Token {
            kind,
            start,
            end: self.pos,
        }))
    }

    fn run_to_delimiter(&mut self) {
        while self
            .bytes()
            .get(self.pos)
            .is_some_and(|&b| !is_delimiter(b))
        {
            self.pos += 1;
        }
    }

    /// `"` ... `"`, where `\"` stands for a quote and `\\` for a backslash;
    /// a backslash before anything else is kept as written.
    fn string_literal(&mut self, start: usize) -> Result<String, AclError> {
        let bytes = self.bytes();
        let mut out = String::new();
        let mut segment = start + 1;
        let mut i = start + 1;
        loop {
            match bytes.get(i) {
                None => return Err(AclError::UnterminatedString { offset: start }),
                Some(b'"') => {
                    out.push_str(self.src.get(segment..i).unwrap_or_default());
                    self.pos = i + 1;
                    return Ok(out);
                }
                Some(b'\\') => match bytes.get(i + 1) {
                    Some(&escaped @ (b'"' | b'\\')) => {
                        out.push_str(self.src.get(segment..i).unwrap_or_default());
                        out.push(char::from(escaped));
                        i += 2;
                        segment = i;
                    }
                    Some(_) => i += 1,
                    None => return Err(AclError::UnterminatedString { offset: start }),
                },
                Some(_) => i += 1,
            }
        }
    }

    /// `#` digits `"` followed by exactly that many bytes of UTF-8 text.
    fn byte_length_string(&mut self, start: usize) -> Result<String, AclError> {
        let bytes = self.bytes();
        let digits_start = start + 1;
        let mut i = digits_start;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let invalid = |expected| AclError::InvalidByteLengthString {
            offset: start,
            expected,
        };
        if i == digits_start {
            return Err(invalid("a byte count after `#`"));
        }
        let length: usize = self
            .src
            .get(digits_start..i)
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(|| invalid("a byte count that fits in memory"))?;
        if bytes.get(i) != Some(&b'"') {
            return Err(invalid("`\"` after the byte count"));
        }
        let body = i + 1;
        let end = body
            .checked_add(length)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| invalid("as many bytes as the count says"))?;
        let text = self
            .src
            .get(body..end)
            .ok_or_else(|| invalid("a byte count that ends on a UTF-8 character boundary"))?;
        self.pos = end;
        Ok(text.to_owned())
    }

    fn numeric(&mut self, start: usize) -> Result<Kind, AclError> {
        self.run_to_delimiter();
        let text = self.src.get(start..self.pos).unwrap_or_default();
        if is_date_time(text) {
            Ok(Kind::DateTime)
        } else if is_number(text) {
            Ok(Kind::Number)
        } else {
            Err(AclError::InvalidNumber {
                offset: start,
                text: text.to_owned(),
            })
        }
    }
}

fn strip_sign(text: &str) -> &str {
    text.strip_prefix(['+', '-']).unwrap_or(text)
}

fn all_digits(text: &str, count: usize) -> bool {
    text.len() == count && text.bytes().all(|b| b.is_ascii_digit())
}

/// `[+-]YYYYMMDD "T" hhmmssSSS [letter]`. Its shape only: the parser checks the values.
pub(super) fn is_date_time(text: &str) -> bool {
    let body = strip_sign(text);
    if !body.is_ascii() {
        return false;
    }
    let body = match body.as_bytes().last() {
        Some(b) if b.is_ascii_alphabetic() => &body[..body.len() - 1],
        _ => body,
    };
    body.len() == 18
        && all_digits(&body[..8], 8)
        && body.as_bytes()[8] == b'T'
        && all_digits(&body[9..], 9)
}

/// FIPA integers (decimal or `0x` hex) and floats, with an optional sign.
fn is_number(text: &str) -> bool {
    let body = strip_sign(text);
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = strip_sign(e);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    });
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole)
        && fraction.is_none_or(digits)
        && (!whole.is_empty() || fraction.is_some_and(|f| !f.is_empty()));
    exponent_ok && mantissa_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Kind> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        while let Ok(Some(token)) = lexer.next_token() {
            out.push(token.kind);
        }
        out
    }

    #[test]
    fn numbers_and_dates_are_told_apart_from_words() {
        assert_eq!(
            kinds("12 -3.5 +.5e10 0x1F 20250101T120000000Z foo-1 x@y"),
            vec![
                Kind::Number,
                Kind::Number,
                Kind::Number,
                Kind::Number,
                Kind::DateTime,
                Kind::Word,
                Kind::Word
            ]
        );
    }

    #[test]
    fn malformed_numbers_are_errors() {
        for bad in ["1a", "-", "-foo", "1.2.3", "1e", "0x"] {
            let mut lexer = Lexer::new(bad);
            assert!(
                matches!(
                    lexer.next_token(),
                    Err(AclError::InvalidNumber { offset: 0, .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn strings_unescape_quotes_and_backslashes_only() {
        assert_eq!(
            kinds(r#""a\"b\\c\nd""#),
            vec![Kind::Str("a\"b\\c\\nd".to_owned())]
        );
        assert_eq!(kinds("#3\"a()"), vec![Kind::Str("a()".to_owned())]);
    }
}
