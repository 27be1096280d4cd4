//! Finding a program on `PATH` the way Go's `exec.LookPath` does, for the few
//! places that run one (`--post-renderer`, Helmfile's `exec`) and must name it as
//! helm and Helmfile do in their messages. Programs live on the real disk, never in
//! a [`super::Vfs`] overlay.

use std::path::PathBuf;

/// Whether a file's mode lets someone execute it (Go's check: any `x` bit).
#[cfg(unix)]
pub fn is_executable(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub fn is_executable(_: &std::fs::Metadata) -> bool {
    true
}

/// The first executable file named `name` in a folder of the process's `PATH`;
/// an empty entry means the current folder, as in Go's `LookPath`.
pub fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(name)
            } else {
                dir.join(name)
            }
        })
        .find(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_dir() && is_executable(&m)))
}
