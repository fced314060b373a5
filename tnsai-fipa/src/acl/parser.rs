//! Reads the FIPA ACL string encoding (FIPA SC00070) into a [`FipaMessage`];
//! the grammar it accepts is in the `acl` module docs.
//!
//! Keywords and parameter names are matched without regard to case. Beyond
//! the specification it accepts any expression for `:content` and
//! `:protocol`, a string for an agent name and for `:reply-by`, and the
//! agent-identifier parameters in any order. A nested expression is kept as
//! the exact text between its outer parentheses, inclusive.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::AclError;
use super::datetime;
use super::lexer::{Kind, Lexer, Token};
use crate::agent::AgentIdentifier;
use crate::message::{FipaMessage, ID_PARAMETER, TIMESTAMP_PARAMETER};
use crate::performative::Performative;

/// Deep enough for any real content, shallow enough never to exhaust the stack.
pub(super) const MAX_DEPTH: usize = 64;

pub(super) fn parse(src: &str) -> Result<FipaMessage, AclError> {
    let mut parser = Parser {
        lexer: Lexer::new(src),
    };
    let message = parser.message()?;
    match parser.lexer.next_token()? {
        None => Ok(message),
        Some(extra) => Err(AclError::TrailingInput {
            offset: extra.start,
        }),
    }
}

fn is_user_parameter(name: &str) -> bool {
    name.len() > 2 && name.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("X-"))
}

struct Parser<'a> {
    lexer: Lexer<'a>,
}

