//! The Templiqx compiler (in progress).

pub mod yaml;
