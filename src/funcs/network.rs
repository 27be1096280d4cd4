//! Sprig's network family: `getHostByName`.
//!
//! Renders never touch the network by default. Helm 3.15 replaces Sprig's function
//! with one returning `""` unless `--enable-dns` is given, and stackproof keeps that
//! answer whenever [`Host::allow_dns`](crate::template::Host) is false (the default,
//! for Helmfile too, whose real `getHostByName` would query DNS). With DNS allowed,
//! the system resolver answers and one address is chosen with the seeded stream, as
//! Sprig picks one at random; no address is Go's `rand.Intn(0)` panic.

use std::net::ToSocketAddrs;

use crate::template::{CallCtx, FuncDef, FuncError, FuncResult, Ty, Value};

pub static FUNCS: &[FuncDef] =
    &[FuncDef::ctx("getHostByName", &[Ty::String], None, get_host_by_name).nondeterministic()];

fn get_host_by_name(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    if !ctx.host.allow_dns {
        return Ok(Value::from(""));
    }
    let name = args.first().and_then(Value::as_str).unwrap_or("");
    let addrs: Vec<String> = (name, 0u16)
        .to_socket_addrs()
        .map(|it| it.map(|a| a.ip().to_string()).collect())
        .unwrap_or_default();
    if addrs.is_empty() {
        return Err(FuncError::call("invalid argument to Intn"));
    }
    let i = super::random::below(ctx.host, addrs.len() as u64) as usize;
    Ok(Value::from(addrs[i].as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Host;

    #[test]
    fn without_dns_the_answer_is_empty_like_helm() {
        // helm v3.15.3: `getHostByName "localhost"` renders "".
        let h = Host::new(0);
        let v = crate::funcs::testing::call(&h, get_host_by_name, &[Value::from("localhost")]).ok();
        assert_eq!(v.as_ref().and_then(Value::as_str), Some(""));
    }
}
