//! Sorting host arrays (numpy, or any buffer numpy wraps without a copy): the library's
//! slice operations on the process-wide sorter ([`host::shared_sorter`]: the GPU if
//! there is one, the CPU otherwise), with the GIL released while they run. Results are
//! new numpy arrays, or written into the caller's `out`.
use host::{Error, Key, Order, Side, SortOptions, shared_sorter};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::array::{Array, DType, Memory, with_dtype, with_value_dtype};
use crate::device_arrays::check_same_dtype;
use crate::errors::OrPyErr;

/// The options of a sort in `descending` or ascending order (the default variant: the
/// radix sort on the GPU, stable; the CPU sort is stable too), with floats' NaNs in
/// numpy's and torch's order when `nan_last` (every NaN above `+inf`, all NaNs one
/// value and both zeros one value: [`SortOptions::nan_last`]), else in IEEE 754 total
/// order. Integers ignore the NaN order.
pub fn options(descending: bool, nan_last: bool) -> SortOptions {
    let opts = SortOptions::default().order(if descending { Order::Descending } else { Order::Ascending });
    if nan_last { opts.nan_last() } else { opts }
}

/// A new numpy array of `len` elements of `dtype` (uninitialised, as `numpy.empty`).
fn new_array<'py>(py: Python<'py>, len: usize, dtype: DType) -> PyResult<(Bound<'py, PyAny>, Array)> {
    new_shaped(py, &[len], dtype)
}

/// A new numpy array of `shape` and `dtype` (uninitialised), read as its rows.
fn new_shaped<'py>(py: Python<'py>, shape: &[usize], dtype: DType) -> PyResult<(Bound<'py, PyAny>, Array)> {
    let shape = pyo3::types::PyTuple::new(py, shape)?;
    let obj = py.import("numpy")?.call_method1("empty", (shape, dtype.name()))?;
    let (array, _, _) = Array::read_rows(&obj, Memory::Host, "result")?;
    Ok((obj, array))
}

/// The shape of `a` (host or device array) from its interface.
pub fn shape_of(a: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    a.getattr("shape")?.extract()
}

/// `shape` with its last dimension `last`.
fn with_last(shape: &[usize], last: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    if let Some(l) = s.last_mut() {
        *l = last;
    }
    s
}

/// Refuses an `out` that does not match the input in type and length, or shares only
/// part of its memory.
pub fn check_out(src: &Array, out: &Array) -> PyResult<()> {
    out.check_writable("out")?;
    if out.dtype != src.dtype || out.len != src.len {
        return Err(PyValueError::new_err(format!(
            "out: {} elements of {} for {} elements of {}",
            out.len,
            out.dtype.name(),
            src.len,
            src.dtype.name()
        )));
    }
    if out.overlaps_partly(src) {
        return Err(PyValueError::new_err(
            "out shares part of the input's memory: pass the input itself or separate memory",
        ));
    }
    Ok(())
}

/// Refuses more elements than `u32` indices can address (the library's row
/// operations and unique counts index with `u32`), before anything is allocated.
pub fn check_u32_indices(what: &str, len: usize) -> PyResult<()> {
    if len > u32::MAX as usize {
        return Err(Error::TooManyElements {
            what: format!("{what} (u32 indices)"),
            max: u32::MAX as u64,
            len: len as u64,
        })
        .or_py();
    }
    Ok(())
}

