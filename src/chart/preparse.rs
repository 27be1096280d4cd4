//! Parsing a chart's templates while the chart is still loading.
//!
//! A one-shot `stackproof template` spends most of its time in two jobs that do
//! not depend on each other: decoding the charts' `values.yaml` files (part of the
//! load) and parsing the templates (after it). Done one after the other they use one
//! core. [`PreParse`] is a [`LoadObserver`]: as soon as the loader knows a chart's
//! templates it queues their parses on the thread pool, under the names Helm will
//! give them; the renderer then takes each finished parse instead of parsing again.
//!
//! The guess can be wrong: an alias renames a subchart (its templates get other
//! names), a disabled subchart is never rendered, `--dependency-update` replaces the
//! chart. A parse is only taken for the same name *and* the very same text buffer;
//! anything else is parsed as before, so what the renderer sees never changes, only
//! when the work was done. Parse errors travel with the parse and are reported by
//! the renderer in its own order, as before.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::loader::{ChartFile, LoadObserver};
use super::schema::SchemaFile;
use super::HelmVersion;
use crate::source::SourceFile;
use crate::template::{Error, TemplateSet};

type Parse = Result<crate::template::parser::Parsed, Error>;

const QUEUED: u8 = 0;
const TAKEN: u8 = 1;

/// One template's parse, queued or done.
struct Slot {
    name: String,
    source: SourceFile,
    /// `QUEUED` until a pool task or the renderer claims the parse.
    state: AtomicU8,
    /// Set once the claiming pool task has stored its result (or given up).
    done: AtomicBool,
    result: Mutex<Option<Parse>>,
}

/// The early parses of one render (see the module docs).
pub struct PreParse {
    shared: Arc<Shared>,
    slots: Mutex<Slots>,
    /// The Helm version whose schema checks to start early, if any.
    schemas: Option<HelmVersion>,
}

#[derive(Default)]
struct Slots {
    by_name: HashMap<String, Arc<Slot>>,
    /// Slots not handed to the pool yet, and the size of all templates seen.
    waiting: Vec<Arc<Slot>>,
    bytes: usize,
}

/// What the queued parses use.
struct Shared {
    /// Parses with the renderer's function table and language level; never
    /// executed and never added to.
    parser: TemplateSet,
    /// Set when the renderer has taken what it needs: queued parses then end
    /// without parsing.
    finished: AtomicBool,
}

impl PreParse {
    /// `parser` must be a set built as the renderer builds its own.
    pub fn new(parser: TemplateSet) -> PreParse {
        PreParse {
            shared: Arc::new(Shared {
                parser,
                finished: AtomicBool::new(false),
            }),
            slots: Mutex::new(Slots::default()),
            schemas: None,
        }
    }

    /// Also has large `values.schema.json` files made ready for `helm`'s checks on
    /// the pool while the load goes on (see [`SchemaFile`]).
    pub fn with_schemas(mut self, helm: HelmVersion) -> PreParse {
        self.schemas = Some(helm);
        self
    }

