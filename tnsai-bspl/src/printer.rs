//! Printing protocols back to BSPL text (braces form).
//!
//! Printing then parsing gives back an equal model: declarations are printed
//! as written (adornments, `key` where it was written, tags), references with
//! their plain argument list, and the private list only when it is not empty.
//! A [`Specification`] prints all its protocols, so references resolve when
//! the text is read again.

use std::fmt;

use crate::protocol::{
    Declaration, Message, MessageDeclaration, MessageParameter, Parameter, Protocol, Reference,
    Specification,
};

impl fmt::Display for Parameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(adornment) = self.adornment {
            write!(f, "{adornment} ")?;
        }
        f.write_str(&self.name)?;
        if !self.tags.is_empty() {
            write!(f, ": {}", self.tags.join(" "))?;
        }
        if self.key {
            f.write_str(" key")?;
        }
        Ok(())
    }
}

impl fmt::Display for MessageParameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(adornment) = self.adornment {
            write!(f, "{adornment} ")?;
        }
        f.write_str(&self.name)?;
        if self.key {
            f.write_str(" key")?;
        }
        Ok(())
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for MessageDeclaration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} -> {}: {}[",
            self.sender,
            self.recipients.join(", "),
            self.name
        )?;
        write_list(f, &self.parameters)?;
        f.write_str("]")
    }
}

/// The resolved message, as it would be declared in the enclosing protocol
/// (its unique name, resolved roles, and `key` on every key parameter).
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} -> {}: {}[",
            self.sender,
            self.recipients.join(", "),
            self.name
        )?;
        write_list(f, &self.parameters)?;
        f.write_str("]")
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.protocol)?;
        f.write_str(&self.roles.join(", "))?;
        if !self.roles.is_empty() && !self.parameters.is_empty() {
            f.write_str(", ")?;
        }
        write_list(f, &self.parameters)?;
        f.write_str(")")
    }
}

impl fmt::Display for Declaration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Message(message) => message.fmt(f),
            Self::Reference(reference) => reference.fmt(f),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {{", self.name)?;
        writeln!(f, "  roles {}", self.roles.join(", "))?;
        f.write_str("  parameters ")?;
        write_list(f, &self.public_parameters)?;
        writeln!(f)?;
        if !self.private_parameters.is_empty() {
            f.write_str("  private ")?;
            write_list(f, &self.private_parameters)?;
            writeln!(f)?;
        }
        if !self.declarations.is_empty() {
            writeln!(f)?;
        }
        for declaration in &self.declarations {
            writeln!(f, "  {declaration}")?;
        }
        f.write_str("}")
    }
}

impl fmt::Display for Specification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, protocol) in self.protocols.iter().enumerate() {
            if index > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{protocol}")?;
        }
        writeln!(f)
    }
}
