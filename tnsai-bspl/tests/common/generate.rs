//! Random small, well-formed protocols for property tests. Every message is
//! keyed by the one protocol key `id`, so a role's knowledge in an enactment
//! is simply everything it observed with that `id`.

use proptest::prelude::*;

const ADORNMENTS: [&str; 3] = ["in", "out", "nil"];

#[derive(Debug, Clone)]
pub(crate) struct MessageDesign {
    sender: usize,
    recipients: Vec<usize>,
    initiator: bool,
    parameters: Vec<(usize, usize)>,
}

/// A generated protocol, rendered to BSPL text by [`Design::text`].
#[derive(Debug, Clone)]
pub(crate) struct Design {
    roles: usize,
    /// Public parameters besides `id`: (adornment index, tags).
    public: Vec<(usize, Vec<&'static str>)>,
    private: usize,
    messages: Vec<MessageDesign>,
    with_reference: bool,
}

const PUBLIC_ADORNMENTS: [Option<&str>; 6] = [
    Some("out"),
    Some("out"),
    None,
    Some("in"),
    Some("any"),
    Some("opt"),
];

fn message_design(roles: usize, parameters: usize) -> impl Strategy<Value = MessageDesign> {
    (
        0..roles,
        1..roles,
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec((0..parameters.max(1), 0..3usize), 0..4),
    )
        .prop_map(move |(sender, offset, second, initiator, parameters)| {
            let mut recipients = vec![(sender + offset) % roles];
            let other = (sender + offset + 1) % roles;
            if second && other != sender && !recipients.contains(&other) {
                recipients.push(other);
            }
            MessageDesign {
                sender,
                recipients,
                initiator,
                parameters,
            }
        })
}

pub(crate) fn design() -> impl Strategy<Value = Design> {
    (2..=4usize, 0..=3usize, 0..=2usize, any::<bool>()).prop_flat_map(
        |(roles, public, private, with_reference)| {
            let tags =
                proptest::sample::subsequence(vec!["String", "Int", "UUID", "nullable"], 0..=2);
            let public_params =
                proptest::collection::vec((0..PUBLIC_ADORNMENTS.len(), tags), public);
            let messages =
                proptest::collection::vec(message_design(roles, public + private), 1..=5);
            (public_params, messages).prop_map(move |(public, messages)| Design {
                roles,
                public,
                private,
                messages,
                with_reference,
            })
        },
    )
}

impl Design {
    fn parameter_name(&self, index: usize) -> String {
        if index < self.public.len() {
            format!("p{index}")
        } else {
            format!("q{}", index - self.public.len())
        }
    }

    fn public_adornment(&self, index: usize) -> Option<&'static str> {
        self.public
            .get(index)
            .and_then(|(adornment, _)| PUBLIC_ADORNMENTS[*adornment])
    }

    /// Message parameter lists after the fix-ups that make the protocol
    /// well formed.
    fn message_parameters(&self) -> Vec<Vec<(String, &'static str)>> {
        let declared = self.public.len() + self.private;
        let mut lists: Vec<Vec<(String, &'static str)>> = Vec::new();
        for (position, message) in self.messages.iter().enumerate() {
            let id = if position == 0 || message.initiator {
                "out"
            } else {
                "in"
            };
            let mut list = vec![("id".to_owned(), id)];
            if declared > 0 {
                for (parameter, adornment) in &message.parameters {
                    let parameter = parameter % declared;
                    let name = self.parameter_name(parameter);
                    if list.iter().any(|(n, _)| *n == name) {
                        continue;
                    }
                    let mut adornment = ADORNMENTS[*adornment];
                    if self.public_adornment(parameter) == Some("in") && adornment == "out" {
                        adornment = "in";
                    }
                    list.push((name, adornment));
                }
            }
            lists.push(list);
        }
        for parameter in 0..self.public.len() {
            if self.public_adornment(parameter) != Some("out") {
                continue;
            }
            let name = self.parameter_name(parameter);
            let produced = lists
                .iter()
                .any(|list| list.iter().any(|(n, a)| *n == name && *a == "out"));
            if produced {
                continue;
            }
            match lists
                .iter_mut()
                .find(|list| !list.iter().any(|(n, _)| *n == name))
            {
                Some(list) => list.push((name, "out")),
                None => {
                    if let Some(last) = lists.last_mut() {
                        for entry in last.iter_mut() {
                            if entry.0 == name {
                                entry.1 = "out";
                            }
                        }
                    }
                }
            }
        }
        lists
    }

    /// The protocol `Gen` (and `Sub`, when it references one) as BSPL text.
    pub(crate) fn text(&self) -> String {
        let roles: Vec<String> = (0..self.roles).map(|r| format!("R{r}")).collect();
        let mut public = vec!["out id key".to_owned()];
        for (index, (_, tags)) in self.public.iter().enumerate() {
            let mut declaration = String::new();
            if let Some(adornment) = self.public_adornment(index) {
                declaration.push_str(adornment);
                declaration.push(' ');
            }
            declaration.push_str(&self.parameter_name(index));
            if !tags.is_empty() {
                declaration.push_str(": ");
                declaration.push_str(&tags.join(" "));
            }
            public.push(declaration);
        }
        if self.with_reference {
            public.push("out done".to_owned());
        }
        let mut text = format!(
            "Gen {{\n  roles {}\n  parameters {}\n",
            roles.join(", "),
            public.join(", ")
        );
        if self.private > 0 {
            let private: Vec<String> = (0..self.private).map(|i| format!("q{i}")).collect();
            text.push_str(&format!("  private {}\n", private.join(", ")));
        }
        for (position, (message, parameters)) in self
            .messages
            .iter()
            .zip(self.message_parameters())
            .enumerate()
        {
            let recipients: Vec<String> =
                message.recipients.iter().map(|r| format!("R{r}")).collect();
            let parameters: Vec<String> =
                parameters.iter().map(|(n, a)| format!("{a} {n}")).collect();
            text.push_str(&format!(
                "  R{} -> {}: m{position}[{}]\n",
                message.sender,
                recipients.join(", "),
                parameters.join(", ")
            ));
        }
        if self.with_reference {
            text.push_str("  Sub(R0, R1, id, done)\n");
        }
        text.push_str("}\n");
        if self.with_reference {
            text.push_str(
                "\nSub {\n  roles X, Y\n  parameters in id key, out done\n  X -> Y: finish[in id, out done]\n}\n",
            );
        }
        text
    }
}
