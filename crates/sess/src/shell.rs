//! Words as a POSIX shell reads them, for the commands sess suggests.

/// `text` as one POSIX shell word: as is when nothing in it is special to the
/// shell, else in single quotes.
pub fn shell_word(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
