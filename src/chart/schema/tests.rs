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

/// Helm 4 asserts `format` under a draft-07 `$schema`: each value with the reason
/// helm v4.3.1 printed for it (empty where it rendered), one schema per value.
#[test]
fn helm4_formats_under_draft7() {
    let cases: &[(&str, &str, &str)] = &[
        ("email", "foo", "'foo' is not valid email: missing @"),
        ("email", "a@b", ""),
        ("email", ".a@b.com", "'.a@b.com' is not valid email: starts with dot"),
        ("email", "a.@b.com", "'a.@b.com' is not valid email: ends with dot"),
        ("email", "a..b@c.com", "'a..b@c.com' is not valid email: consecutive dots"),
        ("email", "a b@c.com", "'a b@c.com' is not valid email: invalid character ' '"),
        ("email", "\"a\\\"b\"@c.com", "'\"a\\\\\"b\"@c.com' is not valid email: backslash and quote are not allowed within quoted local part"),
        ("email", "a@[1.2.3.4]", ""),
        ("email", "a@[1.2.3]", "'a@[1.2.3]' is not valid email: invalid ipv4 address: expected four decimals"),
        ("email", "a@[IPv6:::1]", ""),
        ("email", "a@[IPv6:zz]", "'a@[IPv6:zz]' is not valid email: invalid ipv6 address: missing colon"),
        ("email", "a@-b.com", "'a@-b.com' is not valid email: invalid domain: label starts with hyphen"),
        ("email", "a@b_c.com", "'a@b_c.com' is not valid email: invalid domain: invalid character '_'"),
        ("email", "a@", "'a@' is not valid email: invalid domain: label must be 1 to 63 characters long"),
        ("email", "é@b.com", "'é@b.com' is not valid email: invalid character 'é'"),
        ("ipv4", "1.2.3", "'1.2.3' is not valid ipv4: expected four decimals"),
        ("ipv4", "1.2.3.04", "'1.2.3.04' is not valid ipv4: leading zeros"),
        ("ipv4", "1.2.3.x", "'1.2.3.x' is not valid ipv4: strconv.Atoi: parsing \"x\": invalid syntax"),
        ("ipv4", "1.2.3.256", "'1.2.3.256' is not valid ipv4: decimal must be between 0 and 255"),
        ("ipv4", "1.2.3.-1", "'1.2.3.-1' is not valid ipv4: decimal must be between 0 and 255"),
        ("ipv4", "1..2.3", "'1..2.3' is not valid ipv4: strconv.Atoi: parsing \"\": invalid syntax"),
        ("ipv4", "1.2.3.+4", ""),
        ("ipv4", "1.2.3.99999999999999999999", "'1.2.3.99999999999999999999' is not valid ipv4: strconv.Atoi: parsing \"99999999999999999999\": value out of range"),
        ("ipv6", "1.2.3.4", "'1.2.3.4' is not valid ipv6: missing colon"),
        ("ipv6", "::1", ""),
        ("ipv6", "1:2", "'1:2' is not valid ipv6: ParseAddr(\"1:2\"): address string too short"),
        ("ipv6", "::g", "'::g' is not valid ipv6: ParseAddr(\"::g\"): each colon-separated field must have at least one digit (at \"g\")"),
        ("ipv6", "fe80::1%eth0", "'fe80::1%eth0' is not valid ipv6: zone id is not a part of ipv6 address"),
        ("ipv6", "1:2:3:4:5:6:7:8:9", "'1:2:3:4:5:6:7:8:9' is not valid ipv6: ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")"),
        ("ipv6", "1::2::3", "'1::2::3' is not valid ipv6: ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")"),
        ("ipv6", "12345::", "'12345::' is not valid ipv6: ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")"),
        ("ipv6", "::1.2.3", "'::1.2.3' is not valid ipv6: ParseAddr(\"::1.2.3\"): IPv4 address too short"),
        ("ipv6", "1:2:3:4:5:6:7:1.2.3.4", "'1:2:3:4:5:6:7:1.2.3.4' is not valid ipv6: ParseAddr(\"1:2:3:4:5:6:7:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")"),
        ("ipv6", "1.2.3.4:5", "'1.2.3.4:5' is not valid ipv6: ParseAddr(\"1.2.3.4:5\"): unexpected character (at \":5\")"),
        ("ipv6", "1:", "'1:' is not valid ipv6: ParseAddr(\"1:\"): colon must be followed by more characters (at \":\")"),
        ("ipv6", "%eth0:", "'%eth0:' is not valid ipv6: ParseAddr(\"%eth0:\"): missing IPv6 address"),
        ("ipv6", "::01.2.3.4", "'::01.2.3.4' is not valid ipv6: ParseAddr(\"::01.2.3.4\"): IPv4 field has octet with leading zero"),
        ("hostname", "-a.com", "'-a.com' is not valid hostname: label starts with hyphen"),
        ("hostname", "a-.com", "'a-.com' is not valid hostname: label ends with hyphen"),
        ("hostname", "a..com", "'a..com' is not valid hostname: label must be 1 to 63 characters long"),
        ("hostname", "a_b", "'a_b' is not valid hostname: invalid character '_'"),
        ("hostname", "a.com.", ""),
        ("hostname", "ü.com", "'ü.com' is not valid hostname: invalid character 'ü'"),
        ("date", "2024-13-01", "'2024-13-01' is not valid date: parsing time \"2024-13-01\": month out of range"),
        ("date", "2024-02-30", "'2024-02-30' is not valid date: parsing time \"2024-02-30\": day out of range"),
        ("date", "x", "'x' is not valid date: parsing time \"x\" as \"2006-01-02\": cannot parse \"x\" as \"2006\""),
        ("date", "2024-01-01x", "'2024-01-01x' is not valid date: parsing time \"2024-01-01x\": extra text: \"x\""),
        ("time", "12:00:00", "'12:00:00' is not valid time: less than 9 characters long"),
        ("time", "12:00:00Z", ""),
        ("time", "1200:00:00", "'1200:00:00' is not valid time: missing colon in correct place"),
        ("time", "25:00:00Z", "'25:00:00Z' is not valid time: hour/min/sec out of range"),
        ("time", "12:00:00.Z", "'12:00:00.Z' is not valid time: no digits in second fraction"),
        ("time", "12:00:00+0100", "'12:00:00+0100' is not valid time: offset must be 6 characters long"),
        ("time", "12:00:00*01:00", "'12:00:00*01:00' is not valid time: offset must begin with plus/minus"),
        ("time", "12:00:00+01-00", "'12:00:00+01-00' is not valid time: missing colon in offset in correct place"),
        ("time", "12:00:00+25:00", "'12:00:00+25:00' is not valid time: hour/min in offset out of range"),
        ("time", "23:59:60+01:00", "'23:59:60+01:00' is not valid time: invalid leap second"),
        ("time", "ab:00:00Z", "'ab:00:00Z' is not valid time: invalid hour/min/sec"),
        ("time", "-1:00:00Z", "'-1:00:00Z' is not valid time: non-positive hour/min/sec"),
        ("date-time", "2024-01-01", "'2024-01-01' is not valid date-time: less than 20 characters long"),
        ("date-time", "2024-01-01X12:00:00Z", "'2024-01-01X12:00:00Z' is not valid date-time: 11th character must be t or T"),
        ("date-time", "2024-13-01T12:00:00Z", "'2024-13-01T12:00:00Z' is not valid date-time: invalid date element: parsing time \"2024-13-01\": month out of range"),
        ("date-time", "2024-01-01T12:00:00", "'2024-01-01T12:00:00' is not valid date-time: less than 20 characters long"),
        ("date-time", "2024-01-01T12:00:00+01:00", ""),
        ("uri", "foo", "'foo' is not valid uri: relative url"),
        ("uri", "http://[::1", "'http://[::1' is not valid uri: parse \"http://[::1\": missing ']' in host"),
        ("uri", "http://a b", "'http://a b' is not valid uri: parse \"http://a b\": invalid character \" \" in host name"),
        ("uri", "http://::1/", "'http://::1/' is not valid uri: parse \"http://::1/\": invalid port \"::1\" after host"),
        ("uri", "http://[fe80::1%25eth0]/", "'http://[fe80::1%25eth0]/' is not valid uri: invalid ipv6 address: zone id is not a part of ipv6 address"),
        ("uri", "%zz", "'%zz' is not valid uri: parse \"%zz\": invalid URL escape \"%zz\""),
        ("uri", ":foo", "':foo' is not valid uri: parse \":foo\": missing protocol scheme"),
        ("uri-reference", "a\\b", "'a\\\\b' is not valid uri-reference: contains \\"),
        ("uri-reference", "/x%zz", "'/x%zz' is not valid uri-reference: parse \"/x%zz\": invalid URL escape \"%zz\""),
        ("uri-reference", "foo", ""),
        ("uri-template", "http://x/{a}/{b}", ""),
        ("uri-template", "http://x/{a{b}}", "'http://x/{a{b}}' is not valid uri-template: nested curly braces"),
        ("uri-template", "http://x/{a", "'http://x/{a' is not valid uri-template: no matching closing brace"),
        ("uri-template", "http://x/a}", "'http://x/a}' is not valid uri-template: nested curly braces"),
        ("uuid", "abc", "'abc' is not valid uuid: must have 5 elements"),
        ("uuid", "1234567-1234-1234-1234-123456789012", "'1234567-1234-1234-1234-123456789012' is not valid uuid: element 1 must be 8 characters long"),
        ("uuid", "12345678-1234-1234-1234-12345678901g", "'12345678-1234-1234-1234-12345678901g' is not valid uuid: non-hex character 'g'"),
        ("uuid", "12345678-1234-1234-1234-123456789012", ""),
        ("regex", "(", "'(' is not valid regex: error parsing regexp: missing closing ): `(`"),
        ("regex", "a**", "'a**' is not valid regex: error parsing regexp: invalid nested repetition operator: `**`"),
        ("regex", "[a", "'[a' is not valid regex: error parsing regexp: missing closing ]: `[a`"),
        ("regex", "\\p{Foo}", "'\\\\p{Foo}' is not valid regex: error parsing regexp: invalid character class range: `\\p{Foo}`"),
        ("duration", "1D", "'1D' is not valid duration: must start with P"),
        ("duration", "P", "'P' is not valid duration: nothing after P"),
        ("duration", "PW", "'PW' is not valid duration: no number in week"),
        ("duration", "P1xW", "'P1xW' is not valid duration: invalid week"),
        ("duration", "P1Y2M3DT4H5M6S", ""),
        ("duration", "PT", "'PT' is not valid duration: no time elements"),
        ("duration", "P1DT", "'P1DT' is not valid duration: no time elements"),
        ("duration", "P1D2Y", "'P1D2Y' is not valid duration: unit 'Y' out of order"),
        ("duration", "P1Q", "'P1Q' is not valid duration: invalid unit 'Q'"),
        ("duration", "PTT1H", "'PTT1H' is not valid duration: no time elements"),
        ("duration", "P1", "'P1' is not valid duration: missing unit"),
        ("duration", "PY", "'PY' is not valid duration: missing number"),
        ("duration", "P1TT1H", "'P1TT1H' is not valid duration: missing unit"),
        ("period", "x", "'x' is not valid period: missing slash"),
        ("period", "P1D/2024-01-01T00:00:00Z", ""),
        ("period", "P1D/x", "'P1D/x' is not valid period: invalid end date-time: less than 20 characters long"),
        ("period", "2024-01-01T00:00:00Z/P1X", "'2024-01-01T00:00:00Z/P1X' is not valid period: invalid end duration: invalid unit 'X'"),
        ("period", "x/P1D", "'x/P1D' is not valid period: invalid start date-time: less than 20 characters long"),
        ("semver", "1.2", "'1.2' is not valid semver: versionCore must have 3 numbers separated by dot"),
        ("semver", "1.2.3", ""),
        ("semver", "01.2.3", "'01.2.3' is not valid semver: major starts with zero"),
        ("semver", "1.2.x", "'1.2.x' is not valid semver: patch contains non-digit"),
        ("semver", "1.2.3-", "'1.2.3-' is not valid semver: pre-release identifier is empty"),
        ("semver", "1.2.3-01", "'1.2.3-01' is not valid semver: pre-release numeric identifier starts with zero"),
        ("semver", "1.2.3-a_b", "'1.2.3-a_b' is not valid semver: invalid character '_' in pre-release identifier"),
        ("semver", "1.2.3+", "'1.2.3+' is not valid semver: build is empty"),
        ("semver", "1.2.3+a..b", "'1.2.3+a..b' is not valid semver: build identifier is empty"),
        ("semver", "1.2.3+a_b", "'1.2.3+a_b' is not valid semver: invalid character '_' in build identifier"),
        ("semver", ".2.3", "'.2.3' is not valid semver: major is empty"),
        ("json-pointer", "a", "'a' is not valid json-pointer: not starting with /"),
        ("json-pointer", "/a~2", "'/a~2' is not valid json-pointer: ~ must be followed by 0 or 1"),
        ("json-pointer", "/a~", "'/a~' is not valid json-pointer: ~ must be followed by 0 or 1"),
        ("relative-json-pointer", "x", "'x' is not valid relative-json-pointer: must start with non-negative integer"),
        ("relative-json-pointer", "01/a", "'01/a' is not valid relative-json-pointer: starts with zero"),
        ("relative-json-pointer", "1#", ""),
        ("relative-json-pointer", "1a", "'1a' is not valid relative-json-pointer: not starting with /"),
        ("iri", "foo", "'foo' is not valid iri: relative url"),
        ("iri-reference", "a\\b", "'a\\\\b' is not valid iri-reference: contains \\"),
        ("idn-email", "foo", ""),
        ("unknown", "foo", ""),
    ];
    for (format, value, want) in cases {
        let schema = format!(
            r#"{{"$schema":"http://json-schema.org/draft-07/schema#","properties":{{"f":{{"format":{}}}}}}}"#,
            serde_json::to_string(format).expect("a string")
        );
        let values = serde_json::json!({ "f": value }).to_string();
        let got = v4(&schema, &values).err().unwrap_or_default();
        let want = if want.is_empty() {
            String::new()
        } else {
            format!("- at '/f': {want}\n")
        };
        assert_eq!(got, want, "format {format}, value {value:?}");
    }
    // Without a `$schema` (2020-12) the same value passes.
    assert!(v4(
        r#"{"properties":{"f":{"format":"email"}}}"#,
        r#"{"f":"foo"}"#
    )
    .is_ok());
}

