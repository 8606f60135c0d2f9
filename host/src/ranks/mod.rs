//! One process per GPU: the sample sort of [`crate::MultiGpuSorter`] with each GPU
//! driven by its own process (on this host or on several), the way the sort goes past
//! one host.
//!
//! Each process is a *rank*, told who it is by the conventional environment
//! ([`RankConfig::from_env`]): `RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT` and
//! optionally `LOCAL_RANK` (which GPU of its host; default `RANK % GPUs`).
//! [`RankGroup::join`] meets the others over TCP ([`rendezvous`]: rank 0 hands out
//! NCCL's unique id) and creates this rank's NCCL communicator (`ncclCommInitRank`).
//!
//! [`RankGroup::sort_device`] then runs the sort-first pipeline with the one-process
//! sort's own pieces ([`crate::multi_gpu::plan`]'s splitter rule and counts, the
//! splitter kernels, the radix sort, the merge-path merge): each rank sorts its shard,
//! the samples are all-gathered (NCCL), every rank chooses the same splitters, the send
//! counts are all-gathered, the keys travel by grouped send/receive and each rank
//! merges what it holds. Rank `r` ends with the `r`-th range of the stable sort of the
//! concatenated shards (rank 0's first): the same keys, in the same ranges, as
//! `MultiGpuSorter` over as many GPUs with the same parts.
//!
//! Every wait on another rank is bounded by [`RankConfig::timeout`] (`SORT_RANKS_TIMEOUT`
//! seconds, default 60): a rank that never comes, dies or hangs is an
//! [`Error::Communication`] on the others, naming the step.
pub mod rendezvous;
mod sort;

use std::sync::Arc;
use std::time::Duration;

use cudarc::nccl::{Comm, Id};

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::multi_gpu::nccl;
use crate::tuning::Tuning;
pub use rendezvous::Control;
pub use sort::RankReport;

/// Default of [`RankConfig::timeout`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The environment variable of [`RankConfig::timeout`] (seconds, fractions allowed).
pub const TIMEOUT_VAR: &str = "SORT_RANKS_TIMEOUT";

/// Who this process is among the ranks and where they meet.
#[derive(Clone, Debug, PartialEq)]
pub struct RankConfig {
    /// This process's rank, `0..world`.
    pub rank: usize,
    /// Number of ranks (processes, one GPU each).
    pub world: usize,
    /// Rank 0's address for the rendezvous, `host:port`.
    pub master: String,
    /// Which GPU of this host (`None`: `rank % GPUs`).
    pub local_rank: Option<usize>,
    /// How long each step may wait for the other ranks.
    pub timeout: Duration,
}

impl RankConfig {
    /// From the process's environment (see [`RankConfig::from_vars`]).
    pub fn from_env() -> Result<RankConfig> {
        RankConfig::from_vars(|k| std::env::var(k).ok())
    }

