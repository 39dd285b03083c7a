//! The integration tests of the CRM3 example host, one binary (each file a
//! module): the main job end to end, against a fake provider, and typed
//! against JSON rendering.

mod main_job;
mod real_provider;
mod typed_vs_json;
