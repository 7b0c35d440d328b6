//! Writing a whole session into a backend, preserving ids, parents, order and
//! bytes: what `sess copy` and the bulk paths use.

use sess_core::segment::{Deriver, Origin};
use sess_core::{Entry, SessionHeader};

use super::{Appended, Backend, NewSegment};
use crate::error::{Error, Result};

/// Creates session `header` in `backend` and stores `entries` in their order:
/// each maximal run of entries that continues one segment is one append (or
/// one segment creation), so the backend's segments are the entries' own
/// derivation. `progress` is told how many entries each step stored.
pub fn replay_session(
    backend: &dyn Backend,
    header: &SessionHeader,
    title_line: Option<&str>,
    entries: &[Entry],
    progress: &mut dyn FnMut(u64),
) -> Result<()> {
    backend.create_session(header, title_line)?;
    let session = header.id();
    let mut deriver = Deriver::default();
    let placements: Vec<_> = entries.iter().map(|e| deriver.push(e)).collect();
    let segments = deriver.finish();
    let segment_id = |index: usize| entries[segments.segments[index].entries[0]].id().to_string();
    let mut start = 0;
    while start < entries.len() {
        let first = placements[start];
        let mut end = start + 1;
        while end < entries.len()
            && placements[end].segment == first.segment
            && placements[end].seq == placements[end - 1].seq + 1
        {
            end += 1;
        }
        let run = &entries[start..end];
        if first.seq == 0 {
            let segment = &segments.segments[first.segment];
            let parent = segment.parent.zip(segment.fork_at).map(|(p, at)| (segment_id(p), at as u64));
            let start = match (segment.origin, parent) {
                (Origin::New, _) | (_, None) => NewSegment::New,
                (Origin::Fork, Some((parent, fork_at))) => NewSegment::Fork { parent, fork_at },
                (Origin::Compact, Some((parent, fork_at))) => NewSegment::Compact { parent, fork_at },
            };
            backend.create_segment(session, &start, run)?;
        } else {
            let segment = segment_id(first.segment);
            match backend.append(session, &segment, first.seq as u64, run)? {
                Appended::Done { .. } => {}
                Appended::TailMoved { len } => {
                    return Err(Error::Conflict {
                        what: format!(
                            "segment {segment} of session {session} changed while it was copied ({len} entries)"
                        ),
                    });
                }
            }
        }
        progress((end - start) as u64);
        start = end;
    }
    Ok(())
}
