//! Recursive-descent parser from BSPL text to the syntax tree.
//!
//! Two layouts are accepted. The braces form the reference Python tool reads:
//!
//! ```text
//! Name { roles ... parameters ... private ... messages-and-references }
//! ```
//!
//! and the brace-less listing style printed in the Ahoy paper, where the name
//! stands alone on its line and the body follows; such a body ends where the
//! next protocol header (or the end of the text) starts.

use crate::protocol::Adornment;
use crate::syntax::{
    Position, SourceItem, SourceMessage, SourceName, SourceParameter, SourceProtocol,
    SourceReference, Token, TokenKind, is_tag_char, tokenize,
};

/// A syntax error: where it happened, what the parser expected there and what
/// it found instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: expected {expected}, found {found}")]
pub struct ParseError {
    /// Line of the offending token, from 1.
    pub line: usize,
    /// Column of the offending token in characters, from 1.
    pub column: usize,
    /// What would have been accepted at this point.
    pub expected: String,
    /// The text found instead (quoted), or `end of input`.
    pub found: String,
}

/// Words that cannot name a parameter because they would be read as an
/// adornment or as the key marker.
const RESERVED_PARAMETER_NAMES: [&str; 6] = ["in", "out", "nil", "any", "opt", "key"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParameterContext {
    /// Protocol declarations and reference arguments: all five adornments.
    Declaration,
    /// Message parameters: only `in`, `out` and `nil`.
    Message,
}

pub(crate) fn parse_document(source: &str) -> Result<Vec<SourceProtocol>, ParseError> {
    let tokens = tokenize(source)?;
    let mut parser = Parser {
        source,
        tokens,
        index: 0,
    };
    parser.document()
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token<'s>>,
    index: usize,
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Token<'s> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Token<'s> {
        let last = self.tokens.len() - 1;
        self.tokens[(self.index + ahead).min(last)]
    }

    fn advance(&mut self) -> Token<'s> {
        let token = self.peek();
        if token.kind != TokenKind::End {
            self.index += 1;
        }
        token
    }

    fn error_at(&self, token: Token<'_>, expected: &str) -> ParseError {
        ParseError {
            line: token.position.line,
            column: token.position.column,
            expected: expected.to_owned(),
            found: token.describe(),
        }
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> Result<Token<'s>, ParseError> {
        let token = self.peek();
        if token.kind == kind {
            Ok(self.advance())
        } else {
            Err(self.error_at(token, expected))
        }
    }

    fn expect_keyword(&mut self, word: &str) -> Result<Token<'s>, ParseError> {
        let token = self.peek();
        if token.is_word(word) {
            Ok(self.advance())
        } else {
            Err(self.error_at(token, &format!("'{word}'")))
        }
    }

    fn expect_name(&mut self, what: &str) -> Result<SourceName, ParseError> {
        let token = self.expect(TokenKind::Word, what)?;
        Ok(SourceName {
            position: token.position,
            name: token.text.to_owned(),
        })
    }

    fn document(&mut self) -> Result<Vec<SourceProtocol>, ParseError> {
        let mut protocols = vec![self.protocol()?];
        while self.peek().kind != TokenKind::End {
            protocols.push(self.protocol()?);
        }
        Ok(protocols)
    }

    /// Number of tokens forming a protocol name starting `ahead` tokens from
    /// here: words on one line, none containing `>` (names may hold spaces).
    fn name_run_length(&self, ahead: usize) -> usize {
        let first = self.peek_at(ahead);
        if first.kind != TokenKind::Word || first.text.contains('>') {
            return 0;
        }
        let mut length = 1;
        loop {
            let next = self.peek_at(ahead + length);
            let same_line = next.position.line == first.position.line;
            if next.kind == TokenKind::Word && same_line && !next.text.contains('>') {
                length += 1;
            } else {
                return length;
            }
        }
    }

    fn spaced_name(&mut self, expected: &str) -> Result<(Position, String), ParseError> {
        let length = self.name_run_length(0);
        if length == 0 {
            return Err(self.error_at(self.peek(), expected));
        }
        let first = self.peek();
        let last = self.peek_at(length - 1);
        self.index += length;
        Ok((
            first.position,
            self.source[first.start..last.end].to_owned(),
        ))
    }

    fn protocol(&mut self) -> Result<SourceProtocol, ParseError> {
        if self.peek().is_word("protocol") && self.peek_at(1).kind == TokenKind::Word {
            self.advance();
        }
        let (position, name) = self.spaced_name("a protocol name")?;
        let braces = match self.peek() {
            token if token.kind == TokenKind::LeftBrace => {
                self.advance();
                true
            }
            token if token.is_word("roles") => false,
            token => return Err(self.error_at(token, "'{' or 'roles'")),
        };

        self.expect_keyword("roles")?;
        let mut roles = vec![self.expect_name("a role name")?];
        while self.peek().kind == TokenKind::Comma {
            self.advance();
            roles.push(self.expect_name("a role name")?);
        }

        self.expect_keyword("parameters")?;
        let public_parameters = self.parameter_list(ParameterContext::Declaration)?;
        let private_parameters = if self.peek().is_word("private") {
            self.advance();
            self.parameter_list(ParameterContext::Declaration)?
        } else {
            Vec::new()
        };

        let mut items = Vec::new();
        if braces {
            loop {
                let token = self.peek();
                match token.kind {
                    TokenKind::RightBrace => {
                        self.advance();
                        break;
                    }
                    TokenKind::Word => items.push(self.item()?),
                    _ => {
                        return Err(self.error_at(token, "a message, a protocol reference or '}'"));
                    }
                }
            }
        } else {
            while self.starts_item() {
                items.push(self.item()?);
            }
        }

        Ok(SourceProtocol {
            position,
            name,
            roles,
            public_parameters,
            private_parameters,
            items,
        })
    }

    fn starts_item(&self) -> bool {
        if self.peek().kind != TokenKind::Word {
            return false;
        }
        if self.peek_at(1).kind == TokenKind::Arrow {
            return true;
        }
        let length = self.name_run_length(0);
        length > 0 && self.peek_at(length).kind == TokenKind::LeftParen
    }

    fn item(&mut self) -> Result<SourceItem, ParseError> {
        if self.peek_at(1).kind == TokenKind::Arrow {
            return self.message().map(SourceItem::Message);
        }
        let length = self.name_run_length(0);
        if length > 0 && self.peek_at(length).kind == TokenKind::LeftParen {
            return self.reference().map(SourceItem::Reference);
        }
        let after = self.peek_at(1);
        Err(self.error_at(after, "'->' (a message) or '(' (a protocol reference)"))
    }

    fn message(&mut self) -> Result<SourceMessage, ParseError> {
        let sender = self.expect_name("a sender role")?;
        self.expect(TokenKind::Arrow, "'->'")?;
        let mut recipients = vec![self.expect_name("a recipient role")?];
        while self.peek().kind == TokenKind::Comma {
            self.advance();
            recipients.push(self.expect_name("a recipient role")?);
        }
        if self.peek().kind == TokenKind::Colon {
            self.advance();
        }
        let name = self.expect_name("a message name")?;
        let parameters = if self.peek().kind == TokenKind::LeftBracket {
            self.advance();
            let parameters = if self.peek().kind == TokenKind::RightBracket {
                Vec::new()
            } else {
                self.parameter_list(ParameterContext::Message)?
            };
            self.expect(TokenKind::RightBracket, "',' or ']'")?;
            parameters
        } else {
            Vec::new()
        };
        Ok(SourceMessage {
            position: sender.position,
            sender,
            recipients,
            name: name.name,
            parameters,
        })
    }

    fn reference(&mut self) -> Result<SourceReference, ParseError> {
        let (position, protocol) = self.spaced_name("a protocol name")?;
        self.expect(TokenKind::LeftParen, "'('")?;
        let mut explicit_roles = None;
        let mut arguments = if self.peek().kind == TokenKind::RightParen {
            Vec::new()
        } else {
            self.parameter_list(ParameterContext::Declaration)?
        };
        if self.peek().kind == TokenKind::Pipe {
            let pipe = self.advance();
            if let Some(decorated) = arguments
                .iter()
                .find(|a| a.adornment.is_some() || a.key || !a.tags.is_empty())
            {
                return Err(ParseError {
                    line: decorated.position.line,
                    column: decorated.position.column,
                    expected: "a bare role name before '|'".to_owned(),
                    found: format!("'{}' with an adornment, key or tags", decorated.name),
                });
            }
            if arguments.is_empty() {
                return Err(self.error_at(pipe, "role names before '|'"));
            }
            explicit_roles = Some(arguments);
            arguments = self.parameter_list(ParameterContext::Declaration)?;
        }
        self.expect(TokenKind::RightParen, "',', '|' or ')'")?;
        Ok(SourceReference {
            position,
            protocol,
            explicit_roles,
            arguments,
        })
    }

    /// A comma-separated list; empty when the next token cannot start a
    /// parameter.
    fn parameter_list(
        &mut self,
        context: ParameterContext,
    ) -> Result<Vec<SourceParameter>, ParseError> {
        let mut parameters = Vec::new();
        if self.peek().kind != TokenKind::Word {
            return Ok(parameters);
        }
        parameters.push(self.parameter(context)?);
        while self.peek().kind == TokenKind::Comma {
            self.advance();
            parameters.push(self.parameter(context)?);
        }
        Ok(parameters)
    }

    fn parameter(&mut self, context: ParameterContext) -> Result<SourceParameter, ParseError> {
        let start = self.peek();
        let mut adornment = None;
        let adornment_here = (start.kind == TokenKind::Word
            && self.peek_at(1).kind == TokenKind::Word)
            .then(|| Adornment::from_keyword(start.text))
            .flatten();
        if let Some(parsed) = adornment_here {
            let allowed = context == ParameterContext::Declaration
                || matches!(parsed, Adornment::In | Adornment::Out | Adornment::Nil);
            if !allowed {
                return Err(self.error_at(start, "'in', 'out' or 'nil' (or a parameter name)"));
            }
            adornment = Some(parsed);
            self.advance();
        }

        let mut key = false;
        if self.peek().is_word("key") && self.peek_at(1).kind == TokenKind::Word {
            self.advance();
            key = true;
        }
        let name_token = self.peek();
        if name_token.kind != TokenKind::Word || RESERVED_PARAMETER_NAMES.contains(&name_token.text)
        {
            return Err(self.error_at(name_token, "a parameter name"));
        }
        self.advance();

        let mut tags = Vec::new();
        if self.peek().kind == TokenKind::Colon {
            self.advance();
            let mut previous_line = None;
            loop {
                let tag = self.peek();
                let continues = match previous_line {
                    None => true,
                    Some(line) => tag.kind == TokenKind::Word && tag.position.line == line,
                };
                if !continues {
                    break;
                }
                if tag.kind != TokenKind::Word || !tag.text.chars().all(is_tag_char) {
                    return Err(self.error_at(tag, "a type tag"));
                }
                self.advance();
                previous_line = Some(tag.position.line);
                if tag.text == "key" {
                    key = true;
                } else {
                    tags.push(tag.text.to_owned());
                }
            }
        } else if !key && self.peek().is_word("key") {
            self.advance();
            key = true;
        }

        Ok(SourceParameter {
            position: start.position,
            name: name_token.text.to_owned(),
            adornment,
            key,
            tags,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(source: &str) -> Option<ParseError> {
        parse_document(source).err()
    }

    #[test]
    fn missing_brace_reports_what_was_expected() {
        let error = error_of("Purchase\n  rolls A");
        assert_eq!(
            error.map(|e| (e.line, e.column, e.expected)),
            Some((2, 3, "'{' or 'roles'".to_owned()))
        );
    }

    #[test]
    fn tags_stop_at_the_end_of_the_line() {
        let parsed = parse_document(
            "P { roles A, B\n parameters in id: UUID indexed key, out x: String\n A -> B: m[in id, out x] }",
        );
        let protocol = parsed.ok().and_then(|mut p| p.pop());
        let parameters = protocol.map(|p| p.public_parameters).unwrap_or_default();
        assert_eq!(parameters.len(), 2);
        assert_eq!(parameters[0].tags, vec!["UUID", "indexed"]);
        assert!(parameters[0].key);
        assert_eq!(parameters[1].tags, vec!["String"]);
    }

    #[test]
    fn opt_is_not_a_message_adornment() {
        let error =
            error_of("P { roles A, B parameters out id key, out z A -> B: m[out id, opt z] }");
        assert_eq!(error.map(|e| e.column), Some(63));
    }
}
