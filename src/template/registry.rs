//! The function table templates call into, and the host services functions may use.
//!
//! A function is declared once, as one table line: its name, its Go parameter types and
//! its implementation. The parameter types matter because Go's `text/template` checks
//! and converts arguments by reflection *before* the call, and its error texts depend on
//! the declared type (`wrong type for value; expected string; got int`), and because an
//! untyped constant such as `1` becomes an `int`, `int64` or `float64` according to the
//! parameter it lands in. The engine does that conversion; implementations receive
//! arguments already converted, one [`Value`] per declared parameter (variadic ones
//! appended at the end).
//!
//! Functions that need more than their arguments (Helm's `include` and `tpl`, random
//! and clock functions, Helmfile's file and environment functions) are declared with
//! [`FuncImpl::Ctx`] and receive a [`CallCtx`].

use std::collections::BTreeMap;

use crate::source::FastMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;

use super::value::Value;
use crate::source::Vfs;

/// A Go parameter type, as far as argument checking and conversion need to know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `interface{}`: anything, nil included.
    Any,
    String,
    Bool,
    /// Go `int`.
    Int,
    Int64,
    Uint32,
    Float64,
    /// `[]interface{}`
    List,
    /// `[]string`
    Strings,
    /// `map[string]interface{}` (named map types with that underlying type convert).
    Map,
    /// `time.Time`: a host value whose Go type is `time.Time` (Sprig's dates).
    Time,
    /// `*semver.Version`: what Sprig's `semver` returns (a pointer: nil is allowed).
    Semver,
    /// `time.Duration`: an integer constant converts to it; any other value must be
    /// a host value of that Go type. A method receives a constant as an `int64`.
    Duration,
}

impl Ty {
    pub fn go_name(self) -> &'static str {
        match self {
            Ty::Any => "interface {}",
            Ty::String => "string",
            Ty::Bool => "bool",
            Ty::Int => "int",
            Ty::Int64 => "int64",
            Ty::Uint32 => "uint32",
            Ty::Float64 => "float64",
            Ty::List => "[]interface {}",
            Ty::Strings => "[]string",
            Ty::Map => "map[string]interface {}",
            Ty::Time => "time.Time",
            Ty::Semver => "*semver.Version",
            Ty::Duration => "time.Duration",
        }
    }
}

/// A function's Go signature: fixed parameters, then an optional variadic tail.
#[derive(Clone, Copy, Debug)]
pub struct Sig {
    pub params: &'static [Ty],
    pub variadic: Option<Ty>,
}

/// The error a function returns. The engine wraps it in Go's
/// `error calling NAME: MESSAGE` unless it is a [`FuncError::Fail`].
#[derive(Clone, Debug)]
pub enum FuncError {
    /// An ordinary Go `error` value returned by the function.
    Call(String),
    /// A deliberate failure (`fail`, `required`) that Helm reports as
    /// `execution error at (file:line:col): MESSAGE`.
    Fail(String),
    /// An error raised while executing another template on the function's behalf
    /// (`include`, `tpl`); it keeps the inner error so reporters can show both places.
    Nested {
        message: String,
        inner: Box<super::Error>,
    },
}

impl FuncError {
    pub fn call(msg: impl Into<String>) -> FuncError {
        FuncError::Call(msg.into())
    }

    pub fn message(&self) -> &str {
        match self {
            FuncError::Call(m) | FuncError::Fail(m) => m,
            FuncError::Nested { message, .. } => message,
        }
    }
}

impl std::fmt::Display for FuncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

pub type FuncResult = Result<Value, FuncError>;

/// A function that only needs its arguments.
pub type PlainFn = fn(&[Value]) -> FuncResult;

