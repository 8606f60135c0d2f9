use std::fmt;

/// Everything that can go wrong when sorting. No function of this crate panics on bad
/// input or a missing device; they return one of these. New variants may come in any
/// release (`#[non_exhaustive]`): match the ones you handle and keep a `_` arm.
///
/// ```
/// use host::{Error, Sorter, SortOptions};
///
/// let mut keys = vec![3u32, 1, 2];
/// let mut values = vec![0u32; 2];
/// match Sorter::with_fallback().sort_pairs(&mut keys, &mut values, &SortOptions::default()) {
///     Err(Error::LengthMismatch { keys: 3, values: 2 }) => {} // nothing was changed
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(keys, [3, 1, 2]);
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA device or driver (the message says which).
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// The device has too little free memory for the request.
    #[error("out of device memory: needed {} but only {} free", Bytes(*needed), Bytes(*free))]
    OutOfMemory {
        /// Bytes of device memory the request needs.
        needed: u64,
        /// Bytes of device memory free when it was asked for.
        free: u64,
    },
    /// Keys and values (or other slices that go together) differ in length.
    #[error("{keys} keys but {values} values")]
    LengthMismatch {
        /// Length of the keys (or of the first slice).
        keys: usize,
        /// Length of the values (or of the slice that should match it).
        values: usize,
    },
    /// More elements than the operation takes: `what` names it (argsort and top-k
    /// return `u32` indices, so they take at most 2^32 - 1 keys; a variant's limit).
    #[error("{what} takes at most {max} elements; got {len}")]
    TooManyElements {
        /// The operation or variant, as printed (`"argsort (u32 indices)"`).
        what: String,
        /// The most elements it takes.
        max: u64,
        /// How many it was given.
        len: u64,
    },
    /// An option the operation or variant does not offer: `option` names it (`"key
    /// bits"`, `"pairs"`, `"argsort"`), `by` what was asked (`"variant sm9"`,
    /// `"top-k"`), and `hint` what offers it.
    #[error("{by} does not offer {option}: {hint}")]
    Unsupported {
        /// The option that was asked for (`"key bits"`, `"pairs"`, ...).
        option: &'static str,
        /// What was asked to offer it (`"variant sm9"`, `"top-k"`, ...).
        by: String,
        /// What offers it instead, for the message.
        hint: &'static str,
    },
    /// Any other argument that can't be honoured (a bad block size, bad segment
    /// offsets, a record size the key does not fit, ...); the message says which.
    #[error("bad argument: {0}")]
    BadArgument(String),
    /// A kernel launch failed or a launched kernel faulted.
    #[error("kernel `{kernel}` failed: {source}")]
    Launch {
        /// Name of the kernel's entry.
        kernel: String,
        /// The driver's error.
        source: cudarc::driver::DriverError,
    },
    /// Any other CUDA driver call failed.
    #[error("CUDA driver call `{call}` failed: {source}")]
    Driver {
        /// The driver function called (`"cuMemcpyPeerAsync"`).
        call: &'static str,
        /// The driver's error.
        source: cudarc::driver::DriverError,
    },
    /// Reading or writing a file (the CLI's `sort`).
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path (`"cannot write output out.bin"`).
        context: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The multi-GPU sort's communication (NCCL) is missing or failed: no library,
    /// a failed call, or an exchange that did not finish in time.
    #[error("multi-GPU communication: {0}")]
    Communication(String),
    /// An input file's contents are not what its format requires.
    #[error("{0}")]
    BadInput(String),
    /// A host buffer could not be allocated: the request is past the host memory
    /// budget or the allocator refused it (`available`: the budget, or what was
    /// asked for when the allocator refused).
    #[error("out of host memory: needed {} but only {} available", Bytes(*needed), Bytes(*available))]
    HostOutOfMemory {
        /// Bytes the buffer needed.
        needed: u64,
        /// Bytes available: the budget's room, or the request the allocator refused.
        available: u64,
    },
    /// The input does not fit the host memory and temporary disk space the work may
    /// use (the message says how much was read and what the limits are).
    #[error("{0}")]
    TooLarge(String),
}

/// The result of this crate's fallible functions: [`Error`] unless `E` says otherwise.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Operations that return (or sort by) `u32` indices take at most `u32::MAX`
    /// elements: `Ok` for `n` within that, else [`Error::TooManyElements`] naming `what`.
    pub(crate) fn check_u32_indices(what: &str, n: usize) -> Result<()> {
        if n > u32::MAX as usize {
            return Err(Error::past_u32_indices(what, n));
        }
        Ok(())
    }

    /// The [`Error::TooManyElements`] of `what` on `n` elements, more than `u32`
    /// indices reach.
    pub(crate) fn past_u32_indices(what: &str, n: usize) -> Error {
        Error::TooManyElements { what: format!("{what} (u32 indices)"), max: u32::MAX as u64, len: n as u64 }
    }

    /// The error of key bits ([`crate::SortOptions::key_bits`]) asked of a record type
    /// named `record`: they select bits of primitive keys.
    pub(crate) fn key_bits_of_record(record: &str) -> Error {
        Error::Unsupported {
            option: "key bits",
            by: format!("{record} records"),
            hint: "key bits apply to primitive keys",
        }
    }
}

/// Byte counts printed for people: `1.50 GiB (1610612736 bytes)`.
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
        let mut v = self.0 as f64;
        let mut u = 0;
        while v >= 1024.0 && u + 1 < UNITS.len() {
            v /= 1024.0;
            u += 1;
        }
        if u == 0 { write!(f, "{} B", self.0) } else { write!(f, "{v:.2} {} ({} bytes)", UNITS[u], self.0) }
    }
}

/// Attaches the driver call's name to a cudarc error, mapping out-of-memory to
/// [`Error::OutOfMemory`] where the caller knows the size.
pub(crate) trait DriverContext<T> {
    fn call(self, call: &'static str) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, cudarc::driver::DriverError> {
    fn call(self, call: &'static str) -> Result<T> {
        self.map_err(|source| Error::Driver { call, source })
    }
}
