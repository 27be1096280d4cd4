//! The values templates compute with, modelled on what Go's `interface{}` holds in Helm
//! and Helmfile.
//!
//! Go keeps the dynamic *type* of every value and that type is observable: `typeOf`
//! prints it, `printf "%d"` refuses a `float64`, `eq` refuses to compare an `int` with a
//! `float64`, and `toJson` of a nil slice is `null` while an empty one is `[]`. So the
//! model keeps exactly the distinctions Go code can see: integer widths, `[]string` vs
//! `[]interface {}`, the named map types (`chartutil.Values`), bytes, and host objects
//! (structs with fields and methods such as `.Files` or `.Capabilities`).
//!
//! Maps are shared and mutable, as in Go: `set $m "k" 1` is visible through every other
//! reference to `$m`, which charts rely on (`$_ := set .Values "x" ...`). Lists are
//! immutable and shared; every list function in Sprig returns a new slice.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use parking_lot::RwLock;

/// A Go value as a template sees it.
#[derive(Clone, Default)]
pub enum Value {
    /// Untyped nil: a nil `interface{}`, a missing map entry, YAML `null`.
    #[default]
    Nil,
    Bool(bool),
    /// A signed integer of Go type `ty` (`int` for template literals and `len`,
    /// `int64` for Helm `--set` values and Sprig arithmetic).
    Int(i64, IntType),
    /// An unsigned integer (`uint8` from `index` on a string, `uint64` from Helmfile
    /// YAML numbers above `i64::MAX`).
    Uint(u64, UintType),
    /// A `float64` (every number in Helm values files).
    Float(f64),
    String(Arc<str>),
    /// A `[]byte` (`.Files.GetBytes`); prints as a list of numbers.
    Bytes(Arc<[u8]>),
    List(List),
    Map(Map),
    /// A host struct or named type with fields and methods (`.Capabilities`,
    /// `.Files`, `.Chart`).
    Object(Arc<dyn Object>),
}

/// Go's signed integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntType {
    Int,
    Int8,
    Int16,
    Int32,
    Int64,
}

impl IntType {
    pub fn go_name(self) -> &'static str {
        match self {
            IntType::Int => "int",
            IntType::Int8 => "int8",
            IntType::Int16 => "int16",
            IntType::Int32 => "int32",
            IntType::Int64 => "int64",
        }
    }
}

/// Go's unsigned integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UintType {
    Uint,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
}

impl UintType {
    pub fn go_name(self) -> &'static str {
        match self {
            UintType::Uint => "uint",
            UintType::Uint8 => "uint8",
            UintType::Uint16 => "uint16",
            UintType::Uint32 => "uint32",
            UintType::Uint64 => "uint64",
        }
    }
}

/// Go's basic "kinds" as `reflect` and `text/template` group them for comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    String,
    Slice,
    Map,
    Struct,
    Ptr,
}

/// The element type of a Go slice, which `typeOf`/`%T` show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListType {
    /// `[]interface {}`
    Interface,
    /// `[]string`
    String,
    /// Any other slice type, by its Go name (`[]int` from Sprig `until`,
    /// `[][]interface {}` from `chunk`); elements keep their own types.
    Named(&'static str),
}

impl ListType {
    pub fn go_name(self) -> &'static str {
        match self {
            ListType::Interface => "[]interface {}",
            ListType::String => "[]string",
            ListType::Named(n) => n,
        }
    }
}

/// An immutable, cheaply cloned Go slice. `nil` distinguishes a nil slice (which
/// `toJson` prints as `null`) from an empty one.
#[derive(Clone)]
pub struct List {
    items: Arc<Vec<Value>>,
    ty: ListType,
    nil: bool,
}

impl List {
    pub fn new(items: Vec<Value>) -> List {
        List {
            items: Arc::new(items),
            ty: ListType::Interface,
            nil: false,
        }
    }

