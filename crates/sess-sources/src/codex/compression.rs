//! Reading a rollout, plain or zstd-compressed (`rollout-….jsonl.zst`).
//!
//! Codex compresses older rollouts in the background; a reader opens either
//! form transparently. Decompression is pure Rust (`ruzstd`). A file that does
//! not decompress completely is an error: unlike a cut JSONL line, a cut zstd
//! frame cannot be told apart from a corrupt one.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder, StreamingDecoder};

use crate::error::{Error, Result};
use crate::jsonl::{open_regular, read_file};

/// The suffix of a compressed rollout.
pub(crate) const ZST_SUFFIX: &str = ".zst";

/// The decompressed bytes of the rollout at `path`.
///
/// A `.zst` path is decompressed. A plain path that no longer exists is read
/// from its `.zst` twin when there is one, since the compression worker may
/// have replaced the file since it was listed.
pub(crate) fn read_rollout(path: &Path) -> Result<Vec<u8>> {
    if is_compressed(path) {
        return read_compressed(path);
    }
    match read_file(path) {
        Err(Error::NotFound { path: missing }) => {
            let twin = compressed_twin(&missing);
            if twin.is_file() { read_compressed(&twin) } else { Err(Error::NotFound { path: missing }) }
        }
        other => other,
    }
}

/// The first non-blank line of the rollout at `path` (decompressing only as
/// far as needed), cut after `limit` bytes; the same fallback to a `.zst` twin
/// as [`read_rollout`].
pub(crate) fn read_first_line(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let path = if !is_compressed(path) && !path.exists() && compressed_twin(path).is_file() {
        compressed_twin(path)
    } else {
        path.to_owned()
    };
    let file = open_regular(&path)?;
    let mut line = Vec::new();
    if is_compressed(&path) {
        let decoder = StreamingDecoder::new(file)
            .map_err(|err| Error::Decompress { path: path.clone(), message: err.to_string() })?;
        first_line(BufReader::new(decoder).take(limit), &mut line)
            .map_err(|err| Error::Decompress { path: path.clone(), message: err.to_string() })?;
    } else {
        first_line(BufReader::new(file).take(limit), &mut line).map_err(|err| Error::io(&path, err))?;
    }
    Ok(line)
}

fn first_line(mut reader: impl BufRead, line: &mut Vec<u8>) -> io::Result<()> {
    loop {
        line.clear();
        if reader.read_until(b'\n', line)? == 0 || !line.trim_ascii().is_empty() {
            return Ok(());
        }
    }
}

/// Whether `path` names a compressed rollout.
pub(crate) fn is_compressed(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(ZST_SUFFIX))
}

/// `x.jsonl` → `x.jsonl.zst`.
fn compressed_twin(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(ZST_SUFFIX);
    PathBuf::from(name)
}

fn read_compressed(path: &Path) -> Result<Vec<u8>> {
    let bytes = read_file(path)?;
    decompress(&bytes).map_err(|message| Error::Decompress { path: path.to_owned(), message })
}

/// Decodes every zstd frame of `input` (skippable frames are skipped) and
/// checks the content checksums that are present.
pub(crate) fn decompress(mut input: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(input.len().saturating_mul(4));
    let mut decoder = FrameDecoder::new();
    if input.is_empty() {
        return Err("empty file".to_owned());
    }
    while !input.is_empty() {
        match decoder.reset(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                let length = usize::try_from(length).map_err(|err| err.to_string())?;
                input = input.get(length..).ok_or("a skippable frame runs past the end of the file")?;
                continue;
            }
            Err(err) => return Err(err.to_string()),
        }
        while !decoder.is_finished() {
            if input.is_empty() {
                return Err("the file ends inside a frame".to_owned());
            }
            decoder.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(1 << 20)).map_err(|e| e.to_string())?;
            decoder.collect_to_writer(&mut out).map_err(|e| e.to_string())?;
        }
        decoder.collect_to_writer(&mut out).map_err(|e| e.to_string())?;
        if let (Some(stored), Some(computed)) = (decoder.get_checksum_from_data(), decoder.get_calculated_checksum())
            && stored != computed
        {
            return Err(format!("checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"));
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use ruzstd::encoding::{CompressionLevel, compress_to_vec};

    use super::*;

    fn compress(bytes: &[u8]) -> Vec<u8> {
        compress_to_vec(bytes, CompressionLevel::Fastest)
    }

    #[test]
    fn round_trips_one_frame() {
        let text = "{\"a\":1}\n".repeat(10_000);
        assert_eq!(decompress(&compress(text.as_bytes())).unwrap(), text.as_bytes());
    }

    #[test]
    fn reads_concatenated_and_skippable_frames() {
        let mut input = compress(b"first\n");
        // A skippable frame: magic 0x184D2A50, length 3, three bytes.
        input.extend_from_slice(&[0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        input.extend(compress(b"second\n"));
        assert_eq!(decompress(&input).unwrap(), b"first\nsecond\n");
    }

    #[test]
    fn the_first_line_is_read_alone_and_cut_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("rollout-a.jsonl");
        std::fs::write(&plain, b"\n  \n{\"first\":1}\n{\"second\":2}\n").unwrap();
        assert_eq!(read_first_line(&plain, 1024).unwrap(), b"{\"first\":1}\n");
        assert_eq!(read_first_line(&plain, 8).unwrap(), b"{\"fi");
        let zst = dir.path().join("rollout-b.jsonl.zst");
        std::fs::write(&zst, compress("{\"z\":1}\n".repeat(100_000).as_bytes())).unwrap();
        assert_eq!(read_first_line(&zst, 1024).unwrap(), b"{\"z\":1}\n");
        let bad = dir.path().join("rollout-c.jsonl.zst");
        std::fs::write(&bad, b"nope").unwrap();
        assert!(matches!(read_first_line(&bad, 1024), Err(Error::Decompress { .. })));
        assert!(matches!(read_first_line(&dir.path().join("rollout-d.jsonl"), 1024), Err(Error::NotFound { .. })));
    }

    #[test]
    fn a_cut_or_foreign_file_is_an_error() {
        let whole = compress("line\n".repeat(1000).as_bytes());
        assert!(decompress(&whole[..whole.len() / 2]).is_err());
        assert!(decompress(b"{\"not\":\"zstd\"}\n").is_err());
        assert!(decompress(b"").is_err());
    }

    #[test]
    fn reads_plain_compressed_and_the_compressed_twin_of_a_moved_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("rollout-a.jsonl");
        std::fs::write(&plain, b"plain\n").unwrap();
        assert_eq!(read_rollout(&plain).unwrap(), b"plain\n");

        let zst = dir.path().join("rollout-b.jsonl.zst");
        std::fs::write(&zst, compress(b"packed\n")).unwrap();
        assert_eq!(read_rollout(&zst).unwrap(), b"packed\n");
        // The plain name of a file that was compressed since it was listed.
        assert_eq!(read_rollout(&dir.path().join("rollout-b.jsonl")).unwrap(), b"packed\n");

        assert_eq!(read_first_line(&zst, 1024).unwrap(), b"packed\n");
        assert_eq!(read_first_line(&dir.path().join("rollout-b.jsonl"), 1024).unwrap(), b"packed\n");

        let missing = dir.path().join("rollout-c.jsonl");
        assert!(matches!(read_rollout(&missing), Err(Error::NotFound { path }) if path == missing));
        let bad = dir.path().join("rollout-d.jsonl.zst");
        std::fs::write(&bad, b"nope").unwrap();
        assert!(matches!(read_rollout(&bad), Err(Error::Decompress { path, .. }) if path == bad));
    }
}
