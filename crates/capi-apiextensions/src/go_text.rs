//! Values printed as Go's `fmt` prints them, for messages that must read as the API
//! server's: `%q` of a string (`strconv.Quote`) and `%v` of a float64.

/// Go's `strconv.Quote`: double quotes, `\a \b \f \n \r \t \v \\ \"` escaped, printable
/// characters kept, other characters as `\xNN` (below U+0080), `\uNNNN` or `\UNNNNNNNN`.
///
/// "Printable" follows Go's `unicode.IsPrint` for everything a Kubernetes value plausibly
/// holds: letters, marks, numbers, punctuation, symbols and the ASCII space are kept; control
/// and format characters, non-ASCII spaces and private-use characters are escaped. Unassigned
/// code points (which Go also escapes) are kept: Rust's standard library has no table of them.
#[must_use]
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space
/// (so not U+00A0, a no-break space); unassigned code points count as printable here (see
/// [`go_quote`]).
pub(crate) fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    let u = c as u32;
    let format = matches!(
        u,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    !(c.is_control() || c.is_whitespace() || format || private)
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(x, 'g', -1, 64)`): the shortest digits that
/// read back as `x`, in exponent form (`1e+06`, `1.5e-05`) when the decimal exponent is below
/// -4 or at least 6.
#[must_use]
pub fn go_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    // Rust's `{:e}` is the shortest round-trip form: `-1.5e-5`, `3e0`.
    let sci = format!("{x:e}");
    let Some((mantissa, exp)) = sci.split_once('e') else {
        return sci;
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return sci;
    };
    if (-4..6).contains(&exp) {
        // Fixed notation with the same digits.
        return format!("{x}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected strings are what Go 1.26 prints (`fmt.Sprintf("%q")`, `fmt.Sprint(float64)`),
    /// taken from Go's `strconv` and `fmt` documentation and tests.
    #[test]
    fn quotes_as_go_does() {
        assert_eq!(go_quote("a b"), r#""a b""#);
        assert_eq!(go_quote("tab\there"), r#""tab\there""#);
        assert_eq!(go_quote("q\"\\"), r#""q\"\\""#);
        assert_eq!(go_quote("\u{1}"), r#""\x01""#);
        assert_eq!(go_quote("\u{7f}"), r#""\x7f""#);
        assert_eq!(go_quote("é☺"), "\"é☺\"");
        assert_eq!(go_quote("\u{a0}"), r#""\u00a0""#);
        assert_eq!(go_quote("\u{feff}"), r#""\ufeff""#);
        assert_eq!(go_quote("\u{f0000}"), r#""\U000f0000""#);
    }

    #[test]
    fn floats_as_go_prints_them() {
        for (x, go) in [
            (3.0, "3"),
            (1.5, "1.5"),
            (100000.0, "100000"),
            (1_000_000.0, "1e+06"),
            (123_456_789.0, "1.23456789e+08"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
        ] {
            assert_eq!(go_float(x), go, "{x}");
        }
    }
}

/// Go's `encoding/json.Marshal` of a decoded JSON value: object keys sorted, `<`, `>`, `&`,
/// U+2028 and U+2029 escaped as `\u003c`-style sequences, as Go prints a `map[string]any`.
#[must_use]
pub fn go_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_go_json(value, &mut out);
    out
}

fn write_go_json(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json_string(k, out);
                out.push(':');
                write_go_json(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(item, out);
            }
            out.push(']');
        }
        Value::String(s) => write_go_json_string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

fn write_go_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod json_tests {
    use super::go_json;

    /// `encoding/json` sorts map keys and escapes HTML characters (Go documentation of
    /// `json.Marshal`: "map keys are sorted", "<, >, & are escaped to \u003c, \u003e, \u0026").
    #[test]
    fn marshals_as_go_does() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"b":[1,"<x>"],"a":{"d":true,"c":null}}"#).unwrap_or_default();
        assert_eq!(
            go_json(&v),
            r#"{"a":{"c":null,"d":true},"b":[1,"\u003cx\u003e"]}"#
        );
    }
}

/// Go's `%v` of a decoded JSON value (`map[a:1 b:[x y]]`, `<nil>`, strings bare).
#[must_use]
pub fn go_v(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_v).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_v(&map[k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// Go's `%T` of a decoded JSON value.
#[must_use]
pub fn go_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "<nil>",
        Value::String(_) => "string",
        Value::Number(n) if n.as_i64().is_some() => "int64",
        Value::Number(_) => "float64",
        Value::Bool(_) => "bool",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}