    /// From variables looked up by `get`: `RANK` and `WORLD_SIZE` (required),
    /// `MASTER_ADDR` (default `127.0.0.1`), `MASTER_PORT` (default 29500),
    /// `LOCAL_RANK` and `SORT_RANKS_TIMEOUT` (optional).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<RankConfig> {
        let number = |k: &str| -> Result<Option<usize>> {
            get(k)
                .map(|v| {
                    v.trim().parse::<usize>().map_err(|_| Error::BadArgument(format!("{k}={v} is not a whole number")))
                })
                .transpose()
        };
        let missing = |k: &str| {
            Error::BadArgument(format!(
                "{k} is not set: each process of a sort over ranks needs RANK and WORLD_SIZE \
                 (and MASTER_ADDR, MASTER_PORT of rank 0; scripts/sort-ranks.sh sets them)"
            ))
        };
        let rank = number("RANK")?.ok_or_else(|| missing("RANK"))?;
        let world = number("WORLD_SIZE")?.ok_or_else(|| missing("WORLD_SIZE"))?;
        if world == 0 || rank >= world {
            return Err(Error::BadArgument(format!("RANK={rank} is not below WORLD_SIZE={world}")));
        }
        if world > u32::MAX as usize {
            return Err(Error::BadArgument(format!("WORLD_SIZE={world} is too large")));
        }
        let port = match number("MASTER_PORT")? {
            Some(p) if (1..=65535).contains(&p) => p,
            Some(p) => return Err(Error::BadArgument(format!("MASTER_PORT={p} is not a TCP port"))),
            None => 29500,
        };
        let host = get("MASTER_ADDR").map_or_else(|| "127.0.0.1".to_string(), |h| h.trim().to_string());
        // An IPv6 literal needs brackets before the port.
        let master = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let timeout = match get(TIMEOUT_VAR) {
            None => DEFAULT_TIMEOUT,
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| Error::BadArgument(format!("{TIMEOUT_VAR}={v} is not a positive number of seconds")))?,
        };
        Ok(RankConfig { rank, world, master, local_rank: number("LOCAL_RANK")?, timeout })
    }

    /// The GPU ordinal of this rank on a host with `gpus` GPUs.
    pub fn gpu_ordinal(&self, gpus: usize) -> Result<usize> {
        if gpus == 0 {
            return Err(Error::NoDevice(format!("rank {} finds no GPU on its host", self.rank)));
        }
        match self.local_rank {
            Some(l) if l >= gpus => {
                Err(Error::NoDevice(format!("rank {}: LOCAL_RANK={l} but its host has {gpus} GPUs", self.rank)))
            }
            Some(l) => Ok(l),
            None => Ok(self.rank % gpus),
        }
    }
}

/// The elements `start..end` of `n` that rank `rank` of `world` holds before a sort:
/// consecutive equal shares, the remainder spread one each (the one-process sort's
/// split, [`crate::MultiGpuSorter::scatter`]).
pub fn shard(n: u64, rank: usize, world: usize) -> std::ops::Range<u64> {
    let at = |r: usize| (n as u128 * r as u128 / world as u128) as u64;
    at(rank)..at(rank + 1)
}

/// Where each rank's range of the sorted result starts, from what each holds
/// (`held[r]`), and the total: rank `r` writes at element `offsets[r]`.
pub fn output_offsets(held: &[u64]) -> (Vec<u64>, u64) {
    let mut at = 0u64;
    let offsets = held
        .iter()
        .map(|&h| {
            let o = at;
            at += h;
            o
        })
        .collect();
    (offsets, at)
}

/// The NCCL communicator of this rank; used from the thread that created the group,
/// one call at a time.
struct RankComm(Comm);

// SAFETY: the communicator is created on a helper thread (to bound its wait) and then
// only used by the group's owner, never from two threads at once.
unsafe impl Send for RankComm {}

/// This process's place among the ranks: its GPU, its NCCL communicator and the
/// control channel to the other ranks (see the module docs).
pub struct RankGroup {
    gpu: Arc<Gpu>,
    comm: Option<RankComm>,
    control: Control,
    samples: u64,
    /// Test hook: the step at which this process kills itself (`SORT_RANKS_TEST_DIE`).
    die_at: Option<String>,
}

impl RankGroup {
    /// Opens this rank's GPU, meets the other ranks and creates the communicator.
    pub fn join(cfg: &RankConfig, tuning: Tuning) -> Result<RankGroup> {
        let gpus = crate::MultiGpuSorter::device_count()?;
        let gpu = Arc::new(Gpu::open_tuned(cfg.gpu_ordinal(gpus)?, tuning)?);
        let die_at = std::env::var("SORT_RANKS_TEST_DIE").ok().and_then(|v| {
            let (r, step) = v.split_once(':')?;
            (r.parse::<usize>().ok()? == cfg.rank).then(|| step.to_string())
        });
        if cfg.world == 1 {
            let control = Control::alone(cfg.timeout);
            return Ok(RankGroup { gpu, comm: None, control, samples: crate::multi_gpu::SAMPLES_PER_GPU, die_at });
        }
        if !nccl::library_present() {
            return Err(nccl::missing_library());
        }
        let (control, id) = if cfg.rank == 0 {
            let id = Id::new().map_err(|e| Error::Communication(format!("ncclGetUniqueId: {e:?}")))?;
            let bytes: Vec<u8> = id.internal().iter().map(|&c| c as u8).collect();
            (Control::listen(&cfg.master, cfg.world, cfg.timeout, &bytes)?, id)
        } else {
            let (control, bytes) = Control::connect(&cfg.master, cfg.rank, cfg.world, cfg.timeout)?;
            let internal: [std::ffi::c_char; 128] =
                bytes.iter().map(|&b| b as std::ffi::c_char).collect::<Vec<_>>().try_into().map_err(|_| {
                    Error::Communication(format!("rank {}: rank 0 sent an id of {} bytes", cfg.rank, bytes.len()))
                })?;
            (control, Id::uninit(internal))
        };
        let comm = init_comm(&gpu, cfg, id)?;
        let mut group =
            RankGroup { gpu, comm: Some(comm), control, samples: crate::multi_gpu::SAMPLES_PER_GPU, die_at };
        // NCCL connects each pair of ranks at their first exchange (~0.2 to 1 s
        // measured); done here, a sort's timings are the sort's.
        if let Err(e) = group.connect() {
            group.abort();
            return Err(e);
        }
        Ok(group)
    }

