//! The library's errors as Python exceptions, with the library's messages.
use host::Error;
use pyo3::PyErr;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyValueError};

/// `ValueError` for arguments the library refuses (lengths, sizes, options),
/// `MemoryError` for device or host memory that ran short, `OSError` for files, and
/// `RuntimeError` for a missing GPU and driver or kernel failures.
pub fn to_py(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::LengthMismatch { .. }
        | Error::TooManyElements { .. }
        | Error::Unsupported { .. }
        | Error::BadArgument(_)
        | Error::BadInput(_)
        | Error::TooLarge(_) => PyValueError::new_err(message),
        Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => PyMemoryError::new_err(message),
        Error::Io { .. } => PyOSError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// `?` on the library's results inside a `#[pyfunction]`.
pub trait OrPyErr<T> {
    fn or_py(self) -> Result<T, PyErr>;
}

impl<T> OrPyErr<T> for host::Result<T> {
    fn or_py(self) -> Result<T, PyErr> {
        self.map_err(to_py)
    }
}
