//! Release ordering by `needs`, as Helmfile 0.166 plans it (its `variantdev/dag`
//! v1.1.0 planner plus `GroupReleasesByDependency`).
//!
//! Every release of a state is a node, whether selected or not; a node's depth is
//! the length of its longest `needs` chain, computed over the whole graph. The plan
//! lists the selected nodes depth by depth, and within a depth in declaration order.
//! Nodes that are not selected are dropped (`skip_needs`), pulled in when a selected
//! node needs them (`include_needs`, transitively), or else reported as unhandled.
//! A `needs` entry naming no release, and a cycle, are errors with Helmfile's texts.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One release as the planner sees it: its ID (`[kubeContext/][namespace/]name`)
/// and the IDs it needs, already in Helmfile's normalised form.
#[derive(Clone, Debug)]
pub struct Node {
    pub id: String,
    pub needs: Vec<String>,
}

/// How to treat unselected nodes that selected ones need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub include_needs: bool,
    pub skip_needs: bool,
}

/// Planning failures, with Helmfile's message texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("release(s) {} depend(s) on an undefined release {undefined:?}. Perhaps you made a typo in \"needs\" or forgot defining a release named {:?} with appropriate \"namespace\" and \"kubeContext\"?", quoted(.dependents).join(", "), last_segment(.undefined))]
    Undefined {
        undefined: String,
        dependents: Vec<String>,
    },
    #[error("cycle detected: {}", .path.join(" -> "))]
    Cycle { path: Vec<String> },
    #[error("release {} {} on {id:?} which does not match the selectors. Please add a selector like \"--selector name={}\", or indicate whether to skip (--skip-needs) or include (--include-needs) these dependencies", humanize(.dependents), if .dependents.len() == 1 { "depends" } else { "depend" }, last_segment(.id))]
    Unhandled { id: String, dependents: Vec<String> },
    /// A release lists the same need twice; helmfile 0.166 panics here.
    #[error("release {id:?} lists a need more than once (helmfile 0.166 crashes on this input: invalid state: no nodes have remaining edges)")]
    RepeatedNeed { id: String },
}

impl PlanError {
    /// The release the error is about (whose `needs:` entry to point at).
    pub fn release(&self) -> &str {
        match self {
            PlanError::Undefined { dependents, .. } => {
                dependents.first().map(String::as_str).unwrap_or("")
            }
            PlanError::Cycle { path } => path.first().map(String::as_str).unwrap_or(""),
            PlanError::Unhandled { dependents, .. } => {
                dependents.first().map(String::as_str).unwrap_or("")
            }
            PlanError::RepeatedNeed { id } => id,
        }
    }
}

fn quoted(xs: &[String]) -> Vec<String> {
    xs.iter().map(|x| format!("{x:?}")).collect()
}

fn humanize(xs: &[String]) -> String {
    let q = quoted(xs);
    if q.len() < 3 {
        q.join(" and ")
    } else {
        format!("{}, and {}", q[..q.len() - 1].join(", "), q[q.len() - 1])
    }
}

fn last_segment(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}

