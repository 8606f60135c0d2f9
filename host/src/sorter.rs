use std::fmt;

use crate::by_key::RecordKey;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::options::{KeyOrder, SortOptions, Ties, Variant};
use crate::tuning::Tuning;
use crate::variants::records::KeyField;
use crate::variants::searchsorted::{QueryOrder, Side};
use crate::variants::segmented::SegmentOffset;
use crate::wide::{self, WideKey};
use crate::{cpu, variants};

/// Where a sort ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// On the CUDA device of that name.
    Cuda(String),
    /// On the CPU; the string says why (no device, or asked for).
    Cpu(String),
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Cuda(name) => write!(f, "GPU ({name})"),
            Backend::Cpu(why) => write!(f, "CPU ({why})"),
        }
    }
}

/// The entry point: owns the device (context, stream, kernel module) if there is one,
/// and the [`Tuning`] its sorts and file sorts run by.
pub struct Sorter {
    gpu: Option<Gpu>,
    cpu_reason: String,
    /// The device's tuning when there is one ([`Sorter::tuning`]).
    tuning: Tuning,
}

impl Sorter {
    /// Opens the first CUDA device; [`Error::NoDevice`] if there is none.
    pub fn new() -> Result<Sorter> {
        Sorter::new_tuned(Tuning::default())
    }

    /// [`Sorter::new`] with `tuning` ([`Gpu::open_tuned`]).
    pub fn new_tuned(tuning: Tuning) -> Result<Sorter> {
        Ok(Sorter::from_gpu(Gpu::open_tuned(0, tuning)?))
    }

    /// The first CUDA device if there is one, the CPU otherwise (see [`Sorter::backend`]).
    pub fn with_fallback() -> Sorter {
        Sorter::with_fallback_tuned(Tuning::default())
    }

    /// [`Sorter::with_fallback`] with `tuning` (on the CPU, only its file-sort knobs
    /// apply).
    pub fn with_fallback_tuned(tuning: Tuning) -> Sorter {
        match Gpu::open_tuned(0, tuning.clone()) {
            Ok(gpu) => Sorter::from_gpu(gpu),
            Err(e) => Sorter { gpu: None, cpu_reason: e.to_string(), tuning },
        }
    }

    /// A sorter on an already open device, e.g. [`Gpu::with_stream`] on the caller's
    /// cudarc stream; it runs by the device's tuning.
    pub fn from_gpu(gpu: Gpu) -> Sorter {
        Sorter { tuning: gpu.tuning().clone(), gpu: Some(gpu), cpu_reason: String::new() }
    }

    /// Sorts on the CPU only.
    pub fn cpu() -> Sorter {
        Sorter::cpu_tuned(Tuning::default())
    }

    /// [`Sorter::cpu`] with `tuning` (only its file-sort knobs apply on the CPU).
    pub fn cpu_tuned(tuning: Tuning) -> Sorter {
        Sorter { gpu: None, cpu_reason: "CPU backend requested".into(), tuning }
    }

    /// The knobs this sorter runs by: its device's ([`Gpu::tuning`]), or those it was
    /// made with on the CPU.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// Which backend [`Sorter::sort`] uses.
    pub fn backend(&self) -> Backend {
        match &self.gpu {
            Some(gpu) => Backend::Cuda(gpu.info().name.clone()),
            None => Backend::Cpu(self.cpu_reason.clone()),
        }
    }

