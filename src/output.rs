//! What a run writes — standard output and files — so that no run loses or garbles it.
//!
//! Owns: `print` and `eprint` (standard output and error that never panic: a closed pipe ends the
//! program quietly with status `PIPE_CLOSED`, as a shell's SIGPIPE death would read; another
//! failure to write standard output is a diagnostic and status 2), `refuse_overwriting` (an output
//! file that is one of the inputs), `write_file` (every file mapcheck writes goes through it:
//! written to a temporary name beside its destination, then renamed, so a killed run leaves the old
//! file or the new one, never half of one), `JSON_FORMATS` and `json_document` (every JSON document
//! printed names its format and version), `graphviz_svg` (a DOT graph as SVG, when Graphviz's `dot`
//! runs), `ProgressDisplay` (progress on stderr: a bar, or a line every few seconds) and
//! `OutputDir` (a directory a run owns: it lists what it writes in `.mapcheck-files` before writing
//! it, and a later run removes exactly those files first, so no stale file of an earlier run is
//! left beside new ones; a non-empty directory without that list is someone else's and is refused;
//! a symbolic link is not followed; while a run holds the directory it keeps `.mapcheck-lock`
//! locked, so a second run into it is refused, and on taking it sweeps the `.mapcheck-tmp-*` files
//! a killed run left), and `check_file` (an output file's place checked before the work). Uses:
//! `diag` (every failure is an `Error` naming the path).
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::diag::{Error, Result};

/// The exit status when standard output is a closed pipe (128 + SIGPIPE, as a shell reports a
/// program SIGPIPE ended).
pub(crate) const PIPE_CLOSED: i32 = 141;

/// Write `text` to standard output and flush it. A closed pipe (`| head -1`) ends the program
/// quietly with `PIPE_CLOSED`; any other failure (a full disk) with a diagnostic and status 2.
/// Files already written are whole (`write_file`), so ending here loses nothing written.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(PIPE_CLOSED),
        Err(e) => {
            eprint(&Error::file("<standard output>", format!("cannot write: {e}")).render());
            std::process::exit(2);
        }
    }
}

/// Write `text` to standard error, ignoring failure (there is nowhere left to report it).
pub fn eprint(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// How often a progress line is written when stderr is not a terminal.
pub(crate) const LINE_EVERY: Duration = Duration::from_secs(5);

/// Progress on stderr while a long command runs: a bar drawn with a template on a terminal;
/// otherwise (redirected, in CI) `line()` every `LINE_EVERY` from a ticker thread. Dropping it
/// clears the bar or ends the ticker.
pub(crate) struct ProgressDisplay {
    bar: Option<ProgressBar>,
    ticker: Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

impl ProgressDisplay {
    /// A bar of `length` drawn with indicatif's `template`, or the ticker of `line`.
    pub(crate) fn new(
        template: &str,
        length: u64,
        line: impl Fn() -> String + Send + 'static,
    ) -> ProgressDisplay {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(length);
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("a valid template")
                    .progress_chars("=> "),
            );
            return ProgressDisplay {
                bar: Some(bar),
                ticker: None,
            };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(LINE_EVERY) {
                eprint(&line());
            }
        });
        ProgressDisplay {
            bar: None,
            ticker: Some((tx, thread)),
        }
    }

    /// The bar, on a terminal.
    pub(crate) fn bar(&self) -> Option<&ProgressBar> {
        self.bar.as_ref()
    }

    /// `text` on stdout, then `note` on stderr, without tearing the bar.
    pub(crate) fn print(&self, text: &str, note: &str) {
        let write = || {
            print(text);
            eprint(note);
        };
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}

impl Drop for ProgressDisplay {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some((tx, thread)) = self.ticker.take() {
            drop(tx);
            let _ = thread.join();
        }
    }
}

/// The list of files a run wrote into its output directory.
pub(crate) const MANIFEST: &str = ".mapcheck-files";

/// The file a run holds locked while it writes into its output directory (`OutputDir`).
const LOCK: &str = ".mapcheck-lock";

/// How the temporary files `write_file` makes begin: a run killed before it renames one leaves
/// it behind, and the next run into the directory removes it.
const TEMPORARY: &str = ".mapcheck-tmp-";

