//! Shared by the chart CLI tests: how `stackproof template`'s failure output relates
//! to Helm's. stackproof prints Helm's exact error text, then (only when Helm's text
//! does not name the place) one `  --> FILE:LINE:COL` line, and exits with 2 where
//! Helm exits with 1.

/// Splits stackproof's stderr into Helm's part and the trailing location note, if
/// any. A note must be the last line and have exactly the `  --> FILE:LINE:COL`
/// shape; anything else stays in Helm's part (and so fails a byte comparison).
#[allow(dead_code)]
pub fn split_location_note(stderr: &str) -> (&str, Option<&str>) {
    let body = stderr.strip_suffix('\n').unwrap_or(stderr);
    let (head, last) = match body.rfind('\n') {
        Some(i) => (&stderr[..i + 1], &body[i + 1..]),
        None => return (stderr, None),
    };
    let Some(place) = last.strip_prefix("  --> ") else {
        return (stderr, None);
    };
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next().unwrap_or("");
    let line = parts.next().unwrap_or("");
    let file = parts.next().unwrap_or("");
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if file.is_empty() || !numeric(line) || !numeric(col) {
        return (stderr, None);
    }
    (head, Some(place))
}

/// stackproof's exit code for Helm's exit code.
#[allow(dead_code)]
pub fn expected_exit(helm_rc: i32) -> i32 {
    if helm_rc == 0 {
        0
    } else {
        2
    }
}