/// Plans `nodes` (all releases of a state, in declaration order) for the `selected`
/// IDs. Returns groups of indices into `nodes`, group by group.
pub fn plan(
    nodes: &[Node],
    selected: &[String],
    opts: PlanOptions,
) -> Result<Vec<Vec<usize>>, PlanError> {
    // The graph: node order of first appearance; dependents per dependency.
    let mut order: Vec<&str> = Vec::new();
    let mut known: BTreeSet<&str> = BTreeSet::new();
    let mut outputs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut num_inputs: HashMap<&str, usize> = HashMap::new();
    let mut id_index: HashMap<&str, usize> = HashMap::new();
    let mut id_members: HashMap<&str, Vec<usize>> = HashMap::new();
    // Edges in insertion order, for the undefined-need report.
    let mut dependents_of: Vec<(&str, Vec<&str>)> = Vec::new();

    for (i, n) in nodes.iter().enumerate() {
        id_index.insert(&n.id, i);
        id_members.entry(&n.id).or_default().push(i);
        if known.insert(&n.id) {
            order.push(&n.id);
        }
        outputs.entry(&n.id).or_default();
        let mut seen = BTreeSet::new();
        for d in &n.needs {
            if !seen.insert(d.as_str()) {
                return Err(PlanError::RepeatedNeed { id: n.id.clone() });
            }
            if outputs.entry(d).or_default().insert(&n.id) {
                *num_inputs.entry(&n.id).or_default() += 1;
            }
            match dependents_of.iter_mut().find(|(x, _)| *x == d) {
                Some((_, v)) => v.push(&n.id),
                None => dependents_of.push((d, vec![&n.id])),
            }
        }
    }

    for (dep, dependents) in &dependents_of {
        if !known.contains(dep) {
            return Err(PlanError::Undefined {
                undefined: dep.to_string(),
                dependents: dependents.iter().map(|s| s.to_string()).collect(),
            });
        }
    }

    // Layered topological sort.
    let mut inputs = num_inputs.clone();
    let mut remaining = outputs.clone();
    let mut layers: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = order
        .iter()
        .copied()
        .filter(|id| inputs.get(id).copied().unwrap_or(0) == 0)
        .collect();
    while !current.is_empty() {
        let mut next = Vec::new();
        for id in &current {
            let outs: Vec<&str> = remaining
                .get_mut(id)
                .map(|s| std::mem::take(s).into_iter().collect())
                .unwrap_or_default();
            for m in outs {
                let c = inputs.entry(m).or_default();
                *c = c.saturating_sub(1);
                if *c == 0 {
                    next.push(m);
                }
            }
        }
        layers.push(std::mem::take(&mut current));
        current = next;
    }

    if inputs.values().any(|&c| c > 0) {
        let stuck: BTreeSet<&str> = inputs
            .iter()
            .filter(|(_, &c)| c > 0)
            .map(|(id, _)| *id)
            .collect();
        // Helmfile starts from the byte-smallest stuck node that still has
        // dependents, and follows the first remaining edge until a node repeats.
        let start = stuck
            .iter()
            .copied()
            .find(|id| remaining.get(id).is_some_and(|o| !o.is_empty()));
        let mut path = Vec::new();
        if let Some(mut cur) = start {
            let mut seen = BTreeSet::new();
            while seen.insert(cur) {
                path.push(cur.to_string());
                match remaining.get(cur).and_then(|o| o.iter().next()) {
                    Some(n) => cur = n,
                    None => break,
                }
            }
            path.push(cur.to_string());
        } else {
            path = stuck.iter().map(|s| s.to_string()).collect();
        }
        return Err(PlanError::Cycle { path });
    }

    // Selection, deepest layer first so included needs pull in their own needs.
    let mut only: Option<BTreeSet<String>> = if selected.is_empty() {
        None
    } else {
        Some(selected.iter().cloned().collect())
    };
    let mut chosen: Vec<Vec<&str>> = vec![Vec::new(); layers.len()];
    for k in (0..layers.len()).rev() {
        for id in &layers[k] {
            let Some(only_set) = only.as_mut() else {
                chosen[k].push(id);
                continue;
            };
            if only_set.contains(*id) {
                chosen[k].push(id);
                continue;
            }
            if opts.skip_needs {
                continue;
            }
            let dependents: Vec<String> = outputs
                .get(id)
                .map(|outs| {
                    outs.iter()
                        .filter(|t| only_set.contains(**t))
                        .map(|t| t.to_string())
                        .collect()
                })
                .unwrap_or_default();
            if dependents.is_empty() {
                continue;
            }
            if !opts.include_needs {
                return Err(PlanError::Unhandled {
                    id: id.to_string(),
                    dependents,
                });
            }
            only_set.insert(id.to_string());
            chosen[k].push(id);
        }
    }

    let mut groups = Vec::new();
    for mut ids in chosen.into_iter().filter(|g| !g.is_empty()) {
        ids.sort_by_key(|id| id_index.get(id).copied().unwrap_or(usize::MAX));
        ids.dedup();
        let mut group = Vec::new();
        for id in ids {
            if let Some(members) = id_members.get(id) {
                group.extend(members.iter().copied());
            }
        }
        groups.push(group);
    }
    Ok(groups)
}

/// A release's ID as Helmfile forms it: `kubeContext/namespace/name`, omitting empty
/// parts, except that a context with no namespace keeps the empty slot (`ctx//name`).
pub fn release_id(kube_context: &str, namespace: &str, name: &str) -> String {
    let mut id = String::new();
    if !kube_context.is_empty() {
        id.push_str(kube_context);
        id.push('/');
    }
    if !namespace.is_empty() {
        id.push_str(namespace);
        id.push('/');
    }
    if !kube_context.is_empty() && namespace.is_empty() {
        id.push('/');
    }
    id.push_str(name);
    id
}

