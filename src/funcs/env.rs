//! Sprig's OS family: `env` and `expandenv`.
//!
//! Helmfile keeps them and Helm deletes them; either way they read the environment of
//! the cell being rendered ([`Host::env`](crate::template::Host)), never the process
//! environment, so a render depends only on its declared inputs.

use crate::template::{CallCtx, FuncDef, FuncResult, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::ctx("env", &[Ty::String], None, env),
    FuncDef::ctx("expandenv", &[Ty::String], None, expandenv),
];

fn env(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = args.first().and_then(Value::as_str).unwrap_or("");
    Ok(Value::from(ctx.host.env_var(name).unwrap_or("")))
}

fn expandenv(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let s = args.first().and_then(Value::as_str).unwrap_or("");
    Ok(Value::from(expand(s, |name| {
        ctx.host.env_var(name).unwrap_or("").to_string()
    })))
}

fn is_special(c: u8) -> bool {
    matches!(
        c,
        b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-' | b'0'..=b'9'
    )
}

fn is_name_char(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric()
}

/// Go `os.getShellName`: the variable name after a `$`, and how many bytes it takes
/// (a zero-length name with a non-zero width is bad syntax that Go swallows).
fn shell_name(s: &str) -> (&str, usize) {
    let b = s.as_bytes();
    if b[0] == b'{' {
        if b.len() > 2 && is_special(b[1]) && b[2] == b'}' {
            return (&s[1..2], 3);
        }
        for i in 1..b.len() {
            if b[i] == b'}' {
                if i == 1 {
                    return ("", 2);
                }
                return (&s[1..i], i + 1);
            }
        }
        return ("", 1);
    }
    if is_special(b[0]) {
        return (&s[..1], 1);
    }
    let n = b.iter().take_while(|c| is_name_char(**c)).count();
    (&s[..n], n)
}

/// Go `os.Expand`: `$NAME` and `${NAME}` replaced by `lookup(NAME)`.
pub fn expand(s: &str, mut lookup: impl FnMut(&str) -> String) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len() * 2);
    let mut i = 0;
    let mut j = 0;
    while j < b.len() {
        if b[j] == b'$' && j + 1 < b.len() {
            out.push_str(&s[i..j]);
            let (name, w) = shell_name(&s[j + 1..]);
            if name.is_empty() && w > 0 {
                // Bad syntax: Go drops the characters.
            } else if name.is_empty() {
                out.push('$');
            } else {
                out.push_str(&lookup(name));
            }
            j += w;
            i = j + 1;
        }
        j += 1;
    }
    if i <= b.len() {
        out.push_str(&s[i.min(b.len())..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Host;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn host() -> Host {
        let mut h = Host::new(0);
        let mut env = BTreeMap::new();
        env.insert("X".to_string(), "envval".to_string());
        env.insert("A_B".to_string(), "ab".to_string());
        h.env = Arc::new(env);
        h
    }

    fn run(f: crate::template::registry::CtxFn, arg: &str) -> String {
        let h = host();
        match crate::funcs::testing::call(&h, f, &[Value::from(arg)]) {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn env_reads_the_host_environment_only() {
        assert_eq!(run(env, "X"), "envval");
        assert_eq!(run(env, "PATH"), "");
    }

    #[test]
    fn expandenv_follows_os_expand() {
        // `expandenv "$X-x"` is `envval-x` in helmfile 0.166.
        assert_eq!(run(expandenv, "$X-x"), "envval-x");
        assert_eq!(run(expandenv, "${X}y ${A_B} $A_B"), "envvaly ab ab");
        assert_eq!(run(expandenv, "$ trailing $"), "$ trailing $");
        assert_eq!(run(expandenv, "a${}b"), "ab");
        assert_eq!(run(expandenv, "a${Xb"), "aXb");
        assert_eq!(run(expandenv, "$1 ${#} $$"), "  ");
        assert_eq!(run(expandenv, "no vars"), "no vars");
        assert_eq!(run(expandenv, "é$X"), "éenvval");
        // The same pieces in one string, as helmfile 0.166 expanded it (X=envval, A_B=ab).
        assert_eq!(
            run(
                expandenv,
                "$X-x|${X}y|${A_B}|$A_B|$ trailing $|a${}b|a${Xb|$1 ${#} $$|é$X"
            ),
            "envval-x|envvaly|ab|ab|$ trailing $|ab|a |éenvval"
        );
    }
}
