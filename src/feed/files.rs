//! `--write DIR`: the documents as files, replaced atomically (written to a temporary file in
//! the same directory, then renamed over the old one) so a reader never sees half a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::watch;

use super::{scores_csv, scores_xml, Shared};

/// Write `bytes` to `dir/name` atomically.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.flush()?;
        std::fs::rename(&tmp, dir.join(name))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The files of the sources this feed polls, as they are now.
fn render(shared: &Shared, now: SystemTime) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    if let Some(doc) = shared.transport_json(now) {
        out.push(("transport.json", doc.to_string().into_bytes()));
    }
    if let Some(doc) = shared.scores_json(now) {
        out.push(("scores.json", doc.to_string().into_bytes()));
    }
    if let Some(flat) = shared.scores_flat(now) {
        out.push(("scores.xml", scores_xml(&flat).into_bytes()));
        out.push(("scores.csv", scores_csv(&flat).into_bytes()));
    }
    out
}

/// Wait for the next change of `rx`'s source: `true`; or `false` once that source has ended,
/// and `rx` is `None` from then on. Never returns for `None`.
async fn changed<T>(rx: &mut Option<watch::Receiver<T>>) -> bool {
    let Some(r) = rx else {
        return std::future::pending().await;
    };
    if r.changed().await.is_ok() {
        return true;
    }
    *rx = None;
    false
}

/// Rewrite the files after each change of either source (a poll that changed something, and
/// each failed poll, so the age a stale file shows keeps up). The writing runs off the
/// runtime's worker threads; changes made meanwhile are written together afterwards.
///
/// Returns once both sources have ended: the feed's `stop()` ends them, then awaits this task
/// rather than aborting it, since a write cannot be cancelled once on its thread. A change not
/// yet written is written first, and no temporary file is left behind.
pub(crate) async fn write_on_change(dir: PathBuf, shared: Arc<Shared>) {
    let mut media = shared.media.clone();
    let mut scores = shared.scores.clone();
    let mut failing = false;
    while media.is_some() || scores.is_some() {
        let change = tokio::select! {
            c = changed(&mut media) => c,
            c = changed(&mut scores) => c,
        };
        if !change {
            continue;
        }
        let files = render(&shared, SystemTime::now());
        let dir2 = dir.clone();
        let result = tokio::task::spawn_blocking(move || {
            files
                .iter()
                .try_for_each(|(name, bytes)| write_atomic(&dir2, name, bytes))
        })
        .await;
        match result {
            Ok(Ok(())) => failing = false,
            Ok(Err(e)) if !failing => {
                failing = true;
                log::warn!("feed: cannot write into {}: {e}", dir.display());
            }
            Ok(Err(_)) => {}
            Err(e) => log::warn!("feed: the file writer failed: {e}"),
        }
    }
}
