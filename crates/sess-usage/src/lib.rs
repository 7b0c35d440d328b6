//! Token and cost reports over the model calls of every agent's sessions.
//!
//! The calls come from the agents' own records (each source reads them, the
//! catalog keeps them); here they are priced ([`Prices`], a dated table
//! bundled with `sess` or given as a file) and summed ([`Report`]) by day,
//! month, session, project or model, in a time zone, between two days. No
//! I/O: the caller reads the rows and the price file.

mod error;
mod key;
mod prices;
mod report;
mod tokens;

pub use error::{Error, Result};
pub use jiff::civil::Date;
pub use jiff::tz::TimeZone;
pub use key::key_hash;
pub use prices::{Price, Prices, Tier};
pub use report::{Breakdown, By, Group, Options, Report, Row, SessionOf, Sum, UNKNOWN_MODEL, day_of};
pub use tokens::Tokens;

/// The time zone named `name` (an IANA name such as `Europe/Paris`, or
/// `UTC`); the system's own zone when `None`.
pub fn zone(name: Option<&str>) -> Result<TimeZone> {
    match name {
        None => Ok(TimeZone::system()),
        Some(name) => {
            TimeZone::get(name).map_err(|err| Error::TimeZone { zone: name.to_owned(), reason: err.to_string() })
        }
    }
}

/// A day written `YYYY-MM-DD` or `YYYYMMDD`.
pub fn parse_date(text: &str) -> Result<Date> {
    let digits: String = text.chars().filter(|c| *c != '-').collect();
    let valid =
        digits.len() == 8 && digits.bytes().all(|b| b.is_ascii_digit()) && (text.len() == 8 || text.len() == 10);
    let date =
        valid.then(|| format!("{}-{}-{}", &digits[..4], &digits[4..6], &digits[6..])).and_then(|iso| iso.parse().ok());
    date.ok_or_else(|| Error::Date(text.to_owned()))
}

#[cfg(test)]
mod tests;
