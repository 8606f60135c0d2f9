//! Sorting device arrays in place (PyTorch tensors, CuPy arrays: anything with
//! `__cuda_array_interface__`), without a copy to the host. The library borrows the
//! caller's memory ([`host::Gpu::borrow_device_memory`]) and works on its own stream,
//! joined to the caller's: it waits for the work queued before the call on the stream
//! each array names (or on the stream the caller passes: PyTorch's interface names
//! none, so the Python side passes `torch.cuda.current_stream().cuda_stream`), and that
//! stream waits for the sort, so later work there sees the result and nothing blocks
//! the host. Where no stream is named at all, the legacy default stream stands in
//! (where libraries queue work unless told otherwise) and the call also waits for the
//! sort before it returns.
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use host::cudarc::driver::{result, sys};
use host::{BorrowedBuffer, DeviceBuffer, Error, Gpu, QueryOrder, RowOp, Side, Sorter, shared_sorter};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::{Array, DType, Memory, Stream, with_dtype, with_value_dtype};
use crate::errors::OrPyErr;
use crate::host_arrays::{check_k, check_out, check_u32_indices, options};

/// The sorter of the device that holds `ptr`: the process-wide one (device 0) or one
/// opened for that device on first use and kept for the process.
fn sorter_for(ptr: u64) -> host::Result<&'static Sorter> {
    let first = shared_sorter();
    let Some(gpu) = first.gpu() else {
        return Err(Error::NoDevice(format!("a CUDA array was given, but gpusort runs on the {}", first.backend())));
    };
    let ordinal = device_of(gpu, ptr)?;
    if ordinal == gpu.info().ordinal {
        return Ok(first);
    }
    static OTHERS: OnceLock<Mutex<HashMap<usize, &'static Sorter>>> = OnceLock::new();
    let mut others = OTHERS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&s) = others.get(&ordinal) {
        return Ok(s);
    }
    let sorter: &'static Sorter = Box::leak(Box::new(Sorter::from_gpu(Gpu::open(ordinal)?)));
    others.insert(ordinal, sorter);
    Ok(sorter)
}

/// The device ordinal of the memory at `ptr` (the driver's pointer attribute).
fn device_of(gpu: &Gpu, ptr: u64) -> host::Result<usize> {
    gpu.stream().context().bind_to_thread().map_err(|source| Error::Driver { call: "cuCtxSetCurrent", source })?;
    let mut ordinal = -1i32;
    // SAFETY: the attribute is an int written to `ordinal`; `ptr` is only read as a number.
    let r = unsafe {
        sys::cuPointerGetAttribute(
            (&raw mut ordinal).cast(),
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            ptr,
        )
    };
    match r {
        sys::CUresult::CUDA_SUCCESS if ordinal >= 0 => Ok(ordinal as usize),
        _ => Err(Error::BadArgument(format!("{ptr:#x} is not CUDA device memory ({r:?})"))),
    }
}

/// The legacy default stream's handle: where work goes that names no stream.
const LEGACY_STREAM: u64 = 1;

/// The callers' streams: `stream` if the caller named one, else those of `arrays`,
/// each once, with the legacy default stream for an array that names none; and
/// whether the call must wait for its work (an array named none).
fn callers_streams(arrays: &[&Array], stream: Option<u64>) -> (Vec<u64>, bool) {
    if let Some(s) = stream {
        return (vec![s], false);
    }
    let mut handles = Vec::new();
    let mut unspecified = false;
    for a in arrays {
        let h = match a.stream {
            Stream::Handle(h) => h,
            Stream::Unspecified => {
                unspecified = true;
                LEGACY_STREAM
            }
        };
        if !handles.contains(&h) {
            handles.push(h);
        }
    }
    (handles, unspecified)
}

/// Idle events for [`stream_wait`], per device ordinal (an event belongs to its
/// device's context): creating and destroying two or more per call showed in the
/// overhead of small sorts. Taken while used, so that no two threads share one.
static EVENTS: Mutex<Vec<(usize, u64)>> = Mutex::new(Vec::new());

