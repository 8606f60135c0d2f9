//! Writes `host/prebuilt/` from a fresh kernel build, and compares the two (the format
//! is [`crate::prebuilt`]'s).
use std::io::Write;
use std::path::Path;

use crate::prebuilt::{self, Manifest, Packed};
use crate::ptx::Built;

/// The ptxas version (`V12.9.86`) the prebuilt cubins are built with: the
/// `nvidia-cuda-nvcc-cu12` version that xtask/ptxas-requirements.txt pins and `.ci/run`
/// installs.
pub fn pinned_ptxas_version() -> Result<String, String> {
    const REQUIREMENTS: &str = include_str!("../ptxas-requirements.txt");
    REQUIREMENTS
        .lines()
        .find_map(|l| l.trim().strip_prefix("nvidia-cuda-nvcc-cu12=="))
        .map(|v| format!("V{}", v.trim()))
        .ok_or_else(|| "xtask/ptxas-requirements.txt pins no nvidia-cuda-nvcc-cu12 version".into())
}

/// Compresses `data` for `host/prebuilt/`: LZMA at preset 9, its dictionary no larger
/// than the data (the decoder allocates what the header names). About 10 s for the
/// 20 MB PTX.
pub fn compress(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut opts = lzma_rust2::LzmaOptions::with_preset(9);
    let fits = data.len().max(4096).next_power_of_two().min(u32::MAX as usize) as u32;
    opts.dict_size = opts.dict_size.min(fits);
    let mut writer = lzma_rust2::LzmaWriter::new_use_header(Vec::new(), &opts, Some(data.len() as u64))
        .map_err(|e| format!("starting the compression: {e}"))?;
    writer.write_all(data).map_err(|e| format!("compressing: {e}"))?;
    writer.finish().map_err(|e| format!("compressing: {e}"))
}

/// The prebuilt kernels of a fresh build: their manifest, and the uncompressed content
/// of each of `manifest.files` (in the same order).
pub struct Fresh {
    pub manifest: Manifest,
    pub contents: Vec<Vec<u8>>,
}

/// The prebuilt kernels that `built` (a build of the sources in `workspace` with ptxas
/// `ptxas_version`) makes.
pub fn fresh(workspace: &Path, built: &Built, ptxas_version: &str) -> Result<Fresh, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("reading {}: {e}", p.display()));
    let mut files = vec![("kernels.ptx".to_string(), None, read(&built.ptx)?)];
    let mut cubins: Vec<_> = built.cubins.iter().collect();
    cubins.sort_by_key(|c| c.arch);
    for c in cubins {
        let (major, minor) = c.arch;
        files.push((format!("kernels.sm_{major}{minor}.cubin"), Some(c.arch), read(&c.path)?));
    }
    let manifest = Manifest {
        ptxas: ptxas_version.to_string(),
        files: files.iter().map(|(name, arch, data)| Packed::of(name, *arch, data)).collect(),
        pdl: built.pdl.clone(),
        sources: prebuilt::sources(workspace)?,
    };
    Ok(Fresh { manifest, contents: files.into_iter().map(|f| f.2).collect() })
}

/// How the prebuilt kernels in `dir` differ from `fresh`, one line per difference:
/// empty when they are up to date. Each committed file is also decompressed and
/// checked against its manifest line.
pub fn differences(dir: &Path, fresh: &Fresh) -> Vec<String> {
    let committed = match Manifest::read(dir) {
        Ok(m) => m,
        Err(e) => return vec![e],
    };
    let (old, new) = (&committed, &fresh.manifest);
    let mut out = Vec::new();
    if old.ptxas != new.ptxas {
        out.push(format!("cubins built by ptxas {}, this build used {}", old.ptxas, new.ptxas));
    }
    for file in &new.files {
        match old.files.iter().find(|f| f.name == file.name) {
            None => out.push(format!("{} is missing", file.file_name())),
            Some(f) if f != file => out.push(format!("{} differs from a fresh build", file.file_name())),
            Some(f) => {
                if let Err(e) = prebuilt::unpack(dir, f) {
                    out.push(e);
                }
            }
        }
    }
    for file in old.files.iter().filter(|f| !new.files.iter().any(|n| n.name == f.name)) {
        out.push(format!("{} is no longer built", file.file_name()));
    }
    if old.pdl != new.pdl {
        out.push("the dependent-launch entries differ".into());
    }
    for source in prebuilt::changed_sources(&old.sources, &new.sources) {
        out.push(format!("source changed: {source}"));
    }
    out
}

