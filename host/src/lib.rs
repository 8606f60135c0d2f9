//! GPU sorting in Rust.
//!
//! Kernels are written in Rust (the `kernels` crate, compiled to PTX by rustc's NVPTX
//! backend) and launched through the CUDA driver. Without a GPU the same API sorts on
//! the CPU. Every example below runs on a machine without a GPU too.
//!
//! # Sorting a slice
//!
//! [`Sorter::with_fallback`] opens the first CUDA device, or falls back to the CPU;
//! [`Sorter::sort`] uploads, sorts and downloads, and says where it ran.
//!
//! ```
//! use host::{Order, SortOptions, Sorter, Variant};
//!
//! let sorter = Sorter::with_fallback();
//! let mut keys = vec![5u32, 3, 9, 1, 3];
//! let ran_on = sorter.sort(&mut keys, &SortOptions::new(Variant::Naive).order(Order::Descending))?;
//! assert_eq!(keys, [9, 5, 3, 3, 1]);
//! println!("sorted on {ran_on}");
//! # Ok::<(), host::Error>(())
//! ```
//!
//! Element types: `u32`, `i32`, `f32`, `u64`, `i64`, `f64` and [`Entity`]. Floats sort
//! by IEEE 754 total order ([`f32::total_cmp`]): `-NaN < -inf < -0.0 < +0.0 < +inf <
//! +NaN`.
//!
//! # Choosing a variant
//!
//! Each algorithm is a [`Variant`], by name on the command line and in tables. Some
//! are stable (equal keys keep their input order), some take a block size.
//!
//! ```
//! use host::{SortOptions, Sorter, Variant};
//!
//! for v in Variant::ALL {
//!     println!("{v}: {}", if v.is_stable() { "stable" } else { "unstable" });
//! }
//! let variant: Variant = "naive".parse()?;
//! let opts = SortOptions::new(variant).block_size(512);
//! let mut keys = vec![2.5f64, -1.0, f64::INFINITY, 0.0];
//! Sorter::with_fallback().sort(&mut keys, &opts)?;
//! assert_eq!(keys, [-1.0, 0.0, 2.5, f64::INFINITY]);
//! # Ok::<(), host::Error>(())
//! ```
//!
//! # Sorting structs by a key
//!
//! A struct sorts by its [`SortKey`]: [`Entity`] (the Catania report's game entity)
//! by `distance_from_player`, carrying its id and position along. With a stable
//! variant, entities at equal distance keep their input order.
//!
//! ```
//! use host::{Entity, Order, SortOptions, Sorter, Variant};
//!
//! let at = |d: f32, id: u32| Entity { distance_from_player: d, id, position: [0.0; 3] };
//! let mut entities = vec![at(7.5, 0), at(1.0, 1), at(7.5, 2), at(3.0, 3)];
//! let opts = SortOptions::new(Variant::Naive).order(Order::Descending);
//! Sorter::with_fallback().sort(&mut entities, &opts)?;
//! let ids: Vec<u32> = entities.iter().map(|e| e.id).collect();
//! assert_eq!(ids, [0, 2, 3, 1]);
//! # Ok::<(), host::Error>(())
//! ```
//!
//! # Sorting data already on the device
//!
//! Keep data on the GPU between steps with [`Sorter::upload`] and
//! [`Sorter::sort_device`]; read it back with [`DeviceBuffer::to_vec`]. These need a
//! device: without one they return [`Error::NoDevice`], so check [`Sorter::gpu`].
//!
//! ```
//! use host::{SortOptions, Sorter};
//!
//! let sorter = Sorter::with_fallback();
//! let keys: Vec<i64> = (0..10_000).map(|i| (i * 7919) % 10_007 - 5_000).collect();
//! match sorter.gpu() {
//!     Some(gpu) => {
//!         let mut buf = sorter.upload(&keys)?;
//!         sorter.sort_device(&mut buf, &SortOptions::default())?;
//!         let sorted = buf.to_vec(gpu)?;
//!         assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
//!     }
//!     None => println!("no GPU here: {}", sorter.backend()),
//! }
//! # Ok::<(), host::Error>(())
//! ```
//!
//! Programs that already use [cudarc] keep their own stream and buffers:
//! [`Gpu::with_stream`] queues every operation on the caller's stream, and
//! [`DeviceBuffer::from_cuda_slice`] / [`DeviceBuffer::into_cuda_slice`] move a
//! `CudaSlice` in and out without copying; [`Gpu::borrow_device_memory`] lends memory
//! that another library owns and keeps (a PyTorch tensor's) for an in-place sort
//! ([`BorrowedBuffer`]), and never frees it. Scratch memory is kept per device between
//! sorts ([`Gpu::scratch_kept_bytes`], [`Gpu::release_scratch`]); no sort waits for the
//! device unless memory runs short.
//!
//! # Sorting records by key
//!
//! Any plain-old-data record sorts by a computed key ([`Sorter::sort_by_key`], keys of
//! every primitive type and lexicographic pairs of 32-bit ones), or by a key field at a
//! byte offset ([`Sorter::sort_records_by_field`], record sizes known at run time; the
//! GPU extracts the keys and gathers the records). Slices get one-call methods from
//! [`GpuSliceExt`]:
//!
//! ```
//! use host::GpuSliceExt;
//!
//! #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
//! #[repr(C)]
//! struct Order { price: f64, qty: u32, side: u32 }
//! let mut book = vec![Order { price: 10.5, qty: 3, side: 0 }, Order { price: 9.75, qty: 1, side: 1 }];
//! book.gpu_sort_by_key(|o| o.price)?;
//! assert_eq!(book[0].qty, 1);
//! # Ok::<(), host::Error>(())
//! ```
//!
//! # The CPU fallback
//!
//! [`Sorter::cpu`] always sorts on the CPU; [`Sorter::with_fallback`] does when there is
//! no usable device, and [`Sorter::backend`] says which and why. The CPU sort is
//! stable, so its result equals every stable GPU variant's. [`Sorter::new`] instead
//! fails with [`Error::NoDevice`] when there is no GPU.
//!
//! ```
//! use host::{Backend, SortOptions, Sorter};
//!
//! let cpu = Sorter::cpu();
//! let mut keys = vec![3u32, 1, 2];
//! assert!(matches!(cpu.sort(&mut keys, &SortOptions::default())?, Backend::Cpu(_)));
//! assert_eq!(keys, [1, 2, 3]);
//! match Sorter::new() {
//!     Ok(gpu_sorter) => println!("GPU: {}", gpu_sorter.backend()),
//!     Err(e) => println!("{e}"),
//! }
//! # Ok::<(), host::Error>(())
//! ```
//!
//! # Sorting files
//!
//! [`file_sort::sort_file`] sorts a binary or text file into another, in chunks that
//! fit the device when the data does not (the CLI's `host sort`), and
//! [`file_sort::check_files`] verifies the result independently.
//!
//! ```
//! use host::file_sort::{self, FileSortOptions, Format};
//! use host::{KeyType, Sorter};
//!
//! let dir = std::env::temp_dir();
//! let (input, output) = (dir.join("doc-keys.txt"), dir.join("doc-sorted.txt"));
//! std::fs::write(&input, "30\n-4\n12\n")?;
//! let opts = FileSortOptions::new(KeyType::I32, Format::Text);
//! let report = file_sort::sort_file(&Sorter::with_fallback(), &input, &output, &opts, &mut |_| {})?;
//! assert_eq!(std::fs::read_to_string(&output)?, "-4\n12\n30\n");
//! file_sort::check_files(KeyType::I32, Format::Text, &input, &output, host::Order::Ascending)?;
//! println!("{} elements on {}", report.elements, report.backend);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Cargo features
//!
//! `cli` (default): the `host` command-line program with its benchmarks, studies,
//! tables and charts (clap, indicatif). A library user writes
//! `host = { ..., default-features = false }` and compiles none of it.
#![warn(missing_docs)]
mod atomic_file;
#[cfg(feature = "cli")]
mod bench;
mod by_key;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
mod cpu;
pub mod device;
mod element;
mod error;
mod ext;
pub mod file_sort;
mod inputs;
mod key_type;
mod measure;
mod multi_gpu;
mod options;
pub mod ranks;
#[cfg(feature = "cli")]
mod report;
mod sorter;
#[cfg(feature = "cli")]
mod study;
#[doc(hidden)]
pub mod testing;
mod trace;
pub mod tuning;
mod variants;
mod verify;
mod wide;

