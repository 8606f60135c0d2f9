//! The prebuilt kernels in `host/prebuilt/`: the baseline PTX and the cubins of
//! `ptx::CUBIN_ARCHS`, each compressed, and `kernels.manifest`, which records their
//! sizes and fingerprints, the sm_90 cubin's dependent-launch entries, the ptxas that
//! built the cubins, and a fingerprint of every source they were built from.
//!
//! `cargo xtask build-ptx` writes them; host's build script unpacks them into OUT_DIR,
//! so that users of `host` need neither the nightly toolchain nor ptxas. The build
//! script, xtask and xtask's tests all compile this one file (xtask through `#[path]`:
//! the build script cannot depend on xtask), so they agree on the format.
use std::io::Read;
use std::path::{Path, PathBuf};

/// The prebuilt kernels' folder, relative to `host/`.
pub const DIR: &str = "prebuilt";
/// The manifest's file name in [`DIR`].
pub const MANIFEST: &str = "kernels.manifest";
/// What [`DIR`] holds for a file `name`: `name` + this, in the `.lzma` format (LZMA with
/// a 13-byte header; `xz --format=lzma -dc` reads it too). Chosen over zstd for ~20%
/// smaller files at the same decoding speed; see docs/BUILD.md.
pub const COMPRESSED_SUFFIX: &str = ".lzma";

/// Inputs of the kernel build, relative to the workspace: the kernels crate, the
/// toolchain that compiles it, and the builder that post-processes its PTX. A change to
/// any of them makes the prebuilt kernels stale.
const SOURCE_FILES: &[&str] = &["kernels/Cargo.toml", "rust-toolchain.toml", "host/build/ptx.rs"];
/// Folders whose every file is an input (recursively).
const SOURCE_DIRS: &[&str] = &["kernels/src"];

/// One compressed file of [`DIR`]: the PTX (`arch` `None`) or the cubin for
/// `sm_<major><minor>`, with the size and [`fingerprint`] of its uncompressed content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    pub name: String,
    pub arch: Option<(u32, u32)>,
    pub len: u64,
    pub hash: u64,
}

impl Packed {
    /// Describes `data`, to be stored as `name`.
    pub fn of(name: &str, arch: Option<(u32, u32)>, data: &[u8]) -> Packed {
        Packed { name: name.to_string(), arch, len: data.len() as u64, hash: fingerprint(data) }
    }

    /// Its compressed file's name in [`DIR`].
    pub fn file_name(&self) -> String {
        format!("{}{COMPRESSED_SUFFIX}", self.name)
    }
}

/// The contents of [`MANIFEST`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// `ptxas --version`'s version (`V12.9.86`) that compiled the cubins.
    pub ptxas: String,
    pub files: Vec<Packed>,
    /// Entries of the sm_90 cubin launched as programmatic dependents (sorted).
    pub pdl: Vec<String>,
    /// `(path relative to the workspace, fingerprint)` of each input, sorted by path.
    pub sources: Vec<(String, u64)>,
}

const HEADER: &str = "\
# The prebuilt kernels of `host` in this folder: written by `cargo xtask build-ptx`, checked
# against a fresh build by `cargo xtask build-ptx --check`. Do not edit: regenerate.
# Lines: ptxas VERSION | ptx FILE LEN FINGERPRINT | cubin sm_XY FILE LEN FINGERPRINT |
# pdl ENTRY | source PATH FINGERPRINT (FILE uncompressed; FINGERPRINT: 64-bit FNV-1a).
";

