//! URLs split as Go's `net/url.Parse` splits them (go1.26 `net/url/url.go`): the parts
//! `ValidateWebhookURL` looks at (scheme, user information, host, query, fragment), and the
//! parse errors with Go's text. Go lowercases the scheme (`HTTPS://x` is `https`), refuses a
//! host holding a character outside its set (a space) and a `%` not followed by two hex
//! digits anywhere, and unescapes the host and the fragment it reports.

/// The parts of a URL as Go's `url.Parse` returns them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GoUrl {
    /// The scheme, lowercased.
    pub(crate) scheme: String,
    /// The user information as written, when an `@` is in the authority.
    pub(crate) user: Option<String>,
    /// The host (and port), unescaped.
    pub(crate) host: String,
    /// The raw query (after `?`).
    pub(crate) query: String,
    /// The fragment (after `#`), unescaped.
    pub(crate) fragment: String,
}

/// Which part `unescape` reads (Go's `encoding` modes that matter here).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Host,
    Other,
}

impl GoUrl {
    /// `url.Parse(raw)`; the error is `url.Error`'s text (`parse "https://a b": invalid
    /// character " " in host name`).
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
        let quoted = |s: &str| crate::go_quote(s);
        let mut url =
            parse_reference(before).map_err(|e| format!("parse {}: {e}", quoted(before)))?;
        if !fragment.is_empty() {
            url.fragment = unescape(fragment, Part::Other)
                .map_err(|e| format!("parse {}: {e}", quoted(raw)))?;
        }
        Ok(url)
    }
}

/// Go's `parse(rawURL, viaRequest=false)`, without the fragment.
fn parse_reference(raw: &str) -> Result<GoUrl, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let (scheme, rest) = scheme(raw)?;
    let scheme = scheme.to_ascii_lowercase();
    let (rest, query) = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        (&rest[..rest.len() - 1], "")
    } else {
        rest.split_once('?').unwrap_or((rest, ""))
    };
    let mut url = GoUrl {
        scheme,
        user: None,
        host: String::new(),
        query: query.to_owned(),
        fragment: String::new(),
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path: opaque, no host.
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or_default();
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, tail) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        path = tail;
        let (user, host) = authority_parts(&url.scheme, authority)?;
        url.user = user;
        url.host = host;
    }
    unescape(path, Part::Other)?;
    Ok(url)
}

/// Go's `getScheme`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, b) in raw.bytes().enumerate() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseAuthority`: the user information and the host.
fn authority_parts(scheme: &str, authority: &str) -> Result<(Option<String>, String), String> {
    let (user, hostport) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let host = host(scheme, hostport)?;
    let Some(user) = user else {
        return Ok((None, host));
    };
    let valid = user.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    });
    if !valid {
        return Err("net/url: invalid userinfo".into());
    }
    let (name, password) = user.split_once(':').unwrap_or((user, ""));
    unescape(name, Part::Other)?;
    unescape(password, Part::Other)?;
    Ok((Some(user.to_owned()), host))
}

/// Go's `parseHost` (strict colons for `http` and `https`, as go1.26 by default).
fn host(scheme: &str, host: &str) -> Result<String, String> {
    match host.rfind('[') {
        Some(i) if i > 0 => return Err("invalid IP-literal".into()),
        Some(_) => return bracketed(host),
        None => {}
    }
    if let Some(first) = host.find(':') {
        let last = host.rfind(':').unwrap_or(first);
        let at = if last != first && matches!(scheme, "http" | "https") {
            first
        } else {
            last
        };
        let port = &host[at..];
        if !valid_port(port) {
            return Err(format!("invalid port {} after host", crate::go_quote(port)));
        }
    }
    unescape(host, Part::Host)
}