/// mapcheck's own bookkeeping in an output directory: the manifest, the lock, temporary files.
fn is_bookkeeping(name: &str) -> bool {
    name == MANIFEST || name == LOCK || name.starts_with(TEMPORARY)
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::file(path.display().to_string(), format!("cannot {what}: {e}"))
}

/// Every JSON document mapcheck prints on standard output, by its `format` field, with the
/// `version` it carries: raised whenever a field changes meaning or goes away. `docs/json.md`
/// describes each and `docs/json-schema.json` states its fields and their types; a test checks
/// every command's output against it. (`check --shard --json` prints its shard's record, whose
/// `format` is the shard files' own, `mapcheck-shards`.)
pub const JSON_FORMATS: [(&str, u32); 12] = [
    ("mapcheck-run", 1),
    ("mapcheck-run-line", 1),
    ("mapcheck-check", 1),
    ("mapcheck-confirm", 1),
    ("mapcheck-merge", 1),
    ("mapcheck-compare", 1),
    ("mapcheck-repair", 1),
    ("mapcheck-weaken", 1),
    ("mapcheck-oracle", 1),
    ("mapcheck-bench", 1),
    ("mapcheck-gpu-runs", 1),
    ("mapcheck-error", 1),
];

/// `value`, a JSON object, as a document of `format` (one of `JSON_FORMATS`): its `format` and
/// `version` fields added.
pub fn json_document(format: &str, mut value: serde_json::Value) -> serde_json::Value {
    let (_, version) = JSON_FORMATS
        .iter()
        .find(|(f, _)| *f == format)
        .expect("every printed JSON format is in JSON_FORMATS");
    let object = value.as_object_mut().expect("a JSON document is an object");
    object.insert("format".into(), format.into());
    object.insert("version".into(), (*version).into());
    value
}

/// A DOT graph rendered as SVG by Graphviz's `dot`, read from its standard output; `None`
/// when `dot` is not installed or fails. The caller writes it whole, as every file.
pub(crate) fn graphviz_svg(dot: &str) -> Option<Vec<u8>> {
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    // Written from a thread of its own: `dot` may fill its output pipe before it has read all
    // of its input.
    let text = dot.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let written = writer.join().ok()?.is_ok();
    (written && out.status.success()).then_some(out.stdout)
}

/// Write `bytes` to `path`: into a temporary file in the same directory, flushed to disk, then
/// renamed over `path`.
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMPORARY);
    #[cfg(unix)]
    builder.permissions(readable_by_all());
    let mut file = builder
        .tempfile_in(dir)
        .map_err(|e| io_error(path, "write (creating a temporary file beside it)", e))?;
    file.write_all(bytes.as_ref())
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| io_error(path, "write", e))?;
    file.persist(path)
        .map_err(|e| io_error(path, "write (renaming the temporary file)", e.error))?;
    Ok(())
}

/// Refuse an output path that is one of the command's inputs (or the same file by another name).
pub fn refuse_overwriting(output: &Path, inputs: &[&Path]) -> Result<()> {
    match inputs.iter().find(|i| same_place(output, i)) {
        Some(input) => Err(Error::file(
            output.display().to_string(),
            format!("is the input {}; give another output file", input.display()),
        )),
        None => Ok(()),
    }
}

/// Whether paths `a` and `b`, which need not exist yet, name one place: their nearest existing
/// ancestors resolved (symbolic links followed) and the rest compared as written.
pub(crate) fn same_place(a: &Path, b: &Path) -> bool {
    resolved(a) == resolved(b)
}

/// `path` with its nearest existing ancestor canonicalized.
fn resolved(path: &Path) -> std::path::PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = vec![];
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    out.extend(rest.iter().rev());
    out
}

/// Refuse, before any work, a path that exists and is not a directory (where a run will put
/// directories of its own), or a place this process cannot write into: the directory if it
/// exists, else the nearest directory above it, where the run would create it. Creates nothing
/// that stays.
pub(crate) fn check_directory(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::file(
            dir.display().to_string(),
            "is not a directory; give a directory to write into",
        ));
    }
    let mut existing = dir;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    check_writable(dir, existing)
}