    /// The device, if this sorter has one.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    fn require_gpu(&self) -> Result<&Gpu> {
        self.gpu.as_ref().ok_or_else(|| Error::NoDevice(self.cpu_reason.clone()))
    }

    /// Sorts `data` in place and says where it ran. On the GPU: upload, sort with
    /// `opts.variant`, download. On the CPU: the CPU backend's sort in `opts.order`
    /// (stable, so the result is the same as every stable GPU variant's).
    pub fn sort<T: Element>(&self, data: &mut [T], opts: &SortOptions) -> Result<Backend> {
        opts.validate()?;
        match &self.gpu {
            Some(gpu) => self.sort_on_gpu(gpu, data, opts)?.copy_to_host(gpu, data)?,
            None => cpu_sort(data, opts)?,
        }
        Ok(self.backend())
    }

    /// Sorts a copy of `src` into `dst` (same length; `src` unchanged) and says where it
    /// ran: [`Sorter::sort`]'s result without first copying `src` into `dst` on the
    /// host. On the GPU `src` is uploaded and the result downloaded into `dst`; on the
    /// CPU `dst` is a copy of `src` sorted in place.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let src = [3u32, 1, 2];
    /// let mut dst = [0u32; 3];
    /// Sorter::with_fallback().sort_into(&src, &mut dst, &SortOptions::default())?;
    /// assert_eq!((src, dst), ([3, 1, 2], [1, 2, 3]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_into<T: Element>(&self, src: &[T], dst: &mut [T], opts: &SortOptions) -> Result<Backend> {
        opts.validate()?;
        if src.len() != dst.len() {
            return Err(Error::BadArgument(format!("sorting {} elements into a slice of {}", src.len(), dst.len())));
        }
        match &self.gpu {
            Some(gpu) => self.sort_on_gpu(gpu, src, opts)?.copy_to_host(gpu, dst)?,
            None => {
                dst.copy_from_slice(src);
                cpu_sort(dst, opts)?;
            }
        }
        Ok(self.backend())
    }

    /// `data` sorted on `gpu`, in a device buffer.
    fn sort_on_gpu<T: Element>(&self, gpu: &Gpu, data: &[T], opts: &SortOptions) -> Result<DeviceBuffer<T>> {
        check_nan_last_on_gpu::<T>(opts, "a sort")?;
        let mut buf = gpu.upload(data)?;
        self.sort_device(&mut buf, opts)?;
        Ok(buf)
    }

    /// Sorts `keys` and applies the same permutation to `values`, stably (equal keys
    /// keep their input order, and so their values). Keys are the primitive types;
    /// values any element type. On the GPU this is the radix sort
    /// ([`Variant::Radix`], the default) or, with [`Variant::Mergepath`], the merge-path
    /// merge sort (values of 4 or 8 bytes); on the CPU a stable sort of indices.
    /// Lengths must match.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let mut keys = vec![3.5f32, -1.0, 3.5, 0.0];
    /// let mut ids = vec![10u32, 11, 12, 13];
    /// Sorter::with_fallback().sort_pairs(&mut keys, &mut ids, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!(keys, [3.5, 3.5, 0.0, -1.0]);
    /// assert_eq!(ids, [10, 12, 13, 11]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_pairs<K: Key, V: Element>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<Backend> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        match &self.gpu {
            Some(gpu) => {
                let (k, v) = self.sort_pairs_on_gpu(gpu, keys, values, opts)?;
                k.copy_to_host(gpu, keys)?;
                v.copy_to_host(gpu, values)?;
            }
            None => cpu_sort_pairs(keys, values, opts)?,
        }
        Ok(self.backend())
    }

    /// [`Sorter::sort_pairs`] of copies of `keys` and `values` into `keys_out` and
    /// `values_out` (all of one length; the inputs unchanged), without first copying
    /// them on the host: on the GPU the inputs are uploaded and the results
    /// downloaded into the outputs.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let (keys, ids) = ([2.5f64, -1.0, 2.5], [7u8, 8, 9]);
    /// let (mut k, mut v) = ([0.0f64; 3], [0u8; 3]);
    /// Sorter::with_fallback().sort_pairs_into(&keys, &ids, &mut k, &mut v, &SortOptions::default())?;
    /// assert_eq!((k, v), ([-1.0, 2.5, 2.5], [8, 7, 9]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_pairs_into<K: Key, V: Element>(
        &self,
        keys: &[K],
        values: &[V],
        keys_out: &mut [K],
        values_out: &mut [V],
        opts: &SortOptions,
    ) -> Result<Backend> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        if keys_out.len() != keys.len() || values_out.len() != values.len() {
            return Err(Error::BadArgument(format!(
                "sorting {} pairs into {} keys and {} values",
                keys.len(),
                keys_out.len(),
                values_out.len()
            )));
        }
        match &self.gpu {
            Some(gpu) => {
                let (k, v) = self.sort_pairs_on_gpu(gpu, keys, values, opts)?;
                k.copy_to_host(gpu, keys_out)?;
                v.copy_to_host(gpu, values_out)?;
            }
            None => {
                keys_out.copy_from_slice(keys);
                values_out.copy_from_slice(values);
                cpu_sort_pairs(keys_out, values_out, opts)?;
            }
        }
        Ok(self.backend())
    }

    /// The pairs of `keys` and `values` (same length) sorted on `gpu`, in device
    /// buffers.
    fn sort_pairs_on_gpu<K: Key, V: Element>(
        &self,
        gpu: &Gpu,
        keys: &[K],
        values: &[V],
        opts: &SortOptions,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<V>)> {
        if !matches!(opts.variant, Variant::Radix | Variant::Mergepath) {
            return Err(Error::Unsupported {
                option: "pairs",
                by: format!("variant {} on the GPU", opts.variant),
                hint: "the radix and mergepath variants sort pairs",
            });
        }
        check_nan_last_on_gpu::<K>(opts, "a pair sort")?;
        if opts.key_order().nan_last_for::<K>() {
            // The permutation of the keys' canonical copy (which keeps NaN payloads
            // out of the sort); keys and values of any size are gathered by it on the
            // device (on the host, 2^28 f32 keys with int64 values took seconds).
            let k = gpu.upload(keys)?;
            let perm = variants::nan::argsort(gpu, &k, opts.order, opts.key_bits)?;
            let mut sorted_keys = gpu.alloc::<K>(keys.len())?;
            variants::records::gather_from(gpu, &k, &mut sorted_keys, &perm)?;
            drop(k);
            let v = gpu.upload(values)?;
            let mut sorted_values = gpu.alloc::<V>(values.len())?;
            variants::records::gather_from(gpu, &v, &mut sorted_values, &perm)?;
            return Ok((sorted_keys, sorted_values));
        }
        let mut k = gpu.upload(keys)?;
        let mut v = gpu.upload(values)?;
        if opts.variant == Variant::Mergepath {
            variants::mergepath::sort_pairs(gpu, &mut k, &mut v, opts.order)?;
        } else {
            variants::records::sort_pairs(gpu, &mut k, &mut v, opts.order, opts.key_bits)?;
        }
        Ok((k, v))
    }

    /// Sorts many independent segments of `keys` in one call: segment `i` is
    /// `keys[offsets[i]..offsets[i + 1]]`, sorted in `opts.order` by the same total
    /// order as [`Sorter::sort`] (IEEE total order for floats). `offsets` has one entry
    /// more than there are segments (none or one: no segments) and must be
    /// non-decreasing with the last at most `keys.len()`; keys outside
    /// `offsets[0]..offsets[S]` are left untouched. Primitive keys only ([`Key`]). Of `opts` only
    /// the order is used: the GPU bins the segments by length (a block per tile of
    /// segments of up to 32 keys, a warp per segment of up to 512 keys, a block per
    /// segment up to the radix sort's one-block limit, the radix sort for longer ones;
    /// see [`Sorter::sort_segments_device`]); the CPU sorts segments in parallel.
    ///
    /// Bad offsets are [`Error::BadArgument`], and `keys` is then
    /// unchanged.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let mut keys = vec![9u32, 3, 1, 2, 8, 7, 7, 0, 5];
    /// // Segments [1..4) and [4..8); keys[0] and keys[8] are outside them.
    /// Sorter::with_fallback().sort_segments(&mut keys, &[1, 4, 8], &SortOptions::default())?;
    /// assert_eq!(keys, [9, 1, 2, 3, 0, 7, 7, 8, 5]);
    /// let mut rows = vec![1.5f32, -2.0, 0.0, 4.0, f32::NAN, -1.0];
    /// let desc = SortOptions::default().order(Order::Descending);
    /// Sorter::with_fallback().sort_segments(&mut rows, &[0, 3, 6], &desc)?; // two rows of 3
    /// assert_eq!(&rows[..3], [1.5, 0.0, -2.0]);
    /// assert!(rows[3].is_nan() && rows[4..] == [4.0, -1.0]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments<K: Key>(&self, keys: &mut [K], offsets: &[usize], opts: &SortOptions) -> Result<Backend> {
        variants::segmented::check_offsets(keys.len(), offsets)?;
        if offsets.is_empty() {
            return Ok(self.backend());
        }
        match &self.gpu {
            Some(gpu) => segments_on_gpu(gpu, keys, offsets, |buf, rel| {
                variants::segmented::sort_segments(gpu, buf, rel, opts.key_order())
            })?,
            None => cpu::sort_segments(keys, offsets, opts.key_order()),
        }
        Ok(self.backend())
    }

    /// [`Sorter::sort_segments`] of keys with a `u32` value each (an index, an id):
    /// values move with their keys and equal keys keep their input order (stable), in
    /// every segment. `values` must have the length of `keys`; values outside the
    /// segments are left untouched, and on error both are unchanged.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let mut keys = vec![2i64, 1, 2, 0, 5, -1];
    /// let mut ids = vec![0u32, 1, 2, 3, 4, 5];
    /// Sorter::with_fallback().sort_segments_pairs(&mut keys, &mut ids, &[0, 4, 6], &SortOptions::default())?;
    /// assert_eq!(keys, [0, 1, 2, 2, -1, 5]);
    /// assert_eq!(ids, [3, 1, 0, 2, 5, 4]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments_pairs<K: Key>(
        &self,
        keys: &mut [K],
        values: &mut [u32],
        offsets: &[usize],
        opts: &SortOptions,
    ) -> Result<Backend> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        variants::segmented::check_offsets(keys.len(), offsets)?;
        if offsets.is_empty() {
            return Ok(self.backend());
        }
        match &self.gpu {
            Some(gpu) => segment_pairs_on_gpu(gpu, keys, values, offsets, |k, v, rel| {
                variants::segmented::sort_segments_pairs(gpu, k, v, rel, opts.key_order())
            })?,
            None => cpu::sort_segments_pairs(keys, values, offsets, opts.key_order()),
        }
        Ok(self.backend())
    }

    /// Sorts each segment `keys[offsets[i]..offsets[i + 1]]` of a device buffer, the
    /// offsets on the device too (`u32` or `u64`, see [`SegmentOffset`]), as
    /// [`Sorter::sort_segments`] sorts host slices (which uploads its offsets and takes
    /// this path). The segments are binned by length on the device; the host waits only
    /// for the binning's four counts (bad offsets, segments longer than the radix
    /// sort's one-block limit) and returns once the rest is queued on the sorter's
    /// stream. Bad offsets (decreasing, or past the keys) are [`Error::BadArgument`]
    /// and leave `keys` untouched; without a GPU, [`Error::NoDevice`].
    ///
    /// ```no_run
    /// use host::{SortOptions, Sorter};
    ///
    /// let sorter = Sorter::new()?;
    /// let mut keys = sorter.upload(&[3u32, 1, 2, 9, 8, 7, 5])?;
    /// let offsets = sorter.upload(&[0u32, 3, 6])?; // two segments of 3; keys[6] stays
    /// sorter.sort_segments_device(&mut keys, &offsets, &SortOptions::default())?;
    /// assert_eq!(keys.to_vec(sorter.gpu().unwrap())?, [1, 2, 3, 7, 8, 9, 5]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments_device<K: Key, O: SegmentOffset>(
        &self,
        keys: &mut DeviceBuffer<K>,
        offsets: &DeviceBuffer<O>,
        opts: &SortOptions,
    ) -> Result<()> {
        variants::segmented::sort_segments_device(self.require_gpu()?, keys, offsets, opts.key_order())
    }

    /// [`Sorter::sort_segments_device`] of keys with a `u32` value each, stably (see
    /// [`Sorter::sort_segments_pairs`]). `values` must have the length of `keys`.
    pub fn sort_segments_device_pairs<K: Key, O: SegmentOffset>(
        &self,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<u32>,
        offsets: &DeviceBuffer<O>,
        opts: &SortOptions,
    ) -> Result<()> {
        variants::segmented::sort_segments_device_pairs(self.require_gpu()?, keys, values, offsets, opts.key_order())
    }

    /// The stable sorting permutation of `keys`: `keys[p[0]], keys[p[1]], ...` is
    /// sorted, equal keys in input order. At most 2^32 - 1 keys.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let p = Sorter::with_fallback().argsort(&[30i64, -4, 12, -4], &SortOptions::default())?;
    /// assert_eq!(p, [1, 3, 2, 0]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn argsort<K: Key>(&self, keys: &[K], opts: &SortOptions) -> Result<Vec<u32>> {
        let mut out = vec![0u32; keys.len()];
        self.argsort_into(keys, &mut out, opts)?;
        Ok(out)
    }

    /// [`Sorter::argsort`] into `out` (same length) as indices of `I`: `u64` (an
    /// int64 array's indices) or `u32`. On the GPU the sort's last pass writes them at
    /// that width ([`variants::radix::argsort_into`]); on the CPU the permutation is
    /// written straight into `out`. `u32` indices take at most 2^32 - 1 keys, `u64`
    /// any number (on the GPU, past 2^32 keys, about 24 bytes of device memory a
    /// 32-bit key besides the keys and the indices).
    ///
    /// ```
    /// let mut at = vec![0u64; 4];
    /// host::Sorter::with_fallback().argsort_into(&[2.5f32, -1.0, 2.5, 0.0], &mut at, &Default::default())?;
    /// assert_eq!(at, [1, 3, 0, 2]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn argsort_into<K: Key, I: variants::radix::Index>(
        &self,
        keys: &[K],
        out: &mut [I],
        opts: &SortOptions,
    ) -> Result<()> {
        self.argsort_ties_into(keys, out, opts, Ties::Stable)
    }

    /// [`Sorter::argsort_into`] whose equal keys may come out in any order
    /// ([`Ties::Any`]): on the GPU 32- and 16-bit keys take the argsort whose first pass ranks
    /// ties in any order (faster); the CPU backend writes the stable permutation, one
    /// of the allowed results.
    ///
    /// ```
    /// let keys = [2.5f32, -1.0, 2.5, 0.0];
    /// let mut at = vec![0u64; 4];
    /// host::Sorter::with_fallback().argsort_unstable_into(&keys, &mut at, &Default::default())?;
    /// assert_eq!(at[..2], [1, 3]);
    /// assert!(at[2..] == [0, 2] || at[2..] == [2, 0]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn argsort_unstable_into<K: Key, I: variants::radix::Index>(
        &self,
        keys: &[K],
        out: &mut [I],
        opts: &SortOptions,
    ) -> Result<()> {
        self.argsort_ties_into(keys, out, opts, Ties::Any)
    }

    fn argsort_ties_into<K: Key, I: variants::radix::Index>(
        &self,
        keys: &[K],
        out: &mut [I],
        opts: &SortOptions,
        ties: Ties,
    ) -> Result<()> {
        if size_of::<I>() < 8 {
            Error::check_u32_indices("argsort", keys.len())?;
        }
        if keys.len() != out.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: out.len() });
        }
        match &self.gpu {
            Some(gpu) => {
                if opts.variant != Variant::Radix {
                    return Err(Error::Unsupported {
                        option: "argsort",
                        by: format!("variant {} on the GPU", opts.variant),
                        hint: "argsort runs the radix variant",
                    });
                }
                let k = gpu.upload(keys)?;
                let mut idx = gpu.alloc::<I>(keys.len())?;
                variants::radix::argsort_ordered_into(gpu, &k, &mut idx, opts.key_order(), opts.key_bits, ties)?;
                idx.copy_to_host(gpu, out)
            }
            None => cpu_argsort_into(keys, out, opts),
        }
    }

    /// Sorts records of any plain-old-data type by a key computed from each, stably
    /// (records with equal keys keep their input order). The key is a primitive key
    /// type or a pair of 32-bit ones, compared lexicographically ([`RecordKey`]).
    ///
    /// The keys are computed on the CPU (in parallel); the GPU sorts their order bits
    /// with each record's index (the radix sort), and the records are permuted on the
    /// CPU, so only 8 to 12 bytes per record cross the bus however large the records
    /// are. Only `opts.order` applies. At most 2^32 - 1 records.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    /// #[repr(C)]
    /// struct Player { score: f32, level: u32, id: u64 }
    ///
    /// let p = |score, level, id| Player { score, level, id };
    /// let mut players = vec![p(2.5, 3, 0), p(9.0, 1, 1), p(2.5, 1, 2), p(-1.0, 7, 3)];
    /// let sorter = Sorter::with_fallback();
    /// sorter.sort_by_key(&mut players, |p| p.score, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!(players.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 0, 2, 3]);
    /// // By level, then by score (both ascending):
    /// sorter.sort_by_key(&mut players, |p| (p.level, p.score), &SortOptions::default())?;
    /// assert_eq!(players.iter().map(|p| p.id).collect::<Vec<_>>(), [2, 1, 0, 3]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_by_key<T, K, F>(&self, records: &mut [T], key: F, opts: &SortOptions) -> Result<Backend>
    where
        T: bytemuck::Pod + Send + Sync,
        K: RecordKey,
        F: Fn(&T) -> K + Sync + Send,
    {
        use rayon::prelude::*;
        Error::check_u32_indices("a sort by key", records.len())?;
        let desc = opts.order.is_descending();
        let bits: Vec<K::Bits> = records.par_iter().map(|r| key(r).order_bits(desc)).collect();
        let perm = self.argsort(&bits, &SortOptions::new(Variant::Radix))?;
        permute(records, &perm);
        Ok(self.backend())
    }

    /// Sorts records by the key field `field` (a primitive key at a byte offset),
    /// stably, in `opts.order`: like [`Sorter::sort_by_key`], but the GPU also reads
    /// the keys and moves the records (upload, key extraction, pair sort, gather,
    /// download), and the record size may be known only at run time: `bytes` holds
    /// records of `record_bytes` bytes each (the CLI's `--record-size`/`--key-offset`).
    ///
    /// ```
    /// use host::{KeyField, KeyType, SortOptions, Sorter};
    ///
    /// // 6-byte records: a little-endian i32 key at byte 2 after a 2-byte tag.
    /// let mut bytes = Vec::new();
    /// for (tag, key) in [(b"aa", 7i32), (b"bb", -3), (b"cc", 7), (b"dd", 0)] {
    ///     bytes.extend_from_slice(tag);
    ///     bytes.extend_from_slice(&key.to_le_bytes());
    /// }
    /// Sorter::with_fallback().sort_records_by_field(&mut bytes, 6, KeyField::new(2, KeyType::I32), &SortOptions::default())?;
    /// let tags: Vec<&[u8]> = bytes.chunks(6).map(|r| &r[..2]).collect();
    /// assert_eq!(tags, [b"bb", b"dd", b"aa", b"cc"]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_records_by_field(
        &self,
        bytes: &mut [u8],
        record_bytes: usize,
        field: KeyField,
        opts: &SortOptions,
    ) -> Result<Backend> {
        use rayon::prelude::*;
        field.check(record_bytes)?;
        if !bytes.len().is_multiple_of(record_bytes) {
            return Err(Error::BadArgument(format!(
                "{} bytes are not a whole number of {record_bytes}-byte records",
                bytes.len()
            )));
        }
        let n = bytes.len() / record_bytes;
        Error::check_u32_indices("a sort by key", n)?;
        match &self.gpu {
            Some(gpu) => {
                let mut buf = gpu.upload(bytes)?;
                variants::records::sort_bytes_by_field(gpu, &mut buf, record_bytes, field, opts.order)?;
                buf.copy_to_host(gpu, bytes)?;
            }
            None => {
                let desc = opts.order.is_descending();
                let keys: Vec<u64> = bytes
                    .par_chunks(record_bytes)
                    .map(|r| variants::records::key_order_bits(r, field, desc))
                    .collect::<Result<_>>()?;
                let mut perm: Vec<u32> = (0..n as u32).collect();
                perm.par_sort_by_key(|&i| keys[i as usize]);
                let mut sorted = vec![0u8; bytes.len()];
                sorted.par_chunks_mut(record_bytes).zip(perm.par_iter()).for_each(|(out, &i)| {
                    let from = i as usize * record_bytes;
                    out.copy_from_slice(&bytes[from..from + record_bytes]);
                });
                bytes.copy_from_slice(&sorted);
            }
        }
        Ok(self.backend())
    }

    /// Top-k: the first `min(k, n)` elements of the stable sort of `keys` in
    /// `opts.order` (ascending: the `k` smallest, descending: the `k` largest) and
    /// their input indices, ties to the lowest index: exactly the keys at
    /// `argsort(keys)[..k]` and those indices, but faster than a sort for `k` much
    /// smaller than `n` (on the GPU, for `k` up to 2,048, one read of the keys keeps
    /// those at or below a threshold from a sample, and one block sorts the few
    /// candidates; larger `k`: a radix select: [`variants::topk`]).
    ///
    /// `k > n` returns all `n` keys sorted; `k = 0` (or no keys) returns two empty
    /// vectors. Primitive keys only ([`Key`]: records do not compile here); at
    /// most 2^32 - 1 keys; `opts.variant`, `block_size` are not used and
    /// `opts.key_bits` is refused. Floats in IEEE 754 total order.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let keys = [7u32, 3, 9, 3, 1, 9];
    /// let sorter = Sorter::with_fallback();
    /// let (smallest, at) = sorter.top_k(&keys, 3, &SortOptions::default())?;
    /// assert_eq!((smallest, at), (vec![1, 3, 3], vec![4, 1, 3]));
    /// let (largest, at) = sorter.top_k(&keys, 2, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!((largest, at), (vec![9, 9], vec![2, 5])); // equal keys: lowest index first
    /// assert_eq!(sorter.top_k(&keys, 10, &SortOptions::default())?.0, [1, 3, 3, 7, 9, 9]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k<K: Key>(&self, keys: &[K], k: usize, opts: &SortOptions) -> Result<(Vec<K>, Vec<u32>)> {
        self.top_k_indexed(keys, k, opts)
    }

    /// [`Sorter::top_k`] of keys already on the device: two new device buffers of
    /// `min(k, n)` elements (the keys, then their input indices), `keys` left as it
    /// was. Queued on the sorter's stream; returns once the work is queued (for
    /// `k <= 2048` without waiting for the device at all), so that device tensors can
    /// chain it with their own work. [`Error::NoDevice`] on the CPU backend.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let Ok(sorter) = Sorter::new() else { return Ok(()) }; // no GPU here
    /// let keys = sorter.upload(&[0.5f32, -2.0, 7.25, -2.0, 3.0])?;
    /// let (largest, at) = sorter.top_k_device(&keys, 2, &SortOptions::default().order(Order::Descending))?;
    /// let gpu = sorter.gpu().unwrap();
    /// assert_eq!((largest.to_vec(gpu)?, at.to_vec(gpu)?), (vec![7.25, 3.0], vec![2, 4]));
    /// let (smallest, at) = sorter.top_k_device(&keys, 2, &SortOptions::default())?;
    /// assert_eq!((smallest.to_vec(gpu)?, at.to_vec(gpu)?), (vec![-2.0, -2.0], vec![1, 3]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k_device<K: Key>(
        &self,
        keys: &DeviceBuffer<K>,
        k: usize,
        opts: &SortOptions,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
        self.top_k_device_indexed(keys, k, opts)
    }

    /// [`Sorter::top_k`] with indices of `I`: `u64` (an int64 array's) or `u32`. With
    /// `u64` indices the keys may number 2^32 or more: on the GPU each part of 2^31
    /// keys gives its top `k`, and the first `k` of those candidates, sorted stably,
    /// are the answer ([`variants::topk::top_k_indexed`]; the candidates, `k` a part,
    /// must stay below 2^32).
    ///
    /// ```
    /// let sorter = host::Sorter::with_fallback();
    /// let (top, at): (Vec<i64>, Vec<u64>) = sorter.top_k_indexed(&[5i64, -3, 9, -3], 3, &Default::default())?;
    /// assert_eq!((top, at), (vec![-3, -3, 5], vec![1, 3, 0]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k_indexed<K: Key, I: variants::radix::Index>(
        &self,
        keys: &[K],
        k: usize,
        opts: &SortOptions,
    ) -> Result<(Vec<K>, Vec<I>)> {
        check_top_k_options(opts)?;
        if size_of::<I>() < 8 {
            Error::check_u32_indices("top-k", keys.len())?;
        }
        match &self.gpu {
            Some(gpu) => {
                let buf = gpu.upload(keys)?;
                let (k, i) = variants::topk::top_k_indexed::<K, I>(gpu, &buf, k, opts.key_order())?;
                Ok((k.to_vec(gpu)?, i.to_vec(gpu)?))
            }
            None => Ok(cpu_top_k_as(keys, k, opts.key_order())),
        }
    }

    /// [`Sorter::top_k_device`] with indices of `I` ([`Sorter::top_k_indexed`]: `u64`
    /// indices take 2^32 keys or more).
    pub fn top_k_device_indexed<K: Key, I: variants::radix::Index>(
        &self,
        keys: &DeviceBuffer<K>,
        k: usize,
        opts: &SortOptions,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<I>)> {
        let gpu = self.require_gpu()?;
        check_top_k_options(opts)?;
        variants::topk::top_k_indexed(gpu, keys, k, opts.key_order())
    }

    /// The key at position `k` (0-based) of the stable sort of `keys` in the order of
    /// `opts` (its order and NaN order; ascending: the `k + 1`-th smallest, as
    /// `torch.kthvalue(x, k + 1)` and `slice::select_nth_unstable`; descending: the
    /// `k + 1`-th largest), without sorting: on the GPU the top-k module's radix select
    /// run to the last digit ([`variants::select`]), on the CPU `select_nth_unstable`.
    /// Under NaN-last order a NaN answer is the stable sort's, payload and all.
    /// [`Error::BadArgument`] when `k >= keys.len()`.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let keys = [0.5f32, -2.0, 7.25, -2.0, 3.0];
    /// let sorter = Sorter::with_fallback();
    /// assert_eq!(sorter.select_nth(&keys, 2, &SortOptions::default())?, 0.5);
    /// let desc = SortOptions::default().order(Order::Descending);
    /// assert_eq!(sorter.select_nth(&keys, 0, &desc)?, 7.25);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn select_nth<K: Key>(&self, keys: &[K], k: usize, opts: &SortOptions) -> Result<K> {
        check_select_options(opts)?;
        match &self.gpu {
            Some(gpu) if k < keys.len() => {
                let buf = gpu.upload(keys)?;
                variants::select::select_nth(gpu, &buf, k, opts.key_order())
            }
            _ => cpu::select::select_nth(keys, k, opts.key_order())
                .ok_or_else(|| variants::select::out_of_range(k, keys.len())),
        }
    }

    /// [`Sorter::select_nth`] of keys already on the device (left as they were); waits
    /// for the device to read the answer back. [`Error::NoDevice`] on the CPU backend.
    pub fn select_nth_device<K: Key>(&self, keys: &DeviceBuffer<K>, k: usize, opts: &SortOptions) -> Result<K> {
        let gpu = self.require_gpu()?;
        check_select_options(opts)?;
        variants::select::select_nth(gpu, keys, k, opts.key_order())
    }

    /// Sorts each row of the row-major `rows` x `cols` matrix `keys` in place, like
    /// `torch.sort(x, dim=-1)` (stable). Of `opts` the order and the NaN order
    /// ([`SortOptions::nan_last`]) are used. `keys.len()` must be `rows * cols`
    /// ([`Error::BadArgument`]), at most `u32::MAX`. On the GPU rows of 513 to 7,680
    /// 32-bit keys are sorted one block per row in one launch; shorter and longer rows
    /// are the segments of the segmented sort ([`Sorter::sort_segments_device`]).
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let mut m = vec![3.0f32, 1.0, 2.0, /* row 2 */ f32::NAN, -1.0, 5.0];
    /// let sorter = Sorter::with_fallback();
    /// sorter.sort_rows(&mut m, 2, 3, &SortOptions::default().nan_last())?;
    /// assert_eq!(m[..5], [1.0, 2.0, 3.0, -1.0, 5.0]);
    /// assert!(m[5].is_nan());
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_rows<K: Key>(&self, keys: &mut [K], rows: usize, cols: usize, opts: &SortOptions) -> Result<Backend> {
        variants::rows::check_shape(keys.len(), rows, cols)?;
        match &self.gpu {
            Some(gpu) => {
                let mut buf = gpu.upload(keys)?;
                variants::rows::sort_rows(gpu, &mut buf, rows, cols, opts.key_order())?;
                buf.copy_to_host(gpu, keys)?;
            }
            None => {
                let offsets: Vec<usize> = (0..=rows).map(|r| r * cols).collect();
                cpu::sort_segments(keys, &offsets, opts.key_order());
            }
        }
        Ok(self.backend())
    }

    /// The stable sorting permutation of each row of the row-major `rows` x `cols`
    /// matrix `keys`, as column indices (`torch.argsort(x, dim=-1, stable=True)`):
    /// row `r` of the result lists the columns of row `r` in sorted order.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let m = [30i64, -4, 12, /* row 2 */ 7, 7, -1];
    /// let p = Sorter::with_fallback().argsort_rows(&m, 2, 3, &SortOptions::default())?;
    /// assert_eq!(p, [1, 2, 0, 2, 0, 1]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn argsort_rows<K: Key>(&self, keys: &[K], rows: usize, cols: usize, opts: &SortOptions) -> Result<Vec<u32>> {
        variants::rows::check_shape(keys.len(), rows, cols)?;
        match &self.gpu {
            Some(gpu) => {
                let buf = gpu.upload(keys)?;
                variants::rows::argsort_rows(gpu, &buf, rows, cols, opts.key_order())?.to_vec(gpu)
            }
            None if cols == 0 => Ok(Vec::new()),
            None => Ok(cpu::rows::argsort_rows(keys, cols, opts.key_order())),
        }
    }

    /// The first `min(k, cols)` keys of each row's stable sort and their columns, as
    /// two row-major `rows` x `min(k, cols)` matrices: `torch.topk(x, k, dim=-1)`
    /// (descending: the largest; ties to the lowest column). The result is always
    /// sorted (what `sorted=True` asks; `sorted=False` allows any order, so it is a
    /// valid answer to that too). Under [`SortOptions::nan_last`], NaN is the largest
    /// value, as in `torch.topk`.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let logits = [0.5f32, 2.0, -1.0, 2.0, /* row 2 */ 9.0, 0.0, 3.0, 1.0];
    /// let desc = SortOptions::default().order(Order::Descending);
    /// let (v, i) = Sorter::with_fallback().top_k_rows(&logits, 2, 4, 2, &desc)?;
    /// assert_eq!((v, i), (vec![2.0, 2.0, 9.0, 3.0], vec![1, 3, 0, 2]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k_rows<K: Key>(
        &self,
        keys: &[K],
        rows: usize,
        cols: usize,
        k: usize,
        opts: &SortOptions,
    ) -> Result<(Vec<K>, Vec<u32>)> {
        check_top_k_options(opts)?;
        variants::rows::check_shape(keys.len(), rows, cols)?;
        match &self.gpu {
            Some(gpu) => {
                let buf = gpu.upload(keys)?;
                let (k, i) = variants::rows::top_k_rows(gpu, &buf, rows, cols, k, opts.key_order())?;
                Ok((k.to_vec(gpu)?, i.to_vec(gpu)?))
            }
            None if cols == 0 => Ok((Vec::new(), Vec::new())),
            None => Ok(cpu::rows::top_k_rows(keys, cols, k, opts.key_order())),
        }
    }

    /// Whether `op` on rows of `cols` keys `K` costs the same in NaN-last order as in
    /// total order on the GPU: the one-launch row sort (rows of 513 to 7,680 4-byte
    /// keys) and the one-launch top-k of rows (up to 2,048 keys a row, any row length)
    /// rank float keys by their canonical bits as they read them. Elsewhere NaN-last
    /// order sorts a canonical copy of the keys; a caller that can learn
    /// cheaply that the keys hold no NaN and no `-0.0`
    /// ([`crate::BorrowedBuffer::has_nan_or_negative_zero`]) may ask for total order then,
    /// which gives the same result.
    ///
    /// ```
    /// use host::{RowOp, Sorter};
    /// assert!(Sorter::nan_last_rows_in_one_launch::<f32>(4096, RowOp::Sort));
    /// assert!(!Sorter::nan_last_rows_in_one_launch::<f32>(100, RowOp::Argsort));
    /// assert!(Sorter::nan_last_rows_in_one_launch::<f32>(50_257, RowOp::TopK(50)));
    /// ```
    pub fn nan_last_rows_in_one_launch<K: Key>(cols: usize, op: RowOp) -> bool {
        variants::rows::nan_last_in_one_launch::<K>(cols, op)
    }

    /// [`Sorter::sort_rows`] of a matrix already on the device; queued on the sorter's
    /// stream (the segmented sort waits only for its bin counts).
    pub fn sort_rows_device<K: Key>(
        &self,
        keys: &mut DeviceBuffer<K>,
        rows: usize,
        cols: usize,
        opts: &SortOptions,
    ) -> Result<()> {
        variants::rows::sort_rows(self.require_gpu()?, keys, rows, cols, opts.key_order())
    }

    /// [`Sorter::argsort_rows`] of a matrix already on the device: a new device buffer
    /// of column indices; `keys` is left unchanged.
    pub fn argsort_rows_device<K: Key>(
        &self,
        keys: &DeviceBuffer<K>,
        rows: usize,
        cols: usize,
        opts: &SortOptions,
    ) -> Result<DeviceBuffer<u32>> {
        variants::rows::argsort_rows(self.require_gpu()?, keys, rows, cols, opts.key_order())
    }

    /// [`Sorter::top_k_rows`] of a matrix already on the device: two new device
    /// buffers; for `k` up to 2,048 in total order one launch that the host does not
    /// wait for (NaN-last float keys sort the rows).
    pub fn top_k_rows_device<K: Key>(
        &self,
        keys: &DeviceBuffer<K>,
        rows: usize,
        cols: usize,
        k: usize,
        opts: &SortOptions,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
        check_top_k_options(opts)?;
        variants::rows::top_k_rows(self.require_gpu()?, keys, rows, cols, k, opts.key_order())
    }

    /// Each run of equal adjacent keys as its first key and its length
    /// (`torch.unique_consecutive(return_counts=True)`, CUB's `DeviceRunLengthEncode`);
    /// the number of runs is the length of both vectors.
    ///
    /// Equal keys: integers by value; floats as numpy's `equal_nan=True` does, `-0.0`
    /// equal to `+0.0` and every NaN equal to every NaN, whatever its sign or payload
    /// (`torch.unique_consecutive` compares with `==` and makes each NaN its own run).
    /// The key of a run is its first key, bits unchanged (`-0.0` for a run `-0.0,
    /// +0.0`). At most `u32::MAX` keys (the lengths are `u32`).
    ///
    /// ```
    /// use host::Sorter;
    ///
    /// let sorter = Sorter::with_fallback();
    /// let (keys, counts) = sorter.run_length_encode(&[4u32, 4, 1, 1, 1, 4])?;
    /// assert_eq!((keys, counts), (vec![4, 1, 4], vec![2, 3, 1]));
    /// let (keys, counts) = sorter.run_length_encode(&[-0.0f32, 0.0, f32::NAN, -f32::NAN])?;
    /// assert_eq!(counts, [2, 2]);
    /// assert!(keys[0] == 0.0 && keys[0].is_sign_negative() && keys[1].is_nan());
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn run_length_encode<K: Key>(&self, keys: &[K]) -> Result<(Vec<K>, Vec<u32>)> {
        Error::check_u32_indices("run-length encoding", keys.len())?;
        match &self.gpu {
            Some(gpu) => {
                let (k, c) = variants::runs::run_length_encode(gpu, &gpu.upload(keys)?)?;
                Ok((k.to_vec(gpu)?, c.to_vec(gpu)?))
            }
            None => Ok(cpu::runs::run_length_encode(keys)),
        }
    }

    /// The first key of each run of equal adjacent keys ([`Sorter::run_length_encode`]
    /// without the lengths; `torch.unique_consecutive`).
    ///
    /// ```
    /// let runs = host::Sorter::with_fallback().unique_consecutive(&[7i64, 7, -1, 7])?;
    /// assert_eq!(runs, [7, -1, 7]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn unique_consecutive<K: Key>(&self, keys: &[K]) -> Result<Vec<K>> {
        Ok(self.run_length_encode(keys)?.0)
    }

    /// The distinct values of `keys`, ascending, and how often each occurs
    /// (`numpy.unique(return_counts=True)`): the run-length encoding of the sorted
    /// keys. Equal keys as in [`Sorter::run_length_encode`]; for floats the keys are
    /// made canonical before the sort, so every NaN (of either sign) counts as one
    /// value, returned last as the positive quiet NaN (`f32::NAN`), and `-0.0`, `+0.0`
    /// as one value returned as `+0.0`, as numpy returns them. At most `u32::MAX` keys.
    ///
    /// ```
    /// let sorter = host::Sorter::with_fallback();
    /// let (values, counts) = sorter.unique_counts(&[3u32, 1, 3, 3, 2, 1])?;
    /// assert_eq!((values, counts), (vec![1, 2, 3], vec![2, 1, 3]));
    /// let (values, counts) = sorter.unique_counts(&[f64::NAN, 1.0, -f64::NAN, -0.0, 0.0])?;
    /// assert_eq!(counts, [2, 1, 2]);
    /// assert!(values[0] == 0.0 && values[0].is_sign_positive() && values[2].is_nan());
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn unique_counts<K: Key>(&self, keys: &[K]) -> Result<(Vec<K>, Vec<u32>)> {
        Error::check_u32_indices("unique", keys.len())?;
        match &self.gpu {
            Some(gpu) => {
                let (k, c) = variants::runs::unique_counts(gpu, &gpu.upload(keys)?)?;
                Ok((k.to_vec(gpu)?, c.to_vec(gpu)?))
            }
            None => Ok(cpu::runs::unique_counts(keys)),
        }
    }

    /// The distinct values of `keys`, ascending ([`Sorter::unique_counts`] without the
    /// counts; `numpy.unique`, `torch.unique`).
    ///
    /// ```
    /// assert_eq!(host::Sorter::with_fallback().unique(&[2i32, -5, 2, 9])?, [-5, 2, 9]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn unique<K: Key>(&self, keys: &[K]) -> Result<Vec<K>> {
        Ok(self.unique_counts(keys)?.0)
    }

    /// For each query, where it falls in `sorted`: the number of keys before it, which
    /// for [`Side::Left`] is the first index `i` with `sorted[i] >= q` and for
    /// [`Side::Right`] the first with `sorted[i] > q` (`numpy.searchsorted`,
    /// `torch.searchsorted`, thrust's `lower_bound` / `upper_bound`). Indices are `u64`
    /// (like torch's int64), so arrays past 2^32 keys work.
    ///
    /// `sorted` must be ascending in the order the sort leaves it (the order bits:
    /// floats in IEEE 754 total order, `-NaN < -inf < -0.0 < +0.0 < +inf < +NaN`), so
    /// `-0.0` and `+0.0` are different keys here and a NaN query lands among the NaNs
    /// of its sign (numpy puts every NaN last and treats `-0.0 == +0.0`). If `sorted` is
    /// not ascending the answers are unspecified. Queries come in any order; on the
    /// GPU, sorted queries (checked here, on the host) take the merge path, which
    /// reads each key once.
    ///
    /// ```
    /// use host::{Side, Sorter};
    ///
    /// let sorter = Sorter::with_fallback();
    /// let sorted = [1u32, 3, 3, 3, 8];
    /// assert_eq!(sorter.searchsorted(&sorted, &[0, 3, 5, 9], Side::Left)?, [0, 1, 4, 5]);
    /// assert_eq!(sorter.searchsorted(&sorted, &[3, 0, 8], Side::Right)?, [4, 0, 5]);
    /// // Total order: -0.0 comes before +0.0.
    /// assert_eq!(sorter.searchsorted(&[-1.0f32, -0.0, 0.0, 2.0], &[0.0], Side::Left)?, [2]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn searchsorted<K: Key>(&self, sorted: &[K], queries: &[K], side: Side) -> Result<Vec<u64>> {
        match &self.gpu {
            Some(gpu) => {
                let order =
                    if cpu::searchsorted::is_sorted(queries) { QueryOrder::Sorted } else { QueryOrder::Unsorted };
                let out = variants::searchsorted::searchsorted(
                    gpu,
                    &gpu.upload(sorted)?,
                    &gpu.upload(queries)?,
                    side,
                    order,
                )?;
                out.to_vec(gpu)
            }
            None => Ok(cpu::searchsorted::searchsorted(sorted, queries, side.is_right())),
        }
    }

    /// [`Sorter::run_length_encode`] of keys already on the device, into two new device
    /// buffers (one element per run); only the number of runs is read back. Needs a
    /// device ([`Error::NoDevice`] without one).
    pub fn run_length_encode_device<K: Key>(
        &self,
        keys: &DeviceBuffer<K>,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
        variants::runs::run_length_encode(self.require_gpu()?, keys)
    }

    /// [`Sorter::unique_counts`] of keys already on the device (`keys` is not
    /// modified), into two new device buffers; only the number of values is read back.
    pub fn unique_counts_device<K: Key>(&self, keys: &DeviceBuffer<K>) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
        variants::runs::unique_counts(self.require_gpu()?, keys)
    }

    /// [`Sorter::searchsorted`] of buffers already on the device, into a new device
    /// buffer of `u64` indices; nothing is read back. The caller says whether the
    /// queries are ascending ([`QueryOrder::Sorted`]: the merge path; queries that are
    /// not get unspecified answers).
    pub fn searchsorted_device<K: Key>(
        &self,
        sorted: &DeviceBuffer<K>,
        queries: &DeviceBuffer<K>,
        side: Side,
        order: QueryOrder,
    ) -> Result<DeviceBuffer<u64>> {
        variants::searchsorted::searchsorted(self.require_gpu()?, sorted, queries, side, order)
    }

    /// Sorts wide keys ([`WideKey`]: `u128`, `i128`, byte strings `[u8; N]` compared
    /// lexicographically) in place, stably, in `opts.order`, and says where it ran.
    /// On the GPU: an LSD radix sort over the keys' 64-bit order words (see
    /// `docs/algorithms.md`); on the CPU, a stable parallel sort. Of `opts` only the
    /// order is used; key bits and variants other than [`Variant::Radix`] (the
    /// default) are [`Error::Unsupported`]. At most 2^32 - 1 keys.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let sorter = Sorter::with_fallback();
    /// let mut ids = vec![u128::MAX, 7, 1 << 64, 0];
    /// sorter.sort_wide(&mut ids, &SortOptions::default())?;
    /// assert_eq!(ids, [0, 7, 1 << 64, u128::MAX]);
    /// let mut names = vec![*b"carol\0\0\0", *b"al\0\0\0\0\0\0", *b"bob\0\0\0\0\0"];
    /// sorter.sort_wide(&mut names, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!(names[0], *b"carol\0\0\0");
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_wide<K: WideKey>(&self, keys: &mut [K], opts: &SortOptions) -> Result<Backend> {
        check_wide_options::<K>(opts, keys.len())?;
        match &self.gpu {
            Some(gpu) => {
                let mut buf = gpu.upload(keys)?;
                wide::device::sort(gpu, &mut buf, opts.order)?;
                buf.copy_to_host(gpu, keys)?;
            }
            None => cpu::wide::sort(keys, opts.order),
        }
        Ok(self.backend())
    }

    /// The stable sorting permutation of wide keys (see [`Sorter::sort_wide`]):
    /// `keys[p[0]], keys[p[1]], ...` is sorted in `opts.order`, equal keys in input
    /// order.
    ///
    /// ```
    /// let p = host::Sorter::with_fallback().argsort_wide(&[5i128, -(1 << 100), 5, 0], &Default::default())?;
    /// assert_eq!(p, [1, 3, 0, 2]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn argsort_wide<K: WideKey>(&self, keys: &[K], opts: &SortOptions) -> Result<Vec<u32>> {
        check_wide_options::<K>(opts, keys.len())?;
        match &self.gpu {
            Some(gpu) => wide::device::argsort(gpu, &gpu.upload(keys)?, opts.order)?.to_vec(gpu),
            None => Ok(cpu::wide::argsort(keys, opts.order)),
        }
    }

    /// Sorts wide keys (see [`Sorter::sort_wide`]) and applies the same permutation to
    /// `values` (any plain-old-data type: `u32`, `u64`, records), stably: equal keys
    /// keep their input order, and so their values. Lengths must match.
    ///
    /// ```
    /// let mut hashes = vec![[9u8; 32], [1u8; 32], [9u8; 32]];
    /// let mut ids = vec![0u64, 1, 2];
    /// host::Sorter::with_fallback().sort_pairs_wide(&mut hashes, &mut ids, &Default::default())?;
    /// assert_eq!(ids, [1, 0, 2]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_pairs_wide<K: WideKey, V: bytemuck::Pod + Send + Sync>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<Backend> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        check_wide_options::<K>(opts, keys.len())?;
        match &self.gpu {
            Some(gpu) => {
                let (mut k, mut v) = (gpu.upload(keys)?, gpu.upload(values)?);
                wide::device::sort_pairs(gpu, &mut k, &mut v, opts.order)?;
                k.copy_to_host(gpu, keys)?;
                v.copy_to_host(gpu, values)?;
            }
            None => {
                let perm = cpu::wide::argsort(keys, opts.order);
                permute(keys, &perm);
                permute(values, &perm);
            }
        }
        Ok(self.backend())
    }

    /// Sorts records by a wide key computed from each ([`Sorter::sort_by_key`] for
    /// [`WideKey`]s: a UUID, a hash, a fixed-width name), stably, in `opts.order`: the
    /// keys are computed on the CPU, their permutation found by
    /// [`Sorter::argsort_wide`], and the records permuted on the CPU.
    ///
    /// ```
    /// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    /// #[repr(C)]
    /// struct User { name: [u8; 8], age: u32 }
    /// let mut users = vec![User { name: *b"zoe\0\0\0\0\0", age: 30 }, User { name: *b"ann\0\0\0\0\0", age: 41 }];
    /// host::Sorter::with_fallback().sort_by_wide_key(&mut users, |u| u.name, &Default::default())?;
    /// assert_eq!(users[0].age, 41);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_by_wide_key<T, K, F>(&self, records: &mut [T], key: F, opts: &SortOptions) -> Result<Backend>
    where
        T: bytemuck::Pod + Send + Sync,
        K: WideKey,
        F: Fn(&T) -> K + Sync + Send,
    {
        use rayon::prelude::*;
        check_wide_options::<K>(opts, records.len())?;
        let keys: Vec<K> = records.par_iter().map(&key).collect();
        let perm = self.argsort_wide(&keys, opts)?;
        permute(records, &perm);
        Ok(self.backend())
    }

    /// [`Sorter::sort_wide`] of keys already on the device (upload them with
    /// [`Gpu::upload`]); queued on the sorter's stream. The sorted keys land in a new
    /// buffer that replaces `keys`' storage. Needs a device.
    pub fn sort_wide_device<K: WideKey>(&self, keys: &mut DeviceBuffer<K>, opts: &SortOptions) -> Result<()> {
        let gpu = self.require_gpu()?;
        check_wide_options::<K>(opts, keys.len())?;
        wide::device::sort(gpu, keys, opts.order)
    }

    /// [`Sorter::argsort_wide`] of keys already on the device (left unchanged): a new
    /// device buffer of indices.
    pub fn argsort_wide_device<K: WideKey>(
        &self,
        keys: &DeviceBuffer<K>,
        opts: &SortOptions,
    ) -> Result<DeviceBuffer<u32>> {
        let gpu = self.require_gpu()?;
        check_wide_options::<K>(opts, keys.len())?;
        wide::device::argsort(gpu, keys, opts.order)
    }

    /// [`Sorter::sort_pairs_wide`] of buffers already on the device; both land in new
    /// buffers that replace their storage.
    pub fn sort_pairs_wide_device<K: WideKey, V: bytemuck::Pod>(
        &self,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        opts: &SortOptions,
    ) -> Result<()> {
        let gpu = self.require_gpu()?;
        check_wide_options::<K>(opts, keys.len())?;
        wide::device::sort_pairs(gpu, keys, values, opts.order)
    }

    /// Top-k of wide keys ([`Sorter::top_k`] for [`WideKey`]s): the first `min(k, n)`
    /// keys of the stable sort of `keys` in `opts.order` (ascending: the `k` smallest,
    /// descending: the `k` largest) and their input indices, ties to the lowest index:
    /// exactly the keys at `argsort_wide(keys)[..k]` and those indices. `k > n` returns
    /// all `n` keys sorted; `k = 0` (or no keys) returns two empty vectors. At most
    /// 2^32 - 1 keys; `opts.key_bits` is refused, the variant not used.
    ///
    /// Cost: on the GPU, the full wide-key argsort ([`Sorter::argsort_wide`]) and a
    /// gather of the first `k` keys, whatever `k` is; on the CPU, a selection of the
    /// `k`-th (key, index) and a sort of the `k` before it.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let keys = [7u128 << 64, 3, 9 << 100, 3, 1];
    /// let sorter = Sorter::with_fallback();
    /// let (smallest, at) = sorter.top_k_wide(&keys, 3, &SortOptions::default())?;
    /// assert_eq!((smallest, at), (vec![1, 3, 3], vec![4, 1, 3])); // equal keys: lowest index first
    /// let names = [*b"bob", *b"eve", *b"al\0", *b"eve"];
    /// let (last, at) = sorter.top_k_wide(&names, 2, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!((last, at), (vec![*b"eve", *b"eve"], vec![1, 3]));
    /// assert_eq!(sorter.top_k_wide(&names, 10, &SortOptions::default())?.1, [2, 0, 1, 3]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k_wide<K: WideKey>(&self, keys: &[K], k: usize, opts: &SortOptions) -> Result<(Vec<K>, Vec<u32>)> {
        check_top_k_options(opts)?;
        Error::check_u32_indices("top-k", keys.len())?;
        match &self.gpu {
            Some(gpu) if k > 0 && !keys.is_empty() => {
                let (k, i) = wide::device::top_k(gpu, &gpu.upload(keys)?, k, opts.order)?;
                Ok((k.to_vec(gpu)?, i.to_vec(gpu)?))
            }
            _ => Ok(cpu::wide::top_k(keys, k, opts.order)),
        }
    }

    /// [`Sorter::top_k_wide`] of keys already on the device: two new device buffers of
    /// `min(k, n)` elements (the keys, then their input indices), `keys` left as it
    /// was. A full wide-key argsort and a gather, queued on the sorter's stream.
    /// [`Error::NoDevice`] on the CPU backend.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let Ok(sorter) = Sorter::new() else { return Ok(()) }; // no GPU here
    /// let gpu = sorter.gpu().unwrap();
    /// let keys = gpu.upload(&[5i128, -(1 << 100), 5, 0])?;
    /// let (largest, at) = sorter.top_k_wide_device(&keys, 2, &SortOptions::default().order(Order::Descending))?;
    /// assert_eq!((largest.to_vec(gpu)?, at.to_vec(gpu)?), (vec![5, 5], vec![0, 2]));
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn top_k_wide_device<K: WideKey>(
        &self,
        keys: &DeviceBuffer<K>,
        k: usize,
        opts: &SortOptions,
    ) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
        let gpu = self.require_gpu()?;
        check_top_k_options(opts)?;
        Error::check_u32_indices("top-k", keys.len())?;
        wide::device::top_k(gpu, keys, k, opts.order)
    }

    /// Sorts many independent segments of wide keys in one call ([`Sorter::sort_segments`]
    /// for [`WideKey`]s): segment `i` is `keys[offsets[i]..offsets[i + 1]]`, sorted
    /// stably in `opts.order`. `offsets` has one entry more than there are segments
    /// (none or one: no segments) and must be non-decreasing with the last at most
    /// `keys.len()` (otherwise [`Error::BadArgument`], `keys` unchanged); keys outside
    /// `offsets[0]..offsets[S]` are left untouched. At most 2^32 - 1 keys in the
    /// segments; `opts.key_bits` is refused, the variant not used.
    ///
    /// On the GPU: the wide-key sort's passes over the order words of the segments'
    /// whole range, then one more stable radix pass by each key's segment (found by a
    /// search among the segments' starts), so that the permutation sorts by (segment,
    /// key, position), and a gather: the cost of one wide-key sort of the range plus a
    /// pass of 64-bit keys with as many digit passes as the segment count needs bytes,
    /// whatever the segments' lengths. On the CPU, the segments are sorted in parallel.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let mut keys = vec![9u128, 3, 1 << 70, 2, 8, 7, 7, 0, 5];
    /// // Segments [1..4) and [4..8); keys[0] and keys[8] are outside them.
    /// Sorter::with_fallback().sort_segments_wide(&mut keys, &[1, 4, 8], &SortOptions::default())?;
    /// assert_eq!(keys, [9, 2, 3, 1 << 70, 0, 7, 7, 8, 5]);
    /// let mut names = vec![*b"ann", *b"zed", *b"bob", *b"al\0", *b"cy\0"];
    /// let desc = SortOptions::default().order(Order::Descending);
    /// Sorter::with_fallback().sort_segments_wide(&mut names, &[0, 3, 3, 5], &desc)?; // an empty segment
    /// assert_eq!(names, [*b"zed", *b"bob", *b"ann", *b"cy\0", *b"al\0"]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments_wide<K: WideKey>(
        &self,
        keys: &mut [K],
        offsets: &[usize],
        opts: &SortOptions,
    ) -> Result<Backend> {
        check_wide_key_bits::<K>(opts)?;
        variants::segmented::check_offsets(keys.len(), offsets)?;
        let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return Ok(self.backend()) };
        Error::check_u32_indices("a wide-key segmented sort", last - first)?;
        match &self.gpu {
            Some(gpu) => {
                segments_on_gpu(gpu, keys, offsets, |buf, rel| wide::device::sort_segments(gpu, buf, rel, opts.order))?
            }
            None => cpu::wide::sort_segments(keys, offsets, opts.order),
        }
        Ok(self.backend())
    }

    /// [`Sorter::sort_segments_wide`] of keys with a value each (any plain-old-data
    /// type: an index, an id, a record): values move with their keys and equal keys
    /// keep their input order (stable), in every segment. `values` must have the
    /// length of `keys`; values outside the segments are left untouched, and on error
    /// both are unchanged.
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let mut keys = vec![2i128, 1, 2, 0, 5, -1];
    /// let mut ids = vec![0u64, 1, 2, 3, 4, 5];
    /// Sorter::with_fallback().sort_segments_pairs_wide(&mut keys, &mut ids, &[0, 4, 6], &SortOptions::default())?;
    /// assert_eq!(keys, [0, 1, 2, 2, -1, 5]);
    /// assert_eq!(ids, [3, 1, 0, 2, 5, 4]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments_pairs_wide<K: WideKey, V: bytemuck::Pod + Send + Sync>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        offsets: &[usize],
        opts: &SortOptions,
    ) -> Result<Backend> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        check_wide_key_bits::<K>(opts)?;
        variants::segmented::check_offsets(keys.len(), offsets)?;
        let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return Ok(self.backend()) };
        Error::check_u32_indices("a wide-key segmented sort", last - first)?;
        match &self.gpu {
            Some(gpu) => segment_pairs_on_gpu(gpu, keys, values, offsets, |k, v, rel| {
                wide::device::sort_segments_pairs(gpu, k, v, rel, opts.order)
            })?,
            None => cpu::wide::sort_segments_pairs(keys, values, offsets, opts.order),
        }
        Ok(self.backend())
    }

    /// [`Sorter::sort_segments_wide`] of keys already on the device, the offsets on the
    /// device too (`u32` or `u64`, see [`SegmentOffset`]). Unlike
    /// [`Sorter::sort_segments_device`], the offsets are read back and checked on the
    /// host (one wait for the device), which plans the passes; the keys stay on the
    /// device. The sorted keys land in a new buffer that replaces `keys`' storage when
    /// the segments cover all of it, and in place otherwise. Bad offsets are
    /// [`Error::BadArgument`] and leave `keys` untouched; without a GPU,
    /// [`Error::NoDevice`].
    ///
    /// ```
    /// use host::{SortOptions, Sorter};
    ///
    /// let Ok(sorter) = Sorter::new() else { return Ok(()) }; // no GPU here
    /// let gpu = sorter.gpu().unwrap();
    /// let mut keys = gpu.upload(&[3u128, 1, 2, 9, 8, 7, 5])?;
    /// let offsets = gpu.upload(&[0u32, 3, 6])?; // two segments of 3; keys[6] stays
    /// sorter.sort_segments_wide_device(&mut keys, &offsets, &SortOptions::default())?;
    /// assert_eq!(keys.to_vec(gpu)?, [1, 2, 3, 7, 8, 9, 5]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn sort_segments_wide_device<K: WideKey, O: SegmentOffset>(
        &self,
        keys: &mut DeviceBuffer<K>,
        offsets: &DeviceBuffer<O>,
        opts: &SortOptions,
    ) -> Result<()> {
        let gpu = self.require_gpu()?;
        check_wide_key_bits::<K>(opts)?;
        let offsets = variants::segmented::read_offsets(gpu, offsets, keys.len())?;
        wide::device::sort_segments(gpu, keys, &offsets, opts.order)
    }

    /// [`Sorter::sort_segments_wide_device`] of keys with a value each (any
    /// plain-old-data type), stably (see [`Sorter::sort_segments_pairs_wide`]).
    /// `values` must have the length of `keys`.
    pub fn sort_segments_pairs_wide_device<K: WideKey, V: bytemuck::Pod, O: SegmentOffset>(
        &self,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        offsets: &DeviceBuffer<O>,
        opts: &SortOptions,
    ) -> Result<()> {
        let gpu = self.require_gpu()?;
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        check_wide_key_bits::<K>(opts)?;
        let offsets = variants::segmented::read_offsets(gpu, offsets, keys.len())?;
        wide::device::sort_segments_pairs(gpu, keys, values, &offsets, opts.order)
    }

    /// Sorts data already on the device. Queued on the sorter's stream; returns once
    /// the work is queued (read the buffer back or call [`Gpu::synchronize`] to wait).
    pub fn sort_device<T: Element>(&self, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
        let gpu = self.require_gpu()?;
        opts.validate()?;
        check_nan_last_on_gpu::<T>(opts, "a sort")?;
        variants::sort(gpu, buf, opts)
    }

    /// Sorts the device buffer `src` into `dst` (same length), leaving `src` as it is
    /// (queued, not waited for): the radix sort's first pass reads `src` and its last
    /// lands in `dst`, so no copy of the input is made (keys of 4 or 8 bytes; other
    /// sorts copy `src` into `dst` first). `dst` may be `src` itself (in place), and
    /// must not otherwise overlap it.
    pub fn sort_device_into<T: Element>(
        &self,
        src: &DeviceBuffer<T>,
        dst: &mut DeviceBuffer<T>,
        opts: &SortOptions,
    ) -> Result<()> {
        let gpu = self.require_gpu()?;
        opts.validate()?;
        check_nan_last_on_gpu::<T>(opts, "a sort")?;
        variants::sort_into(gpu, src, dst, opts)
    }

    /// Copies `data` to the device (for [`Sorter::sort_device`]).
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        self.require_gpu()?.upload(data)
    }
}