/// A function that needs the template engine or the host.
pub type CtxFn = fn(&mut CallCtx<'_>, &[Value]) -> FuncResult;

#[derive(Clone, Copy)]
pub enum FuncImpl {
    Plain(PlainFn),
    Ctx(CtxFn),
}

/// One table line: name, Go signature, implementation.
#[derive(Clone, Copy)]
pub struct FuncDef {
    pub name: &'static str,
    pub sig: Sig,
    pub imp: FuncImpl,
    /// True for functions whose result depends on randomness or the clock, so reports
    /// can flag templates that use them.
    pub nondeterministic: bool,
}

impl FuncDef {
    /// A plain function with fixed parameters.
    pub const fn plain(name: &'static str, params: &'static [Ty], f: PlainFn) -> FuncDef {
        FuncDef {
            name,
            sig: Sig {
                params,
                variadic: None,
            },
            imp: FuncImpl::Plain(f),
            nondeterministic: false,
        }
    }

    /// A plain function whose last parameter is `...T`.
    pub const fn variadic(
        name: &'static str,
        params: &'static [Ty],
        rest: Ty,
        f: PlainFn,
    ) -> FuncDef {
        FuncDef {
            name,
            sig: Sig {
                params,
                variadic: Some(rest),
            },
            imp: FuncImpl::Plain(f),
            nondeterministic: false,
        }
    }

    /// A function that receives a [`CallCtx`].
    pub const fn ctx(
        name: &'static str,
        params: &'static [Ty],
        rest: Option<Ty>,
        f: CtxFn,
    ) -> FuncDef {
        FuncDef {
            name,
            sig: Sig {
                params,
                variadic: rest,
            },
            imp: FuncImpl::Ctx(f),
            nondeterministic: false,
        }
    }

    /// Marks the function as random or clock-dependent.
    pub const fn nondeterministic(mut self) -> FuncDef {
        self.nondeterministic = true;
        self
    }
}

impl std::fmt::Debug for FuncDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "func {}{:?}", self.name, self.sig)
    }
}

/// A set of functions visible to templates. Later registrations replace earlier ones
/// with the same name (Helm replaces some of Sprig's; Helmfile's `get` shadows Sprig's).
#[derive(Clone, Default, Debug)]
pub struct Registry {
    funcs: FastMap<&'static str, FuncDef>,
    /// Methods of named map types (Helm's `chartutil.Values`), by type name. Go
    /// looks a method up before a map key, so these shadow keys of the same name.
    /// A method's implementation gets the receiver as its first argument; its
    /// signature lists only the arguments the template passes.
    methods: Vec<(&'static str, FuncDef)>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// An empty registry with room for `n` functions: a full table (Sprig's and
    /// Helm's, several hundred) is built at the start of every run, and growing
    /// it from empty rehashed it at each doubling, into fresh memory each time.
    pub fn with_capacity(n: usize) -> Registry {
        Registry {
            funcs: FastMap::with_capacity_and_hasher(n, Default::default()),
            methods: Vec::new(),
        }
    }

    pub fn register(&mut self, defs: &[FuncDef]) -> &mut Self {
        for d in defs {
            self.funcs.insert(d.name, *d);
        }
        self
    }

    /// How many functions it holds.
    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    pub fn remove(&mut self, name: &str) -> &mut Self {
        self.funcs.remove(name);
        self
    }

    pub fn get(&self, name: &str) -> Option<&FuncDef> {
        self.funcs.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    /// Registers methods of the named map type `receiver` (as `MapType::Named`
    /// spells it), replacing any of the same name.
    pub fn register_methods(&mut self, receiver: &'static str, defs: &[FuncDef]) -> &mut Self {
        for d in defs {
            self.methods
                .retain(|(r, m)| !(*r == receiver && m.name == d.name));
            self.methods.push((receiver, *d));
        }
        self
    }

    /// The method `name` of the named map type `receiver`. A handful at most, so a
    /// scan; the first byte rules out nearly every field access (keys are
    /// lower-case, Go methods upper-case).
    pub fn method(&self, receiver: &str, name: &str) -> Option<&FuncDef> {
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        self.methods
            .iter()
            .find(|(r, m)| *r == receiver && m.name == name)
            .map(|(_, m)| m)
    }

    /// Names in byte order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.funcs.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// What a context function can ask of the engine that is running it.
///
/// The methods are Go-level primitives; host programs add their own wording on top
/// (Helm's `tpl` wraps failures in `cannot parse template ...` or `error during tpl
/// function execution for ...`, see `funcs::control`).
pub trait Engine {
    /// Executes the named template of the set being executed with `data` as dot and
    /// `$`, into a fresh buffer, and returns its output (Go's `ExecuteTemplate`, as
    /// Helm's `include` uses it). No variables are inherited. On failure the error is
    /// [`FuncError::Nested`] carrying the template error (its message is Go's text,
    /// e.g. `template: no template "x" associated with template "gotpl"`).
    fn include(&mut self, name: &str, data: &Value) -> Result<String, FuncError>;

    /// Parses `text` into a clone of the set being executed, as the template named
    /// like the set itself (so it sees every define, and its own defines are visible
    /// to `include` within it), runs it with `data`, and returns its output. On
    /// failure the error is [`FuncError::Nested`]; the inner error's `kind` tells a
    /// parse error ([`ErrorKind::Parse`](super::ErrorKind::Parse)) from an execution
    /// error.
    fn tpl(&mut self, text: &Arc<str>, data: &Value) -> Result<String, FuncError>;

    /// The name of the template being executed.
    fn current_template(&self) -> String;

    /// Counters that live as long as the outermost execution (shared with `include`
    /// and `tpl` executions inside it), for host recursion limits such as Helm's
    /// per-name `include` depth. `None` from engines that keep none (test stubs).
    fn counters(&mut self) -> Option<&mut FastMap<String, usize>> {
        None
    }
}

/// An [`Engine`] with no templates, for calling context functions outside a render
/// (unit tests, host code): `include` and `tpl` fail, counters work.
#[derive(Default, Debug)]
pub struct NullEngine {
    counters: FastMap<String, usize>,
}

impl Engine for NullEngine {
    fn include(&mut self, name: &str, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call(format!(
            "no template {name:?}: not rendering"
        )))
    }

    fn tpl(&mut self, _: &Arc<str>, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call("tpl: not rendering"))
    }

    fn current_template(&self) -> String {
        String::new()
    }

    fn counters(&mut self) -> Option<&mut FastMap<String, usize>> {
        Some(&mut self.counters)
    }
}

/// Where a render's random functions (`randAlphaNum`, `genCA`, `uuidv4`, ...) draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seed {
    /// A reproducible stream: the same value renders the same bytes. Checks, diffs and
    /// tests use it, and `--seed` asks for it.
    Fixed(u64),
    /// A cryptographic stream keyed by 32 secret bytes, as unpredictable as the
    /// operating system's randomness that `helm template` uses: generated passwords
    /// and keys must not repeat between users or runs.
    Secret([u8; 32]),
}

