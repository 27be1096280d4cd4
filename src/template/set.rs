//! A template set: Go's associated templates, one namespace of named templates.
//!
//! Helm parses every file of a chart tree into one set (later `define`s replace
//! earlier ones, in an order Helm chooses), then executes each file's template by
//! name; its `tpl` parses new text into a *clone* of the set so the text sees every
//! define without adding to the original. Cloning is cheap: clones share the table
//! of templates (and templates their parsed trees), and what a clone adds goes to a
//! small table of its own.

use std::sync::{Arc, Mutex, OnceLock};

use super::ast::{Kids, Node, NodeId, Tree};
use super::error::{Error, ErrorKind};
use super::exec::{Emit, Shared, State};
use super::options::Options;
use super::parser;
use super::registry::{Host, Registry};
use super::value::Value;
use crate::source::{FastMap, SourceFile};

/// One named template: the tree its text was parsed into and the root of its body.
#[derive(Clone, Debug)]
pub struct TemplateDef {
    pub name: Arc<str>,
    pub tree: Arc<Tree>,
    pub root: NodeId,
}

/// A namespace of templates plus the functions and options they run with.
#[derive(Clone, Debug)]
pub struct TemplateSet {
    name: Arc<str>,
    templates: Arc<Templates>,
    /// What this set added while `templates` was shared with clones (`tpl`'s text
    /// added to a clone of a chart's set): looked up first. A chart's set holds
    /// hundreds of templates, and `tpl` runs hundreds of times per render, so
    /// copying the table for each was a cost of its own.
    added: Templates,
    registry: Arc<Registry>,
    options: Options,
    /// What `tpl` parsed, by text. A chart's helpers often `tpl` every string of
    /// its values once per file (nats' `tplYaml`), so the same few texts are parsed
    /// hundreds of times. A parse reads only the set's options and functions, which
    /// clones share, so the clones `tpl` makes share this table too.
    tpl_parses: TplParses,
}

type TplParses = Arc<Mutex<FastMap<Arc<str>, Arc<parser::Parsed>>>>;

type Templates = FastMap<Arc<str>, TemplateDef>;

fn empty_tree() -> &'static Tree {
    static EMPTY: OnceLock<Tree> = OnceLock::new();
    EMPTY.get_or_init(|| Tree {
        source: SourceFile::new("", ""),
        parse_name: Arc::from(""),
        nodes: vec![Node::List {
            pos: 0,
            nodes: Kids::default(),
        }],
        kids: Vec::new(),
        names: Vec::new(),
        idents: Vec::new(),
        left_delim: Arc::from("{{"),
        right_delim: Arc::from("}}"),
    })
}

