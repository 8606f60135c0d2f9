//! [`Tuning`]: the measured defaults that experiments may override (tile and grid
//! choices, how pairs move through the radix passes, how kernels are loaded and
//! launched, how the file sort stages and writes), held in one value that the device
//! handle carries to every launcher. The library never reads its environment for
//! them: the `host` program reads the `SORT_*` variables once ([`Tuning::from_env`];
//! docs/design.md, "Environment variables", lists them) and opens its devices with the
//! result. None is needed: [`Tuning::default`] is what was measured best.
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// How the radix sort moves `u32` keys with `u32` values between its passes
/// ([`Tuning::radix_pairs`]).
pub use kernels::radix::Packing;

use crate::file_sort::output::WriteMode;

/// Every tuning knob of the library, each at its measured default
/// ([`Tuning::default`]), or as the `SORT_*` environment variables say
/// ([`Tuning::from_env`]). A device opened with one ([`crate::Gpu::open_tuned`],
/// [`crate::Sorter::new_tuned`], ...) launches every sort by it; the file sort takes
/// its knobs from its [`crate::Sorter`].
///
/// ```
/// use host::{Sorter, Tuning};
///
/// let mut tuning = Tuning::default();
/// tuning.sync_launches = true; // name a faulting kernel at its launch
/// tuning.mergepath_reverse = Some(false);
/// let sorter = Sorter::with_fallback_tuned(tuning.clone());
/// assert_eq!(sorter.tuning(), &tuning);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    /// Largest input whose radix digit passes run on short tiles
    /// ([`kernels::radix::onesweep_tile`]); 0 turns them off. Default
    /// [`kernels::radix::SHORT_ONESWEEP_MAX`] (2^18): with few tiles a pass costs one
    /// tile's ranking, done by one block, so smaller tiles spread it over more SMs
    /// (docs/history.md, 2026-11-23). `SORT_RADIX_SHORT_ONESWEEP_MAX`.
    pub radix_short_onesweep_max: u64,
    /// Smallest radix sort of `u32` keys with `u32` values whose pairs travel packed
    /// ([`Packing::Through`]). Default 2^23: below it a pass has few tiles per SM, and
    /// a packed tile (one 64-bit item per pair) takes one block longer to rank than a
    /// split one, so the split pass wins; above it the packed pass's single load,
    /// staging and scatter per pair win (H100, docs/history.md, 2026-11-24).
    /// `SORT_RADIX_PACKED_MIN`.
    pub radix_packed_min: u64,
    /// How `u32` + `u32` pairs move through the radix passes whenever they may be
    /// packed; `None` (default): split below [`Tuning::radix_packed_min`], packed
    /// through scratch from it on. `SORT_RADIX_PAIRS=split|alternate|through`.
    pub radix_pairs: Option<Packing>,
    /// Largest radix sort of keys alone (32- and 64-bit) or of `u32` keys with `u32`
    /// values (moved split) run as one fused launch (histogram, digit passes and
    /// copy-back separated by grid-wide barriers; at most
    /// [`kernels::radix::FUSED_MAX`]); 0 turns it off. `None` (default): the measured
    /// limit of each width (`variants::radix::fused_max`). `SORT_RADIX_FUSED_MAX`.
    pub radix_fused_max: Option<u64>,
    /// Items per thread of the fused sort's tiles (one of
    /// [`kernels::radix::FusedKernel::FUSED`]'s); `None` (default): the fewest whose
    /// tiles fit one round of the resident blocks ([`kernels::radix::fused_choice`]).
    /// `SORT_RADIX_FUSED_ITEMS`.
    pub radix_fused_items: Option<u32>,
    /// Largest split radix sort (4- and 8-byte keys, alone or with values) that may
    /// take the plan by buckets: the top digit's pass first, then each of its groups
    /// sorted by the lower digits in one block (`kernels::radix::buckets_plan`), which
    /// the histogram chooses on the device when every group fits a block's tile, and
    /// the digit passes otherwise; 0 turns it off. `SORT_RADIX_BUCKETS_MAX`.
    pub radix_buckets_max: u64,
    /// Most radix histogram blocks per SM (0 counts as 1). Default 1: each block loops
    /// over its share, and its lane-striped counters (`kernels::radix::hist`) take most
    /// of an SM's shared memory, so one block of `kernels::radix::HIST_BLOCK` threads is
    /// all an SM holds at a time; fewer blocks also mean fewer global adds at the end
    /// (every block adds each nonzero count of its own). `SORT_RADIX_HIST_BLOCKS_PER_SM`.
    pub radix_hist_blocks_per_sm: u64,
    /// Top-k histogram blocks per SM (0 counts as 1). Default 2: the two that are
    /// resident at once (the launch bounds), each looping over its share, since more
    /// blocks would only add global atomics at their ends. `SORT_TOPK_HIST_BLOCKS_PER_SM`.
    pub topk_hist_blocks_per_sm: u64,
    /// Segmented sort: warp-kernel blocks per SM (0 counts as 1). Default 64: about one
    /// segment per warp where the segments allow, since fewer blocks looping over more
    /// segments each made the 64-bit networks 2.4x slower (H100, 2026-11-27).
    /// `SORT_SEGMENTED_WARP_BLOCKS_PER_SM`.
    pub segmented_warp_blocks_per_sm: u64,
    /// Segmented sort: one-block-kernel blocks per SM (0 counts as 1). Default 32, as
    /// [`Tuning::segmented_warp_blocks_per_sm`]. `SORT_SEGMENTED_BLOCK_BLOCKS_PER_SM`.
    pub segmented_block_blocks_per_sm: u64,
    /// The segmented sort's tiny segments of 32-bit keys alone ranked, as pairs and
    /// 64-bit keys are, instead of sorted by register networks. Default off.
    /// `SORT_SEGMENTED_TILE_RANK=1`.
    pub segmented_tile_rank: bool,
    /// The segmented sort's warp kernel for 32-bit keys alone on the blocked network
    /// for every segment (as 64-bit keys and pairs) instead of the striped one below
    /// 256 keys (`kernels::segmented::warp_blocked_from`). Default off.
    /// `SORT_SEGMENTED_WARP_BLOCKED=1`.
    pub segmented_warp_blocked: bool,
    /// The segmented sort's segments of 2..=32 keys sorted by the warp kernel, and no
    /// tile kernel launched (`Some(true)`), or by the tile kernel (`Some(false)`);
    /// `None` (default): by the mean segment length
    /// (`kernels::segmented::tiny_in_warp`). `SORT_SEGMENTED_TINY_IN_WARP`.
    pub segmented_tiny_in_warp: Option<bool>,
    /// The segmented sort's warp list kept in a region per network size, which the
    /// warp kernel takes longest first (`kernels::segmented::WARP_CLASSES`,
    /// `Some(true)`), or one list in the bin kernel's order (`Some(false)`); `None`
    /// (default): as [`Tuning::segmented_tiny_in_warp`] (where the mean segment is
    /// long). `SORT_SEGMENTED_WARP_BY_CLASS`.
    pub segmented_warp_by_class: Option<bool>,
    /// The segmented sort reads the bin kernel's counts back on a stream of its own
    /// (forked after the bin kernel), so that the sorting kernels do not wait for the
    /// copies. Default on. `SORT_SEGMENTED_READBACK_BESIDE=0` turns it off.
    pub segmented_readback_beside: bool,
    /// The segmented sort's kernels that the host launches only once it has the bin
    /// kernel's counts (then with a grid for their list, and none for an empty one,
    /// instead of an empty worst-case grid that costs ~10 us): 0 none, 1 the block
    /// kernel, 2 the warp and block kernels. The tile kernel and the copies of the
    /// counts run meanwhile. `None` (default): by the mean segment length
    /// (`host::variants::segmented::after_counts`). `SORT_SEGMENTED_AFTER_COUNTS`.
    pub segmented_after_counts: Option<u32>,
    /// Cap on the merge tiles per block of mergepath's block sort (4 or 2, for 4-byte
    /// keys alone, to measure): the widest supported width within it (1 below 2);
    /// `None` (default): the widest the key and value sizes
    /// have kernels for ([`kernels::mergepath::sort_width`]). `SORT_MERGEPATH_WIDTH`.
    pub mergepath_width: Option<u32>,
    /// Lanes per co-rank search of mergepath's partition kernel, 8 or 32 (other values
    /// are ignored); `None` (default): by the pass's co-rank count
    /// ([`kernels::mergepath::partition_lanes`], measured there).
    /// `SORT_MERGEPATH_PARTITION_LANES`.
    pub mergepath_partition_lanes: Option<u32>,
    /// Whether every other mergepath pass runs reversed (so L2 keeps what the next
    /// pass reads first); `None` (default): by the buffer's size against the L2
    /// ([`kernels::mergepath::l2_reuse`], measured there). `SORT_MERGEPATH_REVERSE=0/1`.
    pub mergepath_reverse: Option<bool>,
    /// Whether mergepath's merges load their input as last-use data (evict-first in
    /// L2); `None` (default): by size, as [`Tuning::mergepath_reverse`].
    /// `SORT_MERGEPATH_STREAM=0/1`.
    pub mergepath_stream: Option<bool>,
    /// Whether mergepath's block sort may be wider than one 256-thread tile per block
    /// ([`kernels::mergepath::sort_width`]); `false` keeps the narrow block sort at
    /// every size. Default `true`: wider blocks leave longer runs and a pass or more
    /// fewer (measured there). `SORT_MERGEPATH_WIDE=0`.
    pub mergepath_wide: bool,
    /// Factor on the blocks an input needs before the block sort takes a width
    /// ([`kernels::mergepath::sort_width_min_quarter_waves`] quarters of the SM count,
    /// measured there); below it narrower blocks spread the sort over more SMs.
    /// Default 1. `SORT_MERGEPATH_WIDE_MIN_PER_SM`.
    pub mergepath_wide_min_per_sm: u64,
    /// Largest number of merge tiles per SM whose merges find their own co-ranks (no
    /// partition kernel; 0: never); `None` (default): by the key and value sizes
    /// ([`kernels::mergepath::co_ranks_in_merge_per_sm`], measured there).
    /// `SORT_MERGEPATH_IN_MERGE_PER_SM`.
    pub mergepath_in_merge_per_sm: Option<u32>,
    /// Shared memory one chunk-pass block of the `sm` variants may use; `None`
    /// (default): the device's default per-block limit
    /// ([`crate::DeviceInfo::shared_mem_per_block`], 48 KiB), not the opt-in maximum
    /// (227 KiB on Hopper). A chunk pass runs one block per chunk, each walking its
    /// chunk sequentially, so it needs several resident blocks per SM to hide latency,
    /// and its L2 working set grows with the chunk: on an H100 at 2^24 elements (block
    /// 256), budgets of 48 / 96 / 227 KiB gave `sm` 5.56 / 5.51 / 5.71 ms for u32 and
    /// 10.68 / 11.12 / 11.35 ms for `Entity`. Values above the default need the
    /// device's opt-in limit (checked at launch). `SORT_SM_SMEM_BYTES`.
    pub sm_smem_bytes: Option<u32>,
    /// Synchronise after every launch, so that a faulting kernel is named in the error
    /// (slower; default off). `SORT_SYNC_LAUNCHES=1`.
    pub sync_launches: bool,
    /// Load the kernels from this PTX file (or cubin, which loads without a JIT wait)
    /// instead of the embedded code (comparing kernel builds with one binary); `None`
    /// (default): the embedded code.
    /// `SORT_PTX_FILE=path`.
    pub ptx_file: Option<PathBuf>,
    /// Load the embedded PTX (JIT-compiled by the driver) even where an embedded cubin
    /// matches the device (comparing the driver's JIT with the build-time ptxas).
    /// Default off: the cubin loads without a JIT wait. `SORT_FORCE_PTX=1`.
    pub force_ptx: bool,
    /// Launch the kernels of [`crate::device::PDL_KERNELS`] as programmatic dependents
    /// where the sm_90 cubin is loaded (only it has their dependency waits); `false`
    /// launches every kernel plainly, to measure them. Default on: the next kernel's
    /// launch overlaps the previous one's tail (docs/performance.md's radix and mergepath
    /// numbers). `SORT_PDL=0`.
    pub pdl: bool,
    /// How the file sort writes its output; `None` (default): binary outputs mapped
    /// (1 GiB written in ~0.06 s of busy time against ~0.35 s positioned), text
    /// positioned, block by block, where mapping each block measured slower
    /// (docs/history.md, 2026-11-24). `SORT_FILE_WRITE=mapped|positioned`.
    pub file_write: Option<WriteMode>,
    /// Threads faulting a mapped output's pages in while the input is read and sorted
    /// (0: none, the copies then take the faults themselves). Default 4.
    /// `SORT_FILE_POPULATE_THREADS`.
    pub file_populate_threads: usize,
    /// Bytes per pinned staging buffer of the file pipeline and of large host-slice
    /// copies ([`Tuning::host_stage_min_bytes`]; rounded down to whole elements, at
    /// least one). Default 16 MiB: pinning host memory costs ~0.5 ms per
    /// MiB (and unpinning more at exit), so the buffers are only as large as keeps the
    /// copies and the I/O overlapped: 4 x 16 MiB took 24 ms to allocate where 3 x 64
    /// MiB took 75-105 ms, with the same streaming rate (H100 machine, docs/history.md,
    /// 2026-11-24). `SORT_FILE_STAGE_BYTES`.
    pub file_stage_bytes: usize,
    /// Staging buffers of the file pipeline (and of large host-slice copies) in
    /// flight (at least one). Default 4, as
    /// [`Tuning::file_stage_bytes`]. `SORT_FILE_STAGES`.
    pub file_stages: usize,
    /// Whether the file pipeline's staging buffers are pinned in 2 MiB pages
    /// ([`crate::device::PinnedBuffer::new_huge`]) rather than by the driver's
    /// allocation. Default on: 4 x 16 MiB pinned in 16 ms instead of 28, and a 1 GiB
    /// u32 file sorted in 0.441 s instead of 0.482 (medians of 6, H200 machine,
    /// 2026-11-29, docs/history.md). `SORT_FILE_PIN_HUGE=0|1`.
    pub file_pin_huge: bool,
    /// Host slices of at least this many bytes are copied to and from the device
    /// through page-locked staging buffers filled and emptied on several threads
    /// ([`crate::DeviceBuffer::copy_from_host`]; [`Tuning::file_stage_bytes`] and
    /// [`Tuning::file_stages`] size them, and the device keeps them for the next
    /// copy); smaller ones by the driver's copy of pageable memory. Default 4 MiB.
    /// `SORT_HOST_STAGE_MIN_BYTES` (a value above any copy turns staging off).
    pub host_stage_min_bytes: usize,
    /// Print the multi-GPU partition-first pipeline's per-GPU timeline to standard
    /// error. Default off. `SORT_MULTI_GPU_TRACE` (any value).
    pub multi_gpu_trace: bool,
}

