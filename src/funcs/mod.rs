//! The function library: Sprig, Helm's additions and Helmfile's additions, one file per
//! family, each family a table of [`FuncDef`](crate::template::FuncDef) lines.
//!
//! Function sets differ by host program (Helm removes `env`; Helmfile's `get` is
//! path-based and shadows Sprig's), so callers build a registry for the program they
//! imitate rather than sharing one global table. Adding a function is one function
//! plus one table line in its family file; adding a family is one `mod` line and one
//! line in the builders below.

pub mod helmfile;

use crate::template::Registry;

pub mod conversion;
pub mod defaults;
pub mod dicts;
pub mod lists;
pub mod math;
pub mod paths;
pub mod reflection;
pub mod regex;
pub mod semver;
pub mod strings;
pub mod url;

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

/// Every Sprig family, in registration order, with the dependency versions the
/// imitated program was built with (Helm 3 and Helmfile: Sprig 3.2.3, xstrings 1.4,
/// mergo 0.3.13 / 0.3.16; Helm 4: Sprig 3.3.0, xstrings 1.5, mergo 1.0.1).
fn sprig(r: &mut Registry, flavor: Flavor) {
    r.register(strings::FUNCS)
        .register(conversion::FUNCS)
        .register(math::FUNCS)
        .register(lists::FUNCS)
        .register(dicts::FUNCS)
        .register(defaults::FUNCS)
        .register(reflection::FUNCS)
        .register(paths::FUNCS)
        .register(regex::FUNCS)
        .register(url::FUNCS);
    match flavor {
        Flavor::Helm3 => r
            .register(strings::FUNCS_SPRIG_3_2)
            .register(dicts::FUNCS_MERGO_0_3_13)
            .register(semver::FUNCS_SEMVER_3_2),
        Flavor::Helmfile => r
            .register(strings::FUNCS_SPRIG_3_2)
            .register(dicts::FUNCS_MERGO_0_3_16)
            .register(semver::FUNCS_SEMVER_3_2),
        Flavor::Helm4 => r
            .register(strings::FUNCS_SPRIG_3_3)
            .register(dicts::FUNCS_MERGO_0_3_16)
            .register(semver::FUNCS_SEMVER_3_5),
    };
}

/// The functions Helm templates see.
pub fn helm_registry(flavor: Flavor) -> Registry {
    let mut r = Registry::new();
    sprig(&mut r, flavor);
    // Helm removes these from Sprig for hermetic renders.
    r.remove("env").remove("expandenv");
    r
}

/// The functions Helmfile state and values templates see.
pub fn helmfile_registry() -> Registry {
    let mut r = Registry::new();
    sprig(&mut r, Flavor::Helmfile);
    helmfile::register(&mut r);
    r
}
