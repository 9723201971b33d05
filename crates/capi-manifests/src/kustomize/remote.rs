//! Which names in a kustomization kustomize would fetch instead of reading from the tree.
//!
//! kustomize v5.5.0 tries every directory-like name (`resources`, `bases`, `components`) as a
//! git repository first and reads it as a local path only when that parse fails
//! (`api/internal/git/repospec.go`, `NewRepoSpecFromURL`, called by the file loader's
//! `New`), and loads a name with an `http://` or `https://` scheme as a remote file. So a
//! preflight that refuses "remote" names must accept exactly what that parser accepts, or a
//! form it did not think of (`deploy@127.0.0.1:org/repo.git`, `GITHUB.COM/org/repo`,
//! `github.com:org/repo`, `GIT::GitHub.com/org/repo`) reaches `git fetch`.
//!
//! [`is_git_repo_spec`] is the same decision, written from that parser's rules:
//! 1. an absolute path is never a repository; the query (after `?`) is set aside;
//! 2. a `git::` prefix is dropped (any case); a scheme `ssh://`, `https://`, `http://` or
//!    `file://` is taken (any case); a user name `[a-zA-Z][a-zA-Z0-9-]*@` is taken;
//! 3. without a scheme, only the scp-like form is a repository: a user name, or a host
//!    `github.com` (any case) followed by `/` or `:`; any other scheme is refused;
//! 4. the host ends at the first `/` (or, in the scp-like form, at a `:` before it) and must
//!    not be empty;
//! 5. the rest must name a repository: a `_git/` marker, a `//` or a `.git` splits it,
//!    otherwise the first two segments do (every segment for `file://`); the repository
//!    part must not be empty and the path inside it must not climb out of it (`..`).

/// True when kustomize v5.5.0 would clone `name` as a git repository (see the module docs).
///
/// ```
/// use capi_manifests::kustomize::is_git_repo_spec;
/// assert!(is_git_repo_spec("deploy@127.0.0.1:org/repo.git"));
/// assert!(is_git_repo_spec("GIT::GitHub.com/org/repo"));
/// assert!(!is_git_repo_spec("../base"));
/// assert!(!is_git_repo_spec("bases/crds.yaml"));
/// ```
#[must_use]
pub fn is_git_repo_spec(name: &str) -> bool {
    if name.starts_with('/') {
        return false;
    }
    let name = name.split_once('?').map_or(name, |(path, _)| path);
    let Some(rest) = after_host(name) else {
        return false;
    };
    repo_path_parts(rest.path, rest.file_scheme)
}

/// A name with its scheme, user and host taken off.
struct AfterHost<'a> {
    path: &'a str,
    file_scheme: bool,
}

/// `name` without its `git::` prefix, scheme, user and host; `None` when kustomize's
/// parser refuses the host part (so the name is read as a local path).
fn after_host(name: &str) -> Option<AfterHost<'_>> {
    let name = strip_prefix_ignore_case(name, "git::").unwrap_or(name);
    let (scheme, name) = ["ssh://", "https://", "http://", "file://"]
        .iter()
        .find_map(|s| strip_prefix_ignore_case(name, s).map(|rest| (Some(*s), rest)))
        .unwrap_or((None, name));
    let (user, name) = match user_name_len(name) {
        Some(n) => (true, &name[n..]),
        None => (false, name),
    };
    let github = {
        let lower = name.get(..11).map(str::to_ascii_lowercase);
        matches!(lower.as_deref(), Some("github.com/" | "github.com:"))
    };
    let scp = scheme.is_none() && (user || github);
    if scheme.is_none() && !scp {
        return None;
    }
    if scheme == Some("file://") {
        return Some(AfterHost {
            path: name,
            file_scheme: true,
        });
    }
    let slash = name.find('/');
    let colon = name.find(':');
    let separator = match (scp, slash, colon) {
        (true, None, colon) => colon,
        (true, Some(slash), Some(colon)) if colon > 0 && colon < slash => Some(colon),
        _ => slash,
    };
    let (host, path) = match separator {
        Some(i) => (&name[..=i], &name[i + 1..]),
        None => (name, ""),
    };
    // The github.com forms are normalised to a host of their own, never empty.
    if host.is_empty() && !github {
        return None;
    }
    Some(AfterHost {
        path,
        file_scheme: false,
    })
}

