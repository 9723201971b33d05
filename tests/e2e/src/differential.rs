//! What the generated differentials share: a fixed-seed proptest runner, a small deterministic
//! chooser for mutations, and the tally that prints cases by family and outcome and fails on
//! any disagreement.

use std::cell::RefCell;
use std::collections::BTreeMap;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A runner of `cases` cases drawn from a fixed seed (reproducible in CI).
pub fn runner(cases: u32, seed: u8) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// A small deterministic choice from a seed.
pub struct Pick(pub u64);

impl Pick {
    /// A number below `n` (0 when `n` is 0).
    pub fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }

    /// One of `items`.
    pub fn of<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next(items.len())]
    }

    /// True one time in `in_n`.
    pub fn chance(&mut self, in_n: usize) -> bool {
        self.next(in_n) == 0
    }
}

/// Cases by family and outcome, and the disagreements, of one differential run.
#[derive(Default)]
pub struct Tally {
    counts: RefCell<BTreeMap<(&'static str, &'static str), usize>>,
    disagreements: RefCell<Vec<String>>,
}

/// The outcome a disagreement is counted under.
pub const DISAGREE: &str = "disagree";

impl Tally {
    /// Counts one case; with a `disagreement` text, the outcome is [`DISAGREE`].
    pub fn record(
        &self,
        family: &'static str,
        outcome: &'static str,
        disagreement: Option<String>,
    ) {
        let outcome = match disagreement {
            Some(text) => {
                self.disagreements.borrow_mut().push(text);
                DISAGREE
            }
            None => outcome,
        };
        *self
            .counts
            .borrow_mut()
            .entry((family, outcome))
            .or_default() += 1;
    }

    /// Prints the table; fails unless every family agreed at least once and nothing
    /// disagreed.
    pub fn finish(self, cases: u32, families: &[&str]) {
        let counts = self.counts.into_inner();
        eprintln!("{cases} mutants by family and outcome:");
        for ((family, outcome), n) in &counts {
            eprintln!("  {family:12} {outcome:32} {n}");
        }
        for family in families {
            assert!(
                counts.keys().any(|(f, o)| f == family && *o != DISAGREE),
                "family {family} never drawn, or never agreed on"
            );
        }
        let disagreements = self.disagreements.into_inner();
        assert!(
            disagreements.is_empty(),
            "{} disagreements with the API server:\n{}",
            disagreements.len(),
            disagreements.join("\n")
        );
    }
}