// Errors are cold and carry Go's text plus its parts for reporters; the callers
// (chart and Helmfile rendering) read those fields directly, so the type stays a
// plain struct rather than being boxed behind every `Result`.
impl TemplateSet {
    /// An empty set. `name` is the set's own name (Go's root template, `gotpl` in
    /// Helm): errors for unknown templates mention it, and `tpl` parses its text
    /// under it.
    pub fn new(name: &str, registry: Arc<Registry>, options: Options) -> TemplateSet {
        TemplateSet {
            name: Arc::from(name),
            templates: Arc::default(),
            added: Templates::default(),
            registry,
            options,
            tpl_parses: TplParses::default(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn options_mut(&mut self) -> &mut Options {
        // Texts parsed under the old options may read differently under new ones.
        self.tpl_parses = TplParses::default();
        &mut self.options
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub(crate) fn empty_tree(&self) -> &'static Tree {
        empty_tree()
    }

    /// Whether templates may call `name` (a registry function or a Go builtin).
    pub fn has_function(&self, name: &str) -> bool {
        self.registry.contains(name) || super::builtins::is_builtin(name)
    }

    /// Parses `text` as template `name` (plus everything it `define`s) into the set.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), Error> {
        self.parse_source(name, SourceFile::new(name, text))
    }

    /// Like [`TemplateSet::parse`], with the text given as a [`SourceFile`] (whose
    /// name is used for reporting only; `name` is the template name).
    ///
    /// As in Go, a definition replaces an earlier one of the same name unless the
    /// new body is empty (only spaces and comments); on a parse error nothing is
    /// added.
    pub fn parse_source(&mut self, name: &str, source: SourceFile) -> Result<(), Error> {
        self.parse_tracking_root(name, source).map(|_| ())
    }

    /// Parses like [`TemplateSet::parse_source`] and reports whether the text's own
    /// body (outside any `define`) is empty. Go keeps an existing template when a
    /// re-parse of its name is empty, yet the `*Template` that did the parsing holds
    /// the empty tree, so executing *that* object prints nothing (Helm's `tpl ""`
    /// inside another `tpl` relies on this). Callers that execute what they just
    /// parsed must therefore not fall back to the older definition.
    pub fn parse_tracking_root(&mut self, name: &str, source: SourceFile) -> Result<bool, Error> {
        let parsed = self.parse_detached(name, source)?;
        Ok(self.add_parsed(name, &parsed))
    }

    /// The parsing half of [`TemplateSet::parse_tracking_root`]: it reads only the
    /// set's options and functions, so many texts can be parsed at the same time and
    /// then added in order with [`TemplateSet::add_parsed`].
    pub fn parse_detached(&self, name: &str, source: SourceFile) -> Result<parser::Parsed, Error> {
        let reg = &self.registry;
        let has = |f: &str| reg.contains(f) || super::builtins::is_builtin(f);
        parser::parse(
            name,
            source,
            &self.options.left_delim,
            &self.options.right_delim,
            self.options.level,
            &has,
        )
        .map_err(|e| *e)
    }

    /// [`TemplateSet::parse_detached`] of a `tpl` text under the set's own name,
    /// parsed once per text for this set and every clone of it.
    pub(crate) fn parse_tpl(&self, text: &Arc<str>) -> Result<Arc<parser::Parsed>, Error> {
        let table = || {
            self.tpl_parses
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        if let Some(p) = table().get(&**text) {
            return Ok(Arc::clone(p));
        }
        // The text is the argument's own string, shared rather than copied.
        let source = SourceFile::new(&*self.name, Arc::clone(text));
        let parsed = Arc::new(self.parse_detached(&self.name, source)?);
        // A set that lives through a long matrix sees new texts in every cell; past
        // this many it parses them afresh rather than growing without bound.
        const MAX_REMEMBERED: usize = 4096;
        let mut t = table();
        if t.len() < MAX_REMEMBERED {
            t.insert(Arc::clone(text), Arc::clone(&parsed));
        }
        Ok(parsed)
    }

    /// Adds what [`TemplateSet::parse_detached`] parsed for `name`; true when the
    /// text's own body was empty.
    pub fn add_parsed(&mut self, name: &str, parsed: &parser::Parsed) -> bool {
        let mut root_empty = true;
        for (tname, root) in parsed.templates.iter().cloned() {
            let empty = parsed.tree.is_empty_tree(root);
            if *tname == *name {
                root_empty = empty;
            }
            if empty && self.contains(&tname) {
                continue;
            }
            let def = TemplateDef {
                name: tname.clone(),
                tree: parsed.tree.clone(),
                root,
            };
            match Arc::get_mut(&mut self.templates) {
                Some(own) => {
                    self.added.remove(&tname);
                    own.insert(tname, def);
                }
                None => {
                    self.added.insert(tname, def);
                }
            }
        }
        root_empty
    }

    pub fn lookup(&self, name: &str) -> Option<&TemplateDef> {
        self.added.get(name).or_else(|| self.templates.get(name))
    }

    pub fn contains(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// Template names in byte order.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .added
            .keys()
            .chain(self.templates.keys())
            .map(|k| &**k)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Removes a template (hosts that emulate `template.New` replacing a name).
    pub fn remove(&mut self, name: &str) -> Option<TemplateDef> {
        let added = self.added.remove(name);
        let shared = if self.templates.contains_key(name) {
            Arc::make_mut(&mut self.templates).remove(name)
        } else {
            None
        };
        added.or(shared)
    }

    /// Executes template `name` with `data` as `.` and `$`, returning its output.
    pub fn execute(&self, name: &str, data: &Value, host: &Host) -> Result<String, Error> {
        let mut out = String::with_capacity(self.output_guess(name));
        self.execute_into(name, data, host, &mut out)?;
        Ok(fit(out))
    }

    /// Executes template `name`, appending to `out` (which keeps any partial output
    /// on error, as Go's writer would).
    pub fn execute_into(
        &self,
        name: &str,
        data: &Value,
        host: &Host,
        out: &mut String,
    ) -> Result<(), Error> {
        let mut shared = Shared::default();
        let mut st = State::new(self, host, &mut shared);
        st.run(name, data, out).map_err(|e| *e)
    }

    /// [`TemplateSet::execute`], also returning which node wrote each part of the
    /// output (text, actions and `{{template}}` calls of this execution; output of
    /// `include`/`tpl` belongs to the action that printed it).
    pub fn execute_traced(
        &self,
        name: &str,
        data: &Value,
        host: &Host,
    ) -> Result<(String, Vec<Emit>), Error> {
        let mut shared = Shared::default();
        let mut st = State::new(self, host, &mut shared);
        st.trace = Some(Vec::new());
        let mut out = String::with_capacity(self.output_guess(name));
        st.run(name, data, &mut out).map_err(|e| *e)?;
        Ok((fit(out), st.trace.take().unwrap_or_default()))
    }

    /// Room to reserve for the output of template `name`: its file's length and a
    /// sixteenth more. A file's output is mostly its own text (a chart's CRDs are
    /// megabytes of it), and a buffer grown by doubling from empty touches about
    /// twice the memory it ends with, fresh memory the kernel zeroes, and copies it
    /// at every step. The margin is for what the actions add: a CRD that includes
    /// its labels prints a few bytes more than its file, and a buffer of exactly
    /// the file's length then doubled, copying the whole text once more.
    fn output_guess(&self, name: &str) -> usize {
        self.lookup(name).map_or(0, |d| {
            let len = d.tree.source.text().len();
            len + len / 16
        })
    }

    /// Go's `ExecuteTemplate` error for an unknown name.
    pub fn no_template_error(&self, name: &str) -> Error {
        let mut e = Error::new(
            ErrorKind::NoTemplate,
            format!(
                "template: no template {} associated with template {}",
                super::fmt::quote(name),
                super::fmt::quote(&self.name)
            ),
        );
        e.template = self.name.to_string();
        e
    }
}

/// The output of an execution, without the room reserved for it when little of
/// that was used: a file of CRDs behind a false `if` prints nothing, and the
/// buffer reserved for it, kept alive with the chart's other outputs, would pin
/// fresh memory (a large block's first page is touched even when empty) that
/// the next file's buffer could have reused.
fn fit(mut out: String) -> String {
    const SLACK: usize = 64 << 10;
    if out.capacity() - out.len() > SLACK.max(out.len()) {
        out.shrink_to_fit();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(p: &parser::Parsed) -> Vec<String> {
        p.templates.iter().map(|(n, _)| n.to_string()).collect()
    }

    #[test]
    fn tpl_parses_are_shared_by_clones_and_dropped_with_the_options() {
        let mut set = TemplateSet::new("gotpl", Arc::new(Registry::new()), Options::default());
        let text: Arc<str> = Arc::from(r#"{{ define "d" }}x{{ end }}[[ .a ]]{{ .b }}"#);
        let first = set.parse_tpl(&text).expect("parses");
        assert_eq!(texts(&first), ["d", "gotpl"]);
        // A clone (what `tpl` itself runs in) finds the same parse.
        let again = set.clone().parse_tpl(&text).expect("parses");
        assert!(Arc::ptr_eq(&first, &again));
        // Under other delimiters the same text holds other actions: `{{ define` is
        // now plain text, so the only template is the body.
        set.options_mut().left_delim = "[[".to_string();
        set.options_mut().right_delim = "]]".to_string();
        let other = set.parse_tpl(&text).expect("parses");
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(texts(&other), ["gotpl"]);
    }

    #[test]
    fn a_clone_adds_and_removes_without_touching_the_original() {
        let mut set = TemplateSet::new("gotpl", Arc::new(Registry::new()), Options::default());
        set.parse("a", r#"{{ define "d" }}original{{ end }}A"#)
            .expect("parses");
        let run = |s: &TemplateSet, name: &str| {
            s.execute(name, &Value::Nil, &Host::default())
                .expect("runs")
        };
        let mut clone = set.clone();
        // The clone shares the original's table, so its additions land on top.
        assert!(Arc::ptr_eq(&set.templates, &clone.templates));
        clone
            .parse(
                "b",
                r#"{{ define "d" }}replaced{{ end }}{{ template "d" }}"#,
            )
            .expect("parses");
        assert!(Arc::ptr_eq(&set.templates, &clone.templates));
        assert_eq!(run(&clone, "b"), "replaced");
        assert_eq!(clone.names(), ["a", "b", "d"]);
        assert_eq!(set.names(), ["a", "d"]);
        assert!(!set.contains("b"));
        assert_eq!(run(&set, "d"), "original");
        // An empty body keeps the definition there is, wherever it sits.
        clone.parse("d", "{{/* nothing */}}").expect("parses");
        assert_eq!(run(&clone, "d"), "replaced");
        // Removing takes the name out of both layers.
        assert!(clone.remove("d").is_some());
        assert!(!clone.contains("d"));
        assert!(clone.lookup("d").is_none());
        assert_eq!(run(&set, "d"), "original");
        // Alone again, the original adds to its own table.
        drop(clone);
        set.parse("c", "C").expect("parses");
        assert!(set.added.is_empty());
        assert_eq!(set.names(), ["a", "c", "d"]);
    }

    #[test]
    fn a_failed_tpl_parse_is_not_remembered() {
        let set = TemplateSet::new("gotpl", Arc::new(Registry::new()), Options::default());
        let text: Arc<str> = Arc::from("{{ if }}");
        let e = set.parse_tpl(&text).expect_err("an empty if is an error");
        assert!(e.message.contains("missing value for if"), "{}", e.message);
        assert!(set.tpl_parses.lock().map(|m| m.is_empty()).unwrap_or(false));
    }
}
