//! The Templiqx compiler (in progress).