    pub fn of_strings(items: Vec<Value>) -> List {
        List {
            items: Arc::new(items),
            ty: ListType::String,
            nil: false,
        }
    }

    /// A nil slice of the given type.
    pub fn nil(ty: ListType) -> List {
        List {
            items: Arc::new(Vec::new()),
            ty,
            nil: true,
        }
    }

    pub fn with_type(mut self, ty: ListType) -> List {
        self.ty = ty;
        self
    }

    pub fn ty(&self) -> ListType {
        self.ty
    }

    pub fn is_nil(&self) -> bool {
        self.nil
    }

    pub fn items(&self) -> &[Value] {
        &self.items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Value> {
        self.items.iter()
    }

    pub fn to_vec(&self) -> Vec<Value> {
        self.items.as_ref().clone()
    }
}

impl FromIterator<Value> for List {
    fn from_iter<T: IntoIterator<Item = Value>>(iter: T) -> Self {
        List::new(iter.into_iter().collect())
    }
}

/// Go's named map types that templates can tell apart with `typeOf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapType {
    /// `map[string]interface {}`
    Interface,
    /// `map[string]string` (Sprig `split`)
    String,
    /// A named map type such as `chartutil.Values`; the name is what `typeOf` prints.
    Named(&'static str),
}

impl MapType {
    pub fn go_name(self) -> &'static str {
        match self {
            MapType::Interface => "map[string]interface {}",
            MapType::String => "map[string]string",
            MapType::Named(n) => n,
        }
    }
}

/// A shared, mutable `map[string]T`. Clones share storage (Go map semantics); use
/// [`Map::deep_copy`] for an independent copy. Iteration is in byte order of keys,
/// which is the order Go's template `range`, `fmt` and `encoding/json` all use.
#[derive(Clone)]
pub struct Map {
    inner: Arc<RwLock<BTreeMap<String, Value>>>,
    ty: MapType,
    /// A typed nil map (Helm 4's `.Chart.Annotations` of a chart without any): it
    /// reads as empty, prints `map[]`, and encodes as JSON `null`.
    nil: bool,
}

impl Map {
    pub fn new() -> Map {
        Map::with_type(MapType::Interface)
    }

    pub fn with_type(ty: MapType) -> Map {
        Map {
            inner: Arc::new(RwLock::new(BTreeMap::new())),
            ty,
            nil: false,
        }
    }

    /// A nil map of the given type.
    pub fn nil(ty: MapType) -> Map {
        Map {
            nil: true,
            ..Map::with_type(ty)
        }
    }

    pub fn from_btree(map: BTreeMap<String, Value>) -> Map {
        Map {
            inner: Arc::new(RwLock::new(map)),
            ty: MapType::Interface,
            nil: false,
        }
    }

    pub fn ty(&self) -> MapType {
        self.ty
    }

    /// Whether this is a typed nil map (see [`Map::nil`]).
    pub fn is_nil(&self) -> bool {
        self.nil
    }

    /// The same storage seen as another named map type (Go type conversion).
    pub fn retyped(&self, ty: MapType) -> Map {
        Map {
            inner: self.inner.clone(),
            ty,
            nil: self.nil,
        }
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.inner.read().get(key).cloned()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.inner.read().contains_key(key)
    }

    pub fn insert(&self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.inner.write().insert(key.into(), value)
    }

    pub fn remove(&self, key: &str) -> Option<Value> {
        self.inner.write().remove(key)
    }

    pub fn len(&self) -> usize {
        self.inner.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.read().is_empty()
    }

    /// Keys in byte order.
    pub fn keys(&self) -> Vec<String> {
        self.inner.read().keys().cloned().collect()
    }

