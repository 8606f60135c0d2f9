//! Tuning knobs: environment variables that override a measured default, for
//! experiments (the README's "Environment variables" lists them). None is needed.
use std::str::FromStr;

/// The value of the environment variable `name` parsed as `T`; `None` when it is unset
/// or does not parse (the caller's default then applies).
pub(crate) fn knob<T: FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// An on / off knob: `name` = 0 turns it off, any other number on; unset (or not a
/// number) leaves `default`.
pub(crate) fn switch(name: &str, default: bool) -> bool {
    knob::<u32>(name).map_or(default, |v| v != 0)
}
