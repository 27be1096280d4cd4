//! The function library: Sprig, Helm's additions and Helmfile's additions, one file per
//! family, each family a table of [`FuncDef`](crate::template::FuncDef) lines.
//!
//! Function sets differ by host program (Helm removes `env`; Helmfile's `get` is
//! path-based and shadows Sprig's), so callers build a registry for the program they
//! imitate rather than sharing one global table. Adding a function is one function
//! plus one table line in its family file; adding a family is one `mod` line and one
//! line in the builders below.

pub mod codec;
pub mod control;
pub mod helmfile;
pub mod json;
pub mod toml;
pub mod yaml;

use crate::template::Registry;

/// Which program's function set to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Helm 3.15 (Sprig 3.2.3).
    Helm3,
    /// Helm 4.x (Sprig 3.3.0, extra serialisation functions).
    Helm4,
    /// Helmfile 0.166 (Sprig 3.2.3 plus Helmfile's own, `env` kept).
    Helmfile,
}

/// Every Sprig family, in registration order.
fn sprig(r: &mut Registry) {
    r.register(json::SPRIG_FUNCS);
}

/// The functions Helm templates see.
pub fn helm_registry(flavor: Flavor) -> Registry {
    let mut r = Registry::new();
    sprig(&mut r);
    // Helm removes these from Sprig for hermetic renders.
    r.remove("env").remove("expandenv");
    // Helm's own functions, registered over Sprig's of the same name.
    match flavor {
        Flavor::Helm4 => r.register(json::HELM4_FUNCS),
        _ => r.register(json::HELM_FUNCS),
    };
    match flavor {
        Flavor::Helm3 => r.register(control::HELM3),
        Flavor::Helm4 => r.register(control::HELM4),
        Flavor::Helmfile => &mut r,
    };
    r.register(yaml::HELM_FUNCS);
    r.register(toml::HELM_FUNCS);
    if flavor == Flavor::Helm4 {
        r.register(yaml::HELM4_FUNCS);
        r.register(toml::HELM4_FUNCS);
    }
    r
}

/// The functions Helmfile state and values templates see.
pub fn helmfile_registry() -> Registry {
    let mut r = Registry::new();
    sprig(&mut r);
    r.register(yaml::HELMFILE_FUNCS);
    helmfile::register(&mut r);
    r
}