    /// A snapshot of the entries in byte order of keys.
    pub fn entries(&self) -> Vec<(String, Value)> {
        self.inner
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Runs `f` with read access to the underlying map, without copying it.
    pub fn with_read<R>(&self, f: impl FnOnce(&BTreeMap<String, Value>) -> R) -> R {
        f(&self.inner.read())
    }

    /// Runs `f` with write access to the underlying map.
    pub fn with_write<R>(&self, f: impl FnOnce(&mut BTreeMap<String, Value>) -> R) -> R {
        f(&mut self.inner.write())
    }

    /// True when both handles share storage (Go: the same map).
    pub fn same(&self, other: &Map) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// An independent copy, recursively copying nested maps (Sprig `deepCopy`).
    pub fn deep_copy(&self) -> Map {
        // The tree's own clone copies its nodes as they are; collecting the
        // entries instead would buffer, sort and deduplicate keys already sorted.
        let mut copied = self.inner.read().clone();
        for v in copied.values_mut() {
            if matches!(v, Value::Map(_) | Value::List(_)) {
                *v = v.deep_copy();
            }
        }
        Map {
            inner: Arc::new(RwLock::new(copied)),
            ty: self.ty,
            nil: self.nil,
        }
    }

    /// A new map sharing no storage, with the top level copied (nested maps shared).
    pub fn shallow_copy(&self) -> Map {
        Map {
            inner: Arc::new(RwLock::new(self.inner.read().clone())),
            ty: self.ty,
            nil: self.nil,
        }
    }
}

impl Default for Map {
    fn default() -> Self {
        Map::new()
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        Map::from_btree(iter.into_iter().collect())
    }
}

/// A Go struct, pointer to struct, or named type with methods, provided by the host
/// program (Helm's `.Capabilities`, `.Chart`, `.Files`; Helmfile's `.Environment`).
///
/// Field access `.X` first looks for a method `X` (Go gives methods precedence), then a
/// field. Methods may take arguments (`.Files.Get "x"`).
pub trait Object: Send + Sync {
    /// The Go type as `%T` and `typeOf` print it, e.g. `*chart.Metadata`.
    fn type_name(&self) -> String;

    /// The reflect kind, for `kindOf` and comparisons.
    fn kind(&self) -> Kind {
        Kind::Ptr
    }

    /// An exported field's value, or `None` if the type has no such field (the
    /// default: most host types expose methods only).
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    /// Whether the type has a method of this name.
    fn has_method(&self, _name: &str) -> bool {
        false
    }

    /// The parameter types of a method, when declared: the engine then checks the
    /// call as Go does (count, then each argument's type) before calling it.
    /// `None` leaves every check to [`Object::call_method`].
    fn method_params(&self, _name: &str) -> Option<&'static [super::registry::Ty]> {
        None
    }

