//! Random entry ids in the peers' form.

use sess_core::{EntryId, IdSource};

/// 8 lowercase hex digits from a random UUID, as pi-mono mints them.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn next_id(&mut self) -> EntryId {
        let uuid = uuid::Uuid::new_v4().simple().to_string();
        EntryId::new(&uuid[..8])
    }
}