    /// The parses of `items` (template names and texts), in their order: taken from
    /// the pool where it parsed them, parsed here with `parse` where it did not.
    /// This thread works too: first on every parse nobody has started (smallest
    /// first, while the pool works from the largest), then it waits for those
    /// still under way. `None` when nothing was queued for any of them (the
    /// caller's own way of parsing many files is then the better one).
    pub fn parse_all(
        &self,
        items: &[(&str, &SourceFile)],
        parse: impl Fn(&str, &SourceFile) -> Parse,
    ) -> Option<Vec<Parse>> {
        let Ok(mut map) = self.slots.lock() else {
            return None;
        };
        let found: Vec<Option<Arc<Slot>>> = items
            .iter()
            .map(|(name, source)| {
                map.by_name
                    .get(*name)
                    .filter(|s| same_text(&s.source, source))
                    .cloned()
            })
            .collect();
        if found.iter().all(Option::is_none) {
            return None;
        }
        // Queued parses nobody will take (a disabled subchart, names an alias
        // changed) are dropped, and what the load could not foresee is queued
        // in their place, so the pool works on what is needed.
        let wanted: HashSet<*const Slot> = found.iter().flatten().map(Arc::as_ptr).collect();
        for slot in map.by_name.values() {
            if !wanted.contains(&Arc::as_ptr(slot)) {
                let _ =
                    slot.state
                        .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire);
            }
        }
        map.waiting
            .retain(|s| s.state.load(Ordering::Acquire) == QUEUED);
        let slots: Vec<Arc<Slot>> = items
            .iter()
            .zip(found)
            .map(|((name, source), f)| {
                f.unwrap_or_else(|| queue(&mut map, name.to_string(), (*source).clone()))
            })
            .collect();
        self.start_waiting(&mut map);
        drop(map);
        let mut out: Vec<Option<Parse>> = items.iter().map(|_| None).collect();
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| items[i].1.text().len());
        for &i in &order {
            let s = &slots[i];
            if s.state
                .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                out[i] = Some(parse(items[i].0, items[i].1));
            }
        }
        for (i, s) in slots.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            while !s.done.load(Ordering::Acquire) {
                std::hint::spin_loop();
                std::thread::yield_now();
            }
            let taken = s.result.lock().ok().and_then(|mut r| r.take());
            out[i] = Some(taken.unwrap_or_else(|| parse(items[i].0, items[i].1)));
        }
        Some(out.into_iter().flatten().collect())
    }

    /// Hands the waiting slots to the pool, largest first (one big helpers file can
    /// take as long as all the rest), once the templates seen are enough text to be
    /// worth it: small charts parse faster on one thread than the pool starts up.
    fn start_waiting(&self, slots: &mut Slots) {
        if !super::worth_parallel(std::iter::once(slots.bytes)) {
            return;
        }
        let mut waiting = std::mem::take(&mut slots.waiting);
        waiting.sort_by_key(|s| std::cmp::Reverse(s.source.text().len()));
        for slot in waiting {
            let shared = self.shared.clone();
            let spawned = super::pool::spawn(move || {
                if slot
                    .state
                    .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
                {
                    return;
                }
                if !shared.finished.load(Ordering::Acquire) {
                    let parsed = shared
                        .parser
                        .parse_detached(&slot.name, slot.source.clone());
                    if let Ok(mut r) = slot.result.lock() {
                        *r = Some(parsed);
                    }
                }
                slot.done.store(true, Ordering::Release);
            });
            if !spawned {
                // No pool: the slots stay queued, and the renderer parses them.
                return;
            }
        }
    }

    /// Stops queued parses that have not started: the renderer has what it needs.
    pub fn finish(&self) {
        self.shared.finished.store(true, Ordering::Release);
    }
}

