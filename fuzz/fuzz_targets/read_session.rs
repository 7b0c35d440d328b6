//! Feeds arbitrary bytes to the lenient reader and everything built on it: no
//! input may panic, hang or loop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sess_core::{EntryIndex, Leaf, Tree, context, integrity, read, segment};

fuzz_target!(|data: &[u8]| {
    let outcome = read(data);
    let entries = outcome.file.entries();
    let index = EntryIndex::new(entries);
    let tree = Tree::build(entries, &index);
    assert_eq!(tree.children.len(), entries.len());
    let _ = segment::derive(entries);
    for entry in entries.iter().take(16) {
        let ctx = context::build(entries, &index, Leaf::Id(entry.id().as_str()));
        let _ = serde_json::to_vec(&ctx);
    }
    let _ = integrity::check(&outcome);
    // What was read writes back and reads again to the same entries.
    let text = outcome.file.to_jsonl();
    let again = read(text.as_bytes());
    assert_eq!(again.file.entries().len(), entries.len());
});
