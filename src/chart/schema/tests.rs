use super::*;

/// Validates values written as JSON against a schema, with one Helm's wording.
fn run(helm: HelmVersion, schema: &str, values: &str) -> Result<(), String> {
    let j: J = serde_json::from_str(values).expect("test values are JSON");
    let Value::Map(m) = crate::chart::strvals::from_json(&j) else {
        panic!("test values must be an object");
    };
    validate_one(helm, &m, schema.as_bytes())
}

fn v3(schema: &str, values: &str) -> Result<(), String> {
    run(HelmVersion::V3, schema, values)
}

fn v4(schema: &str, values: &str) -> Result<(), String> {
    run(HelmVersion::V4, schema, values)
}

#[test]
fn wording_per_version() {
    let schema =
        r#"{"required":["policy"],"properties":{"policy":{"type":"string","enum":["sync"]}}}"#;
    assert_eq!(
        v3(schema, r#"{"policy":null}"#).unwrap_err(),
        "- policy: Invalid type. Expected: string, given: null\n"
    );
    assert_eq!(
        v4(schema, "{}").unwrap_err(),
        "- at '': missing property 'policy'\n"
    );
    assert!(v3(schema, r#"{"policy":"sync"}"#).is_ok());
}

#[test]
fn refs_and_integers() {
    let schema = r##"{"definitions":{"n":{"type":"integer","minimum":1}},"properties":{"a":{"$ref":"#/definitions/n"}}}"##;
    assert!(v3(schema, r#"{"a":3.0}"#).is_ok());
    assert!(v3(schema, r#"{"a":0.0}"#).is_err());
}

#[test]
fn min_and_max_properties() {
    let schema = r#"{"properties":{"a":{"type":"object","minProperties":1,"maxProperties":2}}}"#;
    assert!(v3(schema, r#"{"a":{"x":1}}"#).is_ok());
    assert!(v4(schema, r#"{"a":{"x":1,"y":2}}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":{}}"#).unwrap_err(),
        "- a: Must have at least 1 properties\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":{}}"#).unwrap_err(),
        "- at '/a': minProperties: got 0, want 1\n"
    );
    let three = r#"{"a":{"x":1,"y":2,"z":3}}"#;
    assert_eq!(
        v3(schema, three).unwrap_err(),
        "- a: Must have at most 2 properties\n"
    );
    assert_eq!(
        v4(schema, three).unwrap_err(),
        "- at '/a': maxProperties: got 3, want 2\n"
    );
}

#[test]
fn if_condition_counts_min_properties() {
    let schema = r#"{"if":{"properties":{"a":{"type":"object","minProperties":1}}},
        "then":{"properties":{"b":{"type":"array","maxItems":0}}}}"#;
    assert!(v3(schema, r#"{"a":{},"b":[1]}"#).is_ok());
    assert!(v4(schema, r#"{"a":{},"b":[1]}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":{"k":1},"b":[1]}"#).unwrap_err(),
        "- (root): Must validate \"then\" as \"if\" was valid\n- b: Array must have at most 0 items\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":{"k":1},"b":[1]}"#).unwrap_err(),
        "- at '/b': maxItems: got 1, want 0\n"
    );
}

#[test]
fn contains() {
    let schema = r#"{"properties":{"a":{"type":"array","contains":{"const":5}}}}"#;
    assert!(v3(schema, r#"{"a":[1,5]}"#).is_ok());
    assert!(v4(schema, r#"{"a":[5]}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":[1,2]}"#).unwrap_err(),
        "- a: At least one of the items must match\n- a.0: a.0 does not match: 5\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":[1,2]}"#).unwrap_err(),
        "- at '/a': no items match contains schema\n  - at '/a/0': value must be 5\n  - at '/a/1': value must be 5\n"
    );
}

#[test]
fn dependencies() {
    let list = r#"{"dependencies":{"a":["b"]}}"#;
    assert!(v3(list, r#"{"a":1,"b":2}"#).is_ok());
    assert!(v4(list, r#"{"b":2}"#).is_ok());
    assert_eq!(
        v3(list, r#"{"a":1}"#).unwrap_err(),
        "- (root): Has a dependency on b\n"
    );
    assert_eq!(
        v4(list, r#"{"a":1}"#).unwrap_err(),
        "- at '': properties 'b' required, if 'a' exists\n"
    );
    let schema = r#"{"dependencies":{"a":{"required":["c"]}}}"#;
    assert!(v3(schema, r#"{"a":1,"c":2}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":1}"#).unwrap_err(),
        "- (root): c is required\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":1}"#).unwrap_err(),
        "- at '': missing property 'c'\n"
    );
}

#[test]
fn exclusive_bounds() {
    let numeric = r#"{"properties":{"a":{"exclusiveMinimum":5,"exclusiveMaximum":10}}}"#;
    assert!(v3(numeric, r#"{"a":6}"#).is_ok());
    assert!(v4(numeric, r#"{"a":9.5}"#).is_ok());
    assert_eq!(
        v3(numeric, r#"{"a":5}"#).unwrap_err(),
        "- a: Must be greater than 5\n"
    );
    assert_eq!(
        v4(numeric, r#"{"a":5}"#).unwrap_err(),
        "- at '/a': exclusiveMinimum: got 5, want 5\n"
    );
    assert_eq!(
        v3(numeric, r#"{"a":10}"#).unwrap_err(),
        "- a: Must be less than 10\n"
    );
    assert_eq!(
        v4(numeric, r#"{"a":10}"#).unwrap_err(),
        "- at '/a': exclusiveMaximum: got 10, want 10\n"
    );
    // Draft-04: a boolean that makes `minimum` exclusive.
    let draft4 = r#"{"$schema":"http://json-schema.org/draft-04/schema#",
        "properties":{"a":{"minimum":5,"exclusiveMinimum":true}}}"#;
    assert!(v3(draft4, r#"{"a":5.5}"#).is_ok());
    assert_eq!(
        v3(draft4, r#"{"a":5}"#).unwrap_err(),
        "- a: Must be greater than 5\n"
    );
    assert_eq!(
        v4(draft4, r#"{"a":5}"#).unwrap_err(),
        "- at '/a': exclusiveMinimum: got 5, want 5\n"
    );
}

#[test]
fn multiple_of() {
    let schema = r#"{"properties":{"a":{"multipleOf":3},"b":{"multipleOf":0.1}}}"#;
    assert!(v3(schema, r#"{"a":9,"b":0.3}"#).is_ok());
    assert!(v4(schema, r#"{"a":-6,"b":2.5}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":7}"#).unwrap_err(),
        "- a: Must be a multiple of 3\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":7}"#).unwrap_err(),
        "- at '/a': multipleOf: got 7, want 3\n"
    );
    assert!(v3(schema, r#"{"b":0.35}"#).is_err());
}

#[test]
fn property_names() {
    let schema = r#"{"propertyNames":{"pattern":"^[a-z]+$"}}"#;
    assert!(v3(schema, r#"{"abc":1}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"Abc":1}"#).unwrap_err(),
        "- (root): Property name of \"Abc\" does not match\n- (root): Does not match pattern '^[a-z]+$'\n"
    );
    assert_eq!(
        v4(schema, r#"{"Abc":1}"#).unwrap_err(),
        "- at '': invalid propertyName 'Abc'\n  - at '': 'Abc' does not match pattern '^[a-z]+$'\n"
    );
}

#[test]
fn positional_items() {
    let schema = r#"{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"array",
        "items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}"#;
    assert!(v3(schema, r#"{"a":["x",1]}"#).is_ok());
    assert!(v4(schema, r#"{"a":["x"]}"#).is_ok());
    assert_eq!(
        v3(schema, r#"{"a":["x",1,2]}"#).unwrap_err(),
        "- a: No additional items allowed on array\n"
    );
    assert_eq!(
        v4(schema, r#"{"a":["x",1,2]}"#).unwrap_err(),
        "- at '/a': last 1 additionalItem(s) not allowed\n"
    );
    assert_eq!(
        v3(schema, r#"{"a":[1,1]}"#).unwrap_err(),
        "- a.0: Invalid type. Expected: string, given: integer\n"
    );
    // Without `$schema` Helm 4 reads 2020-12, whose metaschema wants one schema.
    let bare = r#"{"properties":{"a":{"items":[{"type":"string"}]}}}"#;
    assert_eq!(
        v4(bare, r#"{"a":[]}"#).unwrap_err(),
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/items': got array, want boolean or object"
    );
}

#[test]
fn format_only_in_helm3() {
    let schema = r#"{"properties":{"e":{"format":"email"},"i":{"format":"ipv4"},"d":{"format":"date-time"},
        "h":{"format":"hostname"},"u":{"format":"uri"},"x":{"format":"custom"}}}"#;
    let good = r#"{"e":"me@example.com","i":"10.0.0.1","d":"2024-02-29T10:00:00.5+01:00",
        "h":"a-b.example","u":"https://x.io/p?q","x":"anything"}"#;
    assert!(v3(schema, good).is_ok());
    for (k, bad) in [
        ("e", "nope"),
        ("i", "300.1.1.1"),
        ("d", "2023-02-29T10:00:00Z"),
        ("h", "-x"),
        ("u", "relative/path"),
    ] {
        let values = format!(r#"{{"{k}":"{bad}"}}"#);
        assert!(v3(schema, &values).is_err(), "{k}={bad}");
        assert!(v4(schema, &values).is_ok(), "{k}={bad}");
    }
    assert!(v3(r#"{"format":"email"}"#, r#"{}"#).is_ok());
}

#[test]
fn combinator_wording() {
    let any = r#"{"properties":{"m":{"anyOf":[{"type":"string","enum":["x","y"]},{"type":"string","const":""}]}}}"#;
    assert_eq!(
        v3(any, r#"{"m":"z"}"#).unwrap_err(),
        "- m: Must validate at least one schema (anyOf)\n- m: m must be one of the following: \"x\", \"y\"\n"
    );
    assert_eq!(
        v4(any, r#"{"m":"z"}"#).unwrap_err(),
        "- at '/m': 'anyOf' failed\n  - at '/m': value must be one of 'x', 'y'\n  - at '/m': value must be ''\n"
    );
    let one = r#"{"properties":{"a":{"oneOf":[{"type":"string"},{"type":"boolean"}]}}}"#;
    assert_eq!(
        v3(one, r#"{"a":1}"#).unwrap_err(),
        "- a: Must validate one and only one schema (oneOf)\n- a: Invalid type. Expected: string, given: integer\n"
    );
    assert_eq!(
        v4(one, r#"{"a":1}"#).unwrap_err(),
        "- at '/a': 'oneOf' failed, none matched\n  - at '/a': got number, want string\n  - at '/a': got number, want boolean\n"
    );
    let both = r#"{"properties":{"a":{"oneOf":[{"type":"number"},{"minimum":0}]}}}"#;
    assert_eq!(
        v4(both, r#"{"a":1}"#).unwrap_err(),
        "- at '/a': 'oneOf' failed, subschemas 0, 1 matched\n"
    );
    let cond = r#"{"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]},"else":{"required":["c"]}}"#;
    assert_eq!(
        v3(cond, r#"{"a":2}"#).unwrap_err(),
        "- (root): Must validate \"else\" as \"if\" was not valid\n- (root): c is required\n"
    );
    let not = r#"{"properties":{"a":{"not":{"type":"integer"}}}}"#;
    assert_eq!(
        v4(not, r#"{"a":1}"#).unwrap_err(),
        "- at '/a': 'not' failed\n"
    );
}

#[test]
fn leaf_wording() {
    let f = r#"{"properties":{"a":false}}"#;
    assert_eq!(
        v3(f, r#"{"a":1}"#).unwrap_err(),
        "- a: False always fails validation\n"
    );
    assert_eq!(
        v4(f, r#"{"a":1}"#).unwrap_err(),
        "- at '/a': false schema\n"
    );
    let t = r#"{"properties":{"a":{"type":["string","boolean"]}}}"#;
    assert_eq!(
        v3(t, r#"{"a":1}"#).unwrap_err(),
        "- a: Invalid type. Expected: [string,boolean], given: integer\n"
    );
    assert_eq!(
        v4(t, r#"{"a":1}"#).unwrap_err(),
        "- at '/a': got number, want boolean or string\n"
    );
    let u = r#"{"properties":{"a":{"uniqueItems":true}}}"#;
    assert_eq!(
        v3(u, r#"{"a":[1,1]}"#).unwrap_err(),
        "- a: array items[0,1] must be unique\n"
    );
    assert_eq!(
        v4(u, r#"{"a":[1,1]}"#).unwrap_err(),
        "- at '/a': items at 0 and 1 are equal\n"
    );
    let m = r#"{"properties":{"a":{"maximum":10}}}"#;
    assert_eq!(
        v4(m, r#"{"a":12345678901234567890}"#).unwrap_err(),
        "- at '/a': maximum: got 1.2345678901234567×10¹⁹, want 10\n"
    );
    let e = r#"{"properties":{"a":{"enum":["x",null]},"b":{"const":{"k":1}}}}"#;
    assert_eq!(
        v4(e, r#"{"a":1,"b":2}"#).unwrap_err(),
        "- at '/a': value must be one of 'x', <nil>\n- at '/b': 'const' failed\n"
    );
    let r = r#"{"required":["zz","aa"]}"#;
    assert_eq!(
        v4(r, "{}").unwrap_err(),
        "- at '': missing properties 'zz', 'aa'\n"
    );
}

#[test]
fn bad_schemas_do_not_panic() {
    for schema in [
        r#"{"minProperties":"x","maxProperties":-1,"multipleOf":0,"items":[1,"x"]}"#,
        r#"{"dependencies":{"a":5},"propertyNames":3,"contains":"x","format":7}"#,
        r##"{"$ref":"#/nope","exclusiveMinimum":"x","additionalItems":3,"items":[]}"##,
        r##"{"$ref":"#"}"##,
        r#"{"pattern":"(","patternProperties":{"(":{}},"propertyNames":{"pattern":"["}}"#,
        "[]",
        "true",
    ] {
        for values in [r#"{"a":[1,2],"n":3}"#, "{}"] {
            let _ = v3(schema, values);
            let _ = v4(schema, values);
        }
    }
}