/// Schemas both Helm versions refuse before looking at any value, with the text
/// helm v3.15.3 and v4.3.1 printed under the chart's name (each without the final
/// newline every error gets).
#[test]
fn schemas_refused_up_front() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"properties":{"a":{"properties":{"b":{"pattern":"(?!x)"}}}}}"#,
            "pattern must be a valid regex",
            "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/properties/b': 'allOf' failed\n      - at '/properties/a/properties/b/pattern': '(?!x)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
        ),
        (
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":{"properties":{"b":{"pattern":"["}}}}}}"#,
            "pattern must be a valid regex",
            "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-07/schema#'\n- at '/properties/a/items': 'anyOf' failed\n  - at '/properties/a/items/properties/b/pattern': '[' is not valid regex: error parsing regexp: missing closing ]: `[`\n  - at '/properties/a/items': got object, want array",
        ),
        (
            r#"{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"items":{"pattern":"["}}}}"#,
            "pattern must be a valid regex",
            "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-04/schema#'\n- at '/properties/a/items': 'anyOf' failed\n  - at '/properties/a/items/pattern': '[' is not valid regex: error parsing regexp: missing closing ]: `[`\n  - at '/properties/a/items': got object, want array",
        ),
        (
            r#"{"properties":{"a":{"patternProperties":{"(?!x)":{"type":"string"}}}}}"#,
            "Invalid regex pattern '(?!x)'",
            "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/patternProperties': invalid propertyName '(?!x)'\n      - at '': '(?!x)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
        ),
    ];
    for (schema, want3, want4) in cases {
        assert_eq!(
            v3(schema, r#"{"a":"foo"}"#).unwrap_err(),
            *want3,
            "{schema}"
        );
        assert_eq!(
            v4(schema, r#"{"a":"foo"}"#).unwrap_err(),
            *want4,
            "{schema}"
        );
    }
    // Helm 3 does not read `$defs`; Go takes `{,2}` as literal text.
    let schema = r#"{"$defs":{"x":{"pattern":"a{2,1}"}},"properties":{"a":{"type":"string","pattern":"^a{,2}$"}}}"#;
    assert_eq!(
        v3(schema, r#"{"a":"foo"}"#).unwrap_err(),
        "- a: Does not match pattern '^a{,2}$'\n"
    );
    assert!(v3(schema, r#"{"a":"a{,2}"}"#).is_ok());
    assert_eq!(
        v4(schema, r#"{"a":"foo"}"#).unwrap_err(),
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/$defs/x': 'allOf' failed\n    - at '/$defs/x/pattern': 'a{2,1}' is not valid regex: error parsing regexp: invalid repeat count: `{2,1}`"
    );
}
