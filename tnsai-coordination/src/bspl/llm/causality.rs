//! What a protocol's messages say about each other, read from their adornments: which
//! messages must come before a message, and which messages can never follow it in the
//! same enactment. Termination inference and the prompt's per-message comments are both
//! built on it.
//!
//! The reasoning is about one enactment and is deliberately conservative: a message
//! "rules out" another only when the two bind the same `out` parameter (so at most one
//! of them happens), when it binds a `nil` parameter of the other, or when every message
//! that could supply one of the other's `in` parameters is ruled out.

use std::collections::BTreeSet;

use tnsai_bspl::{Message, Protocol};

pub(crate) struct Causality<'p> {
    protocol: &'p Protocol,
}

impl<'p> Causality<'p> {
    pub(crate) fn new(protocol: &'p Protocol) -> Self {
        Self { protocol }
    }

    /// Messages through which the sender of `m` can come to know `parameter`: those it
    /// sends binding it (`out`), and those it receives carrying it.
    fn sources<'a>(
        &'a self,
        m: &'a Message,
        parameter: &'a str,
    ) -> impl Iterator<Item = &'p Message> + 'a {
        self.protocol.messages().iter().filter(move |q| {
            q.name() != m.name()
                && ((q.sender() == m.sender() && q.outs().any(|o| o == parameter))
                    || (q.recipients().iter().any(|r| r == m.sender())
                        && q.payload_parameters().any(|p| p == parameter)))
        })
    }

    /// The two messages bind a common `out` parameter: at most one of them happens.
    pub(crate) fn share_out(a: &Message, b: &Message) -> bool {
        a.outs().any(|o| b.outs().any(|p| p == o))
    }

    /// `a` binds a parameter `b` needs unknown.
    fn binds_nil_of(a: &Message, b: &Message) -> bool {
        a.outs().any(|o| b.nils().any(|n| n == o))
    }

    /// Whether `b` can never be sent in an enactment where `a` was: the two bind a common
    /// parameter, or every way for `b`'s sender to learn one of its `in` parameters is a
    /// message that can never be sent with `a`.
    fn never_with(&self, a: &Message, b: &Message, visiting: &mut BTreeSet<String>) -> bool {
        if a.name() == b.name() {
            return false;
        }
        if Self::share_out(a, b) {
            return true;
        }
        if !visiting.insert(b.name().to_owned()) {
            return false;
        }
        let excluded = b.ins().any(|parameter| {
            let mut sources = self.sources(b, parameter).peekable();
            sources.peek().is_some() && sources.all(|q| self.never_with(a, q, visiting))
        });
        visiting.remove(b.name());
        excluded
    }

    /// Whether `b` can no longer be sent once `a` was, in the same enactment.
    pub(crate) fn rules_out(&self, a: &Message, b: &Message) -> bool {
        a.name() != b.name()
            && (Self::binds_nil_of(a, b) || self.never_with(a, b, &mut BTreeSet::new()))
    }

    /// Messages `a` rules out directly (shared `out` or a `nil` it binds), in
    /// declaration order: what a reader of the protocol should be told.
    pub(crate) fn directly_ruled_out(&self, a: &Message) -> Vec<&'p Message> {
        self.protocol
            .messages()
            .iter()
            .filter(|b| b.name() != a.name() && (Self::share_out(a, b) || Self::binds_nil_of(a, b)))
            .collect()
    }

    /// Names of the messages that must have happened before `m` can be sent: for some
    /// `in` parameter, every way for `m`'s sender to learn it is one of them or needs one.
    pub(crate) fn needed(&self, m: &Message) -> BTreeSet<String> {
        self.needed_guarded(m, &mut BTreeSet::new())
    }

    fn needed_guarded(&self, m: &Message, visiting: &mut BTreeSet<String>) -> BTreeSet<String> {
        if !visiting.insert(m.name().to_owned()) {
            return BTreeSet::new();
        }
        let mut needed = BTreeSet::new();
        for parameter in m.ins() {
            // The value must have been bound somewhere, and must have reached the sender.
            let producers: Vec<&Message> = self
                .protocol
                .messages()
                .iter()
                .filter(|q| q.name() != m.name() && q.outs().any(|o| o == parameter))
                .collect();
            let sources: Vec<&Message> = self.sources(m, parameter).collect();
            for candidates in [producers, sources] {
                needed.extend(self.common_chain(&candidates, visiting));
            }
        }
        visiting.remove(m.name());
        needed
    }

    /// What every one of `candidates` is or needs (nothing when there are none).
    fn common_chain(
        &self,
        candidates: &[&Message],
        visiting: &mut BTreeSet<String>,
    ) -> BTreeSet<String> {
        let mut common: Option<BTreeSet<String>> = None;
        for candidate in candidates {
            let mut chain = self.needed_guarded(candidate, visiting);
            chain.insert(candidate.name().to_owned());
            common = Some(match common {
                None => chain,
                Some(previous) => previous.intersection(&chain).cloned().collect(),
            });
        }
        common.unwrap_or_default()
    }

    /// Messages `role` sends or receives, in declaration order.
    pub(crate) fn involving(&self, role: &str) -> Vec<&'p Message> {
        self.protocol
            .messages()
            .iter()
            .filter(|m| m.sender() == role || m.recipients().iter().any(|r| r == role))
            .collect()
    }

    /// The role's terminal messages: those that bind something (an `out` parameter) that
    /// nothing else the role takes part in uses as `in`. After one of them the role has
    /// learned or said the last thing its part depends on.
    pub(crate) fn terminal(&self, role: &str) -> Vec<&'p Message> {
        let involved = self.involving(role);
        involved
            .iter()
            .filter(|m| {
                let mut outs = m.outs().peekable();
                outs.peek().is_some()
                    && m.outs().all(|o| {
                        !involved
                            .iter()
                            .any(|n| n.name() != m.name() && n.ins().any(|i| i == o))
                    })
            })
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tnsai_bspl::Specification;

    fn purchase() -> Protocol {
        Specification::parse(include_str!(
            "../../../../tnsai-bspl/protocols/purchase.bspl"
        ))
        .unwrap()
        .into_protocol("Purchase")
        .unwrap()
    }

    fn names(messages: &[&Message]) -> Vec<String> {
        messages.iter().map(|m| m.name().to_owned()).collect()
    }

    #[test]
    fn purchase_relations() {
        let p = purchase();
        let c = Causality::new(&p);
        let m = |name: &str| p.message(name).unwrap();
        assert!(c.rules_out(m("accept"), m("reject")));
        assert!(
            c.rules_out(m("reject"), m("deliver")),
            "deliver needs accept's address"
        );
        assert!(!c.rules_out(m("completed"), m("deliver")));
        assert!(!c.rules_out(m("deliver"), m("completed")));
        assert_eq!(
            c.needed(m("completed")),
            ["quote", "rfq"].map(str::to_owned).into()
        );
        assert_eq!(
            c.needed(m("deliver")),
            ["accept", "quote", "rfq", "ship"].map(str::to_owned).into()
        );
        assert_eq!(
            names(&c.terminal("Buyer")),
            ["reject", "deliver", "completed"]
        );
        assert_eq!(names(&c.directly_ruled_out(m("accept"))), ["reject"]);
    }
}
