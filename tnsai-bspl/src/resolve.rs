//! Name resolution: turns the syntax tree into [`Protocol`]s, checking that
//! roles, parameters and references resolve, and flattening references into
//! the messages they contribute.
//!
//! Flattening follows the reference tool: a reference's arguments bind the
//! referenced protocol's roles and then its public parameters by position;
//! a contributed message is named `<Reference>/<message>` after the innermost
//! reference it comes from; a parameter is key in a contributed message when
//! the message, the referenced protocol, the reference site or the enclosing
//! protocol marks it key; private parameters of the referenced protocol keep
//! their names.

use std::collections::{HashMap, HashSet};

use crate::protocol::{
    Declaration, LoadError, Message, MessageDeclaration, MessageParameter, Parameter, Protocol,
    Reference,
};
use crate::syntax::{SourceItem, SourceParameter, SourceProtocol};
use crate::verify::{Diagnostic, check_well_formed};

pub(crate) fn resolve(
    document: Vec<SourceProtocol>,
) -> Result<(Vec<Protocol>, Vec<Diagnostic>), LoadError> {
    let mut by_name: HashMap<&str, &SourceProtocol> = HashMap::new();
    for source in &document {
        if by_name.insert(&source.name, source).is_some() {
            return Err(LoadError::DuplicateProtocol {
                name: source.name.clone(),
                position: source.position,
            });
        }
    }

    let mut protocols = Vec::with_capacity(document.len());
    let mut warnings = Vec::new();
    for source in &document {
        let (protocol, mut own_warnings) = resolve_protocol(source, &by_name)?;
        warnings.append(&mut own_warnings);
        protocols.push(protocol);
    }

    // Checked after every protocol resolved, as the reference tool does, so a
    // resolution error anywhere wins over a rule broken somewhere else.
    for (protocol, source) in protocols.iter().zip(&document) {
        for diagnostic in check_well_formed(protocol) {
            if diagnostic.is_error() {
                return Err(LoadError::IllFormed {
                    diagnostic,
                    position: source.position,
                });
            }
            warnings.push(diagnostic);
        }
    }
    Ok((protocols, warnings))
}

fn to_parameter(source: &SourceParameter) -> Parameter {
    Parameter {
        name: source.name.clone(),
        adornment: source.adornment,
        key: source.key,
        tags: source.tags.clone(),
    }
}

fn resolve_protocol(
    source: &SourceProtocol,
    by_name: &HashMap<&str, &SourceProtocol>,
) -> Result<(Protocol, Vec<Diagnostic>), LoadError> {
    let mut warnings = Vec::new();

    let mut seen_roles = HashSet::new();
    for role in &source.roles {
        if !seen_roles.insert(role.name.as_str()) {
            return Err(LoadError::DuplicateDeclaration {
                protocol: source.name.clone(),
                kind: "role",
                name: role.name.clone(),
                position: role.position,
            });
        }
    }
    let roles: Vec<String> = source.roles.iter().map(|r| r.name.clone()).collect();

    let public_parameters = declared_parameters(source, &source.public_parameters)?;
    let private_declared = declared_parameters(source, &source.private_parameters)?;
    let mut private_parameters = Vec::new();
    for parameter in private_declared {
        if public_parameters.iter().any(|p| p.name == parameter.name) {
            warnings.push(Diagnostic::PublicAndPrivate {
                protocol: source.name.clone(),
                parameter: parameter.name,
            });
        } else {
            private_parameters.push(parameter);
        }
    }

    let keys = public_parameters
        .iter()
        .chain(&private_parameters)
        .filter(|p| p.key)
        .map(|p| p.name.clone())
        .collect();

    let mut occurrences = HashMap::new();
    let declarations = source
        .items
        .iter()
        .map(|item| declaration_of(source, item, by_name, &mut occurrences))
        .collect::<Result<Vec<_>, _>>()?;

    let scope = Scope::top_level(source, &public_parameters, &private_parameters);
    let mut messages = Vec::new();
    let mut stack = vec![source.name.clone()];
    expand(&scope, source, by_name, &mut stack, &mut messages)?;

    let mut names = HashSet::new();
    for message in &messages {
        if !names.insert(message.name.as_str()) {
            return Err(LoadError::DuplicateMessageName {
                protocol: source.name.clone(),
                name: message.name.clone(),
            });
        }
    }

    Ok((
        Protocol {
            name: source.name.clone(),
            roles,
            public_parameters,
            private_parameters,
            declarations,
            messages,
            keys,
        },
        warnings,
    ))
}

