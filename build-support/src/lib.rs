//! The Templiqx compiler (in progress).

pub mod report;
pub mod yaml;