/// The length of a leading user name and its `@` (`[a-zA-Z][a-zA-Z0-9-]*@`).
fn user_name_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    if !chars.next()?.1.is_ascii_alphabetic() {
        return None;
    }
    for (i, c) in chars {
        match c {
            '@' => return Some(i + 1),
            c if c.is_ascii_alphanumeric() || c == '-' => {}
            _ => return None,
        }
    }
    None
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Whether `path` splits into a non-empty repository and a path inside it that stays in it.
fn repo_path_parts(path: &str, file_scheme: bool) -> bool {
    let split = explicit_split(path).or_else(|| {
        if file_scheme {
            return Some((path.to_owned(), String::new()));
        }
        let segments: Vec<&str> = path.split('/').collect();
        (segments.len() >= 2).then(|| (segments[..2].join("/"), segments[2..].join("/")))
    });
    let Some((repo, inside)) = split else {
        return false;
    };
    !repo.is_empty() && !climbs_out(&inside)
}

/// The repository and the path inside it, by `_git/`, `//` or `.git`.
fn explicit_split(path: &str) -> Option<(String, String)> {
    if let Some(i) = path.find("_git/") {
        let (repo, rest) = path.split_at(i + "_git/".len());
        let mut segments = rest.split('/');
        let first = segments.next().unwrap_or_default();
        let inside: Vec<&str> = segments.collect();
        return Some((format!("{repo}{first}"), inside.join("/")));
    }
    if let Some(i) = path.find("//") {
        return Some((path[..i].to_owned(), path[i + 2..].to_owned()));
    }
    path.find(".git").map(|i| {
        let end = i + ".git".len();
        (path[..end].to_owned(), path[end..].to_owned())
    })
}

/// Whether a path inside the repository starts by climbing out of it once cleaned.
fn climbs_out(inside: &str) -> bool {
    let mut depth = 0usize;
    for segment in inside.trim_start_matches('/').split('/') {
        match segment {
            "" | "." => {}
            ".." if depth == 0 => return true,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names kustomize v5.5.0 clones (each form of `repospec.go`'s `extractHost` and
    /// `parsePathParts`), and names it reads from the tree.
    #[test]
    fn the_forms_kustomize_clones() {
        for remote in [
            // scp-like with a user: the host ends at the colon.
            "deploy@127.0.0.1:org/repo.git",
            "git@github.com:kubernetes-sigs/cluster-api.git/config/crd?ref=v1.10.0",
            "alice@example.com:team/repo",
            // github.com in any case, with `/` or `:`.
            "github.com/org/repo",
            "GITHUB.COM/org/repo/config",
            "github.com:org/repo",
            "GitHub.com:org/repo//sub",
            // the forced-git prefix, any case.
            "git::https://example.com/org/repo",
            "GIT::GitHub.com/org/repo",
            // schemes, any case.
            "https://example.com/org/repo",
            "HTTPS://example.com/org/repo/path",
            "ssh://git@example.com/org/repo.git",
            "http://10.0.0.1/a/b",
            "file:///srv/git/repo",
            // the `_git/` marker (Azure DevOps) and `//` root markers.
            "https://dev.azure.com/org/project/_git/repo/path",
            "https://example.com/org/repo//kustomize/base",
        ] {
            assert!(is_git_repo_spec(remote), "{remote} is cloned by kustomize");
        }
        for local in [
            "bases/crds.yaml",
            "../base",
            "/abs/path/repo.git",
            "patches",
            // no scheme, no user, not github.com: read as a local path.
            "example.com:org/repo",
            "gitlab.com/org/repo",
            // a scheme kustomize refuses.
            "ftp://example.com/org/repo",
            // the path inside the repository climbs out of it.
            "github.com/org/repo/../../x",
            // a user, but no repository path.
            "deploy@host",
        ] {
            assert!(!is_git_repo_spec(local), "{local} is read from the tree");
        }
    }

    #[test]
    fn user_names_are_kustomizes() {
        assert_eq!(user_name_len("git@host"), Some(4));
        assert_eq!(user_name_len("a-1@host"), Some(4));
        assert_eq!(user_name_len("1a@host"), None);
        assert_eq!(user_name_len("a.b@host"), None);
        assert_eq!(user_name_len("host"), None);
    }
}
