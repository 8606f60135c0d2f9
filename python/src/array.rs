//! What the Python side hands over: a C-contiguous array described by numpy's
//! `__array_interface__` (host memory) or by `__cuda_array_interface__` (device memory:
//! PyTorch, CuPy, Numba), read into an [`Array`]: one-dimensional ([`Array::read`]) or,
//! for the row-wise operations, of any number of dimensions seen as a matrix of its
//! last dimension's rows ([`Array::read_rows`]). Both interfaces share their fields
//! (`data`, `shape`, `typestr`, `strides`); the CUDA one adds `stream`.
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The element types the library sorts, by their array-interface type string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
    U16,
    I16,
    F16,
    BF16,
    U8,
    I8,
}

impl DType {
    /// The little-endian type strings of the supported types (numpy's names in
    /// [`DType::name`]).
    fn from_typestr(typestr: &str) -> Option<DType> {
        Some(match typestr {
            "<u4" => DType::U32,
            "<i4" => DType::I32,
            "<f4" => DType::F32,
            "<u8" => DType::U64,
            "<i8" => DType::I64,
            "<f8" => DType::F64,
            "<u2" => DType::U16,
            "<i2" => DType::I16,
            "<f2" => DType::F16,
            // Not an array-interface type string: the one the Python layer writes for
            // bfloat16 arrays (torch names them "<f2", as float16; `gpusort._typed`).
            BF16_TYPESTR => DType::BF16,
            "|u1" | "<u1" => DType::U8,
            "|i1" | "<i1" => DType::I8,
            _ => return None,
        })
    }

    /// numpy's name of the type (also a `dtype` argument numpy accepts).
    pub fn name(self) -> &'static str {
        match self {
            DType::U32 => "uint32",
            DType::I32 => "int32",
            DType::F32 => "float32",
            DType::U64 => "uint64",
            DType::I64 => "int64",
            DType::F64 => "float64",
            DType::U16 => "uint16",
            DType::I16 => "int16",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::U8 => "uint8",
            DType::I8 => "int8",
        }
    }

    pub fn size(self) -> usize {
        match self {
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 | DType::F64 => 8,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::U8 | DType::I8 => 1,
        }
    }

    /// Whether the type is a float (the one kind NaN order concerns).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
    }
}

/// The type string of a bfloat16 array as the Python layer hands it over: torch's
/// interfaces name bfloat16 `"<f2"`, like float16, so `gpusort` passes such arrays
/// through a view whose interface says this instead (not a valid array-interface type
/// string, so no other producer writes it).
pub const BF16_TYPESTR: &str = "bfloat16";

/// Runs `$body` with `$T` the Rust type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::array::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::array::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::array::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::array::DType::U64 => {
                type $T = u64;
                $body
            }
            $crate::array::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::array::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::array::DType::U16 => {
                type $T = u16;
                $body
            }
            $crate::array::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::array::DType::F16 => {
                type $T = host::f16;
                $body
            }
            $crate::array::DType::BF16 => {
                type $T = host::bf16;
                $body
            }
            $crate::array::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::array::DType::I8 => {
                type $T = i8;
                $body
            }
        }
    };
}
pub(crate) use with_dtype;

/// Runs `$body` with `$V` the Rust type of the value type `$dtype`, or evaluates
/// `$narrow` for 16- and 8-bit types: pairs carry 4- and 8-byte values (the GPU's pair
/// sorts move values of those widths, and every pair of key and value types is a
/// separate instantiation).
macro_rules! with_value_dtype {
    ($dtype:expr, $V:ident => $body:expr, narrow => $narrow:expr) => {
        match $dtype {
            $crate::array::DType::U32 => {
                type $V = u32;
                $body
            }
            $crate::array::DType::I32 => {
                type $V = i32;
                $body
            }
            $crate::array::DType::F32 => {
                type $V = f32;
                $body
            }
            $crate::array::DType::U64 => {
                type $V = u64;
                $body
            }
            $crate::array::DType::I64 => {
                type $V = i64;
                $body
            }
            $crate::array::DType::F64 => {
                type $V = f64;
                $body
            }
            _ => $narrow,
        }
    };
}
pub(crate) use with_value_dtype;

