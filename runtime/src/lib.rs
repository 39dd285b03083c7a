//! Templiqx runtime (in progress).
