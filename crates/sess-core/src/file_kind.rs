//! What kind of file a path names. Only a regular file can be a session: a
//! FIFO blocks whoever opens it, a device never ends (`/dev/zero`) or swallows
//! writes (`/dev/null`), and a directory is not read as lines.

use std::fmt;

/// The type of a file, as the file system reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A regular file: the only kind a session can be.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (when it is not followed).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A character device (`/dev/null`, `/dev/zero`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix domain socket.
    Socket,
    /// Anything else the platform has.
    Other,
}

impl FileKind {
    /// The kind of a file type from file system metadata (no I/O here).
    pub fn of(file_type: std::fs::FileType) -> Self {
        if file_type.is_file() {
            return Self::Regular;
        }
        if file_type.is_dir() {
            return Self::Directory;
        }
        if file_type.is_symlink() {
            return Self::Symlink;
        }
        Self::special(file_type)
    }

    #[cfg(unix)]
    fn special(file_type: std::fs::FileType) -> Self {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            Self::Fifo
        } else if file_type.is_char_device() {
            Self::CharDevice
        } else if file_type.is_block_device() {
            Self::BlockDevice
        } else if file_type.is_socket() {
            Self::Socket
        } else {
            Self::Other
        }
    }

    #[cfg(not(unix))]
    fn special(_file_type: std::fs::FileType) -> Self {
        Self::Other
    }

    /// Whether it is a regular file.
    pub fn is_regular(self) -> bool {
        self == Self::Regular
    }

    /// The kind with its article, for messages: "a character device".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Regular => "a regular file",
            Self::Directory => "a directory",
            Self::Symlink => "a symbolic link",
            Self::Fifo => "a FIFO (named pipe)",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Socket => "a socket",
            Self::Other => "not a regular file",
        }
    }

    /// What a walk says of a name it skipped: [`describe`](Self::describe),
    /// except that a walk takes a link for what it points to, so a link it
    /// skips leads to no file (a loop, or a link whose target is gone).
    pub fn describe_skipped(self) -> &'static str {
        if self == Self::Symlink { "a symbolic link to no file (a loop, or dangling)" } else { self.describe() }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
