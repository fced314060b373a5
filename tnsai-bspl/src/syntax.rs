//! The concrete syntax of BSPL: tokens with their positions, and the syntax
//! tree the parser builds before names are resolved.
//!
//! The lexical rules follow the reference Python tool: a *word* is a run of
//! letters, digits, `_`, `@`, `>` and `-` (so `->` on its own is a word, which
//! the parser reads as the arrow), `//` and `#` start a comment that runs to the
//! end of the line, and `→` / `↦` are alternative arrows.

use crate::parser::ParseError;
use crate::protocol::Adornment;

/// A place in the source text, both counted from 1 (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    /// Line number, from 1.
    pub line: usize,
    /// Column number in characters, from 1.
    pub column: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Word,
    LeftBrace,
    RightBrace,
    LeftBracket,
    RightBracket,
    LeftParen,
    RightParen,
    Comma,
    Colon,
    Pipe,
    Arrow,
    End,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'s> {
    pub(crate) kind: TokenKind,
    pub(crate) text: &'s str,
    /// Byte offsets into the source, used to recover protocol names that
    /// contain spaces exactly as written.
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) position: Position,
}

impl Token<'_> {
    pub(crate) fn is_word(&self, word: &str) -> bool {
        self.kind == TokenKind::Word && self.text == word
    }

    /// How the token is shown in an error message.
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            TokenKind::End => "end of input".to_owned(),
            _ => format!("'{}'", self.text),
        }
    }
}

pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '@' | '>' | '-')
}

/// Characters allowed in a type tag (no `-` or `>`, as in the reference grammar).
pub(crate) fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '@')
}

/// Splits `source` into tokens, always ending with a [`TokenKind::End`] token.
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    let mut line = 1;
    let mut column = 1;

    while let Some(&(offset, c)) = chars.peek() {
        let position = Position { line, column };
        if c == '\n' {
            chars.next();
            line += 1;
            column = 1;
            continue;
        }
        if c.is_whitespace() {
            chars.next();
            column += 1;
            continue;
        }
        let starts_comment = c == '#' || (c == '/' && source[offset..].starts_with("//"));
        if starts_comment {
            while let Some(&(_, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                column += 1;
            }
            continue;
        }
        if is_word_char(c) {
            let mut end = offset;
            while let Some(&(o, c)) = chars.peek() {
                if !is_word_char(c) {
                    break;
                }
                end = o + c.len_utf8();
                chars.next();
                column += 1;
            }
            let text = &source[offset..end];
            let kind = if text == "->" {
                TokenKind::Arrow
            } else {
                TokenKind::Word
            };
            tokens.push(Token {
                kind,
                text,
                start: offset,
                end,
                position,
            });
            continue;
        }
        let kind = match c {
            '{' => TokenKind::LeftBrace,
            '}' => TokenKind::RightBrace,
            '[' => TokenKind::LeftBracket,
            ']' => TokenKind::RightBracket,
            '(' => TokenKind::LeftParen,
            ')' => TokenKind::RightParen,
            ',' => TokenKind::Comma,
            ':' => TokenKind::Colon,
            '|' => TokenKind::Pipe,
            '→' | '↦' => TokenKind::Arrow,
            other => {
                return Err(ParseError {
                    line,
                    column,
                    expected: "a name, '{', '}', '[', ']', '(', ')', ',', ':', '|' or '->'"
                        .to_owned(),
                    found: format!("'{other}'"),
                });
            }
        };
        let end = offset + c.len_utf8();
        chars.next();
        column += 1;
        tokens.push(Token {
            kind,
            text: &source[offset..end],
            start: offset,
            end,
            position,
        });
    }
    tokens.push(Token {
        kind: TokenKind::End,
        text: "",
        start: source.len(),
        end: source.len(),
        position: Position { line, column },
    });
    Ok(tokens)
}

/// A parameter as written in a declaration list, a message or a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceParameter {
    pub(crate) position: Position,
    pub(crate) name: String,
    pub(crate) adornment: Option<Adornment>,
    pub(crate) key: bool,
    pub(crate) tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceName {
    pub(crate) position: Position,
    pub(crate) name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMessage {
    pub(crate) position: Position,
    pub(crate) sender: SourceName,
    pub(crate) recipients: Vec<SourceName>,
    pub(crate) name: String,
    pub(crate) parameters: Vec<SourceParameter>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceReference {
    pub(crate) position: Position,
    pub(crate) protocol: String,
    /// Roles given before a `|` separator, when the reference uses one.
    pub(crate) explicit_roles: Option<Vec<SourceParameter>>,
    pub(crate) arguments: Vec<SourceParameter>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SourceItem {
    Message(SourceMessage),
    Reference(SourceReference),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceProtocol {
    pub(crate) position: Position,
    pub(crate) name: String,
    pub(crate) roles: Vec<SourceName>,
    pub(crate) public_parameters: Vec<SourceParameter>,
    pub(crate) private_parameters: Vec<SourceParameter>,
    pub(crate) items: Vec<SourceItem>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_word_and_comments_are_recognised() {
        let tokens = tokenize("A -> B: m // note\n# other\nC → D").unwrap_or_default();
        let kinds: Vec<TokenKind> = tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            vec![
                TokenKind::Word,
                TokenKind::Arrow,
                TokenKind::Word,
                TokenKind::Colon,
                TokenKind::Word,
                TokenKind::Word,
                TokenKind::Arrow,
                TokenKind::Word,
                TokenKind::End
            ]
        );
        assert_eq!(tokens[5].position, Position { line: 3, column: 1 });
    }

    #[test]
    fn stray_character_is_reported_with_position() {
        let error = tokenize("P {\n  roles A;").err();
        let error = error.map(|e| (e.line, e.column, e.found));
        assert_eq!(error, Some((2, 10, "';'".to_owned())));
    }
}
