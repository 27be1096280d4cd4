//! Helm charts: loading, values coalescing, rendering and output exactly as
//! `helm template` prints it, in Helm 3 and Helm 4 flavours.

pub mod error;
pub mod glob;
pub mod ignore;
pub mod loader;
pub mod metadata;
pub mod semver;
pub mod yamlio;

pub use error::{ChartError, Phase};
pub use loader::{Chart, ChartFile};
pub use metadata::{Dependency, Maintainer, Metadata};