impl Default for Seed {
    fn default() -> Self {
        Seed::Fixed(0)
    }
}

impl Seed {
    /// A secret seed from the operating system's random source.
    pub fn from_os() -> Result<Seed, String> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| format!("no random source: {e}"))?;
        Ok(Seed::Secret(key))
    }

    /// The seed of one named part of a render (a release's chart, one state file),
    /// unrelated to the seeds of other parts, yet the same every time that part is
    /// rendered from this seed: parts render in any order or in parallel, a part
    /// rendered twice (Helmfile's passes) agrees with itself, and a fixed seed stays
    /// reproducible. A secret seed gives secret parts.
    pub fn derive(&self, parts: &[&[u8]]) -> Seed {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        match self {
            Seed::Fixed(n) => {
                h.update(b"fixed");
                h.update(n.to_le_bytes());
            }
            Seed::Secret(key) => {
                h.update(b"secret");
                h.update(key);
            }
        }
        for p in parts {
            // Length-prefixed, so that parts never run into each other.
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        let d: [u8; 32] = h.finalize().into();
        match self {
            Seed::Fixed(_) => {
                let mut n = [0u8; 8];
                n.copy_from_slice(&d[..8]);
                Seed::Fixed(u64::from_le_bytes(n))
            }
            Seed::Secret(_) => Seed::Secret(d),
        }
    }
}

/// The instant a render's `now` returns (and generated certificates start at).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Unix seconds (UTC).
    pub unix: i64,
    pub nanos: u32,
}

impl Clock {
    /// 2024-01-01T00:00:00Z: the default of reproducible renders.
    pub const FIXED: Clock = Clock {
        unix: 1_704_067_200,
        nanos: 0,
    };

    /// The whole second `unix` (Unix seconds, UTC).
    pub const fn at(unix: i64) -> Clock {
        Clock { unix, nanos: 0 }
    }

