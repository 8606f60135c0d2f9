//! How much host memory and temporary disk space a file sort may use, and allocation
//! that reports a refusal as [`Error::HostOutOfMemory`] instead of aborting.
//!
//! The default memory budget is half of the room the process has: the smallest of the
//! machine's available memory (`MemAvailable`), what its cgroup allows beyond its use
//! (v1 and v2), and what `RLIMIT_AS` and `RLIMIT_DATA` leave beyond the address space
//! and data already in use. Half, because thread stacks, allocator arenas, mapped
//! files and the sort's own bookkeeping take room besides the big buffers.
use std::path::Path;

use crate::error::{Bytes, Error, Result};

/// The smallest budget the sort plans with, whatever the machine says (a few pieces
/// of a few MiB each still make progress).
pub const MIN_BUDGET: u64 = 4 << 20;

/// Disk space left free on the temporary file system when the default temporary
/// space is worked out: at least this, or 1% of the file system.
const DISK_RESERVE: u64 = 256 << 20;

/// Where the room of [`memory_room`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Available,
    Cgroup,
    AddressSpace,
    Data,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limit::Available => "available memory",
            Limit::Cgroup => "the cgroup's memory limit",
            Limit::AddressSpace => "RLIMIT_AS",
            Limit::Data => "RLIMIT_DATA",
        })
    }
}

/// Bytes of memory this process can still get, and which limit says so.
pub fn memory_room() -> (u64, Limit) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let used = |field: &str| kib_field(&status, field).unwrap_or(0);
    let mut room = (meminfo_available().unwrap_or(u64::MAX), Limit::Available);
    let mut consider = |r: Option<u64>, l: Limit| {
        if let Some(r) = r
            && r < room.0
        {
            room = (r, l);
        }
    };
    consider(cgroup_room(), Limit::Cgroup);
    let address_space = |l: u64| l.saturating_sub(used("VmSize:")).saturating_sub(threads_reserve());
    consider(rlimit(libc::RLIMIT_AS).map(address_space), Limit::AddressSpace);
    consider(rlimit(libc::RLIMIT_DATA).map(|l| l.saturating_sub(used("VmData:"))), Limit::Data);
    room
}

/// Address space that threads reserve once they start, which an address-space limit
/// counts: a stack of 2 MiB (Rust's default) for each worker of the sorting threads
/// (one per CPU) and a few more, and one 64 MiB allocator arena beside the main heap
/// ([`fit_allocator_to_limits`] keeps two). Taken off the room under `RLIMIT_AS`,
/// whatever has started already: on a 32-CPU machine a CPU sort under a 400 MiB limit
/// ran out of memory without it (2026-11-29), where on 2 CPUs it did not.
fn threads_reserve() -> u64 {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    (cpus + 4) * (2 << 20) + (64 << 20)
}

/// The default host memory budget: half of [`memory_room`], at least [`MIN_BUDGET`].
pub fn default_memory_budget() -> u64 {
    (memory_room().0 / 2).max(MIN_BUDGET)
}

/// Where the address space or the data segment is limited (`ulimit -v`, `-d`), lets
/// the C allocator keep at most two arenas: each arena of a thread reserves 64 MiB of
/// address space, which the limit counts, and the sorting threads would otherwise
/// take a third of a 1 GiB limit that way. Call before threads start; does nothing
/// without such a limit (or outside glibc). For programs, as it changes the process.
#[cfg(feature = "cli")]
pub fn fit_allocator_to_limits() {
    #[cfg(target_env = "gnu")]
    if rlimit(libc::RLIMIT_AS).is_some() || rlimit(libc::RLIMIT_DATA).is_some() {
        // SAFETY: sets an allocator parameter; no memory is touched.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 2) };
    }
}

/// A `kB` field of `/proc/self/status` or `/proc/meminfo`, in bytes.
fn kib_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

fn meminfo_available() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemAvailable:")
}

fn rlimit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit fills the struct we pass.
    if unsafe { libc::getrlimit(resource, &mut l) } != 0 || l.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(l.rlim_cur)
}

/// What the process's memory cgroup (and its ancestors) allow beyond their use.
fn cgroup_room() -> Option<u64> {
    let read = |p: &Path| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    let mut best: Option<u64> = None;
    let mut take = |limit: Option<u64>, usage: Option<u64>| {
        if let Some(limit) = limit {
            let r = limit.saturating_sub(usage.unwrap_or(0));
            best = Some(best.map_or(r, |b| b.min(r)));
        }
    };
    for line in std::fs::read_to_string("/proc/self/cgroup").ok()?.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (root, limit, usage) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current") // v2 ("max": no limit)
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        // The group and every ancestor up to the root (a namespaced view may show
        // only the root).
        let mut dir = Path::new(root).join(path.trim_start_matches('/'));
        loop {
            take(read(&dir.join(limit)), read(&dir.join(usage)));
            if dir == Path::new(root) || !dir.pop() {
                break;
            }
        }
    }
    // v1 reports "no limit" as a huge number.
    best.filter(|&b| b < 1 << 60)
}

