//! Sorting host arrays (numpy, or any buffer numpy wraps without a copy): the library's
//! slice operations on the process-wide sorter ([`host::shared_sorter`]: the GPU if
//! there is one, the CPU otherwise), with the GIL released while they run. Results are
//! new numpy arrays, or written into the caller's `out`.
use host::{Error, Key, Order, Side, SortOptions, shared_sorter};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::{Array, DType, Memory, with_dtype};
use crate::device_arrays::check_same_dtype;
use crate::errors::OrPyErr;

/// The options of a sort in `descending` or ascending order (the default variant: the
/// radix sort on the GPU, stable; the CPU sort is stable too).
pub fn options(descending: bool) -> SortOptions {
    SortOptions::default().order(if descending { Order::Descending } else { Order::Ascending })
}

/// A new numpy array of `len` elements of `dtype` (uninitialised, as `numpy.empty`).
fn new_array<'py>(py: Python<'py>, len: usize, dtype: DType) -> PyResult<(Bound<'py, PyAny>, Array)> {
    let obj = py.import("numpy")?.call_method1("empty", (len, dtype.name()))?;
    let array = Array::read(&obj, Memory::Host, "result")?;
    Ok((obj, array))
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

/// Refuses more elements than `u32` indices can address (the library's argsort and
/// top-k index with `u32`), before anything is allocated.
fn check_u32_indices(what: &str, len: usize) -> PyResult<()> {
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
        py.detach(|| {
            if let Some(from) = from {
                to.copy_from_slice(from);
            }
            shared_sorter().sort(to, &options(descending)).map(drop)
        })
        .or_py()?;
    });
    Ok(out_obj)
}

/// The stable sorting permutation of `a`, as a new int64 array.
pub fn argsort<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, descending: bool) -> PyResult<Bound<'py, PyAny>> {
    let src = Array::read(a, Memory::Host, "a")?;
    check_u32_indices("argsort", src.len)?;
    let (out_obj, out) = new_array(py, src.len, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; `out` is a new array apart from it.
        let (keys, idx) = unsafe { (src.as_slice::<T>(), out.as_mut_slice::<i64>()) };
        py.detach(|| {
            let perm = shared_sorter().argsort(keys, &options(descending))?;
            idx.iter_mut().zip(perm).for_each(|(o, p)| *o = p as i64);
            Ok(())
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
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let (k, v) = (Array::read(keys, Memory::Host, "keys")?, Array::read(values, Memory::Host, "values")?);
    if k.len != v.len {
        return Err(Error::LengthMismatch { keys: k.len, values: v.len }).or_py();
    }
    let (k_obj, k_out) = new_array(py, k.len, k.dtype)?;
    let (v_obj, v_out) = new_array(py, v.len, v.dtype)?;
    with_dtype!(k.dtype, K => with_dtype!(v.dtype, V => {
        // SAFETY: the inputs stay referenced; the outputs are new arrays.
        let (kin, vin, kout, vout) =
            unsafe { (k.as_slice::<K>(), v.as_slice::<V>(), k_out.as_mut_slice::<K>(), v_out.as_mut_slice::<V>()) };
        py.detach(|| {
            kout.copy_from_slice(kin);
            vout.copy_from_slice(vin);
            shared_sorter().sort_pairs(kout, vout, &options(descending)).map(drop)
        })
        .or_py()?;
    }));
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
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let src = Array::read(a, Memory::Host, "a")?;
    let k = check_k(k, src.len)?;
    check_u32_indices("top-k", src.len)?;
    let (vals_obj, vals) = new_array(py, k, src.dtype)?;
    let (idx_obj, idx) = new_array(py, k, DType::I64)?;
    with_dtype!(src.dtype, T => {
        // SAFETY: `a` stays referenced; the outputs are new arrays.
        let (keys, vout, iout) = unsafe { (src.as_slice::<T>(), vals.as_mut_slice::<T>(), idx.as_mut_slice::<i64>()) };
        py.detach(|| {
            let (top, at) = shared_sorter().top_k(keys, k, &options(largest))?;
            vout.copy_from_slice(&top);
            iout.iter_mut().zip(at).for_each(|(o, i)| *o = i as i64);
            Ok(())
        })
        .or_py()?;
    });
    Ok((vals_obj, idx_obj))
}

/// For each query, where it falls in the ascending `sorted` (`right`: after equal
/// keys), as a new int64 array ([`host::Sorter::searchsorted`]).
pub fn searchsorted<'py>(
    py: Python<'py>,
    sorted: &Bound<'py, PyAny>,
    queries: &Bound<'py, PyAny>,
    right: bool,
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
            let found = shared_sorter().searchsorted(keys, qs, side)?;
            at.iter_mut().zip(found).for_each(|(o, i)| *o = i as i64);
            Ok(())
        })
        .or_py()?;
    });
    Ok(out_obj)
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
