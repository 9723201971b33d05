//! CEL mutants of real provider CRDs: a family's rule template instantiated on a schema node
//! of a base CRD, with the node's own property names and bounds.

use serde_json::{Value, json};

/// A base CRD: group, plural, kind, and its storage version's schema.
#[derive(Clone, Debug)]
pub struct Base {
    /// File name.
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `openAPIV3Schema`.
    pub schema: Value,
}

impl Base {
    /// The base of a CRD document, if it has a storage version with a schema.
    pub fn from_crd(name: &str, crd: &Value) -> Option<Base> {
        let spec = crd.get("spec")?;
        let v = spec["versions"]
            .as_array()?
            .iter()
            .find(|v| v["storage"] == json!(true))?;
        Some(Base {
            name: name.to_owned(),
            group: spec["group"].as_str()?.to_owned(),
            plural: spec["names"]["plural"].as_str()?.to_owned(),
            kind: spec["names"]["kind"].as_str()?.to_owned(),
            schema: v["schema"]["openAPIV3Schema"].clone(),
        })
    }
}

/// The mutant families.
pub const FAMILIES: [&str; 21] = [
    "real-rules",
    "syntax",
    "unknown-function",
    "unknown-field",
    "strings",
    "lists",
    "regex",
    "url",
    "quantity",
    "ip-cidr",
    "format",
    "semver",
    "message-expression",
    "old-self",
    "bounds",
    "nesting",
    "total-cost",
    "output-type",
    "defaults",
    "duration-timestamp",
    "token-soup",
];

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// Next value.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// In `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// One of `xs`.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// An object node of a schema: its JSON pointer and its properties by kind.
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    /// JSON pointer.
    pub ptr: String,
    /// Under a list's items.
    pub in_list: bool,
    /// String properties.
    pub strings: Vec<String>,
    /// Integer properties.
    pub ints: Vec<String>,
    /// Lists of strings.
    pub str_lists: Vec<String>,
    /// Lists of anything.
    pub lists: Vec<String>,
    /// Maps (additionalProperties).
    pub maps: Vec<String>,
    /// Object properties.
    pub objects: Vec<String>,
}

fn plain(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && ![
            "namespace",
            "in",
            "as",
            "if",
            "for",
            "var",
            "let",
            "null",
            "true",
            "false",
            "import",
            "package",
            "return",
            "break",
            "const",
            "continue",
            "else",
            "function",
            "loop",
            "void",
            "while",
        ]
        .contains(&name)
}

/// The object nodes of `schema`.
pub fn nodes(schema: &Value) -> Vec<NodeInfo> {
    let mut out = Vec::new();
    collect(schema, String::new(), false, 0, &mut out);
    out
}

fn collect(s: &Value, ptr: String, in_list: bool, depth: usize, out: &mut Vec<NodeInfo>) {
    if depth > 40 {
        return;
    }
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        let mut n = NodeInfo {
            ptr: ptr.clone(),
            in_list,
            ..NodeInfo::default()
        };
        for (name, p) in props {
            let esc = name.replace('~', "~0").replace('/', "~1");
            collect(
                p,
                format!("{ptr}/properties/{esc}"),
                in_list,
                depth + 1,
                out,
            );
            if !plain(name) || p.get("x-kubernetes-int-or-string").is_some() {
                continue;
            }
            let name = name.clone();
            match p.get("type").and_then(Value::as_str) {
                Some("string") if p.get("format").is_none() => n.strings.push(name),
                Some("integer") => n.ints.push(name),
                Some("array") => {
                    if p["items"]["type"] == json!("string") && p["items"].get("format").is_none() {
                        n.str_lists.push(name.clone());
                    }
                    n.lists.push(name);
                }
                Some("object") if p.get("additionalProperties").is_some_and(Value::is_object) => {
                    n.maps.push(name)
                }
                Some("object") if p.get("properties").is_some() => n.objects.push(name),
                _ => {}
            }
        }
        out.push(n);
    }
    if let Some(items) = s.get("items").filter(|i| i.is_object()) {
        collect(items, format!("{ptr}/items"), true, depth + 1, out);
    }
    if let Some(ap) = s.get("additionalProperties").filter(|i| i.is_object()) {
        collect(
            ap,
            format!("{ptr}/additionalProperties"),
            in_list,
            depth + 1,
            out,
        );
    }
}

/// A mutant: the family, a description, and the mutated schema.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// Family name.
    pub family: &'static str,
    /// What was done.
    pub what: String,
    /// The schema.
    pub schema: Value,
}

