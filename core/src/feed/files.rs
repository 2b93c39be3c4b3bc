//! `--write DIR`: the documents as files, replaced atomically (written to a temporary file in
//! the same directory, then renamed over the old one) so a reader never sees half a file.
//!
//! The temporary file has an unpredictable name and is created exclusively (`O_EXCL`, which
//! never follows a symbolic link), so nothing planted in DIR beforehand can redirect the write;
//! the rename replaces whatever is at the final name (a planted symbolic link included) instead
//! of writing through it.

use std::future::Future;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::watch;

use bytes::Bytes;

use super::cache::{Doc, Format};
use super::Shared;

/// Write `bytes` to `dir/name` atomically. The temporary file is removed if anything fails.
///
/// The file gets the mode of any file the process creates (0666 less the umask, 0644 by
/// default), not the temporary file's private 0600: the documents are there to be read, often
/// by a web server running as another user.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(test)]
    gate::pass(dir);
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{name}.");
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// The files of the sources this feed polls, as they are now: the documents as served (made
/// once per change, shared with the readers). With named sources, also each source's own
/// files: `transport-NAME.json`, `scores-NAME.json`, `scores-NAME.xml`, `scores-NAME.csv`
/// (names are letters, digits, `-` and `_`, checked when the feed is built).
fn render(shared: &Shared) -> Vec<(String, Bytes)> {
    let mut out = Vec::new();
    let mut put = |name: String, doc: Option<Arc<Doc>>| {
        if let Some(doc) = doc {
            out.push((name, doc.body().clone()));
        }
    };
    put("transport.json".into(), shared.transport_doc());
    for (ext, format) in FORMATS {
        put(format!("scores.{ext}"), shared.scores_doc(format));
    }
    if shared.venue {
        for f in &shared.media {
            let name = &f.name;
            put(
                format!("transport-{name}.json"),
                shared.transport_named(name),
            );
        }
        for f in &shared.scores {
            for (ext, format) in FORMATS {
                let name = &f.name;
                put(
                    format!("scores-{name}.{ext}"),
                    shared.scores_named(name, format),
                );
            }
        }
    }
    out
}

const FORMATS: [(&str, Format); 3] = [
    ("json", Format::Json),
    ("xml", Format::Xml),
    ("csv", Format::Csv),
];

/// A source's receiver while its source runs (`None` once it has ended).
type Alive<T> = Option<watch::Receiver<T>>;

/// Wait for the next change of any source: `true`; or `false` when one has ended (its
/// receiver is `None` from then on). Never returns when every source has ended.
async fn changed<A: Send + Sync, B: Send + Sync>(
    media: &mut [Alive<A>],
    scores: &mut [Alive<B>],
) -> bool {
    let m = media.len();
    let waits: Vec<_> = media
        .iter_mut()
        .map(|r| changed_one(r))
        .chain(scores.iter_mut().map(|r| changed_one(r)))
        .collect();
    if waits.is_empty() {
        return std::future::pending().await;
    }
    let (ok, i, _) = futures::future::select_all(waits).await;
    if !ok {
        if i < m {
            media[i] = None;
        } else {
            scores[i - m] = None;
        }
    }
    ok
}

/// One receiver's next change (`true`), or its end (`false`); never for `None`.
fn changed_one<T>(rx: &mut Alive<T>) -> std::pin::Pin<Box<dyn Future<Output = bool> + Send + '_>>
where
    T: Send + Sync,
{
    Box::pin(async move {
        match rx {
            Some(r) => r.changed().await.is_ok(),
            None => std::future::pending().await,
        }
    })
}

/// Rewrite the files after each change of any source (a poll that changed something, and
/// each failed poll, so the age a stale file shows keeps up). The writing runs off the
/// runtime's worker threads; changes made meanwhile are written together afterwards.
///
/// Returns once every source has ended: the feed's `stop()` ends them, then awaits this task
/// rather than aborting it, since a write cannot be cancelled once on its thread. A change not
/// yet written is written first, and no temporary file is left behind.
pub(crate) async fn write_on_change(dir: PathBuf, shared: Arc<Shared>) {
    let mut media: Vec<_> = shared.media.iter().map(|f| Some(f.rx.clone())).collect();
    let mut scores: Vec<_> = shared.scores.iter().map(|f| Some(f.rx.clone())).collect();
    let mut failing = false;
    while media.iter().any(Option::is_some) || scores.iter().any(Option::is_some) {
        let change = changed(&mut media, &mut scores).await;
        if !change {
            continue;
        }
        let files = render(&shared);
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

/// Tests hold the writes into a directory here (a stalled disk, on demand).
#[cfg(test)]
pub(crate) mod gate {
    use std::path::{Path, PathBuf};
    use std::sync::{Condvar, Mutex};

    /// The held directories, and how many writes wait at each.
    static HELD: Mutex<Vec<(PathBuf, usize)>> = Mutex::new(Vec::new());
    static CHANGED: Condvar = Condvar::new();

    fn held() -> std::sync::MutexGuard<'static, Vec<(PathBuf, usize)>> {
        HELD.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hold every write into `dir` until [`release`].
    pub fn hold(dir: &Path) {
        held().push((dir.to_path_buf(), 0));
    }

    /// Wait until a write into `dir` is held.
    pub fn wait_for_writer(dir: &Path) {
        let mut h = held();
        while !h.iter().any(|(d, n)| d == dir && *n > 0) {
            h = CHANGED.wait(h).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub fn release(dir: &Path) {
        held().retain(|(d, _)| d != dir);
        CHANGED.notify_all();
    }

    /// A write into `dir` waits here while `dir` is held.
    pub(super) fn pass(dir: &Path) {
        let mut h = held();
        let Some(slot) = h.iter_mut().find(|(d, _)| d == dir) else {
            return;
        };
        slot.1 += 1;
        CHANGED.notify_all();
        while h.iter().any(|(d, _)| d == dir) {
            h = CHANGED.wait(h).unwrap_or_else(|p| p.into_inner());
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::write_atomic;

    /// A symbolic link planted at the old predictable temporary name, or at the final name,
    /// never redirects the write onto the file it points to.
    #[test]
    fn planted_symlinks_do_not_redirect_the_write() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("out");
        std::fs::create_dir(&dir).unwrap();
        let victim = base.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = |name: &str| std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        link(&format!(".scores.json.{}.tmp", std::process::id()));
        link("scores.json");
        write_atomic(&dir, "scores.json", b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(
            std::fs::read_to_string(dir.join("scores.json")).unwrap(),
            "{}"
        );
        let meta = std::fs::symlink_metadata(dir.join("scores.json")).unwrap();
        assert!(meta.is_file(), "the planted link was written through");
        // Nothing but the planted decoy and the file itself is left.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }

    /// A written document gets the mode any file the process creates gets (so a web server
    /// running as another user can read it), not the temporary file's private 0600.
    #[test]
    fn written_files_have_the_mode_of_an_ordinary_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "scores.json", b"{}").unwrap();
        std::fs::write(dir.path().join("plain"), b"{}").unwrap();
        let mode = |name: &str| {
            let meta = std::fs::metadata(dir.path().join(name)).unwrap();
            meta.permissions().mode() & 0o777
        };
        assert_eq!(mode("scores.json"), mode("plain"));
    }
}
