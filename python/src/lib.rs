//! `gpusort._gpusort`: the native half of the Python package `gpusort`. The package's
//! `__init__.py` is the public face (numpy- and torch-like signatures); it sends host
//! arrays to the functions here that allocate numpy results, and device arrays, with
//! outputs it allocated through the caller's library (torch, CuPy), to the `*_device`
//! ones.
//!
//! - `array`: reading `__array_interface__` / `__cuda_array_interface__`;
//! - `host_arrays`: host memory, on the process-wide sorter (GPU or CPU);
//! - `device_arrays`: device memory, borrowed in place, on the caller's streams;
//! - `errors`: the library's errors as Python exceptions.
mod array;
mod device_arrays;
mod errors;
mod host_arrays;

use pyo3::prelude::*;

/// Where host arrays are sorted: `"GPU (<device name>)"`, or `"CPU (<why>)"` when
/// there is no usable GPU. Opens the device on first use.
#[pyfunction]
fn backend(py: Python<'_>) -> String {
    py.detach(|| host::shared_sorter().backend().to_string())
}

/// `a` sorted, into a new numpy array or into `out` (which may be `a`). `nan_last`
/// (every function here that orders floats takes it): numpy's and torch's order of
/// NaNs and zeros, else IEEE 754 total order (`host_arrays::options`).
#[pyfunction]
#[pyo3(signature = (a, out=None, descending=false, nan_last=true))]
fn sort_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    host_arrays::sort(py, a, out, descending, nan_last)
}

/// The sorting permutation of `a` as a new int64 numpy array: the stable one, or with
/// `stable=False` one whose equal keys may come out in any order.
#[pyfunction]
#[pyo3(signature = (a, descending=false, nan_last=true, stable=true))]
fn argsort_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
    stable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    host_arrays::argsort(py, a, descending, nan_last, ties(stable))
}

/// The library's tie order for numpy's and torch's `stable` flag.
fn ties(stable: bool) -> host::Ties {
    if stable { host::Ties::Stable } else { host::Ties::Any }
}

/// Each row (along the last dimension) of the C-contiguous `a` sorted, into a new
/// numpy array of `a`'s shape or into `out` (which may be `a`).
#[pyfunction]
#[pyo3(signature = (a, out=None, descending=false, nan_last=true))]
fn sort_rows_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    host_arrays::sort_rows(py, a, out, descending, nan_last)
}

/// The stable sorting permutation of each row of `a` (column indices, int64).
#[pyfunction]
#[pyo3(signature = (a, descending=false, nan_last=true))]
fn argsort_rows_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    host_arrays::argsort_rows(py, a, descending, nan_last)
}

/// `(values, indices)` of the `k` largest (or smallest) elements of each row of `a`.
#[pyfunction]
#[pyo3(signature = (a, k, largest=true, nan_last=true))]
fn topk_rows_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    host_arrays::topk_rows(py, a, k, largest, nan_last)
}

/// `(keys, values)` sorted stably by key, as new numpy arrays.
#[pyfunction]
#[pyo3(signature = (keys, values, descending=false, nan_last=true))]
fn sort_pairs_host<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    values: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    host_arrays::sort_pairs(py, keys, values, descending, nan_last)
}

/// `(values, indices)` of the `k` largest (or smallest) elements of `a`, sorted.
#[pyfunction]
#[pyo3(signature = (a, k, largest=true, nan_last=true))]
fn topk_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    host_arrays::topk(py, a, k, largest, nan_last)
}

/// Sorts the device array `a` into the device array `out` (which may be `a`). The
/// `*_device` functions work in order with `stream` (a `CUstream` handle) if given,
/// else with the streams the arrays' interfaces name (`device_arrays`).
#[pyfunction]
#[pyo3(signature = (a, out, descending=false, nan_last=true, stream=None))]
fn sort_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::sort(py, a, out, descending, nan_last, stream)
}

/// Sorts each row (along the last dimension) of the C-contiguous device array `a`
/// into `out` (same shape; may be `a`).
#[pyfunction]
#[pyo3(signature = (a, out, descending=false, nan_last=true, stream=None))]
fn sort_rows_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::sort_rows(py, a, out, descending, nan_last, stream)
}

/// Writes the stable sorting permutation of each row of the device array `a` into
/// the int64 (or uint64) device array `indices` of `a`'s shape.
#[pyfunction]
#[pyo3(signature = (a, indices, descending=false, nan_last=true, stream=None))]
fn argsort_rows_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::argsort_rows(py, a, indices, descending, nan_last, stream)
}

/// Writes the top `k` of each row of the device array `a` into `values` and their
/// columns into `indices` (int64 or uint64).
#[pyfunction]
#[pyo3(signature = (a, k, values, indices, largest=true, nan_last=true, stream=None))]
#[allow(clippy::too_many_arguments)]
fn topk_rows_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    k: i64,
    values: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    largest: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::topk_rows(py, a, k, largest, nan_last, values, indices, stream)
}