fn declared_parameters(
    source: &SourceProtocol,
    list: &[SourceParameter],
) -> Result<Vec<Parameter>, LoadError> {
    let mut seen = HashSet::new();
    for parameter in list {
        if !seen.insert(parameter.name.as_str()) {
            return Err(LoadError::DuplicateDeclaration {
                protocol: source.name.clone(),
                kind: "parameter",
                name: parameter.name.clone(),
                position: parameter.position,
            });
        }
    }
    Ok(list.iter().map(to_parameter).collect())
}

/// Splits a reference's arguments into roles and parameters, using the `|`
/// when written and the referenced protocol's role count otherwise.
fn split_arguments<'a>(
    enclosing: &SourceProtocol,
    reference: &'a crate::syntax::SourceReference,
    target: &SourceProtocol,
) -> Result<(Vec<&'a SourceParameter>, Vec<&'a SourceParameter>), LoadError> {
    let role_count = target.roles.len();
    let parameter_count = target.public_parameters.len();
    let arity_error = |found| LoadError::ReferenceArity {
        protocol: enclosing.name.clone(),
        reference: reference.protocol.clone(),
        expected: role_count + parameter_count,
        found,
        roles: role_count,
        parameters: parameter_count,
        position: reference.position,
    };
    match &reference.explicit_roles {
        Some(roles) => {
            let found = roles.len() + reference.arguments.len();
            if roles.len() != role_count || reference.arguments.len() != parameter_count {
                return Err(arity_error(found));
            }
            Ok((roles.iter().collect(), reference.arguments.iter().collect()))
        }
        None => {
            let found = reference.arguments.len();
            if found != role_count + parameter_count {
                return Err(arity_error(found));
            }
            let (roles, parameters) = reference.arguments.split_at(role_count);
            Ok((roles.iter().collect(), parameters.iter().collect()))
        }
    }
}

fn declaration_of<'s>(
    source: &SourceProtocol,
    item: &'s SourceItem,
    by_name: &HashMap<&str, &SourceProtocol>,
    occurrences: &mut HashMap<&'s str, usize>,
) -> Result<Declaration, LoadError> {
    match item {
        SourceItem::Message(message) => {
            *occurrences.entry(message.name.as_str()).or_insert(0) += 1;
            Ok(Declaration::Message(MessageDeclaration {
                name: message.name.clone(),
                sender: message.sender.name.clone(),
                recipients: message.recipients.iter().map(|r| r.name.clone()).collect(),
                // Tags on message parameters are dropped, as the reference tool does.
                parameters: message
                    .parameters
                    .iter()
                    .map(|p| Parameter {
                        tags: Vec::new(),
                        ..to_parameter(p)
                    })
                    .collect(),
            }))
        }
        SourceItem::Reference(reference) => {
            let count = occurrences.entry(reference.protocol.as_str()).or_insert(0);
            *count += 1;
            let name = numbered(&reference.protocol, *count);
            let target = by_name.get(reference.protocol.as_str()).ok_or_else(|| {
                LoadError::UndefinedProtocol {
                    protocol: source.name.clone(),
                    name: reference.protocol.clone(),
                    position: reference.position,
                }
            })?;
            let (roles, parameters) = split_arguments(source, reference, target)?;
            Ok(Declaration::Reference(Reference {
                name,
                protocol: reference.protocol.clone(),
                roles: roles.iter().map(|r| r.name.clone()).collect(),
                parameters: parameters.iter().map(|p| to_parameter(p)).collect(),
            }))
        }
    }
}

/// How names of the protocol being expanded map to the top-level protocol.
struct Scope {
    /// Role of the expanded protocol -> role of the top-level protocol.
    roles: HashMap<String, String>,
    /// Parameter of the expanded protocol -> (name at top level, key there).
    parameters: HashMap<String, (String, bool)>,
    /// Reference name qualifying contributed messages (none at top level).
    prefix: Option<String>,
    /// Name of the top-level protocol, for qualified names and errors.
    top_level: String,
}

impl Scope {
    fn top_level(source: &SourceProtocol, public: &[Parameter], private: &[Parameter]) -> Self {
        Self {
            roles: source
                .roles
                .iter()
                .map(|r| (r.name.clone(), r.name.clone()))
                .collect(),
            parameters: public
                .iter()
                .chain(private)
                .map(|p| (p.name.clone(), (p.name.clone(), p.key)))
                .collect(),
            prefix: None,
            top_level: source.name.clone(),
        }
    }
}