/// An IP literal in brackets (`[fe80::1]:443`); zones are taken as written.
fn bracketed(host: &str) -> Result<String, String> {
    let Some(close) = host.rfind(']') else {
        return Err("missing ']' in host".into());
    };
    let port = &host[close + 1..];
    if !valid_port(port) {
        return Err(format!("invalid port {} after host", crate::go_quote(port)));
    }
    let inner = &host[1..close];
    let (address, zone) = match inner.find("%25") {
        Some(i) => (&inner[..i], Some(&inner[i..])),
        None => (inner, None),
    };
    let address = unescape(address, Part::Host)?;
    if zone.is_none() && address.parse::<std::net::Ipv4Addr>().is_ok() {
        return Err("invalid IP-literal".into());
    }
    if zone.is_none() && address.parse::<std::net::Ipv6Addr>().is_err() {
        return Err(format!(
            "invalid host: ParseAddr({}): unable to parse IP",
            crate::go_quote(&address)
        ));
    }
    Ok(format!("[{address}{}]{port}", zone.unwrap_or_default()))
}

/// Go's `validOptionalPort`.
fn valid_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Go's `unescape` for a host or another part: `%` must start two hex digits (in a host, only
/// `%25` or an escape of a non-ASCII byte), and a host holds only Go's host characters.
fn unescape(s: &str, part: Part) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
            let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) else {
                let end = (i + 3).min(bytes.len());
                let shown = String::from_utf8_lossy(&bytes[i..end]);
                return Err(format!("invalid URL escape {}", crate::go_quote(&shown)));
            };
            if part == Part::Host && hi < 8 && &s[i..i + 3] != "%25" {
                return Err(format!(
                    "invalid URL escape {}",
                    crate::go_quote(&s[i..i + 3])
                ));
            }
            out.push(u8::try_from(hi * 16 + lo).unwrap_or_default());
            i += 3;
            continue;
        }
        if part == Part::Host && b < 0x80 && !host_byte(b) {
            let shown = char::from(b).to_string();
            return Err(format!(
                "invalid character {} in host name",
                crate::go_quote(&shown)
            ));
        }
        out.push(b);
        i += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The ASCII bytes Go's `shouldEscape(c, encodeHost)` lets stand in a host.
fn host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
                | b'-'
                | b'_'
                | b'.'
                | b'~'
        )
}

#[cfg(test)]
mod tests {
    use super::GoUrl;

    /// Go 1.26's `url.Parse` on the forms the webhook validation meets (each checked against
    /// the `net/url` source: `getScheme`, `parseHost`, `unescape`, `Error.Error`).
    #[test]
    fn parses_as_go_does() {
        let ok = GoUrl::parse("HTTPS://Example.com:8443/a%20b?x=1#f%41")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ok.scheme, "https");
        assert_eq!(ok.host, "Example.com:8443");
        assert_eq!(ok.query, "x=1");
        assert_eq!(ok.fragment, "fA");
        for (raw, error) in [
            (
                "https://a b/",
                r#"parse "https://a b/": invalid character " " in host name"#,
            ),
            (
                "https://host/%zz",
                r#"parse "https://host/%zz": invalid URL escape "%zz""#,
            ),
            (
                "https://host/%4",
                r#"parse "https://host/%4": invalid URL escape "%4""#,
            ),
            (
                "https://h%41/",
                r#"parse "https://h%41/": invalid URL escape "%41""#,
            ),
            (
                "https://host:x/",
                r#"parse "https://host:x/": invalid port ":x" after host"#,
            ),
            (
                "https://a:1:2/",
                r#"parse "https://a:1:2/": invalid port ":1:2" after host"#,
            ),
            (
                "https://h/#%g",
                r#"parse "https://h/#%g": invalid URL escape "%g""#,
            ),
            ("://x", r#"parse "://x": missing protocol scheme"#),
            ("a:b/c:d", "ok"),
            (
                "1a:b",
                r#"parse "1a:b": first path segment in URL cannot contain colon"#,
            ),
            (
                "https://[::1",
                r#"parse "https://[::1": missing ']' in host"#,
            ),
            (
                "https://[1.2.3.4]/",
                r#"parse "https://[1.2.3.4]/": invalid IP-literal"#,
            ),
            (
                "https://u^@h/",
                r#"parse "https://u^@h/": net/url: invalid userinfo"#,
            ),
        ] {
            let got = GoUrl::parse(raw).map_or_else(|e| e, |_| "ok".to_owned());
            assert_eq!(got, error, "{raw}");
        }
        let opaque = GoUrl::parse("https:host").unwrap_or_else(|e| panic!("{e}"));
        assert!(opaque.host.is_empty());
    }
}
