//! The integration tests of `templiqx-contracts`, one binary (each file a
//! module): the validator, exact numbers and canonical JSON against its peers.

mod canonical_differential;
mod canonical_peer;
mod number_props;
mod validate;
mod validate_props;