/// `data[i] = old data[perm[i]]`, in parallel.
/// The CPU backend's stable pair sort: keys and values by the keys' permutation.
fn cpu_sort_pairs<K: Key, V: Element>(keys: &mut [K], values: &mut [V], opts: &SortOptions) -> Result<()> {
    let perm = cpu_argsort(keys, opts)?;
    let k: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
    let v: Vec<V> = perm.iter().map(|&i| values[i as usize]).collect();
    keys.copy_from_slice(&k);
    values.copy_from_slice(&v);
    Ok(())
}

fn permute<T: Copy + Send + Sync>(data: &mut [T], perm: &[u32]) {
    use rayon::prelude::*;
    let sorted: Vec<T> = perm.par_iter().map(|&i| data[i as usize]).collect();
    data.copy_from_slice(&sorted);
}

/// The CPU sort, honouring [`SortOptions::key_bits`].
fn cpu_sort<T: Element>(data: &mut [T], opts: &SortOptions) -> Result<()> {
    match opts.key_bits {
        None if !opts.key_order().nan_last_for::<T>() => cpu::sort(data, opts.order),
        None => {
            use rayon::prelude::*;
            let order = opts.key_order();
            data.par_sort_by_key(|x| order.sort_bits(x));
        }
        Some(_) => {
            let perm = cpu_argsort(data, opts)?;
            let sorted: Vec<T> = perm.iter().map(|&i| data[i as usize]).collect();
            data.copy_from_slice(&sorted);
        }
    }
    Ok(())
}