impl Default for Tuning {
    /// The measured defaults: what the library does with no `SORT_*` variable set.
    fn default() -> Self {
        Tuning {
            radix_short_onesweep_max: kernels::radix::SHORT_ONESWEEP_MAX,
            radix_packed_min: crate::variants::radix::PACKED_MIN,
            radix_pairs: None,
            radix_hist_blocks_per_sm: 1,
            radix_fused_max: None,
            radix_fused_items: None,
            radix_buckets_max: crate::variants::radix::BUCKETS_MAX,
            topk_hist_blocks_per_sm: 2,
            segmented_warp_blocks_per_sm: 64,
            segmented_block_blocks_per_sm: 32,
            segmented_tile_rank: false,
            segmented_warp_blocked: false,
            segmented_tiny_in_warp: None,
            segmented_warp_by_class: None,
            segmented_readback_beside: true,
            segmented_after_counts: None,
            mergepath_width: None,
            mergepath_partition_lanes: None,
            mergepath_reverse: None,
            mergepath_stream: None,
            mergepath_wide: true,
            mergepath_wide_min_per_sm: 1,
            mergepath_in_merge_per_sm: None,
            sm_smem_bytes: None,
            sync_launches: false,
            ptx_file: None,
            force_ptx: false,
            pdl: true,
            file_write: None,
            file_populate_threads: 4,
            file_stage_bytes: 16 << 20,
            file_stages: 4,
            file_pin_huge: true,
            host_stage_min_bytes: 4 << 20,
            multi_gpu_trace: false,
        }
    }
}