/// Writes `fresh` into `dir`, one line per file in the returned report. A file is
/// compressed and rewritten only when its content changed: compressed files do not
/// delta in git, so each rewrite adds its whole size to the repository's history.
pub fn write(dir: &Path, fresh: &Fresh) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let committed = Manifest::read(dir).ok();
    let unchanged = |file: &Packed| {
        committed.as_ref().is_some_and(|m| m.files.contains(file)) && prebuilt::unpack(dir, file).is_ok()
    };
    let jobs: Vec<(&Packed, &Vec<u8>)> =
        fresh.manifest.files.iter().zip(&fresh.contents).filter(|(file, _)| !unchanged(file)).collect();
    // One thread per file: the PTX and each cubin take seconds each.
    let packed: Vec<Result<Vec<u8>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs.iter().map(|(_, data)| s.spawn(|| compress(data))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a compression thread panicked".into()))).collect()
    });
    let mut report = Vec::new();
    for ((file, _), bytes) in jobs.iter().zip(packed) {
        let bytes = bytes?;
        let path = dir.join(file.file_name());
        std::fs::write(&path, &bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
        report.push(format!("wrote {} ({} bytes from {})", path.display(), bytes.len(), file.len));
    }
    for file in committed.iter().flat_map(|m| &m.files) {
        if !fresh.manifest.files.iter().any(|f| f.name == file.name) {
            let path = dir.join(file.file_name());
            std::fs::remove_file(&path).map_err(|e| format!("removing {}: {e}", path.display()))?;
            report.push(format!("removed {}", path.display()));
        }
    }
    if jobs.len() < fresh.manifest.files.len() {
        let total = fresh.manifest.files.len();
        report.push(format!("{} of {total} compressed files unchanged", total - jobs.len()));
    }
    let text = fresh.manifest.render();
    let path = dir.join(prebuilt::MANIFEST);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        report.push(format!("wrote {}", path.display()));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Fresh {
        let contents = vec![b".version 7.0\n".repeat(1000), vec![0x7f, b'E', b'L', b'F', 1, 2, 3]];
        let manifest = Manifest {
            ptxas: "V12.9.86".into(),
            files: vec![
                Packed::of("kernels.ptx", None, &contents[0]),
                Packed::of("k.sm_90.cubin", Some((9, 0)), &contents[1]),
            ],
            pdl: vec!["radix_hist_k32".into()],
            sources: vec![("kernels/src/lib.rs".into(), 1)],
        };
        Fresh { manifest, contents }
    }

    #[test]
    fn written_files_unpack_to_their_content_and_match_the_build() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = sample();
        let report = write(dir.path(), &fresh).unwrap();
        assert_eq!(report.len(), 3, "{report:?}");
        assert_eq!(Manifest::read(dir.path()).unwrap(), fresh.manifest);
        for (file, content) in fresh.manifest.files.iter().zip(&fresh.contents) {
            assert_eq!(&prebuilt::unpack(dir.path(), file).unwrap(), content);
        }
        assert_eq!(differences(dir.path(), &fresh), Vec::<String>::new());
        // A second write of the same build rewrites nothing.
        assert_eq!(write(dir.path(), &fresh).unwrap(), ["2 of 2 compressed files unchanged"]);
    }

    #[test]
    fn differences_name_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = sample();
        write(dir.path(), &fresh).unwrap();
        let mut changed = sample();
        changed.contents[1].push(0);
        changed.manifest.files[1] = Packed::of("k.sm_90.cubin", Some((9, 0)), &changed.contents[1]);
        changed.manifest.ptxas = "V12.8.93".into();
        changed.manifest.sources[0].1 = 2;
        let diff = differences(dir.path(), &changed);
        assert_eq!(diff.len(), 3, "{diff:?}");
        assert!(diff[0].contains("V12.9.86") && diff[1].contains("k.sm_90.cubin") && diff[2].contains("lib.rs"));
        // Rewriting recompresses only the changed file.
        let report = write(dir.path(), &changed).unwrap();
        assert!(
            report[0].contains("k.sm_90.cubin.lzma") && report[1] == "1 of 2 compressed files unchanged",
            "{report:?}"
        );
    }

    #[test]
    fn a_corrupt_file_is_reported_not_unpacked() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = sample();
        write(dir.path(), &fresh).unwrap();
        let ptx = &fresh.manifest.files[0];
        let packed = compress(b".version 7.1\n").unwrap();
        std::fs::write(dir.path().join(ptx.file_name()), packed).unwrap();
        let err = prebuilt::unpack(dir.path(), ptx).unwrap_err();
        assert!(err.contains("does not hold what kernels.manifest records"), "{err}");
        assert_eq!(differences(dir.path(), &fresh), [err]);
        std::fs::write(dir.path().join(ptx.file_name()), b"not lzma").unwrap();
        assert!(prebuilt::unpack(dir.path(), ptx).unwrap_err().contains("decompressing"));
    }
}