/// On the GPU, NaN-last order is the radix sort's (the default variant) and needs a
/// primitive key; the other variants compare order bits in their own networks, and
/// records go through their key field's extraction, which takes total order only.
fn check_nan_last_on_gpu<T: Element>(opts: &SortOptions, what: &str) -> Result<()> {
    if !opts.key_order().nan_last_for::<T>() {
        return Ok(());
    }
    if opts.variant != Variant::Radix {
        return Err(Error::Unsupported {
            option: "NaN-last order",
            by: format!("variant {} on the GPU", opts.variant),
            hint: "the radix variant (the default) and the CPU backend sort NaNs last",
        });
    }
    if T::BIT_ORDER.is_none() {
        return Err(Error::Unsupported {
            option: "NaN-last order",
            by: format!("{what} of {} records on the GPU", T::NAME),
            hint: "sort primitive float keys, or use the CPU backend",
        });
    }
    Ok(())
}

/// The options top-k takes: all but key bits (it compares whole keys).
fn check_top_k_options(opts: &SortOptions) -> Result<()> {
    if opts.key_bits.is_some() {
        return Err(Error::Unsupported {
            option: "key bits",
            by: "top-k".into(),
            hint: "top-k compares whole keys; key bits are a radix sort option",
        });
    }
    Ok(())
}

