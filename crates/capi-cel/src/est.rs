//! cel-go's size and cost estimates: `{min, max}` pairs with saturating `uint64` arithmetic
//! and cost factors rounded up (`math.Ceil`) as `checker/cost.go` does.

/// A size or cost estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Est {
    /// Minimum.
    pub min: u64,
    /// Maximum.
    pub max: u64,
}

/// cel-go's `StringTraversalCostFactor`.
pub const STRING_TRAVERSAL: f64 = 0.1;
/// cel-go's `RegexStringLengthCostFactor`.
pub const REGEX_LENGTH: f64 = 0.25;

impl Est {
    /// `{v, v}`.
    #[must_use]
    pub const fn fixed(v: u64) -> Est {
        Est { min: v, max: v }
    }
    /// `{0, MaxUint64}`.
    #[must_use]
    pub const fn unknown() -> Est {
        Est {
            min: 0,
            max: u64::MAX,
        }
    }
    /// Saturating sum.
    #[must_use]
    pub fn add(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    /// Saturating product.
    #[must_use]
    pub fn mul(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    /// Multiplied by a cost factor, rounded up.
    #[must_use]
    pub fn factor(self, f: f64) -> Est {
        Est {
            min: by_factor(self.min, f),
            max: by_factor(self.max, f),
        }
    }
    /// Smallest min, largest max.
    #[must_use]
    pub fn union(self, o: Est) -> Est {
        Est {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// cel-go's `multiplyByCostFactor`.
#[must_use]
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub fn by_factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > u64::MAX as f64 / f {
        return u64::MAX;
    }
    let ceil = (xf * f).ceil();
    if ceil >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    ceil as u64
}