pub use by_key::{Key32, RecordKey};
/// The cudarc this crate is built on, for [`Gpu::with_stream`] and
/// [`DeviceBuffer::from_cuda_slice`] (same version, so its types match).
pub use cudarc;
pub use device::{BorrowedBuffer, DeviceBuffer, DeviceInfo, Gpu, ModuleSource};
pub use element::{Element, Key};
pub use error::{Bytes, Error, Result};
pub use ext::{GpuSliceExt, init_shared_sorter, shared_sorter};
/// The half-precision key types (`f16`, `bf16`), from the `half` crate.
pub use half::{bf16, f16};
pub use inputs::Distribution;
pub use kernels::key::{Entity, SortKey};
/// How a wide key's bytes map to its order words ([`WideKey::LAYOUT`]).
pub use kernels::wide::WideLayout;
pub use key_type::{ByteWidth, KeyType};
pub use multi_gpu::{Exchange, MultiGpuReport, MultiGpuSorter, Pipeline};
pub use options::{KeyOrder, NanOrder, Order, SortOptions, Ties};
pub use ranks::{RankConfig, RankGroup, RankReport};
pub use sorter::{Backend, RowOp, Sorter};
pub use tuning::Tuning;
pub use variants::Variant;
pub use variants::radix::Index;
pub use variants::records::KeyField;
pub use variants::searchsorted::{QueryOrder, Side};
pub use variants::segmented::SegmentOffset;
pub use wide::WideKey;
