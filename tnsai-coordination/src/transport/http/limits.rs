//! Per-sender rate limiting: one token bucket per sender.

use std::time::{Duration, Instant};

use dashmap::DashMap;

use super::config::RateLimit;

/// Buckets are forgotten after this long without a request, so that a stream of new
/// senders cannot grow the table without bound.
const IDLE: Duration = Duration::from_secs(60);
/// Above this many senders, idle buckets are swept on the next request.
const SWEEP_ABOVE: usize = 10_000;

struct Bucket {
    tokens: f64,
    last: Instant,
}

pub(crate) struct RateLimiter {
    limit: RateLimit,
    buckets: DashMap<String, Bucket>,
}

impl RateLimiter {
    pub(crate) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            buckets: DashMap::new(),
        }
    }

    /// `Ok` when `sender` may make a request now; otherwise how long until it may.
    pub(crate) fn check(&self, sender: &str) -> Result<(), Duration> {
        let now = Instant::now();
        if self.buckets.len() > SWEEP_ABOVE {
            self.buckets
                .retain(|_, bucket| now.duration_since(bucket.last) < IDLE);
        }
        let rate = f64::from(self.limit.rate());
        let burst = f64::from(self.limit.burst());
        let mut bucket = self.buckets.entry(sender.to_owned()).or_insert(Bucket {
            tokens: burst,
            last: now,
        });
        let elapsed = now.duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refused_per_sender() {
        let limiter = RateLimiter::new(RateLimit::per_second(1).with_burst(2));
        assert!(limiter.check("a").is_ok());
        assert!(limiter.check("a").is_ok());
        let wait = limiter.check("a").unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(1));
        assert!(limiter.check("b").is_ok(), "senders have their own buckets");
    }
}