    /// Calls a method. Errors are the method's own error text (the engine adds
    /// `error calling X:`).
    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        Err(format!("can't call method/function {name:?}"))
    }

    /// How Go's `fmt` prints the value with `%v` (`plus` for `%+v`).
    fn fmt_v(&self, plus: bool) -> String;

    /// For a struct (`Kind::Struct`): its fields as one text, so that Go's `==`
    /// between two values of the same type is equality of these texts; `None` when
    /// Go cannot compare the type (it has slice or map fields), which `eq` reports.
    fn comparable_key(&self) -> Option<String> {
        None
    }

    /// What a `String` method declared on the pointer type returns, for a struct
    /// that has one. Only an addressable value (a field reached through a pointer)
    /// is printed by it in a template action; `fmt` and Sprig see the plain struct.
    fn addr_string(&self) -> Option<String> {
        None
    }

    /// The value `encoding/json` would see: the struct's exported fields under their
    /// JSON names, as a map (or any other value for types with custom marshalling).
    fn to_json_value(&self) -> Value;

    /// For a struct: its JSON names in declaration order, the order `encoding/json`
    /// writes them in (keys not listed go last). `None`: a map, written sorted.
    fn json_order(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// For a struct whose fields carry no `json` or `yaml` tags (so its JSON names
    /// are its Go field names): gopkg.in/yaml.v2 `Marshal` writes the fields of
    /// [`Object::to_json_value`] in [`Object::json_order`] under their lowercased
    /// names. `false` (the default): yaml.v2 sees the JSON view as a map.
    fn yaml_v2_untagged_struct(&self) -> bool {
        false
    }

    /// The receiver of `len`, `range` and `index` when the object is map- or
    /// slice-like (Go `files` is `map[string][]byte`); `None` for plain structs.
    fn as_collection(&self) -> Option<Value> {
        None
    }

    /// For a pointer to a non-struct value (a `*bool` field of a host struct): what
    /// it points to. Go's `{{ x }}` prints the pointee, while `fmt` sees the pointer.
    fn pointee(&self) -> Option<Value> {
        None
    }

    /// A nil pointer: false in `if`, `and`, `not` (Go's truth of a pointer is
    /// whether it is non-nil).
    fn is_nil_pointer(&self) -> bool {
        false
    }

    /// Support for `Any` downcasts by host code.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A pointer to a non-struct value (`*bool`, `*int`, `*string`), the optional fields
/// of Go structs. A nil pointer prints `<nil>`; a set one prints its address under
/// `fmt` (Go prints a `0x...` address, which no two runs share) and its pointee in a
/// template action.
#[derive(Clone, Debug)]
pub struct BasicPtr {
    ty: &'static str,
    target: Option<Value>,
}

impl BasicPtr {
    /// `ty` is the Go type, e.g. `*bool`.
    pub fn new(ty: &'static str, target: Option<Value>) -> BasicPtr {
        BasicPtr { ty, target }
    }
}

impl Object for BasicPtr {
    fn type_name(&self) -> String {
        self.ty.to_string()
    }
    fn fmt_v(&self, _plus: bool) -> String {
        match &self.target {
            None => "<nil>".to_string(),
            Some(_) => format!("{:p}", self as *const _),
        }
    }
    fn to_json_value(&self) -> Value {
        self.target.clone().unwrap_or(Value::Nil)
    }
    fn pointee(&self) -> Option<Value> {
        self.target.clone()
    }
    fn is_nil_pointer(&self) -> bool {
        self.target.is_none()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A struct object's JSON fields in declaration order (its [`Object::json_order`],
/// unlisted keys last), or `None` when its JSON view is not a struct's fields.
pub fn struct_json_fields(o: &dyn Object) -> Option<Vec<(String, Value)>> {
    let order = o.json_order()?;
    match o.to_json_value() {
        Value::Map(m) if !m.is_nil() => {
            let mut entries = m.entries();
            let rank = |k: &str| order.iter().position(|f| *f == k).unwrap_or(order.len());
            entries.sort_by_key(|(k, _)| rank(k));
            Some(entries)
        }
        _ => None,
    }
}

impl fmt::Debug for dyn Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.type_name())
    }
}

// ---- constructors -------------------------------------------------------------------

impl Value {
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A Go `int`.
    pub const fn int(i: i64) -> Value {
        Value::Int(i, IntType::Int)
    }

    /// A Go `int64`.
    pub const fn int64(i: i64) -> Value {
        Value::Int(i, IntType::Int64)
    }

    pub const fn float(f: f64) -> Value {
        Value::Float(f)
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }

    pub fn string_list<I, S>(items: I) -> Value
    where
        I: IntoIterator<Item = S>,
        S: Into<Arc<str>>,
    {
        Value::List(List::of_strings(
            items.into_iter().map(|s| Value::String(s.into())).collect(),
        ))
    }

    pub fn map(map: Map) -> Value {
        Value::Map(map)
    }

    pub fn empty_map() -> Value {
        Value::Map(Map::new())
    }