/// Refuse, before any work, an output file whose directory does not exist or cannot be written
/// into, or a path that is a directory.
pub fn check_file(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(Error::file(
            path.display().to_string(),
            "is a directory; give a file name to write",
        ));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(Error::file(
            path.display().to_string(),
            format!("cannot write: {} {what}", dir.display()),
        ));
    }
    check_writable(path, dir)
}

/// Whether a file can be created in directory `dir` (for the output `path`): by creating a
/// temporary one there and removing it.
fn check_writable(path: &Path, dir: &Path) -> Result<()> {
    tempfile::Builder::new()
        .prefix(TEMPORARY)
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| {
            Error::file(
                path.display().to_string(),
                format!("cannot write into {}: {}", dir.display(), e.kind()),
            )
        })
}

/// The mode of a new file as any program would create it (rw for all, less the umask), not the
/// owner-only mode of a temporary file.
#[cfg(unix)]
fn readable_by_all() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::Permissions::from_mode(0o666)
}

/// A directory this run owns (see the module doc), locked for as long as it is held.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    written: Vec<String>,
    /// `LOCK`, locked: a second run into the directory is refused while this one writes.
    _lock: std::fs::File,
}

impl OutputDir {
    /// Refuse, before any work, a path this run could not own: a file, or a non-empty directory
    /// that an earlier run did not write. Creates nothing.
    pub fn check(dir: &Path) -> Result<()> {
        if dir.is_symlink() {
            return Err(Error::file(
                dir.display().to_string(),
                "is a symbolic link; give the directory itself (a run removes the files an \
                 earlier one listed there)",
            ));
        }
        check_directory(dir)?;
        if dir.is_dir() && !dir.join(MANIFEST).exists() {
            let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, "read", e))?;
            let mut foreign = entries
                .flatten()
                .filter(|e| !is_bookkeeping(&e.file_name().to_string_lossy()));
            if foreign.next().is_some() {
                return Err(Error::file(
                    dir.display().to_string(),
                    format!(
                        "is a non-empty directory that mapcheck did not write (no {MANIFEST}); \
                         give a new or empty directory"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Take `dir` for this run: create it and lock it (refused while another run holds it),
    /// then remove what an earlier run listed in it and the temporary files a killed run left.
    /// A directory this process reserved (`Reservation`) is taken with the lock it holds.
    pub(crate) fn claim(dir: &Path) -> Result<OutputDir> {
        let reserved = lock_registry().remove(dir);
        let Held { lock, ours, .. } = match reserved {
            Some(held) => held,
            None => Held::take(dir)?,
        };
        if ours {
            sweep_temporary_files(dir)?;
        }
        let manifest = dir.join(MANIFEST);
        if let Ok(listed) = std::fs::read_to_string(&manifest) {
            for name in listed.lines().filter(|l| !l.starts_with('#')) {
                let stale = dir.join(name);
                if is_plain_name(name) && stale.exists() {
                    std::fs::remove_file(&stale).map_err(|e| io_error(&stale, "remove", e))?;
                }
            }
        }
        let out = OutputDir {
            dir: dir.to_path_buf(),
            written: vec![],
            _lock: lock,
        };
        out.save_manifest()?;
        Ok(out)
    }

    /// Write `name` (a file name, not a path) into the directory; returns its path.
    pub(crate) fn write(&mut self, name: &str, bytes: impl AsRef<[u8]>) -> Result<PathBuf> {
        self.record(name)?;
        let path = self.dir.join(name);
        write_file(&path, bytes)?;
        Ok(path)
    }

    /// List `name` as written (before it is), for files another program writes into the
    /// directory (Graphviz's SVG).
    pub(crate) fn record(&mut self, name: &str) -> Result<()> {
        assert!(is_plain_name(name), "output file names are plain names");
        if !self.written.iter().any(|w| w == name) {
            self.written.push(name.to_string());
            self.save_manifest()?;
        }
        Ok(())
    }

    fn save_manifest(&self) -> Result<()> {
        let mut text = String::from(
            "# written by mapcheck; the next run into this directory removes these files\n",
        );
        for name in &self.written {
            text.push_str(name);
            text.push('\n');
        }
        write_file(&self.dir.join(MANIFEST), text)
    }
}

/// A directory locked by this process before it is claimed.
struct Held {
    lock: std::fs::File,
    /// A run wrote here before (its lock or manifest was here): temporary files are swept only
    /// then, a user's own `.mapcheck-tmp-*` files elsewhere not being mapcheck's.
    ours: bool,
    /// The outermost directory this process created for it (`dir` itself, or a parent).
    created: Option<PathBuf>,
}

impl Held {
    /// Check `dir` as `OutputDir::check` does, create it and lock it.
    fn take(dir: &Path) -> Result<Held> {
        OutputDir::check(dir)?;
        let created = dir.ancestors().take_while(|d| !d.exists()).last();
        let created = created.map(Path::to_path_buf);
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "create directory", e))?;
        let ours = [LOCK, MANIFEST].iter().any(|f| dir.join(f).exists());
        Ok(Held {
            lock: lock(dir)?,
            ours,
            created,
        })
    }
}

/// The directories this process reserved and has not claimed, with their locks.
fn lock_registry() -> std::sync::MutexGuard<'static, std::collections::BTreeMap<PathBuf, Held>> {
    static RESERVED: std::sync::Mutex<std::collections::BTreeMap<PathBuf, Held>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    RESERVED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Output directories a run will write into once its work finds something, each checked,
/// created and locked before the work (a second run into one is refused at its start, not
/// after its search). `OutputDir::claim` takes a reserved directory with its lock; on drop, the
/// directories never claimed are unlocked, and those holding nothing but the lock (this run's,
/// or a killed run's) removed, with the parents this process created for them while empty.
#[derive(Debug, Default)]
pub struct Reservation {
    dirs: Vec<PathBuf>,
}

impl Reservation {
    /// Reserve `dir` too.
    pub(crate) fn add(&mut self, dir: &Path) -> Result<()> {
        let held = Held::take(dir)?;
        lock_registry().insert(dir.to_path_buf(), held);
        self.dirs.push(dir.to_path_buf());
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut registry = lock_registry();
        // Last reserved first: the first one's created parents hold the later ones.
        for dir in self.dirs.iter().rev() {
            let Some(held) = registry.remove(dir) else {
                continue;
            };
            if !holds_only_a_lock(dir) {
                continue;
            }
            let _ = std::fs::remove_file(dir.join(LOCK));
            let _ = std::fs::remove_dir(dir);
            let Some(top) = held.created else { continue };
            let parents = dir.ancestors().skip(1);
            for created in parents.take_while(|d| d.starts_with(&top)) {
                if std::fs::remove_dir(created).is_err() {
                    break;
                }
            }
        }
    }
}

/// A directory another command wrote (a `gpu emit` harness), locked while this run adds its
/// files to it: checked writable and locked before the work, so that a run beside an emit into
/// the same directory is refused at its start.
#[derive(Debug)]
pub struct Locked {
    _lock: std::fs::File,
}

impl Locked {
    pub(crate) fn take(dir: &Path) -> Result<Locked> {
        check_directory(dir)?;
        Ok(Locked { _lock: lock(dir)? })
    }
}

/// Does `dir` hold nothing but a lock: a reservation no run wrote into (this one's, or that of a
/// run killed before it wrote)?
fn holds_only_a_lock(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| entries.flatten().all(|e| e.file_name() == LOCK))
}

/// `dir`'s `LOCK`, locked by this process; an error when another run holds it. A lock that is
/// a symbolic link is not followed (the open fails).
fn lock(dir: &Path) -> Result<std::fs::File> {
    let path = dir.join(LOCK);
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options
        .open(&path)
        .map_err(|e| io_error(&path, "create (a lock file that is not a symbolic link)", e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::file(
            dir.display().to_string(),
            "is being written by another mapcheck run; wait for it to end, or give another \
             directory",
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(io_error(&path, "lock", e)),
    }
}

/// Remove the temporary files a killed run left in `dir` (none is in use: the caller holds the
/// directory's lock, and only a run holding it writes there; another run's probe that it can
/// write there, made before it asks for the lock, may come and go meanwhile).
fn sweep_temporary_files(dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, "read", e))?;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMPORARY) {
            let path = entry.path();
            // One may go meanwhile: another run's probe that the directory can be written
            // into (`check_directory`, made before it asks for the lock) removes itself.
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_error(&path, "remove", e))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A file name with no directory part (what a manifest may list).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rerun_removes_what_the_earlier_run_wrote_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let mut first = OutputDir::claim(&dir).unwrap();
        first.write("graph.dot", "a").unwrap();
        first.write("graph.svg", "b").unwrap();
        // While the first run holds the directory, a second is refused.
        let e = OutputDir::claim(&dir).unwrap_err();
        assert!(e.message.contains("another mapcheck run"), "{}", e.message);
        drop(first);
        // A temporary file a killed run left is swept.
        std::fs::write(dir.join(format!("{TEMPORARY}killed")), "half").unwrap();
        let mut second = OutputDir::claim(&dir).unwrap();
        assert!(!dir.join("graph.svg").exists() && !dir.join("graph.dot").exists());
        assert!(!dir.join(format!("{TEMPORARY}killed")).exists());
        second.write("graph.dot", "c").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("graph.dot")).unwrap(), "c");
        let listed = std::fs::read_to_string(dir.join(MANIFEST)).unwrap();
        assert!(listed.contains("graph.dot") && !listed.contains("graph.svg"));
    }

    #[test]
    fn a_foreign_non_empty_directory_and_a_file_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
        let e = OutputDir::claim(tmp.path()).unwrap_err();
        assert!(e.message.contains("did not write"), "{}", e.message);
        assert!(tmp.path().join("notes.txt").exists());
        let e = OutputDir::check(&tmp.path().join("notes.txt")).unwrap_err();
        assert!(e.message.contains("not a directory"), "{}", e.message);
        assert!(OutputDir::check(&tmp.path().join("new")).is_ok());
        // A directory holding only what a run killed before its manifest left is mapcheck's.
        let killed = tmp.path().join("killed");
        std::fs::create_dir(&killed).unwrap();
        std::fs::write(killed.join(LOCK), "").unwrap();
        std::fs::write(killed.join(format!("{TEMPORARY}abc")), "half").unwrap();
        assert!(OutputDir::claim(&killed).is_ok());
        // A symbolic link to a directory mapcheck wrote is not followed.
        #[cfg(unix)]
        {
            let elsewhere = tmp.path().join("elsewhere");
            drop(OutputDir::claim(&elsewhere).unwrap());
            let link = tmp.path().join("link");
            std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
            let e = OutputDir::claim(&link).unwrap_err();
            assert!(e.message.contains("symbolic link"), "{}", e.message);
        }
    }

    /// Issue 60: a `.mapcheck-lock` planted as a symbolic link is not followed (no file is
    /// created where it points), and a user's own `.mapcheck-tmp-*` files in a directory
    /// mapcheck never wrote (no lock, no manifest) are not swept.
    #[test]
    fn a_planted_lock_link_is_not_followed_and_foreign_temporary_files_stay() {
        let tmp = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        {
            let dir = tmp.path().join("planted");
            std::fs::create_dir(&dir).unwrap();
            let target = tmp.path().join("target-of-the-link");
            std::os::unix::fs::symlink(&target, dir.join(LOCK)).unwrap();
            let e = OutputDir::claim(&dir).unwrap_err();
            assert!(e.message.contains("not a symbolic link"), "{}", e.message);
            assert!(!target.exists(), "the link was followed");
        }
        let users = tmp.path().join("users");
        std::fs::create_dir(&users).unwrap();
        let own = users.join(format!("{TEMPORARY}notes"));
        std::fs::write(&own, "the user's").unwrap();
        drop(OutputDir::claim(&users).unwrap());
        assert!(own.exists(), "a foreign temporary file was swept");
    }

    #[test]
    fn a_written_file_leaves_no_temporary_file_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("x.v");
        write_file(&path, "old").unwrap();
        write_file(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_ne!(mode & 0o044, 0, "others may read it (mode {mode:o})");
        }
    }
}
