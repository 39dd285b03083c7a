//! `notifications/prompts/list_changed` and
//! `notifications/resources/list_changed` when files change on disk
//! (`docs/mcp.md`, "Change notifications").
//!
//! The served paths are compiled once; the loaders say which files that
//! read and which paths it looked for and did not find (`Loader::files_read`
//! and `Loader::looked_for`, what a build tracks, `docs/decisions.md`).
//! Every tick, those are looked at again: a file read whose size or
//! modification time changed, or a path looked for that now exists, makes
//! the server compile again and compare the prompt and resource listings
//! with the last ones; a listing that differs is announced.

use crate::catalogue::Catalogue;
use crate::{Server, prompts, resources};
use rmcp::RoleServer;
use rmcp::model::{Prompt, Resource};
use rmcp::service::Peer;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// What the last compilation depended on, and the listings it gave.
struct Snapshot {
    /// Every file read, with its size and modification time when known.
    read: Vec<(PathBuf, Option<(u64, SystemTime)>)>,
    /// Every path looked for and not found.
    missing: Vec<PathBuf>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
}

fn stamp(path: &PathBuf) -> Option<(u64, SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl Snapshot {
    fn take(server: &Server) -> Snapshot {
        let catalogue = Catalogue::compile(server, server.target(None));
        let mut read = Vec::new();
        let mut missing = Vec::new();
        for input in &catalogue.inputs {
            read.extend(
                input
                    .loader
                    .files_read
                    .iter()
                    .map(|p| (p.clone(), stamp(p))),
            );
            missing.extend(input.loader.looked_for.iter().cloned());
        }
        Snapshot {
            read,
            missing,
            prompts: prompts::from_catalogue(&catalogue),
            resources: resources::list(server),
        }
    }

    /// Whether a file read changed, or a path looked for appeared.
    fn stale(&self) -> bool {
        self.read.iter().any(|(p, s)| stamp(p) != *s) || self.missing.iter().any(|p| p.exists())
    }
}

/// Watches the served paths every `interval` and notifies `peer` of each
/// listing that changed, until the session ends.
pub(crate) async fn watch(server: Server, peer: Peer<RoleServer>, interval: Duration) {
    let mut last = Snapshot::take(&server);
    loop {
        tokio::time::sleep(interval).await;
        if peer.is_transport_closed() {
            return;
        }
        if !last.stale() {
            continue;
        }
        let next = Snapshot::take(&server);
        if next.prompts != last.prompts && peer.notify_prompt_list_changed().await.is_err() {
            return;
        }
        if next.resources != last.resources && peer.notify_resource_list_changed().await.is_err() {
            return;
        }
        last = next;
    }
}