    /// The system clock now.
    pub fn system() -> Clock {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Clock {
                unix: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                nanos: d.subsec_nanos(),
            },
            // A clock before 1970: count back from the epoch.
            Err(e) => {
                let d = e.duration();
                let (secs, nanos) = (d.as_secs() as i64, d.subsec_nanos());
                if nanos == 0 {
                    Clock {
                        unix: -secs,
                        nanos: 0,
                    }
                } else {
                    Clock {
                        unix: -secs - 1,
                        nanos: 1_000_000_000 - nanos,
                    }
                }
            }
        }
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::FIXED
    }
}

/// A host's random stream: SplitMix64 for fixed seeds (cheap, and the stream every
/// reproducible render and snapshot was made with), ChaCha20 for secret ones.
#[derive(Debug)]
enum Stream {
    SplitMix(u64),
    ChaCha(Box<rand_chacha::ChaCha20Rng>),
}

impl Stream {
    fn new(seed: Seed) -> Stream {
        use rand_core::SeedableRng;
        match seed {
            Seed::Fixed(s) => Stream::SplitMix(s ^ 0x9E37_79B9_7F4A_7C15),
            Seed::Secret(key) => Stream::ChaCha(Box::new(rand_chacha::ChaCha20Rng::from_seed(key))),
        }
    }

    fn next_u64(&mut self) -> u64 {
        match self {
            Stream::SplitMix(s) => {
                *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = *s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            }
            Stream::ChaCha(rng) => {
                use rand_core::Rng;
                rng.next_u64()
            }
        }
    }
}

/// A host's stream, or, until a template first draws on it, what the stream's
/// seed is derived from. A Helmfile run makes a host for every state and values
/// template it renders, each seeded by a hash of the template's whole text, and
/// hashing was a millisecond of the run's first, single-threaded stage (NVCF:
/// 234 texts, 1 MB); few of those templates draw anything.
#[derive(Debug)]
enum Rng {
    Ready(Stream),
    Deferred(Seed, Vec<Box<[u8]>>),
}

impl Rng {
    fn stream(&mut self) -> &mut Stream {
        if let Rng::Deferred(base, parts) = self {
            let parts: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
            *self = Rng::Ready(Stream::new(base.derive(&parts)));
        }
        match self {
            Rng::Ready(stream) => stream,
            // Made ready just above.
            Rng::Deferred(..) => unreachable!("a deferred stream is derived on first use"),
        }
    }
}

/// What a context function receives.
pub struct CallCtx<'a> {
    pub engine: &'a mut dyn Engine,
    pub host: &'a Host,
}

/// Services outside the template language, chosen by the caller: the random stream
/// and clock (fixed for reproducible renders, secret and real for `template`), the
/// environment variables of the cell being rendered instead of the process's, and a
/// read-only file view confined to a base directory.
#[derive(Debug)]
pub struct Host {
    rng: Mutex<Rng>,
    /// The instant `now` returns, as Unix seconds and nanoseconds (UTC).
    pub now_unix: i64,
    pub now_nanos: u32,
    /// Environment variables visible to `env`, `expandenv`, `requiredEnv`.
    pub env: Arc<BTreeMap<String, String>>,
    /// Files for `readFile`, `.Files` and friends.
    pub vfs: Vfs,
    /// Directory that relative paths resolve against (Helmfile: the state file's or
    /// values file's directory).
    pub base_dir: PathBuf,
    /// `base_dir` as the host program spells it in messages (Helmfile: `.`, or the
    /// values file's directory relative to the state file's); empty: messages show
    /// absolute paths.
    pub base_path: String,
    /// The directory the host program runs in (Helmfile: where it was started, or
    /// the sub-helmfile's directory it changed into), which vals' `ref+file://`
    /// paths are relative to.
    pub cwd: PathBuf,
    /// Paths outside this directory are refused (`None`: no confinement).
    pub confine_to: Option<PathBuf>,
    /// The memory vals keeps for a whole Helmfile run (`funcs::vals::Cache`), shared
    /// by every template of the run; held opaquely, as its type belongs to `funcs`.
    pub vals_cache: Arc<dyn std::any::Any + Send + Sync>,
    /// Whether Helmfile's `exec` may run programs.
    pub allow_exec: bool,
    /// Whether `getHostByName` may use the network (never, by default).
    pub allow_dns: bool,
}

impl Default for Host {
    fn default() -> Self {
        Host::new(0)
    }
}