    /// This rank's GPU (shared: buffers on it outlive a borrow of the group).
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.control.rank()
    }

    /// Number of ranks.
    pub fn world(&self) -> usize {
        self.control.world()
    }

    /// The control channel (small messages between the ranks, barriers).
    pub fn control(&mut self) -> &mut Control {
        &mut self.control
    }

    /// Samples per rank for the splitters (default
    /// [`crate::multi_gpu::SAMPLES_PER_GPU`], as the one-process sort; at least 1).
    pub fn set_samples_per_rank(&mut self, samples: u64) {
        self.samples = samples.max(1);
    }

    /// Test hook: ends the process abruptly (SIGKILL, no clean-up) when
    /// `SORT_RANKS_TEST_DIE=RANK:STEP` names this rank and `step`.
    #[doc(hidden)]
    pub fn test_die_at(&self, step: &str) {
        if self.die_at.as_deref() == Some(step) {
            eprintln!("rank {}: killed at `{step}` (SORT_RANKS_TEST_DIE)", self.rank());
            // SAFETY: sends a signal to this process.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    }

    /// Drops the communicator after a failed collective: aborting it stops NCCL's
    /// kernels that still wait for a peer. The group cannot sort again.
    fn abort(&mut self) {
        self.release_comm();
    }

    /// Aborts the communicator (cudarc's drop is `ncclCommAbort`) on a helper thread,
    /// waiting at most [`ABORT_WAIT`]: with a peer that died, the abort may wait for it
    /// in NCCL, and a failing process must still end.
    fn release_comm(&mut self) {
        let Some(c) = self.comm.take() else { return };
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("nccl-abort".into()).spawn(move || {
            // cudarc panics if the abort itself fails; there is nothing left to save.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(c)));
            let _ = tx.send(());
        });
        if spawned.is_ok() {
            let _ = rx.recv_timeout(ABORT_WAIT);
        }
    }
}

/// How long dropping a group waits for NCCL's abort (see [`RankGroup::release_comm`]).
const ABORT_WAIT: Duration = Duration::from_secs(5);

impl Drop for RankGroup {
    fn drop(&mut self) {
        self.release_comm();
    }
}

/// `ncclCommInitRank` on a helper thread, waited for at most the timeout: it blocks
/// until every rank has called it, and a rank may die between the rendezvous and here.
fn init_comm(gpu: &Gpu, cfg: &RankConfig, id: Id) -> Result<RankComm> {
    let stream = gpu.stream().clone();
    let (rank, world) = (cfg.rank, cfg.world);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("nccl-init-{rank}"))
        .spawn(move || {
            let made = stream
                .context()
                .bind_to_thread()
                .map_err(|e| Error::Communication(format!("rank {rank}: binding the GPU: {e}")))
                .and_then(|()| {
                    Comm::from_rank(stream, rank, world, id)
                        .map(RankComm)
                        .map_err(|e| Error::Communication(format!("rank {rank} of {world}: ncclCommInitRank: {e:?}")))
                });
            let _ = tx.send(made);
        })
        .map_err(|e| Error::Communication(format!("rank {rank}: starting a thread: {e}")))?;
    match rx.recv_timeout(cfg.timeout) {
        Ok(made) => made,
        // The thread stays blocked in NCCL; the process is about to fail anyway.
        Err(_) => Err(Error::Communication(format!(
            "rank {rank} of {world}: ncclCommInitRank did not finish within {:?} (a rank missing after the rendezvous)",
            cfg.timeout
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(vars: &[(&str, &str)]) -> Result<RankConfig> {
        RankConfig::from_vars(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn config_from_the_conventional_variables() {
        let c = cfg(&[("RANK", "2"), ("WORLD_SIZE", "4"), ("MASTER_ADDR", "node7"), ("MASTER_PORT", "1234")]).unwrap();
        assert_eq!(
            c,
            RankConfig { rank: 2, world: 4, master: "node7:1234".into(), local_rank: None, timeout: DEFAULT_TIMEOUT }
        );
        assert_eq!(c.gpu_ordinal(4).unwrap(), 2);
        assert_eq!(c.gpu_ordinal(2).unwrap(), 0);
        assert!(matches!(c.gpu_ordinal(0), Err(Error::NoDevice(_))));
        let c = cfg(&[("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "3"), (TIMEOUT_VAR, "2.5")]).unwrap();
        assert_eq!(c.master, "127.0.0.1:29500");
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!(c.gpu_ordinal(4).unwrap(), 3);
        assert!(matches!(c.gpu_ordinal(3), Err(Error::NoDevice(m)) if m.contains("LOCAL_RANK=3")));
        let c = cfg(&[("RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "::1")]).unwrap();
        assert_eq!(c.master, "[::1]:29500");
    }

    #[test]
    fn bad_configs_are_errors_naming_the_variable() {
        let bad = |vars: &[(&str, &str)], want: &str| match cfg(vars) {
            Err(Error::BadArgument(m)) => assert!(m.contains(want), "{m}"),
            other => panic!("{vars:?}: {other:?}"),
        };
        bad(&[("WORLD_SIZE", "2")], "RANK is not set");
        bad(&[("RANK", "0")], "WORLD_SIZE is not set");
        bad(&[("RANK", "2"), ("WORLD_SIZE", "2")], "not below WORLD_SIZE");
        bad(&[("RANK", "0"), ("WORLD_SIZE", "0")], "not below WORLD_SIZE");
        bad(&[("RANK", "x"), ("WORLD_SIZE", "2")], "RANK=x");
        bad(&[("RANK", "0"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "70000")], "MASTER_PORT=70000");
        bad(&[("RANK", "0"), ("WORLD_SIZE", "2"), (TIMEOUT_VAR, "0")], TIMEOUT_VAR);
        bad(&[("RANK", "0"), ("WORLD_SIZE", "2"), (TIMEOUT_VAR, "-1")], TIMEOUT_VAR);
    }

    /// Shards tile `0..n` in rank order, differ by at most one element, and are the
    /// one-process sort's split (`g * n / p`), also where `n * world` passes 2^64.
    #[test]
    fn shards_tile_the_input() {
        for n in [0u64, 1, 2, 3, 7, 1000, 1 << 20, u64::MAX / 3, u64::MAX] {
            for world in 1..=9usize {
                let mut next = 0;
                let (mut lo, mut hi) = (u64::MAX, 0);
                for r in 0..world {
                    let s = shard(n, r, world);
                    assert_eq!(s.start, next, "n={n} world={world} rank={r}");
                    next = s.end;
                    lo = lo.min(s.end - s.start);
                    hi = hi.max(s.end - s.start);
                    if n < 1 << 32 {
                        assert_eq!(s.start, n * r as u64 / world as u64);
                    }
                }
                assert_eq!(next, n);
                assert!(hi - lo <= 1, "n={n} world={world}: {lo}..{hi}");
            }
        }
    }

    #[test]
    fn output_offsets_are_the_prefix_sums() {
        assert_eq!(output_offsets(&[]), (vec![], 0));
        assert_eq!(output_offsets(&[5, 0, 3, 2]), (vec![0, 5, 5, 8], 10));
    }
}
