//! One module per verb.

pub(crate) mod append;
pub(crate) mod archive;
pub(crate) mod archived;
pub(crate) mod context;
pub(crate) mod copy;
pub(crate) mod export;
pub(crate) mod fork;
pub(crate) mod handoff;
pub(crate) mod index;
pub(crate) mod label;
pub(crate) mod list;
pub(crate) mod mcp;
pub(crate) mod migrate;
pub(crate) mod rename;
pub(crate) mod restore;
pub(crate) mod resume;
pub(crate) mod search;
pub(crate) mod secrets;
pub(crate) mod segments;
pub(crate) mod serve;
pub(crate) mod show;
pub(crate) mod tail;
pub(crate) mod tree;
pub(crate) mod usage;
pub(crate) mod verify;
pub(crate) mod watch;
