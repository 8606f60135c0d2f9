//! Tuning knobs: environment variables that override a measured default, for
//! experiments (the README's "Environment variables" lists them). None is needed.
use std::str::FromStr;

/// The value of the environment variable `name` parsed as `T`; `None` when it is unset
/// or does not parse (the caller's default then applies).
pub(crate) fn knob<T: FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}
