use super::*;

const NOW: i64 = 1_795_608_000_000; // 2026-11-25T12:00:00Z

#[test]
fn at_takes_relative_times_times_of_day_and_now() {
    assert_eq!(parse_at("now", NOW), Ok(None));
    assert_eq!(parse_at("-5m", NOW), Ok(Some(NOW - 300_000)));
    assert_eq!(parse_at("-30s", NOW), Ok(Some(NOW - 30_000)));
    assert_eq!(parse_at("-1h30m", NOW), Ok(Some(NOW - 5_400_000)));
    assert_eq!(parse_at("11:42", NOW), Ok(Some(NOW - 18 * 60_000)));
    assert_eq!(
        parse_at("11:42:13", NOW),
        Ok(Some(NOW - 18 * 60_000 + 13_000))
    );
}

/// Issue 39: `:at 23:59` earlier in the day showed the oldest state (taken as yesterday's);
/// a time later than now is refused in one line.
#[test]
fn a_time_of_day_later_than_now_is_refused() {
    assert_eq!(
        parse_at("13:00", NOW),
        Err("13:00 UTC is later than now (12:00:00 UTC): :at shows the past".to_string())
    );
    assert_eq!(parse_at("12:00:00", NOW), Ok(Some(NOW)));
}

#[test]
fn a_malformed_time_is_an_error_naming_the_forms() {
    for bad in ["-5", "-m", "-5x", "25:00", "10:61", "yesterday", "-0s"] {
        let e = parse_at(bad, NOW).expect_err(bad);
        assert!(!e.is_empty(), "{bad}");
    }
}

#[test]
fn ago_reads_hours_minutes_and_seconds() {
    assert_eq!(ago(NOW - 252_000, NOW), "−4m12s");
    assert_eq!(ago(NOW - 30_000, NOW), "−30s");
    assert_eq!(ago(NOW - 3_723_000, NOW), "−1h2m3s");
}