/// The options a wide-key sort takes: the order, and the radix variant (the one its
/// passes run on the GPU; refused on the CPU too, so that a program behaves alike on
/// both); at most 2^32 - 1 keys (`u32` indices).
fn check_wide_options<K: WideKey>(opts: &SortOptions, n: usize) -> Result<()> {
    opts.validate()?;
    check_wide_key_bits::<K>(opts)?;
    if opts.variant != Variant::Radix {
        return Err(Error::Unsupported {
            option: "wide keys",
            by: format!("variant {}", opts.variant),
            hint: "wide keys sort by radix passes over their 64-bit words (the radix variant, the default)",
        });
    }
    Error::check_u32_indices("a wide-key sort", n)
}

/// Key bits are refused for wide keys: they sort by all their bits.
fn check_wide_key_bits<K: WideKey>(opts: &SortOptions) -> Result<()> {
    if opts.key_bits.is_some() {
        return Err(Error::Unsupported {
            option: "key bits",
            by: format!("{} keys", K::NAME),
            hint: "wide keys sort by all their bits",
        });
    }
    Ok(())
}

fn check_select_options(opts: &SortOptions) -> Result<()> {
    if opts.key_bits.is_some() {
        return Err(Error::Unsupported {
            option: "key bits",
            by: "select_nth".into(),
            hint: "select_nth compares whole keys; key bits are a radix sort option",
        });
    }
    Ok(())
}

