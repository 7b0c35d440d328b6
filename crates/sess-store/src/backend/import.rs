//! Writing a whole session into a backend, preserving ids, parents, order and
//! bytes: what `sess copy` and the bulk paths use.

use std::ops::Range;

use sess_core::segment::{Deriver, Origin};
use sess_core::{Entry, SessionHeader};

use super::{Appended, Backend, NewSegment};
use crate::error::{Error, Result};

/// One write of a replay: a run of a session's entries (`entries`, a range of
/// them) that opens a segment or continues one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayStep {
    /// [`Backend::create_segment`] with `start`.
    Create {
        /// Where the segment starts.
        start: NewSegment,
        /// The run.
        entries: Range<usize>,
    },
    /// [`Backend::append`] to `segment`, which has `expected_len` entries.
    Append {
        /// The segment.
        segment: String,
        /// Its length before the run.
        expected_len: u64,
        /// The run.
        entries: Range<usize>,
    },
}

impl ReplayStep {
    /// The entries the step writes.
    pub fn entries(&self) -> Range<usize> {
        match self {
            Self::Create { entries, .. } | Self::Append { entries, .. } => entries.clone(),
        }
    }
}

/// The writes that store `entries[from..]` of a session whose first `from`
/// entries are stored already (by the same steps): each maximal run of
/// entries that continues one segment is one append (or one segment
/// creation), so the backend's segments are the entries' own derivation.
pub fn replay_steps(entries: &[Entry], from: usize) -> Vec<ReplayStep> {
    let mut deriver = Deriver::default();
    let placements: Vec<_> = entries.iter().map(|e| deriver.push(e)).collect();
    let segments = deriver.finish();
    let segment_id = |index: usize| entries[segments.segments[index].entries[0]].id().to_string();
    let mut steps = Vec::new();
    let mut start = from;
    while start < entries.len() {
        let first = placements[start];
        let mut end = start + 1;
        while end < entries.len()
            && placements[end].segment == first.segment
            && placements[end].seq == placements[end - 1].seq + 1
        {
            end += 1;
        }
        if first.seq == 0 {
            let segment = &segments.segments[first.segment];
            let parent = segment.parent.zip(segment.fork_at).map(|(p, at)| (segment_id(p), at as u64));
            let start_as = match (segment.origin, parent) {
                (Origin::New, _) | (_, None) => NewSegment::New,
                (Origin::Fork, Some((parent, fork_at))) => NewSegment::Fork { parent, fork_at },
                (Origin::Compact, Some((parent, fork_at))) => NewSegment::Compact { parent, fork_at },
            };
            steps.push(ReplayStep::Create { start: start_as, entries: start..end });
        } else {
            steps.push(ReplayStep::Append {
                segment: segment_id(first.segment),
                expected_len: first.seq as u64,
                entries: start..end,
            });
        }
        start = end;
    }
    steps
}

/// The error for a replayed append that found its segment moved: another
/// writer changed the session while it was copied.
pub fn replay_moved(session: &str, segment: &str, len: u64) -> Error {
    Error::Conflict {
        what: format!("segment {segment} of session {session} changed while it was copied ({len} entries)"),
    }
}

/// Creates session `header` in `backend` and stores `entries` in their order
/// with [`replay_steps`], one backend call per step. `progress` is told how
/// many entries each step stored.
pub fn replay_session(
    backend: &dyn Backend,
    header: &SessionHeader,
    title_line: Option<&str>,
    entries: &[Entry],
    progress: &mut dyn FnMut(u64),
) -> Result<()> {
    backend.create_session(header, title_line)?;
    replay_rest(backend, header.id(), entries, 0, progress)
}

/// Stores `entries[from..]` into `session`, whose first `from` entries a
/// replay stored already (an interrupted copy): one backend call per step of
/// [`replay_steps`], each all or nothing, so an interruption again leaves a
/// prefix. `progress` is told how many entries each step stored.
pub fn replay_rest(
    backend: &dyn Backend,
    session: &str,
    entries: &[Entry],
    from: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<()> {
    for step in replay_steps(entries, from) {
        let run = &entries[step.entries()];
        match &step {
            ReplayStep::Create { start, .. } => {
                backend.create_segment(session, start, run)?;
            }
            ReplayStep::Append { segment, expected_len, .. } => {
                match backend.append(session, segment, *expected_len, run)? {
                    Appended::Done { .. } => {}
                    Appended::TailMoved { len } => return Err(replay_moved(session, segment, len)),
                }
            }
        }
        progress(run.len() as u64);
    }
    Ok(())
}