/// The mutant of `base` for `family` and `seed`.
pub fn mutate(base: &Base, family: usize, seed: u64) -> Mutant {
    let mut rng = Rng::new(seed);
    let mut schema = base.schema.clone();
    let ns = nodes(&schema);
    let fam = FAMILIES[family % FAMILIES.len()];
    if fam == "real-rules" || ns.is_empty() {
        return Mutant {
            family: "real-rules",
            what: "unchanged".into(),
            schema,
        };
    }
    let node = rng.pick(&ns).clone();
    let (rules, what) = rules_for(fam, &node, &mut schema, &mut rng);
    if fam == "total-cost" {
        // The same expensive rule on several nodes.
        let count = 1 + rng.below(6);
        for _ in 0..count {
            let other = rng.pick(&ns).clone();
            add_rules(&mut schema, &other.ptr, &rules);
        }
    }
    add_rules(&mut schema, &node.ptr, &rules);
    Mutant {
        family: fam,
        what: format!("{} at {:?}", what, node.ptr),
        schema,
    }
}

fn add_rules(schema: &mut Value, ptr: &str, rules: &[Value]) {
    let Some(n) = schema.pointer_mut(ptr) else {
        return;
    };
    let Some(o) = n.as_object_mut() else { return };
    let list = o
        .entry("x-kubernetes-validations")
        .or_insert_with(|| json!([]));
    if let Some(a) = list.as_array_mut() {
        a.extend(rules.iter().cloned());
    }
}

fn or<'a>(xs: &'a [String], rng: &mut Rng, fallback: &'a str) -> &'a str {
    if xs.is_empty() {
        fallback
    } else {
        rng.pick(xs).as_str()
    }
}

/// Sets (or removes) a bound on property `prop` of the node at `ptr`.
fn bound(schema: &mut Value, ptr: &str, prop: &str, key: &str, rng: &mut Rng) -> String {
    let esc = prop.replace('~', "~0").replace('/', "~1");
    let Some(p) = schema
        .pointer_mut(&format!("{ptr}/properties/{esc}"))
        .and_then(Value::as_object_mut)
    else {
        return String::new();
    };
    let choice = rng.below(4);
    if choice == 0 {
        p.remove(key);
        return format!(" {prop}.{key}=none");
    }
    let v = *rng.pick(&[
        1u64, 5, 10, 63, 64, 100, 253, 256, 1000, 1024, 4096, 10_000, 65_536,
    ]);
    p.insert(key.into(), json!(v));
    format!(" {prop}.{key}={v}")
}

