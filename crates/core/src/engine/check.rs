//! Refused parameters: the key path where a description goes wrong and
//! why. Every model's config says what it cannot run with through `Check`;
//! the scenario builder prefixes the entry's place (`within`), and the
//! binding hands both parts to Python, which reports them as it reports
//! its own refusals.

use std::fmt;

/// A refusal: `path` is the dotted key path (relative to the table that
/// was checked until a caller places it with `within`); empty when the
/// refusal concerns the table as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The dotted key path of the refused key
    /// (`links.sat.erica.rate_alpha`); empty for the table as a whole.
    pub path: String,
    /// Why it is refused.
    pub msg: String,
}

impl ConfigError {
    /// A refusal of the checked table as a whole.
    pub fn new(msg: impl Into<String>) -> ConfigError {
        ConfigError {
            path: String::new(),
            msg: msg.into(),
        }
    }

    /// A refusal of key `path` (dotted, relative to the checked table).
    pub(crate) fn at(path: &str, msg: impl Into<String>) -> ConfigError {
        ConfigError {
            path: path.to_string(),
            msg: msg.into(),
        }
    }

    /// The same refusal, placed under `prefix` (`links.sat` for a key of
    /// that link's table).
    pub(crate) fn within(mut self, prefix: &str) -> ConfigError {
        self.path = match (prefix.is_empty(), self.path.is_empty()) {
            (true, _) => self.path,
            (false, true) => prefix.to_string(),
            (false, false) => format!("{prefix}.{}", self.path),
        };
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.msg)
        } else {
            write!(f, "{}: {}", self.path, self.msg)
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<String> for ConfigError {
    fn from(msg: String) -> ConfigError {
        ConfigError::new(msg)
    }
}

impl From<&str> for ConfigError {
    fn from(msg: &str) -> ConfigError {
        ConfigError::new(msg)
    }
}

/// What a model's config says of itself before anything is built: the
/// parameters it cannot run with. Checks that need more than the table
/// (the frame a QS agent works in, a channel's terminal count) are
/// inherent methods with those arguments, returning `ConfigError` too.
pub trait Check {
    /// `Err` naming the first parameter the model cannot run with.
    fn check(&self) -> Result<(), ConfigError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_nest_and_display_as_the_key_then_the_reason() {
        let e = ConfigError::at("rate_alpha", "too small").within("links.sat.erica");
        assert_eq!(e.path, "links.sat.erica.rate_alpha");
        assert_eq!(e.to_string(), "links.sat.erica.rate_alpha: too small");
        let whole = ConfigError::new("no rate").within("links.sat");
        assert_eq!(whole.to_string(), "links.sat: no rate");
        assert_eq!(ConfigError::new("bare").to_string(), "bare");
        assert_eq!(ConfigError::at("k", "m").within("").path, "k");
    }
}