/// [`Sorter::top_k`] on the CPU: a selection of the `k`-th (order bits, index), which
/// are unique, then a sort of the `k` before it.
pub fn cpu_top_k<K: Element>(keys: &[K], k: usize, order: impl Into<KeyOrder>) -> (Vec<K>, Vec<u32>) {
    cpu_top_k_as(keys, k, order)
}

/// [`cpu_top_k`] with indices of `I` (`u32` only below 2^32 keys, which the callers
/// check).
fn cpu_top_k_as<K: Element, I: variants::radix::Index>(
    keys: &[K],
    k: usize,
    order: impl Into<KeyOrder>,
) -> (Vec<K>, Vec<I>) {
    let order = order.into();
    let k = k.min(keys.len());
    if k == 0 {
        return (Vec::new(), Vec::new());
    }
    let rank = |&i: &usize| -> (u64, usize) { (order.sort_bits(&keys[i]), i) };
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    if k < idx.len() {
        idx.select_nth_unstable_by_key(k - 1, rank);
        idx.truncate(k);
    }
    idx.sort_unstable_by_key(rank);
    (idx.iter().map(|&i| keys[i]).collect(), idx.iter().map(|&i| I::from_u64(i as u64)).collect())
}

/// Sorts on `gpu` the keys that the checked, non-empty `offsets` cover: only that
/// range travels, and `sort` sorts it by the offsets made relative to its start.
fn segments_on_gpu<K: bytemuck::Pod>(
    gpu: &Gpu,
    keys: &mut [K],
    offsets: &[usize],
    sort: impl FnOnce(&mut DeviceBuffer<K>, &[usize]) -> Result<()>,
) -> Result<()> {
    let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
    let range = &mut keys[first..last];
    let rel: Vec<usize> = offsets.iter().map(|o| o - first).collect();
    let mut buf = gpu.upload(range)?;
    sort(&mut buf, &rel)?;
    buf.copy_to_host(gpu, range)
}