/// Queues on `waiter` a wait for the work queued so far on `signaller` (streams of
/// device `ordinal`, whose context is current).
fn stream_wait(ordinal: usize, waiter: u64, signaller: u64) -> host::Result<()> {
    let driver = |call| move |source| Error::Driver { call, source };
    let kept = {
        let mut idle = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
        idle.iter().position(|&(o, _)| o == ordinal).map(|i| idle.swap_remove(i).1)
    };
    let event = match kept {
        Some(e) => e as sys::CUevent,
        None => result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(driver("cuEventCreate"))?,
    };
    // SAFETY: both streams are live handles of the current context (the callers' by
    // the interface's promise). The wait takes the event's state at the time it is
    // queued, so the event may be recorded again right after; it is used by one
    // thread at a time (taken from the pool) and never destroyed (the pool keeps it).
    let queued = unsafe {
        result::event::record(event, signaller as sys::CUstream).map_err(driver("cuEventRecord")).and_then(|()| {
            result::stream::wait_event(waiter as sys::CUstream, event, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
                .map_err(driver("cuStreamWaitEvent"))
        })
    };
    EVENTS.lock().unwrap_or_else(|e| e.into_inner()).push((ordinal, event as u64));
    queued
}

/// Runs `work` on the device of the first of `arrays` (all must be on it), on the
/// library's stream joined to the callers' (see the module's comment).
fn on_callers_streams(
    arrays: &[&Array],
    stream: Option<u64>,
    work: impl FnOnce(&Sorter, &Gpu) -> host::Result<()>,
) -> host::Result<()> {
    let sorter = sorter_for(arrays[0].ptr)?;
    let Some(gpu) = sorter.gpu() else { return Err(Error::NoDevice(sorter.backend().to_string())) };
    gpu.stream().context().bind_to_thread().map_err(|source| Error::Driver { call: "cuCtxSetCurrent", source })?;
    let ours = gpu.stream().cu_stream() as u64;
    let ordinal = gpu.info().ordinal;
    let (callers, unspecified) = callers_streams(arrays, stream);
    for &s in &callers {
        stream_wait(ordinal, ours, s)?;
    }
    let worked = work(sorter, gpu);
    // Whatever happened, the callers' streams must not run ahead of work queued here.
    let joined = callers.iter().try_for_each(|&s| stream_wait(ordinal, s, ours));
    let waited = if unspecified { gpu.synchronize("the sort of a CUDA array") } else { Ok(()) };
    worked.and(joined).and(waited)
}

/// Borrows the memory of `a` as `T` (checked against the driver's view of it).
fn borrow<'g, T: bytemuck::Pod>(gpu: &'g Gpu, a: &Array) -> host::Result<BorrowedBuffer<'g, T>> {
    // SAFETY: the Python object that owns the memory is referenced for the whole call,
    // and the callers' streams are joined around the work (`on_callers_streams`), so
    // the memory stays allocated, and untouched by the caller, until the work is done.
    unsafe { gpu.borrow_device_memory::<T>(a.ptr, a.len) }
}

/// Sorts the device array `src` into `out` (the same array: in place).
pub fn sort(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    let s = Array::read(src, Memory::Device, "a")?;
    let d = Array::read(out, Memory::Device, "out")?;
    check_out(&s, &d)?;
    if s.len == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&d, &s], stream, |sorter, gpu| {
            with_dtype!(d.dtype, T => {
                let mut to = borrow::<T>(gpu, &d)?;
                let opts = options(descending, nan_last);
                if s.ptr == d.ptr {
                    return to.sort(sorter, &opts);
                }
                // The sort's first pass reads the input: no copy of it into `out`.
                to.sort_from(&borrow::<T>(gpu, &s)?, sorter, &opts)
            })
        })
    })
    .or_py()
}

/// Checks an output the device functions write: writable, `len` elements of one of
/// `dtypes`.
fn check_out_array(out: &Array, what: &str, len: usize, dtypes: &[DType]) -> PyResult<()> {
    out.check_writable(what)?;
    if !dtypes.contains(&out.dtype) || out.len != len {
        let names: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
        return Err(PyValueError::new_err(format!(
            "{what}: {} elements of {}, expected {len} of {}",
            out.len,
            out.dtype.name(),
            names.join(" or ")
        )));
    }
    Ok(())
}

/// The 8-byte integer outputs (int64, uint64) indices and counts are written into.
const WIDE_INDEX: &[DType] = &[DType::I64, DType::U64];

/// Copies `src` into the borrowed `out` of the same length.
fn copy_out<T: bytemuck::Pod>(gpu: &Gpu, out: &Array, src: &DeviceBuffer<T>) -> host::Result<()> {
    borrow::<T>(gpu, out)?.copy_from(src)
}