impl Tuning {
    /// The defaults overridden by the `SORT_*` variables of this process's environment
    /// ([`Tuning::from_vars`]): what the `host` program runs with.
    pub fn from_env() -> Tuning {
        Tuning::from_vars(std::env::vars_os())
    }

    /// The defaults overridden by the `SORT_*` variables among `vars` (name, value):
    /// a number that does not parse, or an unknown word, leaves the default (as does
    /// a variable not among them); other names are ignored. Switches are numbers, 0
    /// off and any other on, except `SORT_SYNC_LAUNCHES` and `SORT_FORCE_PTX` (any
    /// value but `0` turns them on), `SORT_PDL` (only `0` turns it off) and
    /// `SORT_MULTI_GPU_TRACE` (on when set).
    ///
    /// ```
    /// use host::Tuning;
    ///
    /// let t = Tuning::from_vars([("SORT_PDL".into(), "0".into()), ("SORT_RADIX_PACKED_MIN".into(), "x".into())]);
    /// assert!(!t.pdl);
    /// assert_eq!(t.radix_packed_min, Tuning::default().radix_packed_min);
    /// ```
    pub fn from_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Tuning {
        let mut t = Tuning::default();
        for (name, value) in vars {
            let v = value.as_os_str();
            match name.to_str().unwrap_or("") {
                "SORT_RADIX_SHORT_ONESWEEP_MAX" => set(&mut t.radix_short_onesweep_max, number(v)),
                "SORT_RADIX_PACKED_MIN" => set(&mut t.radix_packed_min, number(v)),
                "SORT_RADIX_PAIRS" => {
                    t.radix_pairs = match v.to_str() {
                        Some("split") => Some(Packing::Split),
                        Some("alternate") => Some(Packing::Alternate),
                        Some("through") => Some(Packing::Through),
                        _ => None,
                    }
                }
                "SORT_RADIX_FUSED_MAX" => t.radix_fused_max = number(v),
                "SORT_RADIX_FUSED_ITEMS" => t.radix_fused_items = number(v),
                "SORT_RADIX_BUCKETS_MAX" => set(&mut t.radix_buckets_max, number(v)),
                "SORT_RADIX_HIST_BLOCKS_PER_SM" => set(&mut t.radix_hist_blocks_per_sm, positive(v)),
                "SORT_TOPK_HIST_BLOCKS_PER_SM" => set(&mut t.topk_hist_blocks_per_sm, positive(v)),
                "SORT_SEGMENTED_WARP_BLOCKS_PER_SM" => set(&mut t.segmented_warp_blocks_per_sm, positive(v)),
                "SORT_SEGMENTED_BLOCK_BLOCKS_PER_SM" => set(&mut t.segmented_block_blocks_per_sm, positive(v)),
                "SORT_SEGMENTED_TILE_RANK" => set(&mut t.segmented_tile_rank, on_off(v)),
                "SORT_SEGMENTED_WARP_BLOCKED" => set(&mut t.segmented_warp_blocked, on_off(v)),
                "SORT_SEGMENTED_TINY_IN_WARP" => t.segmented_tiny_in_warp = on_off(v),
                "SORT_SEGMENTED_WARP_BY_CLASS" => t.segmented_warp_by_class = on_off(v),
                "SORT_SEGMENTED_READBACK_BESIDE" => set(&mut t.segmented_readback_beside, on_off(v)),
                "SORT_SEGMENTED_AFTER_COUNTS" => t.segmented_after_counts = number(v),
                "SORT_MERGEPATH_WIDTH" => t.mergepath_width = number(v),
                "SORT_MERGEPATH_PARTITION_LANES" => t.mergepath_partition_lanes = number(v),
                "SORT_MERGEPATH_REVERSE" => t.mergepath_reverse = on_off(v),
                "SORT_MERGEPATH_STREAM" => t.mergepath_stream = on_off(v),
                "SORT_MERGEPATH_WIDE" => set(&mut t.mergepath_wide, on_off(v)),
                "SORT_MERGEPATH_WIDE_MIN_PER_SM" => set(&mut t.mergepath_wide_min_per_sm, number(v)),
                "SORT_MERGEPATH_IN_MERGE_PER_SM" => t.mergepath_in_merge_per_sm = number(v),
                "SORT_SM_SMEM_BYTES" => t.sm_smem_bytes = v.to_str().and_then(|s| s.trim().parse().ok()),
                "SORT_SYNC_LAUNCHES" => t.sync_launches = v != "0",
                "SORT_PTX_FILE" => t.ptx_file = Some(PathBuf::from(v)),
                "SORT_FORCE_PTX" => t.force_ptx = v != "0",
                "SORT_PDL" => t.pdl = v != "0",
                "SORT_FILE_WRITE" => {
                    t.file_write = match v.to_str() {
                        Some("positioned" | "pwrite") => Some(WriteMode::Positioned),
                        Some("mapped" | "mmap") => Some(WriteMode::Mapped),
                        _ => None,
                    }
                }
                "SORT_FILE_POPULATE_THREADS" => set(&mut t.file_populate_threads, number(v)),
                "SORT_FILE_STAGE_BYTES" => set(&mut t.file_stage_bytes, positive(v)),
                "SORT_FILE_STAGES" => set(&mut t.file_stages, positive(v)),
                "SORT_FILE_PIN_HUGE" => t.file_pin_huge = v != "0",
                "SORT_HOST_STAGE_MIN_BYTES" => set(&mut t.host_stage_min_bytes, number(v)),
                "SORT_MULTI_GPU_TRACE" => t.multi_gpu_trace = true,
                _ => {}
            }
        }
        t
    }
}

