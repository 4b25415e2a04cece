//! The configuration layer's error and the problem a bad file becomes: their own file, so the
//! parsers (`aliases`, `plugins`, …) import them without importing `config` itself.

use std::fmt;
use std::path::{Path, PathBuf};

/// The configuration layer's error: why one file was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{0}: cannot read: {1}")]
    Read(PathBuf, String),
    /// A file is not valid YAML/TOML or does not have the expected shape.
    #[error("{0}")]
    Parse(Problem),
}

/// One problem found in a file: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    /// 1-based; 0 when the problem has no position (an unreadable file).
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub column: usize,
    pub message: String,
}

impl Problem {
    pub fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column.max(1))?;
        }
        write!(f, ": {}", self.message)
    }
}