fn expand(
    scope: &Scope,
    definition: &SourceProtocol,
    by_name: &HashMap<&str, &SourceProtocol>,
    stack: &mut Vec<String>,
    messages: &mut Vec<Message>,
) -> Result<(), LoadError> {
    // Counts names the way the reference tool numbers repeated declarations:
    // messages and references share one counter per name.
    let mut occurrences: HashMap<&str, usize> = HashMap::new();
    for item in &definition.items {
        match item {
            SourceItem::Message(declared) => {
                let count = occurrences.entry(declared.name.as_str()).or_insert(0);
                *count += 1;
                let local_name = numbered(&declared.name, *count);
                let context = format!("message '{}'", declared.name);
                let role_of = |name: &crate::syntax::SourceName| {
                    scope
                        .roles
                        .get(&name.name)
                        .cloned()
                        .ok_or_else(|| LoadError::UnknownRole {
                            protocol: definition.name.clone(),
                            role: name.name.clone(),
                            context: context.clone(),
                            known: definition.roles.iter().map(|r| r.name.clone()).collect(),
                            position: name.position,
                        })
                };
                let sender = role_of(&declared.sender)?;
                let recipients = declared
                    .recipients
                    .iter()
                    .map(role_of)
                    .collect::<Result<Vec<_>, _>>()?;
                let mut parameters = Vec::with_capacity(declared.parameters.len());
                for parameter in &declared.parameters {
                    let (name, key) = scope.parameters.get(&parameter.name).ok_or_else(|| {
                        LoadError::UndeclaredParameter {
                            protocol: definition.name.clone(),
                            parameter: parameter.name.clone(),
                            context: context.clone(),
                            position: parameter.position,
                        }
                    })?;
                    parameters.push(MessageParameter {
                        name: name.clone(),
                        adornment: parameter.adornment,
                        key: parameter.key || *key,
                    });
                }
                let keys = parameters
                    .iter()
                    .filter(|p| p.key)
                    .map(|p| p.name.clone())
                    .collect();
                let (name, qualified_name) = match &scope.prefix {
                    None => (
                        local_name.clone(),
                        format!("{}/{}", scope.top_level, local_name),
                    ),
                    Some(prefix) => {
                        let qualified = format!("{prefix}/{local_name}");
                        (qualified.clone(), qualified)
                    }
                };
                messages.push(Message {
                    name,
                    message_name: declared.name.clone(),
                    qualified_name,
                    sender,
                    recipients,
                    parameters,
                    keys,
                });
            }
            SourceItem::Reference(reference) => {
                let count = occurrences.entry(reference.protocol.as_str()).or_insert(0);
                *count += 1;
                let reference_name = numbered(&reference.protocol, *count);
                let target = by_name.get(reference.protocol.as_str()).ok_or_else(|| {
                    LoadError::UndefinedProtocol {
                        protocol: definition.name.clone(),
                        name: reference.protocol.clone(),
                        position: reference.position,
                    }
                })?;
                if stack.contains(&target.name) {
                    let mut cycle = stack.clone();
                    cycle.push(target.name.clone());
                    return Err(LoadError::CyclicReference {
                        cycle,
                        position: reference.position,
                    });
                }
                let (roles, parameters) = split_arguments(definition, reference, target)?;
                let context = format!("reference '{}'", reference.protocol);

                let mut inner_roles = HashMap::new();
                for (formal, actual) in target.roles.iter().zip(roles) {
                    let resolved =
                        scope
                            .roles
                            .get(&actual.name)
                            .ok_or_else(|| LoadError::UnknownRole {
                                protocol: definition.name.clone(),
                                role: actual.name.clone(),
                                context: context.clone(),
                                known: definition.roles.iter().map(|r| r.name.clone()).collect(),
                                position: actual.position,
                            })?;
                    inner_roles.insert(formal.name.clone(), resolved.clone());
                }

                let mut inner_parameters = HashMap::new();
                for (formal, actual) in target.public_parameters.iter().zip(parameters) {
                    let (name, key) = scope.parameters.get(&actual.name).ok_or_else(|| {
                        LoadError::UndeclaredParameter {
                            protocol: definition.name.clone(),
                            parameter: actual.name.clone(),
                            context: context.clone(),
                            position: actual.position,
                        }
                    })?;
                    inner_parameters.insert(
                        formal.name.clone(),
                        (name.clone(), formal.key || actual.key || *key),
                    );
                }
                let public_names: HashSet<&str> = target
                    .public_parameters
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                for private in &target.private_parameters {
                    if !public_names.contains(private.name.as_str()) {
                        inner_parameters
                            .insert(private.name.clone(), (private.name.clone(), private.key));
                    }
                }

                let inner = Scope {
                    roles: inner_roles,
                    parameters: inner_parameters,
                    prefix: Some(reference_name),
                    top_level: scope.top_level.clone(),
                };
                stack.push(target.name.clone());
                expand(&inner, target, by_name, stack, messages)?;
                stack.pop();
            }
        }
    }
    Ok(())
}

fn numbered(name: &str, occurrence: usize) -> String {
    if occurrence > 1 {
        format!("{name}{occurrence}")
    } else {
        name.to_owned()
    }
}