/// Writes the sorting permutation of the device array `src` (ties as `ties` says)
/// into `indices` (an int64 or uint64 array of the same length): the sort's last pass
/// writes the indices there as u64 ([`BorrowedBuffer::argsort_into`]).
pub fn argsort(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
    ties: host::Ties,
) -> PyResult<()> {
    let s = Array::read(src, Memory::Device, "a")?;
    let i = Array::read(indices, Memory::Device, "indices")?;
    check_out_array(&i, "indices", s.len, WIDE_INDEX)?;
    if s.len == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&s, &i], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                let order = options(descending, nan_last).key_order();
                let (keys, mut idx) = (borrow::<T>(gpu, &s)?, borrow::<u64>(gpu, &i)?);
                match ties {
                    host::Ties::Stable => keys.argsort_into(sorter, order, &mut idx),
                    host::Ties::Any => keys.argsort_unstable_into(sorter, order, &mut idx),
                }
            })
        })
    })
    .or_py()
}

/// Sorts the device arrays `keys_out` and `values_out` as pairs, in place, after
/// copying `keys` and `values` into them (skipped where an input is its output): the
/// library's pair sort, values moved with their keys.
#[allow(clippy::too_many_arguments)]
pub fn sort_pairs(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    keys_out: &Bound<'_, PyAny>,
    values_out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    let k = Array::read(keys, Memory::Device, "keys")?;
    let v = Array::read(values, Memory::Device, "values")?;
    let ko = Array::read(keys_out, Memory::Device, "keys_out")?;
    let vo = Array::read(values_out, Memory::Device, "values_out")?;
    if k.len != v.len {
        return Err(Error::LengthMismatch { keys: k.len, values: v.len }).or_py();
    }
    check_out(&k, &ko)?;
    check_out(&v, &vo)?;
    let (kb, vb) = (ko.bytes(), vo.bytes());
    if !kb.is_empty() && !vb.is_empty() && kb.start < vb.end && vb.start < kb.end {
        return Err(PyValueError::new_err("keys_out and values_out share memory"));
    }
    if k.len == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&ko, &vo, &k, &v], stream, |sorter, gpu| {
            with_dtype!(k.dtype, K => with_value_dtype!(v.dtype, V => {
                let mut kt = borrow::<K>(gpu, &ko)?;
                let mut vt = borrow::<V>(gpu, &vo)?;
                if k.ptr != ko.ptr {
                    kt.copy_from(borrow::<K>(gpu, &k)?.buffer())?;
                }
                if v.ptr != vo.ptr {
                    vt.copy_from(borrow::<V>(gpu, &v)?.buffer())?;
                }
                kt.sort_pairs(&mut vt, sorter, options(descending, nan_last).key_order())
            }, narrow => Err(Error::BadArgument(crate::array::narrow_values_message(v.dtype)))))
        })
    })
    .or_py()
}

/// Writes into `out` (int64 or uint64, one per query) where each query of the device
/// array `queries` falls in the ascending device array `sorted` (`right`: after equal
/// keys). `queries_sorted` promises ascending queries (the merge path); otherwise each
/// query is a binary search. `nan_last`: floats compared as numpy compares them.
#[allow(clippy::too_many_arguments)]
pub fn searchsorted(
    py: Python<'_>,
    sorted: &Bound<'_, PyAny>,
    queries: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    right: bool,
    queries_sorted: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    let s = Array::read(sorted, Memory::Device, "sorted")?;
    let q = Array::read(queries, Memory::Device, "queries")?;
    let o = Array::read(out, Memory::Device, "out")?;
    check_same_dtype(&s, &q)?;
    check_out_array(&o, "out", q.len, WIDE_INDEX)?;
    if q.len == 0 {
        return Ok(());
    }
    let side = if right { Side::Right } else { Side::Left };
    let order = if queries_sorted { QueryOrder::Sorted } else { QueryOrder::Unsorted };
    // An empty `sorted` may carry any address: the device of the queries decides.
    py.detach(|| {
        on_callers_streams(&[&q, &o, &s], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                let keys = borrow::<T>(gpu, &s)?;
                let nan = options(false, nan_last).nan;
                keys.searchsorted_into(sorter, &borrow::<T>(gpu, &q)?, side, order, nan, &mut borrow::<u64>(gpu, &o)?)
            })
        })
    })
    .or_py()
}

/// Whether the device array `a` holds a NaN or `-0.0` (float arrays; `false` for
/// integers): one library pass over it and one read of the answer
/// ([`BorrowedBuffer::has_nan_or_negative_zero`]).
pub fn has_nan_or_negative_zero(py: Python<'_>, a: &Bound<'_, PyAny>, stream: Option<u64>) -> PyResult<bool> {
    let s = Array::read(a, Memory::Device, "a")?;
    if s.len == 0 {
        return Ok(false);
    }
    let mut found = false;
    py.detach(|| {
        on_callers_streams(&[&s], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                found = borrow::<T>(gpu, &s)?.has_nan_or_negative_zero(sorter)?;
                Ok(())
            })
        })
    })
    .or_py()?;
    Ok(found)
}

