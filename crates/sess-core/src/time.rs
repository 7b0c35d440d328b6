//! Timestamps as the peers parse them (`new Date(text).getTime()`).

/// Milliseconds since the Unix epoch of an ISO 8601 timestamp, or `None` where
/// JavaScript's `Date.parse` would give `NaN`.
///
/// Accepts `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally followed by
/// `THH:mm`, `:ss`, a fraction of any length, and `Z` or `±HH:mm`; six-digit years
/// with a sign. A date-time without an offset is read as UTC (JavaScript would
/// read it in the local zone; the peers always write `Z`).
pub fn parse_iso_millis(text: &str) -> Option<i64> {
    let mut p = Cursor { bytes: text.as_bytes(), pos: 0 };
    let year = match p.peek() {
        Some(sign @ (b'+' | b'-')) => {
            p.pos += 1;
            let y = p.digits(6)?;
            if sign == b'-' {
                if y == 0 {
                    return None;
                }
                -y
            } else {
                y
            }
        }
        _ => p.digits(4)?,
    };
    let (mut month, mut day) = (1, 1);
    if p.eat(b'-') {
        month = p.digits(2)?;
        if p.eat(b'-') {
            day = p.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut millis) = (0, 0, 0, 0);
    let mut offset_minutes = 0;
    if p.eat(b'T') {
        hour = p.digits(2)?;
        p.expect(b':')?;
        minute = p.digits(2)?;
        if p.eat(b':') {
            second = p.digits(2)?;
            if p.eat(b'.') {
                millis = p.fraction_millis()?;
            }
        }
        if p.eat(b'Z') {
        } else if let Some(sign @ (b'+' | b'-')) = p.peek() {
            p.pos += 1;
            let oh = p.digits(2)?;
            p.expect(b':')?;
            let om = p.digits(2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            let total = oh * 60 + om;
            offset_minutes = if sign == b'-' { -total } else { total };
        }
        let midnight_end = hour == 24 && minute == 0 && second == 0 && millis == 0;
        if (hour > 23 && !midnight_end) || minute > 59 || second > 59 {
            return None;
        }
    }
    if p.pos != p.bytes.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let ms = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis - offset_minutes * 60_000;
    // ECMAScript dates span ±8.64e15 ms around the epoch.
    (ms.abs() <= 8_640_000_000_000_000).then_some(ms)
}

/// The ISO 8601 form `new Date(ms).toISOString()` gives: UTC, milliseconds and
/// a trailing `Z`, e.g. `2026-11-30T07:04:55.593Z`. Years outside 0..=9999 use
/// the six-digit signed form.
pub fn format_iso_millis(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second, millis) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    let mut out = String::with_capacity(27);
    if (0..=9999).contains(&year) {
        push_digits(&mut out, year, 4);
    } else {
        out.push(if year < 0 { '-' } else { '+' });
        push_digits(&mut out, year.abs(), 6);
    }
    for (separator, value, width) in
        [('-', month, 2), ('-', day, 2), ('T', hour, 2), (':', minute, 2), (':', second, 2), ('.', millis, 3)]
    {
        out.push(separator);
        push_digits(&mut out, value, width);
    }
    out.push('Z');
    out
}

/// Appends the last `width` decimal digits of `value` (≥ 0), zero-padded.
fn push_digits(out: &mut String, value: i64, width: u32) {
    for place in (0..width).rev() {
        let digit = value / 10_i64.pow(place) % 10;
        out.push(char::from(b'0' + u8::try_from(digit).unwrap_or(0)));
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    fn digits(&mut self, count: usize) -> Option<i64> {
        let slice = self.bytes.get(self.pos..self.pos + count)?;
        let mut value = 0i64;
        for &b in slice {
            if !b.is_ascii_digit() {
                return None;
            }
            value = value * 10 + i64::from(b - b'0');
        }
        self.pos += count;
        Some(value)
    }

    fn fraction_millis(&mut self) -> Option<i64> {
        let start = self.pos;
        let mut millis = 0i64;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            if self.pos - start < 3 {
                millis = millis * 10 + i64::from(b - b'0');
            }
            self.pos += 1;
        }
        let len = self.pos - start;
        if len == 0 {
            return None;
        }
        for _ in len..3 {
            millis *= 10;
        }
        Some(millis)
    }
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::{format_iso_millis, parse_iso_millis};
    use rstest::rstest;

    #[rstest]
    #[case::peer_format("2026-11-30T07:04:55.593Z", Some(1_796_022_295_593))]
    #[case::no_fraction("2025-01-01T00:00:00Z", Some(1_735_689_600_000))]
    #[case::date_only("1970-01-02", Some(86_400_000))]
    #[case::year_month("1970-02", Some(31 * 86_400_000))]
    #[case::offset("1970-01-01T01:00:00+01:00", Some(0))]
    #[case::long_fraction("1970-01-01T00:00:00.123456Z", Some(123))]
    #[case::short_fraction("1970-01-01T00:00:00.5Z", Some(500))]
    #[case::end_of_day("1970-01-01T24:00:00Z", Some(86_400_000))]
    #[case::before_epoch("1969-12-31T23:59:59.999Z", Some(-1))]
    #[case::extended_year("+002026-11-30T07:04:55.593Z", Some(1_796_022_295_593))]
    #[case::garbage("yesterday", None)]
    #[case::empty("", None)]
    #[case::bad_month("2026-13-01", None)]
    #[case::bad_day("2026-02-29", None)]
    #[case::leap_day("2024-02-29", Some(1_709_164_800_000))]
    #[case::trailing("2026-11-30T07:04:55Zx", None)]
    fn parses_like_date_parse(#[case] text: &str, #[case] expected: Option<i64>) {
        assert_eq!(parse_iso_millis(text), expected);
    }

    #[rstest]
    #[case(0, "1970-01-01T00:00:00.000Z")]
    #[case(1_796_022_295_593, "2026-11-30T07:04:55.593Z")]
    #[case(-1, "1969-12-31T23:59:59.999Z")]
    #[case(1_709_164_800_000, "2024-02-29T00:00:00.000Z")]
    #[case(253_402_300_800_000, "+010000-01-01T00:00:00.000Z")]
    #[case(-62_167_219_200_000 - 86_400_000, "-000001-12-31T00:00:00.000Z")]
    fn formats_like_to_iso_string(#[case] ms: i64, #[case] expected: &str) {
        assert_eq!(format_iso_millis(ms), expected);
        assert_eq!(parse_iso_millis(expected), Some(ms));
    }
}