impl Host {
    /// A host with the given random seed, the clock fixed at 2024-01-01T00:00:00Z, no
    /// environment variables and the real file system rooted at the working directory.
    pub fn new(seed: u64) -> Host {
        Host::with(Seed::Fixed(seed), Clock::FIXED)
    }

    /// A host drawing from `seed` whose `now` is `clock`.
    pub fn with(seed: Seed, clock: Clock) -> Host {
        Host::with_rng(Rng::Ready(Stream::new(seed)), clock)
    }

    /// [`Host::with`] the seed `base.derive(parts)`, derived only when a template
    /// first draws on the stream.
    pub fn with_derived(base: Seed, parts: &[&[u8]], clock: Clock) -> Host {
        let parts = parts.iter().map(|p| Box::from(*p)).collect();
        Host::with_rng(Rng::Deferred(base, parts), clock)
    }

    fn with_rng(rng: Rng, clock: Clock) -> Host {
        Host {
            rng: Mutex::new(rng),
            now_unix: clock.unix,
            now_nanos: clock.nanos,
            env: Arc::new(BTreeMap::new()),
            vfs: Vfs::real(),
            base_dir: PathBuf::from("."),
            base_path: String::new(),
            cwd: PathBuf::from("."),
            confine_to: None,
            vals_cache: Arc::new(()),
            allow_exec: false,
            allow_dns: false,
        }
    }

    /// The next 64 random bits of the stream.
    pub fn next_u64(&self) -> u64 {
        self.rng.lock().stream().next_u64()
    }

    /// Fills `buf` from the stream.
    pub fn fill_bytes(&self, buf: &mut [u8]) {
        let mut guard = self.rng.lock();
        let rng = guard.stream();
        for chunk in buf.chunks_mut(8) {
            let r = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    /// A seed for a nested render (a Helmfile values template, a release's chart) that
    /// is as reproducible, or as secret, as this host's own stream.
    pub fn child_seed(&self) -> Seed {
        let mut guard = self.rng.lock();
        let rng = guard.stream();
        match rng {
            Stream::SplitMix(_) => Seed::Fixed(rng.next_u64()),
            Stream::ChaCha(_) => {
                let mut s = [0u8; 32];
                for chunk in s.chunks_mut(8) {
                    chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
                }
                Seed::Secret(s)
            }
        }
    }

    /// The instant `now` returns.
    pub fn clock(&self) -> Clock {
        Clock {
            unix: self.now_unix,
            nanos: self.now_nanos,
        }
    }

    /// A fresh seed derived from the stream, for libraries that want their own RNG.
    pub fn derive_seed(&self) -> [u8; 32] {
        let mut s = [0u8; 32];
        self.fill_bytes(&mut s);
        s
    }

    pub fn env_var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(_: &[Value]) -> FuncResult {
        Ok(Value::int(1))
    }

    #[test]
    fn later_registration_wins() {
        static A: &[FuncDef] = &[FuncDef::plain("get", &[Ty::Map, Ty::String], one)];
        static B: &[FuncDef] = &[FuncDef::variadic("get", &[Ty::String], Ty::Any, one)];
        let mut r = Registry::new();
        r.register(A).register(B);
        assert_eq!(r.get("get").map(|d| d.sig.params.len()), Some(1));
        assert_eq!(r.names(), vec!["get"]);
    }

    #[test]
    fn seeded_streams_repeat() {
        let a = Host::new(7);
        let b = Host::new(7);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], Host::new(8).next_u64());
    }

    #[test]
    fn a_derived_seed_draws_what_the_seed_itself_draws() {
        let clock = Clock { unix: 0, nanos: 0 };
        for base in [Seed::Fixed(7), Seed::Secret([3; 32])] {
            let parts: [&[u8]; 3] = [b"state", b".", b"releases: []\n"];
            let eager = Host::with(base.derive(&parts), clock);
            let lazy = Host::with_derived(base, &parts, clock);
            assert_eq!(lazy.next_u64(), eager.next_u64());
            assert_eq!(lazy.child_seed(), eager.child_seed());
            assert_eq!(lazy.derive_seed(), eager.derive_seed());
            // Other parts, another stream.
            let other = Host::with_derived(base, &[b"state", b".", b"other"], clock);
            assert_ne!(
                other.next_u64(),
                Host::with(base.derive(&parts), clock).next_u64()
            );
        }
    }
}
