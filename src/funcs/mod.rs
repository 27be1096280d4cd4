//! The function library: Sprig, Helm's additions and Helmfile's additions, one file per
//! family, each family a table of [`FuncDef`](crate::template::FuncDef) lines.
//!
//! Function sets differ by host program (Helm removes `env`; Helmfile's `get` is
//! path-based and shadows Sprig's), so callers build a registry for the program they
//! imitate rather than sharing one global table. Adding a function is one function
//! plus one table line in its family file; adding a family is one `mod` line and one
//! line in the builders below.

pub mod codec;

// Sprig families.
pub mod certs;
pub mod conversion;
pub mod crypto;
pub mod dates;
pub mod defaults;
pub mod dicts;
pub mod encoding;
pub mod env;
pub mod json;
pub mod lists;
pub mod math;
pub mod netip;
pub mod network;
pub mod paths;
mod primes;
pub mod random;
pub mod reflection;
pub mod regex;
pub mod semver;
pub mod strings;
#[cfg(test)]
mod testing;
pub mod url;

// Helm's additions.
pub mod chartvalues;
pub mod control;
pub mod toml;
pub mod yaml;

// Helmfile's additions.
pub mod helmfile;
pub mod vals;

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

/// Sprig, every family, in registration order, with the dependency versions the
/// imitated program pins (Helm 3: Sprig 3.2.3 + mergo 0.3.13; Helmfile: Sprig 3.2.3 +
/// mergo 0.3.16; Helm 4: Sprig 3.3.0).
fn sprig(r: &mut Registry, flavor: Flavor) {
    r.register(strings::FUNCS);
    r.register(conversion::FUNCS);
    r.register(math::FUNCS);
    r.register(lists::FUNCS);
    r.register(dicts::FUNCS);
    r.register(defaults::FUNCS);
    r.register(reflection::FUNCS);
    r.register(paths::FUNCS);
    r.register(regex::FUNCS);
    r.register(url::FUNCS);
    r.register(json::SPRIG_FUNCS);
    r.register(dates::FUNCS);
    r.register(encoding::FUNCS);
    r.register(crypto::FUNCS);
    r.register(certs::FUNCS);
    r.register(random::FUNCS);
    r.register(network::FUNCS);
    r.register(env::FUNCS);
    match flavor {
        Flavor::Helm3 => {
            r.register(strings::FUNCS_SPRIG_3_2);
            r.register(dicts::FUNCS_MERGO_0_3_13);
            r.register(semver::FUNCS_SEMVER_3_2);
        }
        Flavor::Helmfile => {
            r.register(strings::FUNCS_SPRIG_3_2);
            r.register(dicts::FUNCS_MERGO_0_3_16);
            r.register(semver::FUNCS_SEMVER_3_2);
        }
        Flavor::Helm4 => {
            r.register(strings::FUNCS_SPRIG_3_3);
            r.register(dicts::FUNCS_MERGO_0_3_16);
            r.register(semver::FUNCS_SEMVER_3_5);
            sprig_helm4(r);
        }
    }
}

/// What Helm 4 adds or changes: Sprig 3.3.0 additions and newer Go behaviour.
fn sprig_helm4(r: &mut Registry) {
    r.register(crypto::FUNCS_SPRIG_3_3);
    r.register(certs::FUNCS_GO125);
    r.register(url::FUNCS_GO125);
    r.register(dates::FUNCS_HELM4);
}

/// Room for every function of the largest table (Helmfile's), so that building
/// one never regrows it (see [`Registry::with_capacity`]).
const TABLE_ROOM: usize = 320;

/// Sprig's functions alone, as Helm's `--name-template` sees them.
pub fn sprig_registry(flavor: Flavor) -> Registry {
    let mut r = Registry::with_capacity(TABLE_ROOM);
    sprig(&mut r, flavor);
    r
}

/// The functions Helm templates see.
pub fn helm_registry(flavor: Flavor) -> Registry {
    let mut r = Registry::with_capacity(TABLE_ROOM);
    sprig(&mut r, flavor);
    // Helm removes these from Sprig for hermetic renders.
    r.remove("env").remove("expandenv");
    r.register_methods(chartvalues::type_name(flavor), chartvalues::METHODS);
    // Helm's own functions, registered over Sprig's of the same name.
    match flavor {
        Flavor::Helm4 => {
            r.register(json::HELM4_FUNCS);
            r.register(control::HELM4);
            r.register(yaml::HELM_FUNCS);
            r.register(yaml::HELM4_FUNCS);
            r.register(toml::HELM_FUNCS);
            r.register(toml::HELM4_FUNCS);
        }
        _ => {
            r.register(json::HELM_FUNCS);
            r.register(control::HELM3);
            r.register(yaml::HELM_FUNCS);
            r.register(toml::HELM_FUNCS);
        }
    }
    r
}

/// The functions Helmfile state and values templates see.
pub fn helmfile_registry() -> Registry {
    let mut r = Registry::with_capacity(TABLE_ROOM);
    sprig(&mut r, Flavor::Helmfile);
    r.register(yaml::HELMFILE_FUNCS);
    helmfile::register(&mut r);
    r
}

#[cfg(test)]
mod table_room {
    use super::*;

    #[test]
    fn every_table_fits_the_room_reserved_for_it() {
        let sizes = [
            helm_registry(Flavor::Helm3).len(),
            helm_registry(Flavor::Helm4).len(),
            helmfile_registry().len(),
            sprig_registry(Flavor::Helm4).len(),
        ];
        // hashbrown holds 7/8 of its buckets, and rounds the room up to them.
        let holds = TABLE_ROOM.next_power_of_two() / 8 * 7;
        for n in sizes {
            assert!(n > 100, "{sizes:?}");
            assert!(
                n <= holds,
                "{n} functions outgrow the room for {holds}: raise TABLE_ROOM"
            );
        }
    }
}
