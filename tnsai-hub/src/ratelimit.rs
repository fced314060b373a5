//! A token bucket per device: `rate_burst` requests at once, refilled at
//! `rate_per_second`. It lives in memory; a restart forgives everyone.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Bucket {
    tokens: f64,
    last: Instant,
}

/// Per-device request budget.
pub(crate) struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimiter {
    pub(crate) fn new(rate_per_second: f64, burst: u32) -> Self {
        Self {
            rate: rate_per_second.max(f64::MIN_POSITIVE),
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `device`'s budget, or says how long until one is free.
    pub(crate) fn check(&self, device: &str, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let bucket = buckets.entry(device.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            last: now,
        });
        let elapsed = now.saturating_duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.rate).min(self.burst);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / self.rate;
            Err(Duration::try_from_secs_f64(wait).unwrap_or(Duration::MAX))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill_per_device() {
        let limiter = RateLimiter::new(2.0, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check("a", t0).is_ok());
        }
        let wait = limiter.check("a", t0).unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_millis(500));
        assert!(
            limiter.check("b", t0).is_ok(),
            "devices have separate budgets"
        );
        assert!(limiter.check("a", t0 + Duration::from_millis(500)).is_ok());
        assert!(limiter.check("a", t0 + Duration::from_millis(500)).is_err());
    }
}
