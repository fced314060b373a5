//! The FIPA date-time token: `YYYYMMDDThhmmssSSS` plus a type designator.
//!
//! This crate writes UTC with the `Z` designator. It reads `Z` and, since a
//! time without a designator is local to an unknown zone, also treats a bare
//! time as UTC. Relative times (`+`/`-` prefixed) and other designators are
//! rejected: they cannot be turned into an instant without more context.

use chrono::{DateTime, NaiveDate, Utc};

use super::AclError;
use super::lexer::is_date_time;

const FORMAT: &str = "%Y%m%dT%H%M%S%3fZ";

pub(super) fn write(time: DateTime<Utc>, out: &mut impl std::fmt::Write) -> std::fmt::Result {
    write!(out, "{}", time.format(FORMAT))
}

pub(super) fn parse(text: &str, offset: usize) -> Result<DateTime<Utc>, AclError> {
    let invalid = || AclError::InvalidDateTime {
        offset,
        text: text.to_owned(),
    };
    if !is_date_time(text) || text.starts_with(['+', '-']) {
        return Err(invalid());
    }
    let body = match text.strip_suffix(['Z', 'z']) {
        Some(body) => body,
        None if text.len() == 18 => text,
        None => return Err(invalid()),
    };
    let field = |range: std::ops::Range<usize>| -> Option<u32> { body.get(range)?.parse().ok() };
    let date = field(0..4)
        .and_then(|year| i32::try_from(year).ok())
        .zip(field(4..6))
        .zip(field(6..8))
        .and_then(|((year, month), day)| NaiveDate::from_ymd_opt(year, month, day));
    let time = date.and_then(|date| {
        let millis = field(15..18)?;
        date.and_hms_milli_opt(field(9..11)?, field(11..13)?, field(13..15)?, millis)
    });
    time.map(|naive| naive.and_utc()).ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn writes_and_reads_utc_to_the_millisecond() {
        let t = Utc
            .with_ymd_and_hms(2025, 3, 7, 9, 5, 1)
            .single()
            .map(|t| t + chrono::Duration::milliseconds(42));
        let Some(t) = t else {
            panic!("valid date");
        };
        let mut text = String::new();
        assert!(write(t, &mut text).is_ok());
        assert_eq!(text, "20250307T090501042Z");
        assert_eq!(parse(&text, 0), Ok(t));
        assert_eq!(parse("20250307T090501042", 0), Ok(t));
    }

    #[test]
    fn rejects_relative_impossible_and_zoned_times() {
        for bad in [
            "+20250307T090501042",
            "20251307T090501042Z",
            "20250230T090501042Z",
            "20250307T250501042Z",
            "20250307T090501042A",
        ] {
            assert!(
                matches!(
                    parse(bad, 7),
                    Err(AclError::InvalidDateTime { offset: 7, .. })
                ),
                "{bad}"
            );
        }
    }
}
