//! Masking secrets before a session leaves the machine (`sess export
//! --redact`, the page's Export).

use sess_sources::Transcript;

/// Masks every secret the bundled rules find in `transcript` (its title,
/// texts, tool inputs and results, subagent turns); how many.
pub(crate) fn transcript(transcript: &mut Transcript) -> usize {
    sess_export::Redactor::bundled().redact_transcript(transcript)
}