/// The message of a 16- or 8-bit value type given to a pair sort.
pub fn narrow_values_message(dtype: DType) -> String {
    format!(
        "values: gpusort's pair sort carries 4- and 8-byte values (uint32, int32, float32, uint64, int64, float64), \
         not {}: widen them (e.g. values.astype('int32')) or sort by argsort",
        dtype.name()
    )
}

/// Which interface an [`Array`] came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    Host,
    Device,
}

impl Memory {
    fn attribute(self) -> &'static str {
        match self {
            Memory::Host => "__array_interface__",
            Memory::Device => "__cuda_array_interface__",
        }
    }
}

/// The stream a device array's producer works on (`__cuda_array_interface__` v3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// No `stream` entry (v2) or `None`: the producer promises no pending work, so
    /// nothing is waited for before; the library waits for its own work before
    /// returning.
    Unspecified,
    /// A `CUstream` handle; 1 and 2 are the legacy and per-thread default streams,
    /// which the driver API names by the same numbers.
    Handle(u64),
}

/// A C-contiguous array of a supported type at a raw address, `len` elements in all.
#[derive(Clone, Copy, Debug)]
pub struct Array {
    pub ptr: u64,
    pub len: usize,
    pub dtype: DType,
    pub readonly: bool,
    pub stream: Stream,
}

