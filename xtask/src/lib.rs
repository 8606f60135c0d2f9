//! Workspace tasks. The library part holds the one PTX builder, used both by
//! `cargo xtask build-ptx` and by `host/build.rs`.
pub mod ptx;
