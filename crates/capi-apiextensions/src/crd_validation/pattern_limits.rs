//! The two size limits Go's `regexp/syntax` parser puts on a pattern that is otherwise well
//! formed (go1.26, `parse.go`), which the `regex` crate does not share:
//!
//! - **nested repetition**: a `{m,n}` repetition (with `m` or `n` at least 2) whose
//!   repetitions nested inside multiply past 1000 is refused as `invalid repeat count:
//!   \`{…}\`` (`repeatIsValid(re, 1000)`: at each repetition the budget is divided by its
//!   count, its maximum or, when unbounded, its minimum; `*`, and a count of 0, end the
//!   check below them): `(a{100}){100}` is refused, `(a{2}){500}` is not;
//! - **nesting depth**: a parse tree higher than 1000 nodes is refused as `expression nests
//!   too deeply` with the whole pattern (`checkHeight`): 1000 nested capture groups around
//!   nothing are refused, 999 are not.
//!
//! The depth is known here only within bounds: every capture group is a node of Go's tree
//! (a lower bound of its height), and a group level adds at most four (capture, alternation,
//! concatenation, repetition). Between the bounds the pattern is left not judged.

/// What the limits say of a pattern the syntax scan accepted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Limits {
    /// Within both limits.
    Within,
    /// Go refuses it, for this reason (as `error parsing regexp: ` prints it).
    Refused(String),
    /// The nesting depth may or may not pass Go's check.
    Unknown,
}

/// The most Go allows: repetition product and tree height (`maxHeight`, `1000` in
/// `repeatIsValid`).
const MAX: u64 = 1000;

/// One group being read: the largest repetition need of its finished items, and the need of
/// its last item (which a repetition operator may still apply to).
#[derive(Default)]
struct Frame {
    capture: bool,
    done: u64,
    last: u64,
}

impl Frame {
    /// A new item starts: the last one is finished.
    fn next_item(&mut self, need: u64) {
        self.done = self.done.max(self.last);
        self.last = need;
    }

    fn need(&self) -> u64 {
        self.done.max(self.last)
    }
}

/// Checks `chars` (already accepted by the syntax scan) against Go's limits.
pub(super) fn check(chars: &[char]) -> Limits {
    let pattern: String = chars.iter().collect();
    let mut stack = vec![Frame::default()];
    let (mut captures, mut max_captures, mut max_groups) = (0u64, 0u64, 0u64);
    let mut i = 0;
    while i < chars.len() {
        let top = stack.len() - 1;
        match chars[i] {
            '\\' => {
                i = escape_end(chars, i);
                stack[top].next_item(0);
                continue;
            }
            '[' => {
                i = super::pattern::class_end(chars, i).map_or(chars.len(), |end| end + 1);
                stack[top].next_item(0);
                continue;
            }
            '(' => {
                let (capture, body) = group_start(chars, i);
                if body == usize::MAX {
                    // `(?flags)`: no group.
                    i = chars[i..]
                        .iter()
                        .position(|c| *c == ')')
                        .map_or(chars.len(), |p| i + p + 1);
                    continue;
                }
                captures += u64::from(capture);
                max_captures = max_captures.max(captures);
                stack.push(Frame {
                    capture,
                    ..Frame::default()
                });
                max_groups = max_groups.max(stack.len() as u64 - 1);
                i = body;
                continue;
            }
            ')' if stack.len() > 1 => {
                let frame = stack.pop().unwrap_or_default();
                captures -= u64::from(frame.capture);
                let top = stack.len() - 1;
                stack[top].next_item(frame.need());
            }
            '|' => stack[top].next_item(0),
            '*' => stack[top].last = 0,
            '+' | '?' => stack[top].last = stack[top].last.max(1),
            '{' => {
                if let Some((end, min, max)) = super::pattern::repeat(chars, i) {
                    let need = if max == 0 {
                        0
                    } else {
                        max.saturating_mul(stack[top].last.max(1))
                    };
                    if (min >= 2 || max >= 2) && need > MAX {
                        let op: String = chars[i..=end].iter().collect();
                        return Limits::Refused(format!("invalid repeat count: `{op}`"));
                    }
                    stack[top].last = need;
                    i = end + 1;
                    continue;
                }
                stack[top].next_item(0);
            }
            _ => stack[top].next_item(0),
        }
        i += 1;
    }
    // Capture groups and the leaf below them are nodes of Go's tree; each group level adds
    // at most four (capture, alternation, concatenation, repetition), the top three more.
    if max_captures + 1 > MAX {
        Limits::Refused(format!("expression nests too deeply: `{pattern}`"))
    } else if 4 * max_groups + 4 > MAX {
        Limits::Unknown
    } else {
        Limits::Within
    }
}

