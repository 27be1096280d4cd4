//! Runs every fixture in `testdata/template/` and snapshots its output or error.
//! The fixture format is described in `testdata/template/README.md`.

mod common;

#[test]
fn fixtures() {
    let mut wrong = Vec::new();
    insta::glob!("../testdata/template", "*.txt", |path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Ok(only) = std::env::var("FIXTURE") {
            if !name.contains(&only) {
                return;
            }
        }
        let text = std::fs::read_to_string(path).expect("read fixture");
        let fx = common::parse_fixture(name, &text);
        let snap = match common::run_fixture(&fx) {
            Ok(out) => {
                if fx.expect_error {
                    wrong.push(format!("{name}: expected an error, got output {out:?}"));
                }
                format!("OUTPUT:\n{out}")
            }
            Err((kind, msg)) => {
                if !fx.expect_error {
                    wrong.push(format!("{name}: unexpected error: {msg}"));
                }
                format!("ERROR {kind}:\n{msg}")
            }
        };
        insta::assert_snapshot!(snap);
    });
    assert!(
        wrong.is_empty(),
        "fixtures with the wrong outcome:\n{}",
        wrong.join("\n")
    );
}
