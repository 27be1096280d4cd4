//! Runs every fixture in `testdata/funcs/` — function-library cases in the template
//! fixture format (`testdata/template/README.md`, `testdata/funcs/README.md`) — and
//! snapshots the output or error. Helm fixtures run with the full Helm function set
//! of their language level (1.22: Helm 3, 1.27: Helm 4); `testdata/funcs/helmfile/`
//! fixtures run in Helmfile's template context. A fixture calling a function the
//! registry lacks fails (Go's `function "x" not defined` parse error).
//!
//! The snapshots record outputs checked against the real programs with
//! `tests/funcs_oracle.rs`.

mod common;

use common::funcs;

#[test]
fn fixtures() {
    let mut wrong = Vec::new();
    let work = std::env::temp_dir().join(format!("stackproof-funcfx-{}", std::process::id()));
    insta::glob!("../testdata/funcs", "**/*.txt", |path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Ok(only) = std::env::var("FIXTURE") {
            if !name.contains(&only) {
                return;
            }
        }
        let text = std::fs::read_to_string(path).expect("read fixture");
        let fx = common::parse_fixture(name, &text);
        let in_helmfile_dir = path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|d| d == "helmfile");
        if in_helmfile_dir != funcs::is_helmfile(&fx) {
            wrong.push(format!(
                "{name}: fixtures in testdata/funcs/helmfile/ (and only those) use `registry=helmfile`"
            ));
            return;
        }
        let snap = match funcs::run(&fx, &work.join("stack")) {
            Ok(out) => {
                if fx.expect_error {
                    wrong.push(format!("{name}: expected an error, got output {out:?}"));
                }
                format!("OUTPUT:\n{out}")
            }
            Err(e) => {
                if !fx.expect_error {
                    wrong.push(format!("{name}: unexpected error: {e}"));
                }
                format!("ERROR {:?}:\n{e}", e.kind)
            }
        };
        insta::assert_snapshot!(snap);
    });
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        wrong.is_empty(),
        "fixtures with the wrong outcome:\n{}",
        wrong.join("\n")
    );
}