/// Bytes free for this process on the file system of `dir`.
pub fn free_disk(dir: &Path) -> Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| Error::BadArgument(format!("{} has a NUL byte", dir.display())))?;
    // SAFETY: statvfs fills the zeroed struct; the path is NUL-terminated.
    let st = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut st) != 0 {
            return Err(Error::Io {
                context: format!("cannot use the temporary directory {}", dir.display()),
                source: std::io::Error::last_os_error(),
            });
        }
        st
    };
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The host memory budget asked for (`None`: [`default_memory_budget`]), refusing a
/// budget of zero.
pub fn host_memory(asked: Option<u64>) -> Result<u64> {
    if asked == Some(0) {
        return Err(Error::BadArgument("the host memory budget must be positive".into()));
    }
    Ok(asked.unwrap_or_else(default_memory_budget))
}

/// Refuses a file of `bytes` (`None`: more than a `u64` counts) that `dir`'s free
/// space cannot take, before anything is written: `what` names the content ("1000
/// u128 keys").
pub fn ensure_disk_room(dir: &Path, bytes: Option<u64>, what: &str) -> Result<()> {
    let free = free_disk(dir)?;
    if bytes.is_none_or(|b| b > free) {
        return Err(Error::TooLarge(format!(
            "{what} take {} and only {} are free in {}",
            bytes.map_or("more than 16 EiB".to_string(), |b| Bytes(b).to_string()),
            Bytes(free),
            dir.display()
        )));
    }
    Ok(())
}

/// The default temporary space in `dir`: its free space less a reserve (256 MiB or
/// 1% of the file system, whichever is more), so that a sort that runs out stops
/// before the disk is full for everyone else.
pub fn default_temp_space(dir: &Path) -> Result<u64> {
    let free = free_disk(dir)?;
    Ok(free.saturating_sub(DISK_RESERVE.max(free / 100)))
}

/// A vector of `n` zeroed elements, or [`Error::HostOutOfMemory`] if the allocator
/// refuses (zeroed pages come from the kernel lazily: nothing is written here).
pub fn zeroed_vec<T: bytemuck::Zeroable>(n: usize) -> Result<Vec<T>> {
    bytemuck::allocation::try_zeroed_vec(n).map_err(|()| refused(n, size_of::<T>()))
}

/// An empty vector with room for `n` elements, or [`Error::HostOutOfMemory`].
pub fn with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused(n, size_of::<T>()))?;
    Ok(v)
}

/// Checks that `bytes` more could be allocated now (a library call that allocates
/// with `Vec::with_capacity` would abort the process instead of failing): reserves
/// and frees them.
pub fn probe(bytes: u64) -> Result<()> {
    with_capacity::<u8>(usize::try_from(bytes).unwrap_or(usize::MAX)).map(drop)
}

fn refused(n: usize, size: usize) -> Error {
    let needed = (n as u64).saturating_mul(size as u64);
    Error::HostOutOfMemory { needed, available: memory_room().0 }
}

/// The message of [`Error::TooLarge`] for an input that passed the budgets.
pub fn too_large(what: &str, read: u64, memory: u64, temp: Option<(u64, &Path)>) -> Error {
    let temp = match temp {
        Some((bytes, dir)) => {
            format!(" and {} of temporary space in {} (--max-temp-bytes, --temp-dir)", Bytes(bytes), dir.display())
        }
        None => String::new(),
    };
    Error::TooLarge(format!(
        "{what} is larger than this sort may hold: {} read so far, with a host memory budget of {} (--memory){temp}",
        Bytes(read),
        Bytes(memory)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_is_positive_and_the_fields_parse() {
        let (room, _) = memory_room();
        assert!(room > 0);
        assert!(default_memory_budget() >= MIN_BUDGET);
        assert_eq!(kib_field("VmSize:\t  1024 kB\nVmData: 8 kB\n", "VmData:"), Some(8192));
        assert_eq!(kib_field("MemAvailable: x kB", "MemAvailable:"), None);
        assert!(free_disk(&std::env::temp_dir()).unwrap() > 0);
        assert!(free_disk(Path::new("/no/such/dir")).is_err());
    }

    #[test]
    fn refused_allocations_are_errors() {
        assert!(matches!(zeroed_vec::<u64>(usize::MAX / 4), Err(Error::HostOutOfMemory { .. })));
        assert!(matches!(with_capacity::<u32>(usize::MAX / 2), Err(Error::HostOutOfMemory { .. })));
        assert!(matches!(probe(u64::MAX), Err(Error::HostOutOfMemory { .. })));
        assert_eq!(zeroed_vec::<u32>(3).unwrap(), [0, 0, 0]);
    }
}
