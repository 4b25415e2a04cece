//! Reading a user's configuration file (key bindings) for the pure side, which parses it
//! ([`crate::ui::keys::KeyMap::load`], [`crate::ui::log_view::LogKeyMap::load`]) but never
//! touches the file system.

use std::path::Path;

use crate::ui::keys::UserFile;

/// The file at `path`, or `None` when there is none (the defaults apply). A file that exists
/// but cannot be read is an error naming it.
pub fn read(path: &Path) -> Result<Option<UserFile>, String> {
    let origin = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(UserFile { origin, text })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{origin}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_none_and_a_present_one_is_named_by_its_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(&dir.path().join("nope.toml")), Ok(None));
        let path = dir.path().join("keys.toml");
        std::fs::write(&path, "x").unwrap();
        let file = read(&path).unwrap().unwrap();
        assert_eq!(file.origin, path.display().to_string());
        assert_eq!(file.text, "x");
    }

    #[test]
    fn a_file_that_cannot_be_read_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        // A directory exists but is not a readable file.
        let err = read(dir.path()).unwrap_err();
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
    }
}
