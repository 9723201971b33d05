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

/// The limits' bookkeeping while [`super::pattern`]'s scan reads a pattern: one frame per open
/// group, the capture groups open, the deepest nesting, and the first repetition over the
/// limit (reported only if the scan accepts the whole pattern, as Go parses before it counts).
pub(super) struct Tracker {
    stack: Vec<Frame>,
    captures: u64,
    max_captures: u64,
    max_groups: u64,
    refused: Option<String>,
}

impl Default for Tracker {
    fn default() -> Self {
        Self {
            stack: vec![Frame::default()],
            captures: 0,
            max_captures: 0,
            max_groups: 0,
            refused: None,
        }
    }
}

impl Tracker {
    fn top(&mut self) -> &mut Frame {
        if self.stack.is_empty() {
            self.stack.push(Frame::default());
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// An atom, a class or an alternation bar: a new item that needs no repetition.
    pub(super) fn item(&mut self) {
        self.top().next_item(0);
    }

    /// A group opens (`capture`: a numbered or named group).
    pub(super) fn open(&mut self, capture: bool) {
        self.captures += u64::from(capture);
        self.max_captures = self.max_captures.max(self.captures);
        self.stack.push(Frame {
            capture,
            ..Frame::default()
        });
        self.max_groups = self.max_groups.max(self.stack.len() as u64 - 1);
    }

    /// A group closes: it is the last item of its parent, needing what its items need.
    pub(super) fn close(&mut self) {
        if self.stack.len() > 1 {
            let frame = self.stack.pop().unwrap_or_default();
            self.captures -= u64::from(frame.capture);
            self.top().next_item(frame.need());
        } else {
            self.item();
        }
    }

    /// `*`: what it repeats may be repeated any number of times, so nothing below counts.
    pub(super) fn star(&mut self) {
        self.top().last = 0;
    }

    /// `+` or `?` (also the `?` making a repetition lazy).
    pub(super) fn plus_or_question(&mut self) {
        let top = self.top();
        top.last = top.last.max(1);
    }

    /// `{min,max}` (written `op`) repeats the last item.
    pub(super) fn counted(&mut self, op: &str, min: u64, max: u64) {
        let top = self.top();
        let need = if max == 0 {
            0
        } else {
            max.saturating_mul(top.last.max(1))
        };
        if (min >= 2 || max >= 2) && need > MAX && self.refused.is_none() {
            self.refused = Some(format!("invalid repeat count: `{op}`"));
        }
        self.top().last = need;
    }

    /// The verdict on the whole pattern `pattern`, read without a syntax error.
    pub(super) fn verdict(self, pattern: &str) -> Limits {
        // Capture groups and the leaf below them are nodes of Go's tree; each group level
        // adds at most four (capture, alternation, concatenation, repetition), the top three
        // more.
        if let Some(reason) = self.refused {
            Limits::Refused(reason)
        } else if self.max_captures + 1 > MAX {
            Limits::Refused(format!("expression nests too deeply: `{pattern}`"))
        } else if 4 * self.max_groups + 4 > MAX {
            Limits::Unknown
        } else {
            Limits::Within
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(p: &str) -> Limits {
        super::super::pattern::limits_of(p).unwrap_or_else(Limits::Refused)
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