    pub fn object(o: impl Object + 'static) -> Value {
        Value::Object(Arc::new(o))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s.into())
    }
}
impl From<Arc<str>> for Value {
    fn from(s: Arc<str>) -> Self {
        Value::String(s)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}
impl From<List> for Value {
    fn from(l: List) -> Self {
        Value::List(l)
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::list(v)
    }
}

// ---- inspection ---------------------------------------------------------------------

impl Value {
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    pub fn kind(&self) -> Kind {
        match self {
            Value::Nil => Kind::Invalid,
            Value::Bool(_) => Kind::Bool,
            Value::Int(..) => Kind::Int,
            Value::Uint(..) => Kind::Uint,
            Value::Float(_) => Kind::Float,
            Value::String(_) => Kind::String,
            Value::Bytes(_) | Value::List(_) => Kind::Slice,
            Value::Map(_) => Kind::Map,
            Value::Object(o) => o.kind(),
        }
    }

    /// The Go type name, as `%T` and Sprig's `typeOf` print it (`<nil>` for nil).
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".to_string(),
            Value::Bool(_) => "bool".to_string(),
            Value::Int(_, t) => t.go_name().to_string(),
            Value::Uint(_, t) => t.go_name().to_string(),
            Value::Float(_) => "float64".to_string(),
            Value::String(_) => "string".to_string(),
            Value::Bytes(_) => "[]uint8".to_string(),
            Value::List(l) => l.ty().go_name().to_string(),
            Value::Map(m) => m.ty().go_name().to_string(),
            Value::Object(o) => o.type_name(),
        }
    }

    /// The reflect kind name, as Sprig's `kindOf` prints it.
    pub fn kind_name(&self) -> String {
        match self {
            Value::Nil => "invalid".to_string(),
            Value::Int(_, t) => t.go_name().to_string(),
            Value::Uint(_, t) => t.go_name().to_string(),
            Value::Float(_) => "float64".to_string(),
            Value::Bool(_) => "bool".to_string(),
            Value::String(_) => "string".to_string(),
            Value::Bytes(_) | Value::List(_) => "slice".to_string(),
            Value::Map(_) => "map".to_string(),
            Value::Object(o) => match o.kind() {
                Kind::Map => "map".to_string(),
                Kind::Slice => "slice".to_string(),
                Kind::Struct => "struct".to_string(),
                _ => "ptr".to_string(),
            },
        }
    }

    /// Go's `text/template` truthiness (`IsTrue`): false for the zero value of the
    /// type (false, 0, 0.0, "", empty slice or map, nil), true otherwise.
    pub fn is_true(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i, _) => *i != 0,
            Value::Uint(u, _) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Object(o) => match o.as_collection() {
                Some(c) => c.is_true(),
                None => !o.is_nil_pointer(),
            },
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Looks a key up when this is a map (`None` for other types or missing keys).
    pub fn get(&self, key: &str) -> Option<Value> {
        match self {
            Value::Map(m) => m.get(key),
            _ => None,
        }
    }

    /// Follows a dotted path of map keys.
    pub fn get_path(&self, path: &[&str]) -> Option<Value> {
        let mut cur = self.clone();
        for k in path {
            cur = cur.get(k)?;
        }
        Some(cur)
    }

    /// A recursive copy in which no map shares storage with the original.
    pub fn deep_copy(&self) -> Value {
        match self {
            Value::Map(m) => Value::Map(m.deep_copy()),
            Value::List(l) => Value::List(List {
                items: Arc::new(l.iter().map(Value::deep_copy).collect()),
                ty: l.ty,
                nil: l.nil,
            }),
            other => other.clone(),
        }
    }

    /// Structural equality as Go's `reflect.DeepEqual` sees it: types must match
    /// (an `int` 1 is not a `float64` 1).
    pub fn deep_equal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a, ta), Value::Int(b, tb)) => ta == tb && a == b,
            (Value::Uint(a, ta), Value::Uint(b, tb)) => ta == tb && a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.ty == b.ty
                    && a.nil == b.nil
                    && a.len() == b.len()
                    && a.iter().zip(b.iter()).all(|(x, y)| x.deep_equal(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.same(b) {
                    return true;
                }
                a.ty == b.ty
                    && a.with_read(|ma| {
                        b.with_read(|mb| {
                            ma.len() == mb.len()
                                && ma
                                    .iter()
                                    .all(|(k, v)| mb.get(k).is_some_and(|w| v.deep_equal(w)))
                        })
                    })
            }
            (Value::Object(a), Value::Object(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.type_name() == b.type_name()
                        && a.to_json_value().deep_equal(&b.to_json_value()))
            }
            _ => false,
        }
    }
}

