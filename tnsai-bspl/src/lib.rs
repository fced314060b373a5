//! BSPL information protocols.

mod parser;
mod printer;
mod protocol;
mod resolve;
mod syntax;
pub mod verify;

pub use parser::ParseError;
pub use protocol::{
    Adornment, Declaration, LoadError, Message, MessageDeclaration, MessageParameter, Parameter,
    Protocol, Reference, RoleView, Specification,
};
pub use syntax::Position;