/// The rules a family adds at `node` (it may also change bounds in `schema`).
pub fn rules_for(
    fam: &str,
    n: &NodeInfo,
    schema: &mut Value,
    rng: &mut Rng,
) -> (Vec<Value>, String) {
    let s = or(&n.strings, rng, "__none__").to_owned();
    let has_s = s != "__none__";
    let sref = if has_s {
        format!("self.{s}")
    } else {
        "'abc'".to_owned()
    };
    let l = or(&n.str_lists, rng, "__none__").to_owned();
    let lref = if l == "__none__" {
        "['a', 'b']".to_owned()
    } else {
        format!("self.{l}")
    };
    let guard = |e: String| {
        if has_s {
            format!("!has(self.{s}) || {e}")
        } else {
            e
        }
    };
    let mut extra = String::new();
    let rule: Value = match fam {
        "syntax" => json!({"rule": rng.pick(&[
            format!("{sref} + "), format!("({sref} == 'a'"), format!("{sref} == 'a' &&"),
            format!("{sref}."), format!("{sref} =="), "'abc".to_owned(), format!("{sref} == 'a')"),
            format!("{sref} in"), format!("size({sref}) >"), "self ? : 1".to_owned(),
        ]).clone()}),
        "unknown-function" => json!({"rule": rng.pick(&[
            format!("{sref}.noSuchFn()"), format!("noSuchFn({sref})"),
            format!("quantity({sref}).sign() > 0"), format!("{sref}.sign() == 1"),
            format!("sign(quantity({sref})) > 0"), format!("{sref}.lowerAscii().fooBar('x')"),
        ]).clone()}),
        "unknown-field" => json!({"rule": rng.pick(&[
            "self.noSuchField == 'a'".to_owned(), "has(self.noSuchField)".to_owned(),
            "self.metadata.labels.size() > 0".to_owned(), "self.metadata.name.size() > 0".to_owned(),
            format!("{sref}.nope == 1"), "self.spec.noSuch == 1".to_owned(),
        ]).clone()}),
        f if LIBRARY_FAMILIES.contains(&f) => library_rule(f, &sref, &lref, rng, &guard),
        "message-expression" => {
            json!({"rule": guard(format!("{sref} != 'forbidden'")), "messageExpression": rng.pick(&[
            format!("'bad value: ' + {sref}"), "'bad: ' + self.noSuchField".to_owned(), "'bad: ' + ".to_owned(),
            "1".to_owned(), format!("{sref} + {sref} + {sref}"), "'x'.repeat(2)".to_owned(),
            format!("{lref}.map(e, e + {sref}).join(',')"), format!("{lref}.map(a, {lref}.map(b, a + b).join(',')).join(';')"),
        ]).clone()})
        }
        "old-self" => old_self_rule(&s, has_s, &sref, &lref, rng),
        "bounds" => {
            if has_s {
                extra.push_str(&bound(schema, &n.ptr, &s, "maxLength", rng));
            }
            if l != "__none__" {
                extra.push_str(&bound(schema, &n.ptr, &l, "maxItems", rng));
            }
            json!({"rule": guard(rng.pick(&[
                format!("{sref}.matches('^[a-z]+$')"), format!("{lref}.all(a, {lref}.exists(b, a.contains(b)))"),
                format!("{sref} + {sref} != ''"), format!("!format.dns1123Label().validate({sref}).hasValue()"),
                format!("{lref}.all(e, e.matches('^[a-z]{{1,10}}$'))"), format!("{lref}.map(a, a + {sref}).all(x, x.contains({sref}))"),
            ]).clone())})
        }
        "nesting" => nesting_rule(&sref, rng),
        // Defaults at the root (kind, apiVersion) are refused by static checks.
        "defaults" if has_s && !n.ptr.is_empty() => {
            if set_default(schema, &n.ptr, &s) {
                extra.push_str(" default=abc");
            }
            json!({"rule": rng.pick(&[
                format!("{sref} == oldSelf.{s}"), "self == oldSelf".to_owned(), format!("{sref}.size() > 0"),
                format!("{sref}.noSuch() == oldSelf.{s}"), "oldSelf.hasValue()".to_owned(),
                format!("{sref} != 'abc'"), format!("{sref}.startsWith('a') && {sref}.size() < 10"),
                format!("oldSelf.{s} != {sref}"), format!("{sref} in ['abc', 'def']"), format!("{sref}.upperAscii() == 'ABC'"),
                format!("!has(self.{s}) || {sref}.endsWith('c')"), format!("{sref}.matches('^a')"),
            ]).clone()})
        }
        "token-soup" => soup_rule(has_s, &sref, rng),
        "total-cost" => json!({"rule": guard(rng.pick(&[
            format!("{sref}.matches('^[a-z]+([-.][a-z0-9]+)*$')"), format!("{lref}.all(e, e.matches('^[a-z]+$'))"),
            format!("!format.dns1123Subdomain().validate({sref}).hasValue()"), format!("{sref}.contains('abc')"),
        ]).clone())}),
        _ => json!({"rule": rng.pick(&[
            sref.clone(), "1".to_owned(), format!("size({sref})"), "self".to_owned(), "null".to_owned(),
            format!("{sref} == 'a' ? 1 : 2"),
        ]).clone()}),
    };
    let what = format!("{}{}", rule, extra);
    (vec![rule], what)
}

const LIBRARY_FAMILIES: [&str; 8] = [
    "strings", "lists", "regex", "url", "quantity", "ip-cidr", "format", "semver",
];

