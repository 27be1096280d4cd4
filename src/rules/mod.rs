//! Rules as data: rule files ([`model`], [`load`]), selecting objects on each layer
//! ([`select`]), assertion kinds ([`assert`], one module per kind), the engine that turns
//! broken assertions into findings ([`eval`]), key-material decoding ([`pki`]), the
//! expression language of `when`/`where`/`message` ([`expr`]) and rule documentation
//! ([`docs`]).

pub mod assert;
pub mod docs;
pub mod eval;
pub mod expr;
pub mod load;
pub mod model;
pub mod pki;
pub mod select;

pub use eval::{evaluate, EvalOptions};
pub use load::Rule;
pub use model::Layer;