impl Manifest {
    /// Reads `<dir>/kernels.manifest`.
    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        Manifest::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Manifest, String> {
        let mut m = Manifest::default();
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let bad = || format!("line {}: cannot read {line:?}", i + 1);
            let file = |name: &str, arch, len: &str, hash: &str| -> Result<Packed, String> {
                let len = len.parse().map_err(|_| bad())?;
                let hash = u64::from_str_radix(hash, 16).map_err(|_| bad())?;
                Ok(Packed { name: name.to_string(), arch, len, hash })
            };
            match words.as_slice() {
                [] => {}
                [first, ..] if first.starts_with('#') => {}
                ["ptxas", version] => m.ptxas = version.to_string(),
                ["ptx", name, len, hash] => m.files.push(file(name, None, len, hash)?),
                ["cubin", arch, name, len, hash] => {
                    let arch = parse_arch(arch).ok_or_else(bad)?;
                    m.files.push(file(name, Some(arch), len, hash)?)
                }
                ["pdl", entry] => m.pdl.push(entry.to_string()),
                ["source", path, hash] => {
                    m.sources.push((path.to_string(), u64::from_str_radix(hash, 16).map_err(|_| bad())?))
                }
                _ => return Err(bad()),
            }
        }
        if !m.files.iter().any(|f| f.arch.is_none()) {
            return Err("no `ptx` line".into());
        }
        Ok(m)
    }

    pub fn render(&self) -> String {
        let mut out = String::from(HEADER);
        out.push_str(&format!("ptxas {}\n", self.ptxas));
        for f in &self.files {
            match f.arch {
                None => out.push_str(&format!("ptx {} {} {:016x}\n", f.name, f.len, f.hash)),
                Some((major, minor)) => {
                    out.push_str(&format!("cubin sm_{major}{minor} {} {} {:016x}\n", f.name, f.len, f.hash))
                }
            }
        }
        for entry in &self.pdl {
            out.push_str(&format!("pdl {entry}\n"));
        }
        for (path, hash) in &self.sources {
            out.push_str(&format!("source {path} {hash:016x}\n"));
        }
        out
    }

    /// The PTX's entry.
    pub fn ptx(&self) -> &Packed {
        self.files.iter().find(|f| f.arch.is_none()).expect("Manifest::parse requires a ptx line")
    }

    pub fn cubins(&self) -> impl Iterator<Item = &Packed> {
        self.files.iter().filter(|f| f.arch.is_some())
    }
}