/// A rule of one of the library families.
fn library_rule(
    fam: &str,
    sref: &str,
    lref: &str,
    rng: &mut Rng,
    guard: &dyn Fn(String) -> String,
) -> Value {
    match fam {
        "strings" => json!({"rule": guard(rng.pick(&[
            format!("{sref}.startsWith('a')"), format!("{sref}.endsWith('z')"), format!("{sref}.contains('-')"),
            format!("{sref}.lowerAscii() == {sref}"), format!("{sref}.upperAscii() != ''"), format!("{sref}.trim() != ''"),
            format!("{sref}.split(',').size() < 10"), format!("{sref}.split(',').join('-') != ''"),
            format!("{sref}.replace('a', 'bb') != ''"), format!("{sref}.indexOf('a') >= 0"),
            format!("{sref}.lastIndexOf('.') < 5"), format!("{sref}.substring(1) != ''"), format!("size({sref}) <= 64"),
            format!("{sref} + {sref} != 'x'"), format!("string({sref}) + string({sref}) != ''"),
            format!("{sref} < 'm'"), format!("{sref}.charAt(0) != 'a'"),
        ]).clone())}),
        "lists" => json!({"rule": rng.pick(&[
            format!("{lref}.all(e, e != '')"), format!("{lref}.exists(e, e == 'x')"), format!("{lref}.exists_one(e, e == 'x')"),
            format!("{lref}.map(e, e + 'x').size() >= 0"), format!("{lref}.filter(e, e.startsWith('a')).size() < 3"),
            format!("'x' in {lref}"), format!("size({lref}) < 100"), format!("{lref}.isSorted()"),
            format!("{lref}.all(a, {lref}.all(b, a == b || a != b))"), format!("{lref}.indexOf('a') < 3"),
            format!("{lref}.map(e, e.size()).sum() < 1000"), format!("{lref}.map(x, x, x + 'y').size() >= 0"),
            "self.all(k, k != '')".to_owned(),
        ]).clone()}),
        "regex" => json!({"rule": guard(rng.pick(&[
            format!("{sref}.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"), format!("{sref}.matches('[a-z')"),
            format!("matches({sref}, '^a+$')"), format!("{sref}.find('[0-9]+') != ''"),
            format!("{sref}.findAll('a').size() < 3"), format!("{sref}.matches('^[0-9]{{12}}$')"),
            format!("{sref}.matches('(?i)abc')"), format!("{sref}.matches('a**')"),
            format!("{sref}.matches('[z-a]')"), format!("{sref}.matches('(?P<n>a+)b')"), format!("{sref}.matches('a{{2,1}}')"),
            format!("{sref}.matches('[[:alpha:]]+')"), format!("{sref}.matches('x{{1001}}')"), format!("{sref}.matches('(?=a)')"),
            format!("matches({sref}, '[')"), format!("{sref}.find('(a') == ''"), format!("{sref}.matches('^[a-z0-9.-]+$')"),
            format!("{sref}.matches('a|*')"), format!("{sref}.matches('(?is:a.b)')"), format!("{sref}.matches('\\\\d+')"),
        ]).clone())}),
        "url" => json!({"rule": guard(rng.pick(&[
            format!("isURL({sref})"), format!("isURL({sref}) && url({sref}).getHost() != ''"),
            format!("url({sref}).getScheme() == 'https'"), format!("isURL({sref}) && url({sref}).getQuery().size() == 0"),
        ]).clone())}),
        "quantity" => json!({"rule": guard(rng.pick(&[
            format!("isQuantity({sref})"), format!("quantity({sref}).isLessThan(quantity('1Gi'))"),
            format!("quantity({sref}).sign() >= 0"), format!("sign(quantity({sref})) >= 0"),
            format!("quantity({sref}) == quantity('1')"), format!("quantity({sref}).asInteger() > 0"),
            format!("quantity({sref}).add(quantity('1')).isGreaterThan(quantity('0'))"),
        ]).clone())}),
        "ip-cidr" => json!({"rule": guard(rng.pick(&[
            format!("isIP({sref})"), format!("ip({sref}).family() == 4"), format!("isCIDR({sref})"),
            format!("cidr({sref}).containsIP('10.0.0.1')"), format!("cidr({sref}).containsCIDR(cidr('10.0.0.0/8'))"),
            format!("ip.isCanonical({sref})"), format!("cidr({sref}).ip().isLoopback()"),
            format!("ip({sref}) == ip('127.0.0.1')"),
        ]).clone())}),
        "format" => json!({"rule": guard(rng.pick(&[
            format!("!format.dns1123Label().validate({sref}).hasValue()"),
            format!("!format.dns1123Subdomain().validate({sref}).hasValue()"),
            "format.named('dns1123Label').hasValue()".to_owned(), format!("format.dns1123Label().validate({sref}) == optional.none()"),
            format!("!format.qualifiedName().validate({sref}).hasValue()"), "format.uuid() == format.uuid()".to_owned(),
        ]).clone())}),
        "semver" => json!({"rule": guard(rng.pick(&[
            format!("isSemver({sref})"), format!("semver({sref}).major() >= 1"),
            format!("semver({sref}).isLessThan(semver('1.0.0'))"), format!("isSemver({sref}, true)"),
            format!("semver({sref}) == semver('1.2.3')"),
        ]).clone())}),
        "duration-timestamp" => json!({"rule": guard(rng.pick(&[
            format!("duration({sref}) < duration('1h')"), "duration('1h') > duration('30m')".to_owned(),
            "duration('1x') > duration('0')".to_owned(), "duration('') == duration('0')".to_owned(),
            "timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00+01:00')".to_owned(),
            "timestamp('2020-13-01') < timestamp('2021-01-01T00:00:00Z')".to_owned(),
            format!("timestamp({sref}).getFullYear() > 2000"), format!("duration({sref}) == duration('1m')"),
            "duration('1.5h').getMinutes() == 90".to_owned(), "duration('-5ms') < duration('1us')".to_owned(),
        ]).clone())}),
        _ => json!({"rule": "true"}),
    }
}