/// Overwrites `field` when the variable gave a value.
fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// The value as a number of type `T`; `None` when it does not parse.
fn number<T: std::str::FromStr>(v: &OsStr) -> Option<T> {
    v.to_str().and_then(|s| s.parse().ok())
}

/// A count that must be positive: 0 leaves the default, as a value that does not parse.
fn positive<T: std::str::FromStr + PartialOrd + Default>(v: &OsStr) -> Option<T> {
    number(v).filter(|n| *n > T::default())
}

/// An on / off number: 0 off, any other on.
fn on_off(v: &OsStr) -> Option<bool> {
    number::<u32>(v).map(|n| n != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Tuning {
        Tuning::from_vars(pairs.iter().map(|&(k, v)| (k.into(), v.into())))
    }

    /// Without a `SORT_*` variable (here: none of the process's own, and unrelated
    /// ones) every knob is at its default.
    #[test]
    fn no_variable_gives_the_defaults() {
        assert_eq!(from(&[]), Tuning::default());
        assert_eq!(from(&[("PATH", "/bin"), ("SORT_TRACE", "1"), ("SORT_UNKNOWN", "3")]), Tuning::default());
        let without_tuning = std::env::vars_os().filter(|(k, _)| !k.to_string_lossy().starts_with("SORT_"));
        assert_eq!(Tuning::from_vars(without_tuning), Tuning::default());
    }

    /// The defaults the launchers used before the knobs were gathered here.
    #[test]
    fn defaults_are_the_measured_ones() {
        let t = Tuning::default();
        assert_eq!(t.radix_short_onesweep_max, 1 << 18);
        assert_eq!(t.radix_packed_min, 1 << 23);
        assert_eq!((t.radix_hist_blocks_per_sm, t.topk_hist_blocks_per_sm), (1, 2));
        assert_eq!((t.radix_fused_max, t.radix_fused_items), (None, None));
        assert!(t.mergepath_wide && t.pdl && !t.sync_launches && !t.force_ptx && !t.multi_gpu_trace);
        assert_eq!(
            (t.file_populate_threads, t.file_stage_bytes, t.file_stages, t.file_pin_huge),
            (4, 16 << 20, 4, true)
        );
        assert_eq!(t.host_stage_min_bytes, 4 << 20);
    }

    /// Each variable changes its own field, and only it.
    #[test]
    fn each_variable_sets_its_field() {
        let d = Tuning::default();
        let cases: Vec<(&str, &str, Tuning)> = vec![
            ("SORT_RADIX_SHORT_ONESWEEP_MAX", "0", Tuning { radix_short_onesweep_max: 0, ..d.clone() }),
            ("SORT_RADIX_PACKED_MIN", "4096", Tuning { radix_packed_min: 4096, ..d.clone() }),
            ("SORT_RADIX_PAIRS", "split", Tuning { radix_pairs: Some(Packing::Split), ..d.clone() }),
            ("SORT_RADIX_PAIRS", "alternate", Tuning { radix_pairs: Some(Packing::Alternate), ..d.clone() }),
            ("SORT_RADIX_PAIRS", "through", Tuning { radix_pairs: Some(Packing::Through), ..d.clone() }),
            ("SORT_RADIX_HIST_BLOCKS_PER_SM", "3", Tuning { radix_hist_blocks_per_sm: 3, ..d.clone() }),
            ("SORT_RADIX_FUSED_MAX", "0", Tuning { radix_fused_max: Some(0), ..d.clone() }),
            ("SORT_RADIX_FUSED_ITEMS", "8", Tuning { radix_fused_items: Some(8), ..d.clone() }),
            ("SORT_RADIX_BUCKETS_MAX", "0", Tuning { radix_buckets_max: 0, ..d.clone() }),
            ("SORT_TOPK_HIST_BLOCKS_PER_SM", "5", Tuning { topk_hist_blocks_per_sm: 5, ..d.clone() }),
            ("SORT_SEGMENTED_WARP_BLOCKS_PER_SM", "8", Tuning { segmented_warp_blocks_per_sm: 8, ..d.clone() }),
            ("SORT_SEGMENTED_BLOCK_BLOCKS_PER_SM", "4", Tuning { segmented_block_blocks_per_sm: 4, ..d.clone() }),
            ("SORT_SEGMENTED_TILE_RANK", "1", Tuning { segmented_tile_rank: true, ..d.clone() }),
            ("SORT_SEGMENTED_WARP_BLOCKED", "1", Tuning { segmented_warp_blocked: true, ..d.clone() }),
            ("SORT_SEGMENTED_TINY_IN_WARP", "1", Tuning { segmented_tiny_in_warp: Some(true), ..d.clone() }),
            ("SORT_SEGMENTED_TINY_IN_WARP", "0", Tuning { segmented_tiny_in_warp: Some(false), ..d.clone() }),
            ("SORT_SEGMENTED_WARP_BY_CLASS", "0", Tuning { segmented_warp_by_class: Some(false), ..d.clone() }),
            ("SORT_SEGMENTED_READBACK_BESIDE", "0", Tuning { segmented_readback_beside: false, ..d.clone() }),
            ("SORT_SEGMENTED_AFTER_COUNTS", "2", Tuning { segmented_after_counts: Some(2), ..d.clone() }),
            ("SORT_MERGEPATH_WIDTH", "2", Tuning { mergepath_width: Some(2), ..d.clone() }),
            ("SORT_MERGEPATH_PARTITION_LANES", "32", Tuning { mergepath_partition_lanes: Some(32), ..d.clone() }),
            ("SORT_MERGEPATH_REVERSE", "1", Tuning { mergepath_reverse: Some(true), ..d.clone() }),
            ("SORT_MERGEPATH_REVERSE", "0", Tuning { mergepath_reverse: Some(false), ..d.clone() }),
            ("SORT_MERGEPATH_STREAM", "7", Tuning { mergepath_stream: Some(true), ..d.clone() }),
            ("SORT_MERGEPATH_STREAM", "0", Tuning { mergepath_stream: Some(false), ..d.clone() }),
            ("SORT_MERGEPATH_WIDE", "0", Tuning { mergepath_wide: false, ..d.clone() }),
            ("SORT_MERGEPATH_WIDE_MIN_PER_SM", "0", Tuning { mergepath_wide_min_per_sm: 0, ..d.clone() }),
            ("SORT_MERGEPATH_IN_MERGE_PER_SM", "0", Tuning { mergepath_in_merge_per_sm: Some(0), ..d.clone() }),
            ("SORT_SM_SMEM_BYTES", " 98304 ", Tuning { sm_smem_bytes: Some(98304), ..d.clone() }),
            ("SORT_SYNC_LAUNCHES", "1", Tuning { sync_launches: true, ..d.clone() }),
            ("SORT_SYNC_LAUNCHES", "yes", Tuning { sync_launches: true, ..d.clone() }),
            ("SORT_PTX_FILE", "k.ptx", Tuning { ptx_file: Some("k.ptx".into()), ..d.clone() }),
            ("SORT_FORCE_PTX", "1", Tuning { force_ptx: true, ..d.clone() }),
            ("SORT_PDL", "0", Tuning { pdl: false, ..d.clone() }),
            ("SORT_FILE_WRITE", "positioned", Tuning { file_write: Some(WriteMode::Positioned), ..d.clone() }),
            ("SORT_FILE_WRITE", "pwrite", Tuning { file_write: Some(WriteMode::Positioned), ..d.clone() }),
            ("SORT_FILE_WRITE", "mapped", Tuning { file_write: Some(WriteMode::Mapped), ..d.clone() }),
            ("SORT_FILE_WRITE", "mmap", Tuning { file_write: Some(WriteMode::Mapped), ..d.clone() }),
            ("SORT_FILE_POPULATE_THREADS", "0", Tuning { file_populate_threads: 0, ..d.clone() }),
            ("SORT_FILE_STAGE_BYTES", "65536", Tuning { file_stage_bytes: 65536, ..d.clone() }),
            ("SORT_FILE_STAGES", "2", Tuning { file_stages: 2, ..d.clone() }),
            ("SORT_FILE_PIN_HUGE", "0", Tuning { file_pin_huge: false, ..d.clone() }),
            ("SORT_HOST_STAGE_MIN_BYTES", "0", Tuning { host_stage_min_bytes: 0, ..d.clone() }),
            ("SORT_MULTI_GPU_TRACE", "0", Tuning { multi_gpu_trace: true, ..d.clone() }),
        ];
        for (name, value, want) in cases {
            assert_ne!(want, d, "{name}={value} must differ from the default");
            assert_eq!(from(&[(name, value)]), want, "{name}={value}");
        }
    }

    /// Values that do not parse (or are out of range) leave the default, as the
    /// launchers' own reads did; so do the "off" values of switches that are off.
    #[test]
    fn unparsable_values_leave_the_default() {
        let d = Tuning::default();
        for (name, value) in [
            ("SORT_RADIX_SHORT_ONESWEEP_MAX", "-1"),
            ("SORT_RADIX_PACKED_MIN", "2^23"),
            ("SORT_RADIX_PAIRS", "Through"),
            ("SORT_RADIX_HIST_BLOCKS_PER_SM", "0"),
            ("SORT_TOPK_HIST_BLOCKS_PER_SM", "0"),
            ("SORT_MERGEPATH_WIDTH", "wide"),
            ("SORT_MERGEPATH_REVERSE", "yes"),
            ("SORT_MERGEPATH_WIDE", ""),
            ("SORT_SM_SMEM_BYTES", "48K"),
            ("SORT_SYNC_LAUNCHES", "0"),
            ("SORT_FORCE_PTX", "0"),
            ("SORT_PDL", "1"),
            ("SORT_FILE_WRITE", "direct"),
            ("SORT_FILE_POPULATE_THREADS", "-2"),
            ("SORT_FILE_STAGE_BYTES", "0"),
            ("SORT_FILE_STAGES", "0"),
        ] {
            assert_eq!(from(&[(name, value)]), d, "{name}={value}");
        }
    }
}
