//! The error of the usage reports.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A price table that is not one.
    #[error("not a price table: {0}")]
    Prices(String),
    /// A time zone the system does not know.
    #[error("unknown time zone `{zone}`: {reason}")]
    TimeZone {
        /// The name given.
        zone: String,
        /// Why it is not one.
        reason: String,
    },
    /// A date that is not `YYYY-MM-DD` or `YYYYMMDD`.
    #[error("not a date: `{0}` (expected YYYY-MM-DD or YYYYMMDD)")]
    Date(String),
}

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
