//! The string formats kube-openapi's default registry checks (`strfmt`) that this module
//! reproduces: `date-time`, `duration` and `byte`. A value of another format is not judged
//! ([`super::Schema::string_formats_in`]).

/// The check of `format`, when it is one of those reproduced here (`date-time` is also
/// registered as `datetime`).
pub(super) fn checker(format: &str) -> Option<fn(&str) -> bool> {
    match format {
        "date-time" | "datetime" => Some(is_date_time),
        "duration" => Some(is_duration),
        "byte" => Some(is_base64),
        _ => None,
    }
}

/// `strfmt.IsDateTime`: a full date (`time.Parse("2006-01-02")`) before the first `t` (after
/// lowercasing), and after it `^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`
/// with the hour at most `23`, minutes and seconds at most `59`.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    is_full_date(date) && is_time(time)
}

fn digits(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_digit)
}

fn is_time(t: &str) -> bool {
    let b = t.as_bytes();
    if b.len() < 9 || !digits(&b[0..2]) || b[2] != b':' || !digits(&b[3..5]) || b[5] != b':' {
        return false;
    }
    if !digits(&b[6..8]) || &t[0..2] > "23" || &t[3..5] > "59" || &t[6..8] > "59" {
        return false;
    }
    let rest = &t[8..];
    // `(.[0-9]+)?` is optional: the zone right away, or any one character and digits first
    // (a zone never starts with a digit, so the digits are taken greedily).
    let zone = |z: &str| {
        let b = z.as_bytes();
        z == "z"
            || (b.len() == 6
                && matches!(b[0], b'+' | b'-')
                && digits(&b[1..3])
                && b[3] == b':'
                && digits(&b[4..6]))
    };
    if zone(rest) {
        return true;
    }
    let Some(c) = rest.chars().next() else {
        return false;
    };
    let after = &rest[c.len_utf8()..];
    let end = after
        .find(|d: char| !d.is_ascii_digit())
        .unwrap_or(after.len());
    end > 0 && zone(&after[end..])
}

/// Go's `time.Parse("2006-01-02", s)`: four-digit year, two-digit month 01-12, two-digit day
/// within the month, nothing else.
fn is_full_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    if !digits(&b[0..4]) || !digits(&b[5..7]) || !digits(&b[8..10]) {
        return false;
    }
    let number = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or_default();
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `strfmt.ParseDuration`: Go's `time.ParseDuration`, else any `(\d+)\s*([A-Za-zµ]+)` whose
/// unit names one (`ns`/`nano…`, `us`/`µs`/`micro…`, `ms`/`milli…`, `s`/`sec…`,
/// `m`/`min…`, `h`/`hr`/`hour…`, `d`/`day…`, `w`/`wk`/`week…`, any case).
fn is_duration(s: &str) -> bool {
    go_duration(s) || scala_duration(s)
}

/// Go's `time.ParseDuration` grammar (overflow not checked): `[-+]?` then `0`, or one or more
/// `number unit` with a number of digits and an optional fraction.
fn go_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    while !rest.is_empty() {
        let int_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let mut after = &rest[int_end..];
        let mut fraction = 0;
        if let Some(f) = after.strip_prefix('.') {
            fraction = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
            after = &f[fraction..];
        }
        if int_end == 0 && fraction == 0 {
            return false;
        }
        let unit_end = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        if !matches!(
            &after[..unit_end],
            "ns" | "us" | "\u{b5}s" | "\u{3bc}s" | "ms" | "s" | "m" | "h"
        ) {
            return false;
        }
        rest = &after[unit_end..];
    }
    true
}

fn scala_duration(s: &str) -> bool {
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut ok = false;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let count: String = chars[start..i].iter().collect();
        let mut j = i;
        while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\n' | '\r' | '\u{c}') {
            j += 1;
        }
        let unit_start = j;
        while j < chars.len() && (chars[j].is_ascii_alphabetic() || chars[j] == 'µ') {
            j += 1;
        }
        if j == unit_start {
            continue;
        }
        if count.parse::<i64>().is_err() {
            // `strconv.Atoi` fails: the whole parse fails.
            return false;
        }
        let unit: String = chars[unit_start..j]
            .iter()
            .collect::<String>()
            .to_lowercase();
        ok |= UNITS.iter().any(|variants| {
            let last = variants.len() - 1;
            variants
                .iter()
                .enumerate()
                .any(|(k, v)| (k == last && unit.starts_with(v)) || v.eq_ignore_ascii_case(&unit))
        });
        i = j;
    }
    ok
}

/// govalidator's `IsBase64`:
/// `^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`.
fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    let symbol = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/');
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let (body, last) = b.split_at(b.len() - 4);
    body.iter().all(symbol)
        && match last {
            [a, b2, b'=', b'='] => symbol(a) && symbol(b2),
            [a, b2, c, b'='] => symbol(a) && symbol(b2) && symbol(c),
            quad => quad.iter().all(symbol),
        }
}

#[cfg(test)]
mod tests {
    use super::checker;

    /// Each against kube-openapi's `strfmt` (the server's messages for three of them in
    /// tests/e2e/tests/crd_named_cases.rs).
    #[test]
    fn formats_as_kube_openapi_checks_them() {
        let check = |format: &str, value: &str| checker(format).is_some_and(|f| f(value));
        for ok in [
            "2024-01-02T03:04:05Z",
            "2024-02-29t23:59:59.123+01:00",
            "2024-01-02T03:04:05ZT",
        ] {
            assert!(check("date-time", ok), "{ok}");
        }
        for bad in [
            "yesterday",
            "2023-02-29T00:00:00Z",
            "2024-01-02T24:00:00Z",
            "2024-01-02",
        ] {
            assert!(!check("date-time", bad), "{bad}");
        }
        for ok in ["1h30m", "0", "-1.5s", "3 days", "5 Minutes", "2wk"] {
            assert!(check("duration", ok), "{ok}");
        }
        for bad in ["1x", "", "h", "1.h2"] {
            assert!(!check("duration", bad), "{bad}");
        }
        for ok in ["aGk=", "aGVsbG8h", "YQ=="] {
            assert!(check("byte", ok), "{ok}");
        }
        for bad in ["!!", "aGk", "", "a==="] {
            assert!(!check("byte", bad), "{bad}");
        }
        assert!(checker("email").is_none());
    }
}
