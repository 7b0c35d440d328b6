//! Transcripts of pi-family sessions, from the context path of a leaf.
