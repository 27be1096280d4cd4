//! `--seed` and `--now`: whether a render's random functions and clock are the real
//! ones, as with helm and helmfile (the default), or fixed so that output repeats
//! byte for byte (for reviews and tests). Checks and diffs always use fixed ones.

use crate::template::{Clock, Seed};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ReproArgs {
    /// Draw random functions (randAlphaNum, genCA, uuidv4, ...) from a reproducible
    /// stream with this seed instead of the system's random source. The output, its
    /// passwords and keys included, then repeats: do not deploy it.
    #[arg(long = "seed", value_name = "N", global = true)]
    pub seed: Option<u64>,
    /// The time `now` returns and generated certificates start at (RFC 3339, e.g.
    /// 2026-01-01T00:00:00Z) instead of the system clock.
    #[arg(long = "now", value_name = "TIME", global = true)]
    pub now: Option<String>,
}

impl ReproArgs {
    pub fn resolve(&self) -> Result<(Seed, Clock), String> {
        let seed = match self.seed {
            Some(n) => Seed::Fixed(n),
            None => Seed::from_os()?,
        };
        let now = match &self.now {
            Some(t) => Clock::at(crate::matrix::config::parse_rfc3339(t).ok_or_else(|| {
                format!("--now expects an RFC 3339 time like 2026-01-01T00:00:00Z, got {t:?}")
            })?),
            None => Clock::system(),
        };
        Ok((seed, now))
    }
}
