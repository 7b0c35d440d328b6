//! Small text helpers the writers share: one-line previews, sizes, times.

pub(crate) use sess_sources::one_line;

/// A size in bytes, for people: `512 B`, `12.3 KiB`, `4.0 MiB`.
pub(crate) fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

/// `2026-08-21 14:00` from an ISO 8601 timestamp as an agent wrote it (the
/// time as written, without converting its zone); `None` when it is not one.
pub(crate) fn short_time(iso: &str) -> Option<String> {
    let (date, time) = iso.split_once('T')?;
    let minutes = time.get(..5)?;
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit() || c == '-' || c == ':');
    (date.len() == 10 && digits(date) && digits(minutes)).then(|| format!("{date} {minutes}"))
}

/// How long from `start` to `end` (ISO 8601 timestamps): `850 ms`, `3.2 s`,
/// `2m 05s`; `None` when either is not a time or the end is before the start.
pub(crate) fn duration(start: &str, end: &str) -> Option<String> {
    let start: jiff::Timestamp = start.parse().ok()?;
    let end: jiff::Timestamp = end.parse().ok()?;
    let ms = end.duration_since(start).as_millis();
    let ms = u64::try_from(ms).ok()?;
    Some(match ms {
        0..1000 => format!("{ms} ms"),
        1000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => {
            let seconds = (ms + 500) / 1000;
            format!("{}m {:02}s", seconds / 60, seconds % 60)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_and_cuts() {
        assert_eq!(one_line("  a\n\tb  c ", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("ab cd", 2), "ab…");
        assert_eq!(one_line("ab cd", 5), "ab cd");
        assert_eq!(one_line("日本語のテキスト", 3), "日本語…");
        assert_eq!(one_line("", 3), "");
    }

    #[test]
    fn sizes() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(2048), "2.0 KiB");
        assert_eq!(size(3 * 1_048_576), "3.0 MiB");
    }

    #[test]
    fn times_and_durations() {
        assert_eq!(short_time("2026-08-21T14:05:09.500Z").as_deref(), Some("2026-08-21 14:05"));
        assert_eq!(short_time("yesterday"), None);
        assert_eq!(short_time("<b>T12:00</b>"), None);
        let at = |s: &str| format!("2026-01-01T00:{s}Z");
        assert_eq!(duration(&at("00:00.000"), &at("00:00.850")).as_deref(), Some("850 ms"));
        assert_eq!(duration(&at("00:00.000"), &at("00:03.200")).as_deref(), Some("3.2 s"));
        assert_eq!(duration(&at("00:00"), &at("02:05")).as_deref(), Some("2m 05s"));
        assert_eq!(duration(&at("00:00.000"), &at("01:59.700")).as_deref(), Some("2m 00s"));
        assert_eq!(duration(&at("00:05"), &at("00:00")), None);
        assert_eq!(duration("x", &at("00:00")), None);
    }
}
