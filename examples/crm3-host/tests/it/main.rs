//! The integration tests of the CRM3 example host, one binary (each file a
//! module): the main job end to end, against a fake provider, typed
//! against JSON rendering, and the typed partial output of a stream.

mod main_job;
mod partial_stream;
mod real_provider;
mod typed_vs_json;