/// [`segments_on_gpu`] of keys and their values (`values` as long as `keys`).
fn segment_pairs_on_gpu<K: bytemuck::Pod, V: bytemuck::Pod>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    offsets: &[usize],
    sort: impl FnOnce(&mut DeviceBuffer<K>, &mut DeviceBuffer<V>, &[usize]) -> Result<()>,
) -> Result<()> {
    let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
    let (krange, vrange) = (&mut keys[first..last], &mut values[first..last]);
    let rel: Vec<usize> = offsets.iter().map(|o| o - first).collect();
    let (mut k, mut v) = (gpu.upload(krange)?, gpu.upload(vrange)?);
    sort(&mut k, &mut v, &rel)?;
    k.copy_to_host(gpu, krange)?;
    v.copy_to_host(gpu, vrange)
}

/// Stable sorting permutation on the CPU, by the order bits (or the chosen bit range).
fn cpu_argsort<K: Element>(keys: &[K], opts: &SortOptions) -> Result<Vec<u32>> {
    Error::check_u32_indices("argsort", keys.len())?;
    let mut perm = vec![0u32; keys.len()];
    cpu_argsort_into(keys, &mut perm, opts)?;
    Ok(perm)
}

/// [`cpu_argsort`] into `out` (as long as `keys`; `u32` indices only below 2^32 keys,
/// which the callers check).
fn cpu_argsort_into<K: Element, I: variants::radix::Index>(
    keys: &[K],
    out: &mut [I],
    opts: &SortOptions,
) -> Result<()> {
    use rayon::prelude::*;
    let width = 8 * size_of::<K::Bits>() as u32;
    let (begin, end) = match opts.key_bits {
        Some(b) if K::BIT_ORDER.is_some() => variants::radix::check_bits::<K>(Some(b), width)?,
        Some(_) => return Err(Error::key_bits_of_record(K::NAME)),
        None => (0, width),
    };
    let order = opts.key_order();
    let field = |k: &K| -> u64 {
        let b = order.sort_bits(k);
        let span = end - begin;
        if span == 64 { b } else { (b >> begin) & ((1u64 << span) - 1) }
    };
    out.par_iter_mut().enumerate().for_each(|(i, o)| *o = I::from_u64(i as u64));
    out.par_sort_by_key(|&i| field(&keys[i.to_u64() as usize]));
    Ok(())
}

/// A row operation ([`Sorter::nan_last_rows_in_one_launch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOp {
    /// [`Sorter::sort_rows`].
    Sort,
    /// [`Sorter::argsort_rows`].
    Argsort,
    /// [`Sorter::top_k_rows`] of `k` keys a row.
    TopK(usize),
}