/// `sm_90` -> `(9, 0)`: the last digit is the minor version.
fn parse_arch(arch: &str) -> Option<(u32, u32)> {
    let digits = arch.strip_prefix("sm_")?;
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The uncompressed content of `file` from `dir`, checked against its size and
/// fingerprint (the `.lzma` format has no checksum of its own).
pub fn unpack(dir: &Path, file: &Packed) -> Result<Vec<u8>, String> {
    let path = dir.join(file.file_name());
    let packed = std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut data = Vec::with_capacity(file.len as usize);
    lzma_rust2::LzmaReader::new_mem_limit(packed.as_slice(), u32::MAX, None)
        .and_then(|mut r| r.read_to_end(&mut data))
        .map_err(|e| format!("decompressing {}: {e}", path.display()))?;
    if data.len() as u64 != file.len || fingerprint(&data) != file.hash {
        return Err(format!(
            "{} does not hold what {MANIFEST} records ({} bytes, fingerprint {:016x}): run `cargo xtask build-ptx`",
            path.display(),
            file.len,
            file.hash
        ));
    }
    Ok(data)
}

/// The workspace this `host/` folder sits in, when it is this repository's (the kernels'
/// sources and xtask beside it), so that the prebuilt kernels can be checked against the
/// sources; `None` for a copy of the package alone (a registry or vendored crate).
pub fn workspace_of(host_dir: &Path) -> Option<PathBuf> {
    let ws = host_dir.parent()?;
    let ours = ["kernels/src/lib.rs", "xtask/Cargo.toml", "rust-toolchain.toml"].iter().all(|p| ws.join(p).is_file());
    ours.then(|| ws.to_path_buf())
}

/// Paths (relative to `workspace`, `/`-separated) of the kernel build's inputs, sorted.
pub fn source_paths(workspace: &Path) -> Result<Vec<String>, String> {
    let mut paths: Vec<String> = SOURCE_FILES.iter().map(|p| p.to_string()).collect();
    for dir in SOURCE_DIRS {
        list_files(workspace, dir, &mut paths)?;
    }
    paths.sort();
    Ok(paths)
}

fn list_files(workspace: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
    let dir = workspace.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("listing {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("listing {}: {e}", dir.display()))?;
        let name = entry.file_name().into_string().map_err(|n| format!("a file name that is not UTF-8: {n:?}"))?;
        let path = format!("{rel}/{name}");
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            list_files(workspace, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// `(path, fingerprint)` of each input of the kernel build, as [`Manifest::sources`] records them.
pub fn sources(workspace: &Path) -> Result<Vec<(String, u64)>, String> {
    source_paths(workspace)?
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(workspace.join(&p)).map_err(|e| format!("reading {p}: {e}"))?;
            Ok((p, fingerprint(&bytes)))
        })
        .collect()
}

/// The inputs that differ between `recorded` and `current` (both sorted by path):
/// changed, new or removed files. Empty when the prebuilt kernels are up to date.
pub fn changed_sources(recorded: &[(String, u64)], current: &[(String, u64)]) -> Vec<String> {
    let mut changed = Vec::new();
    for (path, hash) in current {
        match recorded.iter().find(|r| &r.0 == path) {
            Some(r) if r.1 == *hash => {}
            Some(_) => changed.push(path.clone()),
            None => changed.push(format!("{path} (new)")),
        }
    }
    for (path, _) in recorded {
        if !current.iter().any(|c| &c.0 == path) {
            changed.push(format!("{path} (removed)"));
        }
    }
    changed
}

/// 64-bit FNV-1a: a dependency-free fingerprint for change detection (not against
/// tampering: the files come from the same repository as this code).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_matches_the_reference_values() {
        assert_eq!(fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn manifest_round_trips_through_its_text() {
        let m = Manifest {
            ptxas: "V12.9.86".into(),
            files: vec![
                Packed::of("kernels.ptx", None, b"ptx"),
                Packed::of("kernels.sm_80.cubin", Some((8, 0)), b"80"),
                Packed::of("kernels.sm_120.cubin", Some((12, 0)), b"120"),
            ],
            pdl: vec!["a".into(), "b".into()],
            sources: vec![("kernels/src/lib.rs".into(), 7), ("rust-toolchain.toml".into(), u64::MAX)],
        };
        let text = m.render();
        assert_eq!(Manifest::parse(&text).unwrap(), m);
        assert_eq!(m.ptx().name, "kernels.ptx");
        assert_eq!(m.cubins().map(|c| c.arch.unwrap()).collect::<Vec<_>>(), [(8, 0), (12, 0)]);
    }

    #[test]
    fn manifest_rejects_what_it_cannot_read() {
        let ptx = "ptx kernels.ptx 3 00000000000000ff\n";
        assert!(Manifest::parse(ptx).is_ok());
        assert!(Manifest::parse("ptxas V1\n").unwrap_err().contains("no `ptx` line"));
        for bad in ["cubin sm_9 k.cubin 1 ff", "cubin 90 k.cubin 1 ff", "ptx k.ptx x ff", "source a zz", "pdl", "other"]
        {
            let err = Manifest::parse(&format!("{ptx}{bad}\n")).unwrap_err();
            assert!(err.starts_with("line 2:"), "{bad}: {err}");
        }
    }

    #[test]
    fn changed_sources_names_changed_new_and_removed_files() {
        let recorded = vec![("a".to_string(), 1), ("b".to_string(), 2), ("c".to_string(), 3)];
        assert!(changed_sources(&recorded, &recorded).is_empty());
        let current = vec![("a".to_string(), 1), ("b".to_string(), 5), ("d".to_string(), 4)];
        assert_eq!(changed_sources(&recorded, &current), ["b", "d (new)", "c (removed)"]);
    }
}
