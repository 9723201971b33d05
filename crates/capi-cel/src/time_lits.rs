//! `duration('...')` and `timestamp('...')` literals as Go parses them
//! (`time.ParseDuration`; `time.Parse(time.RFC3339, ...)`), for the server's literal
//! validators: `Some(true)` accepted, `Some(false)` refused, `None` not modelled.

/// Go's `time.ParseDuration` on `s` (near overflow: not modelled).
pub(crate) fn duration(s: &str) -> Option<bool> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if body == "0" {
        return Some(true);
    }
    if body.is_empty() {
        return Some(false);
    }
    let chars: Vec<char> = body.chars().collect();
    let (mut i, mut total) = (0, 0f64);
    while i < chars.len() {
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect();
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Some(false);
        }
        let unit_start = i;
        while i < chars.len() && !(chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let unit: String = chars[unit_start..i].iter().collect();
        let nanos = match unit.as_str() {
            "ns" => 1.0,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Some(false),
        };
        let Ok(v) = number.parse::<f64>() else {
            return None;
        };
        total += v * nanos;
    }
    // Go refuses durations past about 292 years; near the boundary its integer arithmetic
    // decides.
    if total < 9.0e18 { Some(true) } else { None }
}

/// Go's RFC 3339 parse of `s`, where the form is the plain one
/// (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`); anything else is not modelled.
pub(crate) fn timestamp(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let shape = b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':';
    let (Some(year), Some(month), Some(day), Some(hour), Some(min), Some(sec)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return None;
    };
    if !shape {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let zone_ok = rest == "Z"
        || (rest.len() == 6
            && rest.starts_with(['+', '-'])
            && rest.as_bytes()[3] == b':'
            && digits_ok(&rest[1..3], 23)
            && digits_ok(&rest[4..6], 59));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let date_ok = (1..=12).contains(&month) && day >= 1 && day <= days[(month.max(1) - 1) as usize];
    if zone_ok && date_ok && hour < 24 && min < 60 && sec < 60 && year >= 1 {
        Some(true)
    } else {
        None
    }
}

fn digits_ok(s: &str, max: u32) -> bool {
    s.bytes().all(|c| c.is_ascii_digit()) && s.parse::<u32>().is_ok_and(|v| v <= max)
}