/// Writes the sorting permutation of the device array `a` into the int64 (or uint64)
/// device array `indices`: the stable one, or with `stable=False` one whose equal keys
/// may come out in any order (32-bit keys: a faster first pass).
#[pyfunction]
#[pyo3(signature = (a, indices, descending=false, nan_last=true, stream=None, stable=true))]
#[allow(clippy::too_many_arguments)]
fn argsort_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
    stable: bool,
) -> PyResult<()> {
    device_arrays::argsort(py, a, indices, descending, nan_last, stream, ties(stable))
}

/// Copies the device arrays `keys` and `values` into `keys_out` and `values_out` (each
/// may be its input) and sorts those as pairs, stably by key.
#[pyfunction]
#[pyo3(signature = (keys, values, keys_out, values_out, descending=false, nan_last=true, stream=None))]
#[allow(clippy::too_many_arguments)]
fn sort_pairs_device(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    keys_out: &Bound<'_, PyAny>,
    values_out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::sort_pairs(py, keys, values, keys_out, values_out, descending, nan_last, stream)
}

/// Where each query falls in the ascending host array `sorted`, as a new int64 array
/// (`nan_last`: floats compared as numpy compares them).
#[pyfunction]
#[pyo3(signature = (sorted, queries, right=false, nan_last=true))]
fn searchsorted_host<'py>(
    py: Python<'py>,
    sorted: &Bound<'py, PyAny>,
    queries: &Bound<'py, PyAny>,
    right: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    host_arrays::searchsorted(py, sorted, queries, right, nan_last)
}

/// Writes where each query falls in the ascending device array `sorted` into `out`
/// (int64 or uint64); `queries_sorted` promises ascending queries (the merge path).
#[pyfunction]
#[pyo3(signature = (sorted, queries, out, right=false, queries_sorted=false, nan_last=true, stream=None))]
#[allow(clippy::too_many_arguments)]
fn searchsorted_device(
    py: Python<'_>,
    sorted: &Bound<'_, PyAny>,
    queries: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    right: bool,
    queries_sorted: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::searchsorted(py, sorted, queries, out, right, queries_sorted, nan_last, stream)
}

/// `(values, counts or None)`: the distinct values of the host array `a`, sorted, or
/// (`consecutive`) the first of each run of equal adjacent keys; counts are int64.
#[pyfunction]
#[pyo3(signature = (a, consecutive=false, counts=false))]
fn unique_host<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    consecutive: bool,
    counts: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    host_arrays::unique(py, a, consecutive, counts)
}

/// [`unique_host`] of a device array; the results are made by `alloc(n, dtype)` once
/// their length is known.
#[pyfunction]
#[pyo3(signature = (a, alloc, consecutive=false, counts=false, stream=None))]
fn unique_device<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    alloc: &Bound<'py, PyAny>,
    consecutive: bool,
    counts: bool,
    stream: Option<u64>,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    device_arrays::unique(py, a, consecutive, counts, alloc, stream)
}

/// Whether the device array `a` holds a NaN or `-0.0` (`False` for integers): a float
/// array without them sorts by IEEE total order, which is then numpy's order.
#[pyfunction]
#[pyo3(signature = (a, stream=None))]
fn has_nan_or_negative_zero_device(py: Python<'_>, a: &Bound<'_, PyAny>, stream: Option<u64>) -> PyResult<bool> {
    device_arrays::has_nan_or_negative_zero(py, a, stream)
}

/// Writes the top `k` of the device array `a` into `values` and `indices` (int64 or
/// uint64).
#[pyfunction]
#[pyo3(signature = (a, k, values, indices, largest=true, nan_last=true, stream=None))]
#[allow(clippy::too_many_arguments)]
fn topk_device(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    k: i64,
    values: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    largest: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    device_arrays::topk(py, a, k, largest, nan_last, values, indices, stream)
}

#[pymodule]
fn _gpusort(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(sort_host, m)?)?;
    m.add_function(wrap_pyfunction!(argsort_host, m)?)?;
    m.add_function(wrap_pyfunction!(sort_pairs_host, m)?)?;
    m.add_function(wrap_pyfunction!(topk_host, m)?)?;
    m.add_function(wrap_pyfunction!(sort_device, m)?)?;
    m.add_function(wrap_pyfunction!(argsort_device, m)?)?;
    m.add_function(wrap_pyfunction!(topk_device, m)?)?;
    m.add_function(wrap_pyfunction!(sort_pairs_device, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted_host, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted_device, m)?)?;
    m.add_function(wrap_pyfunction!(unique_host, m)?)?;
    m.add_function(wrap_pyfunction!(unique_device, m)?)?;
    m.add_function(wrap_pyfunction!(has_nan_or_negative_zero_device, m)?)?;
    m.add_function(wrap_pyfunction!(sort_rows_host, m)?)?;
    m.add_function(wrap_pyfunction!(argsort_rows_host, m)?)?;
    m.add_function(wrap_pyfunction!(topk_rows_host, m)?)?;
    m.add_function(wrap_pyfunction!(sort_rows_device, m)?)?;
    m.add_function(wrap_pyfunction!(argsort_rows_device, m)?)?;
    m.add_function(wrap_pyfunction!(topk_rows_device, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
