//! Model tokens a call or a turn cost (the store keeps a daily count per user).

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Every input token, whether the provider read it from its prompt cache or not.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    /// Input tokens the provider read from its prompt cache (part of `input_tokens`).
    pub cached_input_tokens: u64,
    /// Input tokens the provider wrote to its prompt cache (Bedrock; part of `input_tokens`).
    pub cache_write_tokens: u64,
    /// What the daily allowance is charged: the total with cached input at its price
    /// ([`CachePrice`]). Equal to the total without a cache.
    pub charged_tokens: u64,
}

impl Usage {
    /// A call's figures, its charge worked out at `price`.
    pub fn new(input: u64, output: u64, cached: u64, written: u64, price: CachePrice) -> Usage {
        let mut u = Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input + output,
            cached_input_tokens: cached.min(input),
            cache_write_tokens: written.min(input.saturating_sub(cached)),
            charged_tokens: 0,
        };
        u.charged_tokens = u.charge(price);
        u
    }

    /// The tokens charged at `price`: uncached input and output whole, cached input at the
    /// read price, input written to the cache at the write price (rounded up).
    pub fn charge(&self, price: CachePrice) -> u64 {
        let cached = self.cached_input_tokens.min(self.input_tokens);
        let written = self
            .cache_write_tokens
            .min(self.input_tokens.saturating_sub(cached));
        let plain = self.input_tokens - cached - written + self.output_tokens;
        // In thousandths of a token, so that 10 tokens at 0.7 are 7, not 7.000000000000001.
        let milli = |p: f64| (p * 1000.0).round().max(0.0) as u64;
        let priced = cached * milli(price.read) + written * milli(price.write);
        plain + priced.div_ceil(1000)
    }
}

/// The price of a cached input token as a share of an uncached one: read from the cache, and
/// written to it (where the provider charges the write).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CachePrice {
    pub read: f64,
    pub write: f64,
}

impl CachePrice {
    /// No discount and no premium: every token whole.
    pub const WHOLE: CachePrice = CachePrice {
        read: 1.0,
        write: 1.0,
    };
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.total_tokens += other.total_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.charged_tokens += other.charged_tokens;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_input_is_charged_at_its_price() {
        // 2,000 input tokens of which 1,500 came from the cache at a tenth: 500 + 150 + 100 out.
        let price = CachePrice {
            read: 0.1,
            write: 1.25,
        };
        let u = Usage::new(2_000, 100, 1_500, 0, price);
        assert_eq!((u.total_tokens, u.charged_tokens), (2_100, 750));
        // Writing 1,500 to the cache costs a quarter more than sending them.
        let u = Usage::new(2_000, 100, 0, 1_500, price);
        assert_eq!(u.charged_tokens, 500 + 1_875 + 100);
        // Without a cache every token is whole; figures that do not add up are clamped.
        assert_eq!(Usage::new(2_000, 100, 0, 0, price).charged_tokens, 2_100);
        let odd = Usage::new(100, 0, 400, 400, CachePrice::WHOLE);
        assert_eq!((odd.cached_input_tokens, odd.cache_write_tokens), (100, 0));
        let seventy = CachePrice {
            read: 0.7,
            write: 1.0,
        };
        assert_eq!(Usage::new(10, 0, 10, 0, seventy).charged_tokens, 7);
        let mut sum = Usage::new(2_000, 100, 1_500, 0, price);
        sum += Usage::new(2_000, 100, 0, 0, price);
        assert_eq!(
            (sum.cached_input_tokens, sum.charged_tokens),
            (1_500, 2_850)
        );
    }
}
