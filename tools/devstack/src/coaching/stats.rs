//! Figures over lifters with bootstrap intervals. Every figure is a ratio of sums over events
//! (a mean error is the sum of errors over the count, a precision true positives over
//! positives), kept per lifter, so that resampling lifters (the unit the benchmark generalises
//! over) resamples whole histories: a lifter's sessions are not independent of each other.

/// A figure's numerator and denominator, one entry per lifter.
#[derive(Debug, Clone, Default)]
pub struct Ratio {
    pub num: Vec<f64>,
    pub den: Vec<f64>,
}

impl Ratio {
    pub fn new(lifters: usize) -> Ratio {
        Ratio {
            num: vec![0.0; lifters],
            den: vec![0.0; lifters],
        }
    }

    pub fn add(&mut self, lifter: usize, num: f64, den: f64) {
        self.num[lifter] += num;
        self.den[lifter] += den;
    }

    /// The figure over `lifters` (indices, repeats allowed); None without any event.
    pub fn value(&self, lifters: &[usize]) -> Option<f64> {
        let den: f64 = lifters.iter().map(|&i| self.den[i]).sum();
        (den > 0.0).then(|| lifters.iter().map(|&i| self.num[i]).sum::<f64>() / den)
    }

    pub fn count(&self, lifters: &[usize]) -> f64 {
        lifters.iter().map(|&i| self.den[i]).sum()
    }
}

/// A seeded xorshift: the intervals are the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % n as u64) as usize
    }
}

pub const RESAMPLES: usize = 2000;

/// A point estimate with its 95 % percentile interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

/// `f` over `lifters` and over resamples of them.
fn bootstrap(
    lifters: &[usize],
    seed: u64,
    f: impl Fn(&[usize]) -> Option<f64>,
) -> Option<Estimate> {
    let value = f(lifters)?;
    let mut rng = Rng::new(seed);
    let mut draws = Vec::with_capacity(RESAMPLES);
    let mut sample = vec![0; lifters.len()];
    for _ in 0..RESAMPLES {
        for s in sample.iter_mut() {
            *s = lifters[rng.below(lifters.len())];
        }
        if let Some(x) = f(&sample) {
            draws.push(x);
        }
    }
    if draws.is_empty() {
        return None;
    }
    Some(Estimate {
        value,
        low: percentile(&mut draws, 0.025),
        high: percentile(&mut draws, 0.975),
    })
}

pub fn interval(r: &Ratio, lifters: &[usize]) -> Option<Estimate> {
    bootstrap(lifters, 0x5eed, |l| r.value(l))
}

/// `a − b` on the same resamples (paired: both figures from the same lifters).
pub fn difference(a: &Ratio, b: &Ratio, lifters: &[usize]) -> Option<Estimate> {
    bootstrap(lifters, 0x5eed, |l| Some(a.value(l)? - b.value(l)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_pools_events_and_the_interval_holds_the_point() {
        let mut r = Ratio::new(3);
        r.add(0, 2.0, 2.0);
        r.add(1, 0.0, 1.0);
        r.add(2, 3.0, 3.0);
        assert_eq!(r.value(&[0, 1, 2]), Some(5.0 / 6.0));
        let e = interval(&r, &[0, 1, 2]).unwrap();
        assert!(e.low <= e.value && e.value <= e.high);
        assert!(e.low < e.high);
        // A difference with itself is exactly zero on every resample.
        let d = difference(&r, &r, &[0, 1, 2]).unwrap();
        assert_eq!((d.value, d.low, d.high), (0.0, 0.0, 0.0));
    }
}
