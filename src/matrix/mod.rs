//! Matrices of input values: axes, their product, include/exclude and named cells,
//! each cell with a stable, readable name used in every report.

pub mod yaml;
pub mod model;
