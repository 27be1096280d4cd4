//! The seam between rendering and checking: the [`Renderer`] trait that chart, Helmfile
//! and fixture renderers implement, and the parallel rendering of every selected cell.
//!
//! A renderer never fails as a whole: whatever goes wrong becomes an error in the layer
//! (or release) it affects, so rules on that layer turn into findings instead of the run
//! stopping or, worse, passing silently.

use std::path::Path;

use rayon::prelude::*;
use serde_json::Value as Json;

use super::config::{Config, Target};
use super::expand::Cell;
use super::model::{RenderError, RenderedCell};
use crate::template::Clock;

/// Everything a renderer needs to render one cell of one target.
pub struct RenderRequest<'a> {
    pub target: &'a Target,
    pub cell: &'a Cell,
    /// The target's values with the cell's applied.
    pub values: Json,
    /// Paths in locations are shown relative to this directory.
    pub display_base: &'a Path,
    /// What templates' `now` returns: the instant the run's rules are evaluated at,
    /// so a certificate a chart generates and an expiry rule agree on the time.
    pub now: Clock,
}

/// Renders cells of targets of one kind (`helmfile`, `chart` or `fixture`).
pub trait Renderer: Send + Sync {
    /// The target kind handled (see [`super::config::TargetKind::label`]).
    fn kind(&self) -> &'static str;
    fn render(&self, req: &RenderRequest<'_>) -> RenderedCell;
}

/// The renderers available to a run.
pub struct Renderers {
    list: Vec<Box<dyn Renderer>>,
}

impl Default for Renderers {
    fn default() -> Self {
        Renderers::builtin()
    }
}

impl Renderers {
    /// The renderers this build has.
    pub fn builtin() -> Renderers {
        Renderers {
            list: vec![
                Box::new(super::fixture::FixtureRenderer),
                Box::new(super::chart_target::ChartRenderer),
                Box::new(super::helmfile_target::HelmfileRenderer),
            ],
        }
    }

    /// Adds (or replaces) the renderer for a kind.
    pub fn with(mut self, r: Box<dyn Renderer>) -> Renderers {
        self.list.retain(|x| x.kind() != r.kind());
        self.list.push(r);
        self
    }

    pub fn for_kind(&self, kind: &str) -> Option<&dyn Renderer> {
        self.list
            .iter()
            .find(|r| r.kind() == kind)
            .map(|r| r.as_ref())
    }
}

/// A (target, cell) pair to render, by index into the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CellRef {
    pub target: usize,
    pub cell: usize,
}

/// Renders the given cells in parallel, with `now` as every template's clock;
/// results come back in the order given.
pub fn render_cells(
    config: &Config,
    renderers: &Renderers,
    cells: &[CellRef],
    now: Clock,
) -> Vec<RenderedCell> {
    // Cells share most of their work (see `source::memo`).
    crate::source::expect_repeats();
    cells
        .par_iter()
        .map(|r| {
            let target = &config.targets[r.target];
            let cell = &target.cells[r.cell];
            let req = RenderRequest {
                target,
                cell,
                values: cell.input_values(&target.values),
                display_base: &config.display_base,
                now,
            };
            let mut rendered = match renderers.for_kind(target.kind.label()) {
                Some(renderer) => renderer.render(&req),
                None => RenderedCell::failed(
                    &target.name,
                    &cell.name,
                    req.values.clone(),
                    RenderError::new(format!(
                        "cannot render {} targets: this build has no {} renderer yet",
                        target.kind.label(),
                        target.kind.label()
                    )),
                ),
            };
            rendered.expect = cell.expect.clone();
            rendered
        })
        .collect()
}