impl Drop for PreParse {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Whether two source files hold the same buffer (not merely equal text: a chart
/// whose files were reloaded must not take parses of the old copy, whatever the
/// text says).
fn same_text(a: &SourceFile, b: &SourceFile) -> bool {
    let (x, y) = (a.text(), b.text());
    x.len() == y.len() && std::ptr::eq(x.as_ptr(), y.as_ptr())
}

impl LoadObserver for PreParse {
    fn schema(&self, schema: &Arc<SchemaFile>) {
        let Some(helm) = self.schemas else { return };
        if self.shared.finished.load(Ordering::Acquire)
            || !super::render::worth_a_worker(schema.bytes().len())
        {
            return;
        }
        let schema = schema.clone();
        // Without a pool the renderer prepares it when it gets there.
        super::pool::spawn(move || schema.prepare(helm));
    }

    fn templates(&self, path: &str, templates: &[ChartFile]) {
        if self.shared.finished.load(Ordering::Acquire) {
            return;
        }
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        for f in templates {
            let name = format!("{path}/{}", f.name);
            // A name seen twice (two subcharts of one name): the first keeps the
            // slot; the renderer parses the other, whose text is another buffer.
            if !slots.by_name.contains_key(&name) {
                let source = SourceFile::new(name.as_str(), f.shared_text());
                let slot = queue(&mut slots, name, source);
                slots.by_name.insert(slot.name.clone(), slot);
            }
        }
        self.start_waiting(&mut slots);
    }
}

/// A new queued slot, counted and waiting for the pool.
fn queue(slots: &mut Slots, name: String, source: SourceFile) -> Arc<Slot> {
    slots.bytes += source.text().len();
    let slot = Arc::new(Slot {
        name,
        source,
        state: AtomicU8::new(QUEUED),
        done: AtomicBool::new(false),
        result: Mutex::new(None),
    });
    slots.waiting.push(slot.clone());
    slot
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::chart::loader::tests::TempChart;
    use crate::chart::render::{render_path, render_with_values, RenderOptions};
    use crate::chart::Chart;
    use crate::source::Vfs;
    use crate::template::Map;

    /// Early parsing with no functions known, for tests of the slots alone.
    fn bare_pre() -> PreParse {
        PreParse::new(TemplateSet::new(
            "t",
            Arc::new(crate::template::Registry::new()),
            crate::template::Options::default(),
        ))
    }

    /// A chart with enough template text for the early parses to run on the pool,
    /// an aliased subchart (whose templates get names the load cannot guess), a
    /// plain one, and whatever `extra` adds.
    fn chart_files(extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut helpers = String::new();
        for i in 0..400 {
            helpers.push_str(&format!(
                "{{{{- define \"h{i}\" -}}}}\n{{{{- if .Values.on }}}}{{{{ printf \"%s-{i}\" .Release.Name | trunc 63 }}}}{{{{- else }}}}off{{{{- end }}}}\n{{{{- end -}}}}\n"
            ));
        }
        let mut files = vec![
            (
                "Chart.yaml".to_string(),
                "apiVersion: v2\nname: top\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  alias: renamed\n- name: plain\n  version: 0.1.0\n".to_string(),
            ),
            ("values.yaml".to_string(), "on: true\n".to_string()),
            ("templates/_helpers.tpl".to_string(), helpers),
            (
                "templates/cm.yaml".to_string(),
                "kind: ConfigMap\nmetadata:\n  name: {{ include \"h7\" . }}\ndata:\n  t: {{ .Template.Name }}\n  sub: {{ include \"sub.name\" . }}\n".to_string(),
            ),
        ];
        for sub in ["sub", "plain"] {
            files.push((
                format!("charts/{sub}/Chart.yaml"),
                format!("apiVersion: v2\nname: {sub}\nversion: 0.1.0\n"),
            ));
            files.push((
                format!("charts/{sub}/templates/_n.tpl"),
                format!(
                    "{{{{- define \"{sub}.name\" -}}}}{sub}-{{{{ .Chart.Name }}}}{{{{- end -}}}}\n"
                ),
            ));
            files.push((
                format!("charts/{sub}/templates/cm.yaml"),
                "kind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\ndata:\n  t: {{ .Template.Name }}\n".to_string(),
            ));
        }
        for (name, text) in extra {
            files.push((name.to_string(), text.to_string()));
        }
        files
    }

    /// A temporary chart holding `files`.
    fn temp_chart(tag: &str, files: &[(String, String)]) -> TempChart {
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        TempChart::new(&format!("preparse-{tag}"), &files)
    }

    /// What rendering the chart at `dir` gives with early parses.
    fn early_render(dir: &Path, opts: &RenderOptions) -> Result<String, String> {
        render_path(dir, opts, &Vfs::real())
            .and_then(|r| r.helm_output())
            .map_err(|e| e.message)
    }

    /// What rendering gives without early parses: the chart loaded first, then
    /// rendered.
    fn plain_render(dir: &Path, opts: &RenderOptions) -> Result<String, String> {
        let vfs = Vfs::real();
        let chart = Chart::load(dir, &vfs).map_err(|e| e.message)?;
        render_with_values(&chart, opts, Map::new(), &vfs)
            .and_then(|r| r.helm_output())
            .map_err(|e| e.message)
    }

    #[test]
    fn renders_as_without_early_parses() {
        let chart = temp_chart("same", &chart_files(&[]));
        let opts = RenderOptions::default();
        let early = early_render(&chart.0, &opts);
        let plain = plain_render(&chart.0, &opts);
        assert!(plain.is_ok(), "{plain:?}");
        assert_eq!(early, plain);
        let out = plain.unwrap_or_default();
        assert!(
            out.contains("t: top/charts/renamed/templates/cm.yaml"),
            "{out}"
        );
        assert!(out.contains("sub: sub-top"), "{out}");
    }

    #[test]
    fn parse_errors_are_reported_as_without_early_parses() {
        let chart = temp_chart(
            "error",
            &chart_files(&[
                ("templates/b.yaml", "a: {{ .x | }}\n"),
                ("templates/a.yaml", "a: {{ end }}\n"),
                ("charts/plain/templates/z.yaml", "{{ if }}\n"),
            ]),
        );
        let opts = RenderOptions::default();
        let early = early_render(&chart.0, &opts);
        let plain = plain_render(&chart.0, &opts);
        assert!(plain.is_err(), "{plain:?}");
        assert_eq!(early, plain);
    }

    /// An observer that only counts, standing in for a renderer.
    struct Counting(AtomicUsize, Mutex<Vec<String>>);

    impl LoadObserver for Counting {
        fn templates(&self, path: &str, templates: &[ChartFile]) {
            self.0.fetch_add(templates.len(), Ordering::Relaxed);
            if let Ok(mut paths) = self.1.lock() {
                paths.push(path.to_string());
            }
        }
    }

    #[test]
    fn the_load_names_every_chart_of_the_tree() {
        let chart = temp_chart("observe", &chart_files(&[]));
        let seen = Counting(AtomicUsize::new(0), Mutex::new(Vec::new()));
        Chart::load_observed(&chart.0, &Vfs::real(), Some(&seen))
            .map_err(|e| e.message)
            .unwrap();
        assert_eq!(seen.0.load(Ordering::Relaxed), 6);
        let mut paths = seen.1.into_inner().unwrap_or_default();
        paths.sort();
        assert_eq!(paths, ["top", "top/charts/plain", "top/charts/sub"]);
    }

    #[test]
    fn parses_nobody_takes_are_dropped() {
        let pre = bare_pre();
        pre.templates(
            "c",
            &[
                ChartFile::new("templates/a.yaml", b"{{ .a }}".to_vec()),
                ChartFile::new("templates/b.yaml", b"{{ .b }}".to_vec()),
            ],
        );
        let (a, b) = {
            let slots = pre.slots.lock().unwrap();
            (
                slots.by_name["c/templates/a.yaml"].clone(),
                slots.by_name["c/templates/b.yaml"].clone(),
            )
        };
        let called = AtomicUsize::new(0);
        let parse = |name: &str, source: &SourceFile| {
            called.fetch_add(1, Ordering::Relaxed);
            pre.shared.parser.parse_detached(name, source.clone())
        };
        // `a` as loaded, and a template the load never saw (an aliased copy).
        let unseen = SourceFile::new("c/charts/x/templates/a.yaml", "{{ .x }}");
        let got = pre.parse_all(
            &[
                ("c/templates/a.yaml", &a.source),
                ("c/charts/x/templates/a.yaml", &unseen),
            ],
            parse,
        );
        assert!(got.is_some_and(|v| v.len() == 2 && v.iter().all(Result::is_ok)));
        assert_eq!(called.load(Ordering::Relaxed), 2);
        assert_eq!(a.state.load(Ordering::Relaxed), TAKEN);
        // `b` is no longer waiting for a thread: nobody asked for it. Nothing is
        // left for the pool to parse.
        assert_eq!(b.state.load(Ordering::Relaxed), TAKEN);
        let slots = pre.slots.lock().unwrap();
        assert!(slots
            .waiting
            .iter()
            .all(|s| s.state.load(Ordering::Relaxed) == TAKEN));
    }

    #[test]
    fn parses_are_taken_only_for_the_same_text() {
        let text: Arc<str> = Arc::from("{{ .x }}");
        let pre = bare_pre();
        pre.templates(
            "c",
            &[ChartFile::new("templates/a.yaml", text.as_bytes().to_vec())],
        );
        // Equal text in another buffer (a reloaded chart) is parsed by the caller.
        let other = SourceFile::new("c/templates/a.yaml", "{{ .x }}");
        let called = AtomicUsize::new(0);
        let parse = |name: &str, source: &SourceFile| {
            called.fetch_add(1, Ordering::Relaxed);
            pre.shared.parser.parse_detached(name, source.clone())
        };
        assert!(pre
            .parse_all(&[("c/templates/a.yaml", &other)], parse)
            .is_none());
        // The very buffer the load saw: the queued parse is claimed and done once.
        let slot_source = pre.slots.lock().unwrap().by_name["c/templates/a.yaml"]
            .source
            .clone();
        let got = pre.parse_all(&[("c/templates/a.yaml", &slot_source)], parse);
        assert_eq!(got.map(|v| v.len()), Some(1));
        assert_eq!(called.load(Ordering::Relaxed), 1);
    }
}
