//! What the tests of several sources share.

use std::ffi::OsString;
use std::path::Path;

use crate::env::Env;
use crate::transcript::{Block, Transcript};

/// Each message as `role: block kinds`, a tool call as `name status`.
pub(crate) fn shape(transcript: &Transcript) -> Vec<String> {
    transcript
        .messages
        .iter()
        .map(|m| {
            let blocks: Vec<String> = m
                .blocks
                .iter()
                .map(|b| match b {
                    Block::ToolCall(call) => format!("{} {}", call.name, call.status.as_str()),
                    other => other.kind().to_owned(),
                })
                .collect();
            format!("{}: {}", m.role.as_str(), blocks.join(", "))
        })
        .collect()
}

/// The environment of the home folder `home` with the variables `vars`.
pub(crate) fn env_with(home: &Path, vars: &[(&str, &Path)]) -> Env {
    Env::new(home, vars.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v.as_os_str()))))
}
