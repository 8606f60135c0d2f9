//! GPU sorting in Rust.
//!
//! Kernels are written in Rust (the `kernels` crate, compiled to PTX by rustc's NVPTX
//! backend) and launched through the CUDA driver. Without a GPU the same API sorts on
//! the CPU.
//!
//! ```
//! use host::{Order, SortOptions, Sorter, Variant};
//!
//! // GPU when there is one, CPU otherwise.
//! let sorter = Sorter::with_fallback();
//! let mut keys = vec![5u32, 3, 9, 1, 3];
//! let ran_on = sorter.sort(&mut keys, &SortOptions::new(Variant::Naive).order(Order::Descending))?;
//! assert_eq!(keys, [9, 5, 3, 3, 1]);
//! println!("sorted on {ran_on}");
//! # Ok::<(), host::Error>(())
//! ```
//!
//! Floats sort by IEEE 754 total order ([`f32::total_cmp`]): `-NaN < -inf < -0.0 <
//! +0.0 < +inf < +NaN`. Structs sort by a key: see [`Entity`] and [`SortKey`].
pub mod cpu;
pub mod device;
mod error;
pub mod inputs;
mod key_type;
pub mod measure;
pub mod report;
pub mod scan;
mod sorter;
pub mod study;
pub mod variants;
pub mod verify;

pub use device::{DeviceBuffer, DeviceInfo, Gpu};
pub use error::{Bytes, Error, Result};
pub use inputs::Distribution;
pub use kernels::key::{Entity, SortKey};
pub use key_type::KeyType;
pub use sorter::{Backend, Order, SortOptions, Sorter};
pub use variants::Variant;

/// An element type the library sorts: plain old data with an order-preserving key.
/// Implemented for `u32`, `i32`, `f32`, `u64`, `i64`, `f64` and [`Entity`].
pub trait Element: SortKey + bytemuck::Pod + Send + Sync + std::fmt::Debug {}
impl<T: SortKey + bytemuck::Pod + Send + Sync + std::fmt::Debug> Element for T {}