/// A `needs` entry in normalised form: `name` takes the release's own namespace and
/// context, `ns/name` its context, `ctx/ns/name` (or more segments) is explicit.
pub fn normalize_need(need: &str, namespace: &str, kube_context: &str) -> String {
    let parts: Vec<&str> = need.split('/').collect();
    let name = parts[parts.len() - 1];
    let ns = if parts.len() > 1 {
        parts[parts.len() - 2]
    } else {
        namespace
    };
    let ctx = if parts.len() > 2 {
        parts[..parts.len() - 2].join("/")
    } else {
        kube_context.to_string()
    };
    let mut out = Vec::new();
    if !ctx.is_empty() {
        out.push(ctx.as_str());
    }
    if !ctx.is_empty() || !ns.is_empty() {
        out.push(ns);
    }
    out.push(name);
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(id: &str, needs: &[&str]) -> Node {
        Node {
            id: id.into(),
            needs: needs.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn ids(nodes: &[Node], groups: &[Vec<usize>]) -> Vec<Vec<String>> {
        groups
            .iter()
            .map(|g| g.iter().map(|&i| nodes[i].id.clone()).collect())
            .collect()
    }

    #[test]
    fn layers_in_declaration_order() {
        // fidelity lab `needs`: x needs y → y, z, x
        let nodes = vec![n("x", &["y"]), n("y", &[]), n("z", &[])];
        let g = plan(&nodes, &[], PlanOptions::default()).unwrap();
        assert_eq!(ids(&nodes, &g), vec![vec!["y", "z"], vec!["x"]]);
    }

    #[test]
    fn depth_counts_unselected_nodes() {
        let nodes = vec![n("a", &[]), n("b", &["a"]), n("c", &["b"]), n("d", &[])];
        let sel = vec!["a".to_string(), "c".to_string(), "d".to_string()];
        let opts = PlanOptions {
            skip_needs: true,
            ..Default::default()
        };
        let g = plan(&nodes, &sel, opts).unwrap();
        assert_eq!(ids(&nodes, &g), vec![vec!["a", "d"], vec!["c"]]);
    }

    #[test]
    fn include_needs_is_transitive() {
        let nodes = vec![n("a", &[]), n("b", &["a"]), n("c", &["b"])];
        let opts = PlanOptions {
            include_needs: true,
            ..Default::default()
        };
        let g = plan(&nodes, &["c".to_string()], opts).unwrap();
        assert_eq!(ids(&nodes, &g), vec![vec!["a"], vec!["b"], vec!["c"]]);
    }

    #[test]
    fn unhandled_need_message() {
        let nodes = vec![n("y", &[]), n("x", &["y"])];
        let e = plan(&nodes, &["x".to_string()], PlanOptions::default()).unwrap_err();
        assert_eq!(e.to_string(), "release \"x\" depends on \"y\" which does not match the selectors. Please add a selector like \"--selector name=y\", or indicate whether to skip (--skip-needs) or include (--include-needs) these dependencies");
    }

    #[test]
    fn undefined_need_message() {
        let nodes = vec![n("x", &["missing"]), n("y", &[])];
        let e = plan(&nodes, &[], PlanOptions::default()).unwrap_err();
        assert_eq!(e.to_string(), "release(s) \"x\" depend(s) on an undefined release \"missing\". Perhaps you made a typo in \"needs\" or forgot defining a release named \"missing\" with appropriate \"namespace\" and \"kubeContext\"?");
    }

    #[test]
    fn cycle_message() {
        // observed: cycle detected: a/x -> a/y -> a/x
        let nodes = vec![n("a/x", &["a/y"]), n("a/y", &["a/x"]), n("z", &[])];
        let e = plan(&nodes, &[], PlanOptions::default()).unwrap_err();
        assert_eq!(e.to_string(), "cycle detected: a/x -> a/y -> a/x");
    }

    #[test]
    fn ids_and_needs() {
        assert_eq!(release_id("", "ns", "a"), "ns/a");
        assert_eq!(release_id("ctx", "", "a"), "ctx//a");
        assert_eq!(release_id("ctx", "ns", "a"), "ctx/ns/a");
        assert_eq!(normalize_need("a", "ns", ""), "ns/a");
        assert_eq!(normalize_need("a", "", ""), "a");
        assert_eq!(normalize_need("other/a", "ns", "ctx"), "ctx/other/a");
        assert_eq!(normalize_need("c/x/a", "ns", ""), "c/x/a");
        assert_eq!(normalize_need("a", "", "ctx"), "ctx//a");
    }
}