/// The index after the escape at `i` (`\x{…}`, `\p{…}` and `\P{…}` run to their `}`).
fn escape_end(chars: &[char], i: usize) -> usize {
    match chars.get(i + 1) {
        Some('x' | 'p' | 'P') if chars.get(i + 2) == Some(&'{') => chars[i..]
            .iter()
            .position(|c| *c == '}')
            .map_or(chars.len(), |p| i + p + 1),
        Some('x') => i + 4,
        _ => i + 2,
    }
}

/// Whether the group at `i` captures, and where its body starts (`usize::MAX` for a flag
/// setting `(?i)`, which opens no group).
fn group_start(chars: &[char], i: usize) -> (bool, usize) {
    if chars.get(i + 1) != Some(&'?') {
        return (true, i + 1);
    }
    match chars.get(i + 2) {
        Some('P' | '<') => {
            let close = chars[i..]
                .iter()
                .position(|c| *c == '>')
                .map_or(chars.len(), |p| i + p);
            (true, close + 1)
        }
        _ => {
            let end = chars[i + 2..]
                .iter()
                .position(|c| matches!(c, ':' | ')'))
                .map_or(chars.len(), |p| i + 2 + p);
            if chars.get(end) == Some(&')') {
                (false, usize::MAX)
            } else {
                (false, end + 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(p: &str) -> Limits {
        check(&p.chars().collect::<Vec<_>>())
    }

    /// Go 1.26's `regexp.Compile` on each pattern (run with the toolchain of this machine):
    /// the refusals and their quoted operators.
    #[test]
    fn go_refuses_nested_repetitions_over_1000() {
        for (pattern, op) in [
            ("(a{100}){100}", "{100}"),
            ("((a{10}){10}){11}", "{11}"),
            ("(a*){1001}", "{1001}"),
            ("(?:a{2}){501}", "{501}"),
            ("(a{0,1000}){2}", "{2}"),
        ] {
            assert_eq!(
                limits(pattern),
                Limits::Refused(format!("invalid repeat count: `{op}`")),
                "{pattern}"
            );
        }
        for pattern in [
            "((a{10}){10}){10}",
            "(a{2}){500}",
            "(a{1000}){1}",
            "((a{100})*){10}",
            "(a+){1000}",
            "[a{]{1000}",
            r"\{(a){1000}",
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        ] {
            assert_eq!(limits(pattern), Limits::Within, "{pattern}");
        }
    }

    #[test]
    fn go_refuses_trees_higher_than_1000() {
        let nested = |n: usize| format!("{}{}", "(".repeat(n), ")".repeat(n));
        let refused = nested(1000);
        assert_eq!(
            limits(&refused),
            Limits::Refused(format!("expression nests too deeply: `{refused}`"))
        );
        // 999 capture groups are accepted by Go; here they are between the bounds.
        assert_eq!(limits(&nested(999)), Limits::Unknown);
        assert_eq!(limits(&nested(200)), Limits::Within);
        assert_eq!(
            limits(&format!("{}a{}", "(?:".repeat(300), ")".repeat(300))),
            Limits::Unknown
        );
    }
}