/// A rule nested or sized around cel-go's limits.
fn nesting_rule(sref: &str, rng: &mut Rng) -> Value {
    let depth = *rng.pick(&[5usize, 50, 100, 120, 200, 240, 249, 250, 251, 300]);
    let e = match rng.below(7) {
        6 => format!("{sref} != '{}'", "a".repeat(99_960 + rng.below(60))),
        0 => format!("{}{sref} != ''{}", "(".repeat(depth), ")".repeat(depth)),
        1 => vec![format!("{sref} != ''"); depth].join(" && "),
        2 => format!("{}1{} != []", "[".repeat(depth), "]".repeat(depth)),
        3 => format!("{} > 0", vec![format!("size({sref})"); depth].join(" + ")),
        4 => format!("{sref}{} != ''", ".lowerAscii()".repeat(depth)),
        _ => format!("{}false", "true ? true : ".repeat(depth)),
    };
    json!({"rule": e})
}

/// A rule of random CEL tokens.
fn soup_rule(has_s: bool, sref: &str, rng: &mut Rng) -> Value {
    const TOKENS: [&str; 40] = [
        "self",
        "oldSelf",
        ".",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "?",
        ".?",
        "==",
        "!=",
        "<",
        "+",
        "-",
        "!",
        "&&",
        "||",
        "'a'",
        "\"b\"",
        "1",
        "2.5",
        "3u",
        "true",
        "null",
        "size",
        "all",
        "exists",
        "map",
        "has",
        "in",
        "e",
        "0x1F",
        "-1",
        "matches",
        "startsWith",
        "[0]",
    ];
    let mut words: Vec<String> = (0..1 + rng.below(12))
        .map(|_| (*rng.pick(&TOKENS)).to_owned())
        .collect();
    if has_s && rng.below(2) == 0 {
        words.insert(rng.below(words.len() + 1), sref.to_owned());
    }
    json!({"rule": words.join(" ")})
}

/// An `oldSelf` placement or an `optionalOldSelf` idiom.
fn old_self_rule(s: &str, has_s: bool, sref: &str, lref: &str, rng: &mut Rng) -> Value {
    rng.pick(&[
            json!({"rule": format!("{sref} == oldSelf.{}", if has_s { s } else { "x" })}),
            json!({"rule": "self == oldSelf"}),
            json!({"rule": "oldSelf.hasValue()"}),
            json!({"rule": "!oldSelf.hasValue() || self == oldSelf.value()", "optionalOldSelf": true}),
            json!({"rule": format!("{sref} != ''"), "optionalOldSelf": true}),
            json!({"rule": format!("{sref} != ''"), "optionalOldSelf": false}),
            json!({"rule": "oldSelf.orValue(self) == self", "optionalOldSelf": true}),
            json!({"rule": format!("oldSelf.?{s}.orValue('') == self.?{s}.orValue('')"), "optionalOldSelf": true}),
            json!({"rule": format!("self.?{s}.orValue('') != 'x'")}),
            json!({"rule": format!("oldSelf.{s}.orValue('') == {sref}"), "optionalOldSelf": true}),
            json!({"rule": format!("self.?{s}.nope.hasValue()")}),
            json!({"rule": format!("{lref}[?0].orValue('') != 'x'")}),
            json!({"rule": format!("{lref}.all(e, e != '') && self == oldSelf")}),
        ]).clone()
}

/// Sets `default: abc` on string property `prop` of the node at `ptr`, when no `enum`,
/// `pattern` or `minLength` could refuse it.
fn set_default(schema: &mut Value, ptr: &str, prop: &str) -> bool {
    let esc = prop.replace('~', "~0").replace('/', "~1");
    let Some(p) = schema
        .pointer_mut(&format!("{ptr}/properties/{esc}"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    if p.get("enum").is_some() || p.get("pattern").is_some() || p.get("minLength").is_some() {
        return false;
    }
    p.insert("default".into(), json!("abc"));
    true
}