/// The NaN order in which row operation `op` runs on the device rows `keys` (`cols`
/// a row) asked for NaN-last order (`nan_last`): NaN-last where the library's
/// one-launch row sort ranks float keys by their canonical bits at no cost
/// ([`Sorter::nan_last_rows_in_one_launch`]); elsewhere (where NaN-last order sorts a
/// canonical copy) total order when the keys hold neither a NaN nor `-0.0`, which is
/// then numpy's order bit for bit: one library pass and a wait for its answer.
/// The keys are borrowed only when they are checked.
fn rows_nan_last<T: host::Key>(
    sorter: &Sorter,
    gpu: &Gpu,
    keys: &Array,
    nan_last: bool,
    cols: usize,
    op: RowOp,
) -> host::Result<bool> {
    if !options(false, nan_last).key_order().nan_last_for::<T>() || Sorter::nan_last_rows_in_one_launch::<T>(cols, op) {
        return Ok(nan_last);
    }
    borrow::<T>(gpu, keys)?.has_nan_or_negative_zero(sorter)
}

/// Refuses sorted keys and queries of different types (the search compares their
/// bits).
pub fn check_same_dtype(sorted: &Array, queries: &Array) -> PyResult<()> {
    if sorted.dtype != queries.dtype {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "searchsorted: the queries are {} but the sorted keys {}: convert one to the other's type",
            queries.dtype.name(),
            sorted.dtype.name()
        )));
    }
    Ok(())
}

/// The distinct values of the device array `src` (`consecutive`: of each run of equal
/// adjacent keys; otherwise sorted, numpy.unique) and, with `counts`, how often each
/// occurs (int64). `alloc(n, dtype)` (the caller's library) makes outputs as long as
/// the input, which every result fits; the library writes the values and the int64
/// counts straight into them ([`BorrowedBuffer::unique_into`]: one kernel for the
/// runs, then one read of their number) and the results are their first elements,
/// views sliced here (as `torch.unique_consecutive`, whose results keep storage for
/// the whole input too).
pub fn unique<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    consecutive: bool,
    counts: bool,
    alloc: &Bound<'py, PyAny>,
    stream: Option<u64>,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
    let s = Array::read(src, Memory::Device, "a")?;
    check_u32_indices("unique", s.len)?;
    let values_obj = alloc.call1((s.len, s.dtype.name()))?;
    let counts_obj = if counts { Some(alloc.call1((s.len, "int64"))?) } else { None };
    let v = Array::read(&values_obj, Memory::Device, "the values' allocation")?;
    check_out_array(&v, "the values' allocation", s.len, &[s.dtype])?;
    let c = counts_obj.as_ref().map(|c| Array::read(c, Memory::Device, "the counts' allocation")).transpose()?;
    if let Some(c) = &c {
        check_out_array(c, "the counts' allocation", s.len, WIDE_INDEX)?;
    }
    let mut found = 0;
    if s.len > 0 {
        let arrays: Vec<&Array> = [&s, &v].into_iter().chain(c.as_ref()).collect();
        py.detach(|| {
            on_callers_streams(&arrays, stream, |sorter, gpu| {
                with_dtype!(s.dtype, T => {
                    let mut out_counts = c.as_ref().map(|c| borrow::<u64>(gpu, c)).transpose()?;
                    found = borrow::<T>(gpu, &s)?.unique_into(sorter, consecutive, &mut borrow::<T>(gpu, &v)?, out_counts.as_mut())?;
                    Ok(())
                })
            })
        })
        .or_py()?;
    }
    let head = pyo3::types::PySlice::new(py, 0, found as isize, 1);
    let values_obj = values_obj.get_item(&head)?;
    let counts_obj = counts_obj.map(|c| c.get_item(&head)).transpose()?;
    Ok((values_obj, counts_obj))
}

