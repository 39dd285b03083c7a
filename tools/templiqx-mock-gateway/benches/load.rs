//! Load benchmark (placeholder until written).
fn main() {}