/// Go's ordering for map keys as `sort.Strings` does it: plain byte order.
pub fn byte_order(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => write!(f, "nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i, IntType::Int) => write!(f, "{i}"),
            Value::Int(i, t) => write!(f, "{}({i})", t.go_name()),
            Value::Uint(u, t) => write!(f, "{}({u})", t.go_name()),
            Value::Float(x) => write!(f, "float64({x:?})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "bytes{:?}", &b[..]),
            Value::List(l) => {
                if l.ty != ListType::Interface {
                    write!(f, "{}", l.ty.go_name())?;
                }
                if l.nil {
                    write!(f, "nil")?;
                }
                f.debug_list().entries(l.iter()).finish()
            }
            Value::Map(m) => {
                if m.ty != MapType::Interface {
                    write!(f, "{}", m.ty.go_name())?;
                }
                m.with_read(|map| f.debug_map().entries(map.iter()).finish())
            }
            Value::Object(o) => write!(f, "{o:?}"),
        }
    }
}

/// Builds a `map[string]interface {}` value from literal pairs, for tests and hosts.
#[macro_export]
macro_rules! vmap {
    ($($k:expr => $v:expr),* $(,)?) => {{
        let m = $crate::template::value::Map::new();
        $( m.insert($k, $crate::template::value::Value::from($v)); )*
        $crate::template::value::Value::Map(m)
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_matches_go() {
        let cases: Vec<(Value, bool)> = vec![
            (Value::Nil, false),
            (Value::Bool(false), false),
            (Value::int(0), false),
            (Value::Float(0.0), false),
            (Value::str(""), false),
            (Value::list(vec![]), false),
            (Value::empty_map(), false),
            (Value::str("false"), true),
            (Value::str("0"), true),
            (Value::str(" "), true),
            (Value::Float(-0.5), true),
            (Value::list(vec![Value::Nil]), true),
        ];
        for (v, want) in cases {
            assert_eq!(v.is_true(), want, "{v:?}");
        }
    }

    #[test]
    fn maps_are_shared_until_deep_copied() {
        let m = Map::new();
        let v = Value::Map(m.clone());
        m.insert("a", Value::int(1));
        assert_eq!(v.get("a").map(|x| x.type_name()), Some("int".to_string()));
        let copy = v.deep_copy();
        m.insert("b", Value::int(2));
        assert!(copy.get("b").is_none());
    }

    #[test]
    fn deep_equal_respects_types() {
        assert!(!Value::int(1).deep_equal(&Value::Float(1.0)));
        assert!(!Value::int(1).deep_equal(&Value::int64(1)));
        assert!(vmap! {"a" => 1.0}.deep_equal(&vmap! {"a" => 1.0}));
    }

    #[test]
    fn type_names() {
        assert_eq!(Value::Nil.type_name(), "<nil>");
        assert_eq!(Value::list(vec![]).type_name(), "[]interface {}");
        assert_eq!(Value::string_list(["a"]).type_name(), "[]string");
        assert_eq!(
            Value::Map(Map::with_type(MapType::Named("chartutil.Values"))).type_name(),
            "chartutil.Values"
        );
        assert_eq!(Value::Bytes(Arc::from(&b"x"[..])).kind_name(), "slice");
    }
}