impl Array {
    /// Reads `obj`'s `__array_interface__` (`Memory::Host`) or
    /// `__cuda_array_interface__` (`Memory::Device`). `what` names the argument in
    /// messages. The object must outlive every use of the address (the caller keeps a
    /// reference to it for the length of the call).
    pub fn read(obj: &Bound<'_, PyAny>, memory: Memory, what: &str) -> PyResult<Array> {
        let (array, shape) = Array::read_shaped(obj, memory, what)?;
        if shape.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "{what}: gpusort sorts one-dimensional arrays here, this one has shape {shape:?} (flatten it, e.g. a.ravel())"
            )));
        }
        Ok(array)
    }

    /// Reads an array of one or more dimensions, C-contiguous, as the row-major matrix
    /// of its last dimension: `(array, rows, cols)` with `cols` the last dimension and
    /// `rows` the product of the others (1 for a one-dimensional array).
    pub fn read_rows(obj: &Bound<'_, PyAny>, memory: Memory, what: &str) -> PyResult<(Array, usize, usize)> {
        let (array, shape) = Array::read_shaped(obj, memory, what)?;
        let Some((&cols, outer)) = shape.split_last() else {
            return Err(PyValueError::new_err(format!("{what}: a zero-dimensional array has no rows to sort")));
        };
        Ok((array, outer.iter().product(), cols))
    }

    /// Reads the interface of an array of any shape, checked to be C-contiguous, with
    /// its shape.
    fn read_shaped(obj: &Bound<'_, PyAny>, memory: Memory, what: &str) -> PyResult<(Array, Vec<usize>)> {
        if memory == Memory::Device
            && let Some(read) = Array::read_torch(obj)?
        {
            return Ok(read);
        }
        let attr = memory.attribute();
        let iface =
            obj.getattr(attr).map_err(|_| PyTypeError::new_err(format!("{what}: {} has no {attr}", type_name(obj))))?;
        let iface =
            iface.cast_into::<PyDict>().map_err(|_| PyTypeError::new_err(format!("{what}: {attr} is not a dict")))?;
        let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
            iface.get_item(name)?.ok_or_else(|| PyTypeError::new_err(format!("{what}: {attr} has no '{name}'")))
        };
        let typestr: String = field("typestr")?.extract()?;
        let dtype = DType::from_typestr(&typestr).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{what}: gpusort sorts uint8, int8, uint16, int16, float16, bfloat16, uint32, int32, float32, uint64, \
                 int64 and float64 (native little-endian), not {}",
                describe_typestr(&typestr)
            ))
        })?;
        let shape: Vec<usize> = field("shape")?.extract()?;
        let len = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or_else(|| {
            PyValueError::new_err(format!("{what}: the shape {shape:?} has more elements than an address can reach"))
        })?;
        let strides: Option<Vec<isize>> = match iface.get_item("strides")? {
            Some(s) if !s.is_none() => Some(s.extract()?),
            _ => None,
        };
        if let Some(strides) = strides
            && !is_c_contiguous(&shape, &strides, dtype.size())
        {
            return Err(PyValueError::new_err(format!(
                "{what}: the array is not C-contiguous (strides {strides:?} bytes for shape {shape:?} of {}-byte \
                 elements): make it contiguous first (numpy.ascontiguousarray(a), t.contiguous())",
                dtype.size()
            )));
        }
        let (ptr, readonly): (u64, bool) = field("data")?.extract()?;
        if len > 0 && !ptr.is_multiple_of(dtype.size() as u64) {
            return Err(PyValueError::new_err(format!(
                "{what}: the data at {ptr:#x} is not aligned for {}: make an aligned copy (numpy.require(a, requirements='A'))",
                dtype.name()
            )));
        }
        let stream = match (memory, iface.get_item("stream")?) {
            (Memory::Device, Some(s)) if !s.is_none() => Stream::Handle(s.extract()?),
            _ => Stream::Unspecified,
        };
        Ok((Array { ptr, len, dtype, readonly, stream }, shape))
    }

    /// A plain PyTorch CUDA tensor read through its own accessors: building its
    /// `__cuda_array_interface__` dict took 12.6 us a tensor on the H200 machine's host
    /// (2026-11-29), a fifth of an argsort call's time on the host. `None` for anything
    /// else, and for tensors that path reports on (requiring grad, not contiguous,
    /// sparse, other dtypes), so that its checks and messages stay the only ones. The
    /// interface names no stream for PyTorch, so neither does this.
    fn read_torch(obj: &Bound<'_, PyAny>) -> PyResult<Option<(Array, Vec<usize>)>> {
        let ty = obj.get_type();
        if ty.name()? != "Tensor" || ty.module()? != "torch" {
            return Ok(None);
        }
        let flag = |name: &str| -> PyResult<bool> { obj.getattr(name)?.extract() };
        if !flag("is_cuda")? || flag("requires_grad")? || flag("is_sparse")? {
            return Ok(None);
        }
        let dtype = match obj.getattr("dtype")?.str()?.extract::<String>()?.as_str() {
            "torch.float32" => DType::F32,
            "torch.int32" => DType::I32,
            "torch.uint32" => DType::U32,
            "torch.float64" => DType::F64,
            "torch.int64" => DType::I64,
            "torch.uint64" => DType::U64,
            "torch.float16" => DType::F16,
            "torch.int16" => DType::I16,
            "torch.uint16" => DType::U16,
            "torch.int8" => DType::I8,
            "torch.uint8" => DType::U8,
            _ => return Ok(None),
        };
        if !obj.call_method0("is_contiguous")?.extract::<bool>()? {
            return Ok(None);
        }
        let shape: Vec<usize> = obj.getattr("shape")?.extract()?;
        let Some(len) = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) else { return Ok(None) };
        let ptr: u64 = obj.call_method0("data_ptr")?.extract()?;
        if len > 0 && !ptr.is_multiple_of(dtype.size() as u64) {
            return Ok(None);
        }
        Ok(Some((Array { ptr, len, dtype, readonly: false, stream: Stream::Unspecified }, shape)))
    }

    /// Refuses a read-only array as the destination of a write.
    pub fn check_writable(&self, what: &str) -> PyResult<()> {
        if self.readonly {
            return Err(PyValueError::new_err(format!("{what}: the array is read-only")));
        }
        Ok(())
    }

    /// The byte range the array covers.
    pub fn bytes(&self) -> std::ops::Range<u64> {
        self.ptr..self.ptr + (self.len * self.dtype.size()) as u64
    }

    /// Whether two arrays share memory without being the same array.
    pub fn overlaps_partly(&self, other: &Array) -> bool {
        let (a, b) = (self.bytes(), other.bytes());
        let same = a == b;
        !same && !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end
    }

    /// The elements, for reading. The array must be host memory of type `T`, alive and
    /// not written by anyone else while the slice is used.
    ///
    /// # Safety
    /// As above: `read` checked the type, length, alignment and contiguity; the caller
    /// keeps the Python object alive and does not create a `&mut` slice that overlaps.
    pub unsafe fn as_slice<'a, T: bytemuck::Pod>(&self) -> &'a [T] {
        debug_assert_eq!(size_of::<T>(), self.dtype.size());
        if self.len == 0 {
            return &[];
        }
        // SAFETY: per the contract above.
        unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len) }
    }

    /// The elements, for writing (the contract of [`Array::as_slice`], and no other
    /// slice of the same memory while this one is used).
    ///
    /// # Safety
    /// As [`Array::as_slice`], and the array is writable.
    pub unsafe fn as_mut_slice<'a, T: bytemuck::Pod>(&self) -> &'a mut [T] {
        debug_assert_eq!(size_of::<T>(), self.dtype.size());
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: per the contract above.
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len) }
    }
}