/// Writes the `k` largest (or smallest) elements of the device array `src`, sorted,
/// into `values`, and their indices into `indices` (int64 or uint64: the library's
/// `u64` indices, [`BorrowedBuffer::top_k_indexed`], which take arrays of 2^32
/// elements or more).
#[allow(clippy::too_many_arguments)]
pub fn topk(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
    values: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    stream: Option<u64>,
) -> PyResult<()> {
    let s = Array::read(src, Memory::Device, "a")?;
    let k = check_k(k, s.len)?;
    let v = Array::read(values, Memory::Device, "values")?;
    let i = Array::read(indices, Memory::Device, "indices")?;
    check_out_array(&v, "values", k, &[s.dtype])?;
    check_out_array(&i, "indices", k, WIDE_INDEX)?;
    if k == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&s, &v, &i], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                let order = options(largest, nan_last).key_order();
                let (top, at) = borrow::<T>(gpu, &s)?.top_k_indexed::<u64>(sorter, k, order)?;
                copy_out(gpu, &v, &top)?;
                copy_out(gpu, &i, &at)
            })
        })
    })
    .or_py()
}

/// Sorts each row (along the last dimension) of the C-contiguous device array `src`
/// into `out` (same shape; the same array: in place), stably
/// ([`BorrowedBuffer::sort_rows`]).
pub fn sort_rows(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    let (s, rows, cols) = Array::read_rows(src, Memory::Device, "a")?;
    let (d, ..) = Array::read_rows(out, Memory::Device, "out")?;
    check_out(&s, &d)?;
    check_u32_indices("sort along the last dimension", s.len)?;
    if s.len == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&d, &s], stream, |sorter, gpu| {
            with_dtype!(d.dtype, T => {
                let nan_last = rows_nan_last::<T>(sorter, gpu, &s, nan_last, cols, RowOp::Sort)?;
                let mut to = borrow::<T>(gpu, &d)?;
                if s.ptr != d.ptr {
                    to.copy_from(borrow::<T>(gpu, &s)?.buffer())?;
                }
                to.sort_rows(sorter, rows, cols, options(descending, nan_last).key_order())
            })
        })
    })
    .or_py()
}

/// Writes the stable sorting permutation of each row of the device array `src`
/// (column indices) into `indices` (int64 or uint64, `src`'s shape), widened from the
/// library's u32 by one pass ([`BorrowedBuffer::argsort_rows_into`]).
pub fn argsort_rows(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    descending: bool,
    nan_last: bool,
    stream: Option<u64>,
) -> PyResult<()> {
    let (s, rows, cols) = Array::read_rows(src, Memory::Device, "a")?;
    let (i, ..) = Array::read_rows(indices, Memory::Device, "indices")?;
    check_out_array(&i, "indices", s.len, WIDE_INDEX)?;
    check_u32_indices("argsort along the last dimension", s.len)?;
    if s.len == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&s, &i], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                let nan_last = rows_nan_last::<T>(sorter, gpu, &s, nan_last, cols, RowOp::Argsort)?;
                let order = options(descending, nan_last).key_order();
                borrow::<T>(gpu, &s)?.argsort_rows_into(sorter, rows, cols, order, &mut borrow::<u64>(gpu, &i)?)
            })
        })
    })
    .or_py()
}

/// Writes the `k` largest (or smallest) elements of each row of the device array
/// `src`, sorted, into `values` and their columns into `indices` (int64 or uint64;
/// both of `src`'s shape with `k` as the last dimension): [`BorrowedBuffer::top_k_rows`].
#[allow(clippy::too_many_arguments)]
pub fn topk_rows(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    k: i64,
    largest: bool,
    nan_last: bool,
    values: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    stream: Option<u64>,
) -> PyResult<()> {
    let (s, rows, cols) = Array::read_rows(src, Memory::Device, "a")?;
    let k = check_k(k, cols)?;
    let (v, ..) = Array::read_rows(values, Memory::Device, "values")?;
    let (i, ..) = Array::read_rows(indices, Memory::Device, "indices")?;
    check_out_array(&v, "values", rows * k, &[s.dtype])?;
    check_out_array(&i, "indices", rows * k, WIDE_INDEX)?;
    check_u32_indices("top-k along the last dimension", s.len)?;
    if rows * k == 0 {
        return Ok(());
    }
    py.detach(|| {
        on_callers_streams(&[&s, &v, &i], stream, |sorter, gpu| {
            with_dtype!(s.dtype, T => {
                let nan_last = rows_nan_last::<T>(sorter, gpu, &s, nan_last, cols, RowOp::TopK(k))?;
                let order = options(largest, nan_last).key_order();
                let (top, at) = borrow::<T>(gpu, &s)?.top_k_rows(sorter, rows, cols, k, order)?;
                copy_out(gpu, &v, &top)?;
                borrow::<u64>(gpu, &i)?.widen_from(&at)
            })
        })
    })
    .or_py()
}
