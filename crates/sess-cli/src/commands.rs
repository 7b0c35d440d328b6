//! One module per verb.

pub(crate) mod context;
pub(crate) mod migrate;
pub(crate) mod segments;
pub(crate) mod tree;
pub(crate) mod verify;
