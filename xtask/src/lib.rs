//! Workspace tasks. The library part holds the kernel builder and the prebuilt kernels'
//! format, whose source files live beside host's build script (which compiles them too:
//! it cannot depend on xtask), and their compression, which only `cargo xtask build-ptx`
//! needs.
#[path = "../../host/build/prebuilt.rs"]
pub mod prebuilt;
#[path = "../../host/build/ptx.rs"]
pub mod ptx;

pub mod pack;