impl<'a> Parser<'a> {
    fn src(&self) -> &'a str {
        self.lexer.src()
    }

    fn next(&mut self, expected: &'static str) -> Result<Token, AclError> {
        match self.lexer.next_token()? {
            Some(token) => Ok(token),
            None => Err(AclError::UnexpectedEnd {
                offset: self.src().len(),
                expected,
            }),
        }
    }

    fn unexpected(&self, token: &Token, expected: &'static str) -> AclError {
        AclError::UnexpectedToken {
            offset: token.start,
            expected,
            found: token.describe(self.src()),
        }
    }

    fn open(&mut self, expected: &'static str, depth: usize) -> Result<Token, AclError> {
        let token = self.next(expected)?;
        if token.kind != Kind::Open {
            return Err(self.unexpected(&token, expected));
        }
        if depth > MAX_DEPTH {
            return Err(AclError::TooDeep {
                offset: token.start,
                limit: MAX_DEPTH,
            });
        }
        Ok(token)
    }

    fn keyword(&mut self, keyword: &str, expected: &'static str) -> Result<(), AclError> {
        let token = self.next(expected)?;
        if token.kind == Kind::Word && token.text(self.src()).eq_ignore_ascii_case(keyword) {
            Ok(())
        } else {
            Err(self.unexpected(&token, expected))
        }
    }

    /// The next token if it is a parameter name (`:word`), or `None` at `)`.
    fn parameter_or_close(
        &mut self,
        expected: &'static str,
    ) -> Result<Option<(String, usize)>, AclError> {
        let token = self.next(expected)?;
        match token.kind {
            Kind::Close => Ok(None),
            Kind::Word => match token.text(self.src()).strip_prefix(':') {
                Some(name) if !name.is_empty() => Ok(Some((name.to_owned(), token.start))),
                _ => Err(self.unexpected(&token, expected)),
            },
            _ => Err(self.unexpected(&token, expected)),
        }
    }

    fn message(&mut self) -> Result<FipaMessage, AclError> {
        let start = self.open("`(` opening the message", 1)?.start;
        let token = self.next("a performative such as `inform`")?;
        if token.kind != Kind::Word {
            return Err(self.unexpected(&token, "a performative such as `inform`"));
        }
        let name = token.text(self.src());
        let performative: Performative =
            name.parse().map_err(|_| AclError::UnknownPerformative {
                offset: token.start,
                name: name.to_owned(),
            })?;

        let mut b = FipaMessage::builder().performative(performative);
        let mut seen: Vec<String> = Vec::new();
        let mut user: BTreeMap<String, String> = BTreeMap::new();
        let mut id = None;
        let mut timestamp = None;
        while let Some((name, offset)) =
            self.parameter_or_close("a message parameter such as `:sender`, or `)`")?
        {
            let key = name.to_ascii_lowercase();
            if seen.contains(&key) || user.contains_key(&name) {
                return Err(AclError::DuplicateParameter { offset, name });
            }
            match key.as_str() {
                "sender" => b = b.sender_id(self.agent(2)?),
                "receiver" => b = b.receiver_ids(self.agent_set(2)?),
                "reply-to" => {
                    for aid in self.agent_set(2)? {
                        b = b.add_reply_to_id(aid);
                    }
                }
                "content" => b = b.content(self.expression("the content", 2)?),
                "language" => b = b.language(self.expression("a language", 2)?),
                "encoding" => b = b.encoding(self.expression("an encoding", 2)?),
                "ontology" => b = b.ontology(self.expression("an ontology", 2)?),
                "protocol" => b = b.protocol(self.expression("a protocol name", 2)?),
                "conversation-id" => {
                    b = b.conversation_id(self.expression("a conversation id", 2)?);
                }
                "reply-with" => b = b.reply_with(self.expression("a reply-with expression", 2)?),
                "in-reply-to" => {
                    b = b.in_reply_to(self.expression("an in-reply-to expression", 2)?);
                }
                "reply-by" => b = b.reply_by(self.date_time()?),
                _ if key == ID_PARAMETER.to_ascii_lowercase() => {
                    id = Some(self.expression("a message id", 2)?);
                }
                _ if key == TIMESTAMP_PARAMETER.to_ascii_lowercase() => {
                    timestamp = Some(self.date_time()?);
                }
                _ if is_user_parameter(&name) => {
                    let value = self.expression("a parameter value", 2)?;
                    user.insert(name, value);
                    continue;
                }
                _ => return Err(AclError::UnknownParameter { offset, name }),
            }
            seen.push(key);
        }
        if let Some(id) = id {
            b = b.id(id);
        }
        if let Some(timestamp) = timestamp {
            b = b.timestamp(timestamp);
        }
        for (name, value) in user {
            b = b.user_parameter(name, value);
        }
        b.build().map_err(|source| AclError::InvalidMessage {
            offset: start,
            source,
        })
    }

    fn date_time(&mut self) -> Result<DateTime<Utc>, AclError> {
        const EXPECTED: &str = "a date-time like `20250101T120000000Z`";
        let token = self.next(EXPECTED)?;
        match &token.kind {
            Kind::DateTime | Kind::Number => datetime::parse(token.text(self.src()), token.start),
            Kind::Str(text) => datetime::parse(text, token.start),
            _ => Err(self.unexpected(&token, EXPECTED)),
        }
    }

    /// A value: the text of a word, number or date-time, the unescaped text of
    /// a string, or the source text of a parenthesised expression.
    fn expression(&mut self, expected: &'static str, depth: usize) -> Result<String, AclError> {
        let token = self.next(expected)?;
        match &token.kind {
            Kind::Str(text) => Ok(text.clone()),
            Kind::Number | Kind::DateTime => Ok(token.text(self.src()).to_owned()),
            Kind::Word if !token.text(self.src()).starts_with(':') => {
                Ok(token.text(self.src()).to_owned())
            }
            Kind::Open => {
                if depth > MAX_DEPTH {
                    return Err(AclError::TooDeep {
                        offset: token.start,
                        limit: MAX_DEPTH,
                    });
                }
                let end = self.skip_nested(depth)?;
                Ok(self
                    .src()
                    .get(token.start..end)
                    .unwrap_or_default()
                    .to_owned())
            }
            Kind::Word | Kind::Close => Err(self.unexpected(&token, expected)),
        }
    }

    /// Consumes tokens up to the `)` matching an already consumed `(`;
    /// returns the offset just past it.
    fn skip_nested(&mut self, depth: usize) -> Result<usize, AclError> {
        let mut level = 1;
        loop {
            let token = self.next("`)` closing the expression")?;
            match token.kind {
                Kind::Open => {
                    level += 1;
                    if depth + level - 1 > MAX_DEPTH {
                        return Err(AclError::TooDeep {
                            offset: token.start,
                            limit: MAX_DEPTH,
                        });
                    }
                }
                Kind::Close => {
                    level -= 1;
                    if level == 0 {
                        return Ok(token.end);
                    }
                }
                _ => {}
            }
        }
    }

    fn agent_set(&mut self, depth: usize) -> Result<Vec<AgentIdentifier>, AclError> {
        self.open("`(set` starting a set of agent identifiers", depth)?;
        self.keyword("set", "`set` starting a set of agent identifiers")?;
        self.agents_until_close(depth + 1)
    }

    fn agents_until_close(&mut self, depth: usize) -> Result<Vec<AgentIdentifier>, AclError> {
        let mut agents = Vec::new();
        loop {
            let closing = self
                .lexer
                .peek()?
                .is_some_and(|token| token.kind == Kind::Close);
            if closing {
                self.lexer.next_token()?;
                return Ok(agents);
            }
            agents.push(self.agent(depth)?);
        }
    }

    fn agent(&mut self, depth: usize) -> Result<AgentIdentifier, AclError> {
        const EXPECTED: &str = "`:name`, `:addresses`, `:resolvers`, an `:X-` parameter or `)`";
        let start = self
            .open("`(agent-identifier` starting an agent identifier", depth)?
            .start;
        self.keyword("agent-identifier", "`agent-identifier`")?;
        let mut name = None;
        let mut addresses = Vec::new();
        let mut resolvers = Vec::new();
        let mut user = BTreeMap::new();
        let mut seen: Vec<String> = Vec::new();
        while let Some((param, offset)) = self.parameter_or_close(EXPECTED)? {
            let key = param.to_ascii_lowercase();
            if seen.contains(&key) || user.contains_key(&param) {
                return Err(AclError::DuplicateParameter {
                    offset,
                    name: param,
                });
            }
            match key.as_str() {
                "name" => name = Some(self.agent_name()?),
                "addresses" => addresses = self.url_sequence(depth + 1)?,
                "resolvers" => {
                    self.open("`(sequence` starting the resolvers", depth + 1)?;
                    self.keyword("sequence", "`sequence` starting the resolvers")?;
                    resolvers = self.agents_until_close(depth + 2)?;
                }
                _ if is_user_parameter(&param) => {
                    let value = self.expression("a parameter value", depth + 1)?;
                    user.insert(param, value);
                    continue;
                }
                _ => {
                    return Err(AclError::UnexpectedToken {
                        offset,
                        expected: EXPECTED,
                        found: format!("`:{param}`"),
                    });
                }
            }
            seen.push(key);
        }
        let name = name.ok_or(AclError::MissingAgentName { offset: start })?;
        Ok(AgentIdentifier::from_parts(
            name, addresses, resolvers, user,
        ))
    }

    fn agent_name(&mut self) -> Result<String, AclError> {
        const EXPECTED: &str = "an agent name (a word or a string)";
        let token = self.next(EXPECTED)?;
        match &token.kind {
            Kind::Str(text) => Ok(text.clone()),
            Kind::Word if !token.text(self.src()).starts_with(':') => {
                Ok(token.text(self.src()).to_owned())
            }
            _ => Err(self.unexpected(&token, EXPECTED)),
        }
    }

    fn url_sequence(&mut self, depth: usize) -> Result<Vec<String>, AclError> {
        const EXPECTED: &str = "a URL (a word or a string) or `)`";
        self.open("`(sequence` starting the addresses", depth)?;
        self.keyword("sequence", "`sequence` starting the addresses")?;
        let mut urls = Vec::new();
        loop {
            let token = self.next(EXPECTED)?;
            match &token.kind {
                Kind::Close => return Ok(urls),
                Kind::Str(text) => urls.push(text.clone()),
                Kind::Word if !token.text(self.src()).starts_with(':') => {
                    urls.push(token.text(self.src()).to_owned());
                }
                _ => return Err(self.unexpected(&token, EXPECTED)),
            }
        }
    }
}