/// Whether `strides` (bytes) lay out `shape` row-major without gaps; dimensions of
/// one element may have any stride (numpy and torch give them arbitrary ones).
fn is_c_contiguous(shape: &[usize], strides: &[isize], size: usize) -> bool {
    if shape.len() != strides.len() {
        return false;
    }
    if shape.contains(&0) {
        return true;
    }
    let mut expect = size as isize;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d > 1 && s != expect {
            return false;
        }
        expect *= d as isize;
    }
    true
}

/// The Python type of `obj`, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "the object".into())
}

/// numpy's name for an array-interface type string (`"<i2"`: `int16 ('<i2')`).
fn describe_typestr(typestr: &str) -> String {
    let bytes = typestr.get(2..).and_then(|s| s.parse::<u32>().ok());
    let name = match (typestr.as_bytes().get(1), bytes) {
        (Some(b'i'), Some(n)) => format!("int{}", 8 * n),
        (Some(b'u'), Some(n)) => format!("uint{}", 8 * n),
        (Some(b'f'), Some(n)) => format!("float{}", 8 * n),
        (Some(b'c'), Some(n)) => format!("complex{}", 8 * n),
        (Some(b'b'), _) => "bool".into(),
        _ => return format!("'{typestr}'"),
    };
    if typestr.starts_with('>') { format!("big-endian {name} ('{typestr}')") } else { format!("{name} ('{typestr}')") }
}

#[cfg(test)]
mod tests {
    use super::is_c_contiguous;

    #[test]
    fn c_contiguity_of_strides() {
        assert!(is_c_contiguous(&[3, 4], &[16, 4], 4));
        assert!(!is_c_contiguous(&[3, 4], &[4, 12], 4), "column-major");
        assert!(!is_c_contiguous(&[3, 4], &[32, 4], 4), "every other row");
        assert!(!is_c_contiguous(&[8], &[8], 4), "every other element");
        assert!(is_c_contiguous(&[1, 4], &[999, 4], 4), "a dimension of one: any stride");
        assert!(is_c_contiguous(&[2, 0], &[0, 0], 4), "empty");
        assert!(is_c_contiguous(&[2, 3, 5], &[120, 40, 8], 8));
    }
}