/// `a` sorted into `out` (a new array when `None`; `out` may be `a` itself).
pub fn sort<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let src = Array::read(a, Memory::Host, "a")?;
    let (out_obj, dst) = match out {
        Some(o) => {
            let dst = Array::read(o, Memory::Host, "out")?;
            check_out(&src, &dst)?;
            (o.clone(), dst)
        }
        None => new_array(py, src.len, src.dtype)?,
    };
    let in_place = src.ptr == dst.ptr;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` and `out` stay referenced for the call; `dst` is writable and is
        // either `src` itself (no shared slice is made) or memory apart from it.
        let (from, to) = unsafe { ((!in_place).then(|| src.as_slice::<T>()), dst.as_mut_slice::<T>()) };
        let opts = options(descending, nan_last);
        py.detach(|| match from {
            // Uploaded from `a` and downloaded into `out`: no copy on the host first.
            Some(from) => shared_sorter().sort_into(from, to, &opts).map(drop),
            None => shared_sorter().sort(to, &opts).map(drop),
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// The sorting permutation of `a` (ties as `ties` says), as a new int64 array.
pub fn argsort<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
    ties: host::Ties,
) -> PyResult<Bound<'py, PyAny>> {
    let src = Array::read(a, Memory::Host, "a")?;
    let (out_obj, out) = new_array(py, src.len, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; `out` is a new array apart from it.
        // The indices (below 2^63) have the same bits as u64 and as int64.
        let (keys, idx) = unsafe { (src.as_slice::<T>(), out.as_mut_slice::<u64>()) };
        let opts = options(descending, nan_last);
        py.detach(|| match ties {
            host::Ties::Stable => shared_sorter().argsort_into(keys, idx, &opts),
            host::Ties::Any => shared_sorter().argsort_unstable_into(keys, idx, &opts),
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// `keys` sorted stably with `values` carried along, as two new arrays.
pub fn sort_pairs<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    values: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (k, v) = (Array::read(keys, Memory::Host, "keys")?, Array::read(values, Memory::Host, "values")?);
    if k.len != v.len {
        return Err(Error::LengthMismatch { keys: k.len, values: v.len }).or_py();
    }
    let (k_obj, k_out) = new_array(py, k.len, k.dtype)?;
    let (v_obj, v_out) = new_array(py, v.len, v.dtype)?;
    with_dtype!(k.dtype, K => with_value_dtype!(v.dtype, V => {
        // SAFETY: the inputs stay referenced; the outputs are new arrays.
        let (kin, vin, kout, vout) =
            unsafe { (k.as_slice::<K>(), v.as_slice::<V>(), k_out.as_mut_slice::<K>(), v_out.as_mut_slice::<V>()) };
        // Uploaded from the inputs and downloaded into the new arrays.
        py.detach(|| shared_sorter().sort_pairs_into(kin, vin, kout, vout, &options(descending, nan_last)).map(drop))
        .or_py()?;
    }, narrow => return Err(PyTypeError::new_err(crate::array::narrow_values_message(v.dtype)))));
    Ok((k_obj, v_obj))
}

/// Refuses a `k` outside `0..=len` (as `torch.topk` does).
pub fn check_k(k: i64, len: usize) -> PyResult<usize> {
    match usize::try_from(k) {
        Ok(k) if k <= len => Ok(k),
        _ => Err(PyValueError::new_err(format!("k = {k} is out of range for {len} elements (0 <= k <= {len})"))),
    }
}

/// The `k` largest (or smallest) elements of `a`, sorted, with their indices (int64),
/// ties to the lowest index.
pub fn topk<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let src = Array::read(a, Memory::Host, "a")?;
    let k = check_k(k, src.len)?;
    let (vals_obj, vals) = new_array(py, k, src.dtype)?;
    let (idx_obj, idx) = new_array(py, k, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; the outputs are new arrays. The indices (below
        // 2^63) have the same bits as u64 and as int64.
        let (keys, vout, iout) = unsafe { (src.as_slice::<T>(), vals.as_mut_slice::<T>(), idx.as_mut_slice::<u64>()) };
        py.detach(|| {
            let (top, at): (Vec<T>, Vec<u64>) = shared_sorter().top_k_indexed(keys, k, &options(largest, nan_last))?;
            vout.copy_from_slice(&top);
            iout.copy_from_slice(&at);
            Ok(())
        })
        .or_py()?;
    });
    Ok((vals_obj, idx_obj))
}

/// For each query, where it falls in the ascending `sorted` (`right`: after equal
/// keys), as a new int64 array ([`host::Sorter::searchsorted`]). With `nan_last`,
/// floats compare as numpy compares them (every NaN above `+inf` and equal to every
/// other, `-0.0 == +0.0`): the search runs on canonical copies of both
/// ([`canonical`]: one NaN, one zero), whose total order is that order.
pub fn searchsorted<'py>(
    py: Python<'py>,
    sorted: &Bound<'py, PyAny>,
    queries: &Bound<'py, PyAny>,
    right: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let s = Array::read(sorted, Memory::Host, "sorted")?;
    let q = Array::read(queries, Memory::Host, "queries")?;
    check_same_dtype(&s, &q)?;
    let (out_obj, out) = new_array(py, q.len, DType::I64)?;
    let side = if right { Side::Right } else { Side::Left };
    with_dtype!(s.dtype, T => {
        // SAFETY: the inputs stay referenced; `out` is a new array apart from them.
        let (keys, qs, at) = unsafe { (s.as_slice::<T>(), q.as_slice::<T>(), out.as_mut_slice::<i64>()) };
        py.detach(|| {
            let found = if nan_last && src_is_float(s.dtype) {
                shared_sorter().searchsorted(&canonical(keys), &canonical(qs), side)?
            } else {
                shared_sorter().searchsorted(keys, qs, side)?
            };
            at.iter_mut().zip(found).for_each(|(o, i)| *o = i as i64);
            Ok(())
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// Whether `dtype` is a float type (the one kind NaN order concerns).
fn src_is_float(dtype: DType) -> bool {
    dtype.is_float()
}

/// A copy of the float `keys` with every value replaced by its canonical value (the
/// quiet NaN, `+0.0`: [`kernels::nan::canonical_raw`], the rule of the device's
/// canonical copy), for any float width.
fn canonical<T: Key>(keys: &[T]) -> Vec<T> {
    let width = 8 * size_of::<T>() as u32;
    let mantissa = <T as kernels::SortKey>::MANTISSA_BITS;
    let (inf, nan) = (kernels::key::float_inf_bits(width, mantissa), kernels::nan::quiet_nan_bits(width, mantissa));
    keys.iter()
        .map(|k| {
            let mut w = [0u8; 8];
            w[..size_of::<T>()].copy_from_slice(bytemuck::bytes_of(k));
            let c = kernels::nan::canonical_raw(u64::from_le_bytes(w), width, inf, nan).to_le_bytes();
            bytemuck::pod_read_unaligned(&c[..size_of::<T>()])
        })
        .collect()
}

/// The distinct values of `a` (`consecutive`: the first of each run of equal adjacent
/// keys; otherwise sorted) as a new array and, with `counts`, how often each occurs
/// (int64).
pub fn unique<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    consecutive: bool,
    counts: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    let src = Array::read(a, Memory::Host, "a")?;
    with_dtype!(src.dtype, T => unique_of::<T>(py, &src, consecutive, counts))
}

fn unique_of<'py, T: Key>(
    py: Python<'py>,
    src: &Array,
    consecutive: bool,
    want_counts: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    // SAFETY: `a` stays referenced for the call.
    let keys = unsafe { src.as_slice::<T>() };
    let (values, lengths) = py
        .detach(|| {
            let sorter = shared_sorter();
            if consecutive { sorter.run_length_encode(keys) } else { sorter.unique_counts(keys) }
        })
        .or_py()?;
    let (values_obj, out) = new_array(py, values.len(), src.dtype)?;
    // SAFETY: a new array of `values.len()` elements of `T`.
    unsafe { out.as_mut_slice::<T>() }.copy_from_slice(&values);
    if !want_counts {
        return Ok((values_obj, None));
    }
    let (counts_obj, out) = new_array(py, lengths.len(), DType::I64)?;
    // SAFETY: a new int64 array of one element per value.
    unsafe { out.as_mut_slice::<i64>() }.iter_mut().zip(lengths).for_each(|(o, c)| *o = c as i64);
    Ok((values_obj, Some(counts_obj)))
}

/// Each row (along the last dimension) of the C-contiguous array `a` sorted, stably,
/// into `out` (a new array of `a`'s shape when `None`; `out` may be `a` itself):
/// [`host::Sorter::sort_rows`].
pub fn sort_rows<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (src, rows, cols) = Array::read_rows(a, Memory::Host, "a")?;
    check_u32_indices("sort along the last dimension", src.len)?;
    let (out_obj, dst) = match out {
        Some(o) => {
            let (dst, ..) = Array::read_rows(o, Memory::Host, "out")?;
            check_out(&src, &dst)?;
            (o.clone(), dst)
        }
        None => new_shaped(py, &shape_of(a)?, src.dtype)?,
    };
    let in_place = src.ptr == dst.ptr;
    with_dtype!(src.dtype, T => {
        // SAFETY: as in `sort`.
        let (from, to) = unsafe { ((!in_place).then(|| src.as_slice::<T>()), dst.as_mut_slice::<T>()) };
        py.detach(|| {
            if let Some(from) = from {
                to.copy_from_slice(from);
            }
            shared_sorter().sort_rows(to, rows, cols, &options(descending, nan_last)).map(drop)
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// The stable sorting permutation of each row of `a` (column indices, int64, `a`'s
/// shape): [`host::Sorter::argsort_rows`].
pub fn argsort_rows<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    descending: bool,
    nan_last: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (src, rows, cols) = Array::read_rows(a, Memory::Host, "a")?;
    check_u32_indices("argsort along the last dimension", src.len)?;
    let (out_obj, out) = new_shaped(py, &shape_of(a)?, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; `out` is a new array apart from it.
        let (keys, idx) = unsafe { (src.as_slice::<T>(), out.as_mut_slice::<i64>()) };
        py.detach(|| {
            let perm = shared_sorter().argsort_rows(keys, rows, cols, &options(descending, nan_last))?;
            idx.iter_mut().zip(perm).for_each(|(o, p)| *o = p as i64);
            Ok(())
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// The `k` largest (or smallest) elements of each row of `a`, sorted, and their
/// columns (int64): two new arrays of `a`'s shape with `k` as the last dimension
/// ([`host::Sorter::top_k_rows`]; ties to the lowest column).
pub fn topk_rows<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (src, rows, cols) = Array::read_rows(a, Memory::Host, "a")?;
    let k = check_k(k, cols)?;
    check_u32_indices("top-k along the last dimension", src.len)?;
    let shape = with_last(&shape_of(a)?, k);
    let (vals_obj, vals) = new_shaped(py, &shape, src.dtype)?;
    let (idx_obj, idx) = new_shaped(py, &shape, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; the outputs are new arrays.
        let (keys, vout, iout) = unsafe { (src.as_slice::<T>(), vals.as_mut_slice::<T>(), idx.as_mut_slice::<i64>()) };
        py.detach(|| {
            let (top, at) = shared_sorter().top_k_rows(keys, rows, cols, k, &options(largest, nan_last))?;
            vout.copy_from_slice(&top);
            iout.iter_mut().zip(at).for_each(|(o, i)| *o = i as i64);
            Ok(())
        })
        .or_py()?;
    });
    Ok((vals_obj, idx_obj))
}
