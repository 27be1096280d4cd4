//! Every assertion kind has a fixture rule that fires and one that stays quiet, run
//! through the whole pipeline (configuration, matrix, fixture rendering, engine) on the
//! fixture stacks under `testdata/rules/`.

use stackproof::cli::check::Filters;
use stackproof::report::{Report, Status};
use stackproof::rules::assert::KINDS;

mod rules_support;
use rules_support::testdata;

fn report() -> Report {
    rules_support::check(&Filters::default())
}

#[test]
fn every_kind_has_a_firing_and_a_quiet_fixture() {
    for k in KINDS {
        let file = testdata()
            .join("kinds")
            .join(format!("{}.yaml", k.name.replace('-', "_")));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("kind {} has no fixture {}: {e}", k.name, file.display()));
        assert!(
            text.contains(&format!("id: {}-fires", k.name)),
            "{} has no firing rule",
            k.name
        );
        assert!(
            text.contains(&format!("id: {}-quiet", k.name)),
            "{} has no quiet rule",
            k.name
        );
        assert!(
            text.contains(&format!("{{{}:", k.name)) || text.contains(&format!("- {}:", k.name)),
            "{}'s fixture does not use the kind",
            k.name
        );
    }
}

#[test]
fn firing_rules_fire_and_quiet_rules_stay_quiet() {
    let r = report();
    let mut evaluated: std::collections::BTreeMap<&str, usize> = Default::default();
    for o in &r.outcomes {
        if matches!(o.status, Status::Skipped { .. }) {
            continue;
        }
        *evaluated.entry(o.rule.as_str()).or_default() += 1;
        let fires = o.rule.contains("-fires");
        if fires {
            assert_eq!(
                o.status,
                Status::Failed,
                "{} in {} did not fire",
                o.rule,
                o.cell
            );
            assert!(!o.findings.is_empty());
        } else {
            assert!(o.rule.contains("-quiet"), "unexpected rule id {}", o.rule);
            assert_eq!(
                o.status,
                Status::Passed,
                "{} in {} fired: {:#?}",
                o.rule,
                o.cell,
                o.findings
            );
        }
    }
    for info in &r.rules {
        assert!(
            evaluated.contains_key(info.id.as_str()),
            "{} was skipped in every cell",
            info.id
        );
    }
}

#[test]
fn findings_are_stable() {
    let r = report();
    let lines: Vec<String> = r
        .findings
        .iter()
        .map(|f| {
            let at = f
                .primary()
                .map(|l| format!("{}:{}:{}", l.file, l.line, l.column))
                .unwrap_or_default();
            format!(
                "[{}] {} | {} | {} | {} | {}\n    {}",
                f.cell,
                f.rule,
                f.release.clone().unwrap_or_default(),
                f.resource
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                at,
                f.path.clone().unwrap_or_default(),
                f.message
            )
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

/// A run restricted to one cell still renders the cells its rules compare with (as
/// context: not evaluated, not counted), so `differs-from`/`same-as` keep their meaning.
#[test]
fn cell_filter_renders_the_cells_compared_with() {
    let filters =
        rules_support::filters(&["mode=existingSecret"], &["differs-from-*", "same-as-*"]);
    let r = rules_support::check(&filters);
    let cells: std::collections::BTreeSet<&str> =
        r.outcomes.iter().map(|o| o.cell.as_str()).collect();
    assert_eq!(
        cells,
        std::collections::BTreeSet::from(["mode=existingSecret"])
    );
    let status = |id: &str| {
        r.outcomes
            .iter()
            .find(|o| o.rule == id)
            .map(|o| o.status.clone())
    };
    assert_eq!(status("differs-from-quiet"), Some(Status::Passed));
    assert_eq!(status("same-as-quiet"), Some(Status::Passed));
    assert_eq!(status("differs-from-fires"), Some(Status::Failed));
    assert_eq!(status("same-as-fires"), Some(Status::Failed));
    let unknown: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.rule == "differs-from-fires-unknown-cell")
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        unknown.len() == 1 && unknown[0].contains("no-such-cell"),
        "{unknown:?}"
    );
}
