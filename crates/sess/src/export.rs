//! A transcript written to leave the machine (`sess export`, the page's
//! Export): its secrets masked when asked, the diffs of its edits, then
//! Markdown or a standalone HTML page.

use sess_export::Redactor;
use sess_sources::Transcript;

use crate::{ExportFormat, ExportParams, Exported};

/// What a transcript gets before it is written, wherever it goes: with
/// `redact`, its secrets masked (its title, texts, tool inputs and results,
/// subagent turns); then the diffs of its edits, made from the tool inputs
/// as they are by then (masked too). How many secrets were masked, when
/// they were looked for.
pub fn prepare(transcript: &mut Transcript, redact: bool) -> Option<usize> {
    let masked = redact.then(|| Redactor::bundled().redact_transcript(transcript));
    sess_sources::add_diffs(transcript);
    masked
}

/// The bytes of `transcript` written as `format`.
pub fn write(transcript: &Transcript, format: ExportFormat) -> Vec<u8> {
    match format {
        ExportFormat::Markdown => {
            sess_export::to_markdown(transcript, &sess_export::MarkdownOptions::default()).into_bytes()
        }
        ExportFormat::Html => sess_export::to_html_document(transcript).into_bytes(),
    }
}

/// `transcript` prepared and written as `params` ask.
pub fn export(mut transcript: Transcript, params: &ExportParams) -> Exported {
    let masked = prepare(&mut transcript, params.redact);
    let bytes = write(&transcript, params.format);
    Exported { name: transcript.id.clone(), bytes, masked }
}
