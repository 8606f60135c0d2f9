//! The kernels the library launches: the embedded PTX and cubins, which of them a
//! device loads ([`pick_cubin`], [`ModuleSource`]), and each entry looked up once by
//! name ([`Gpu::function`]).
use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};

use super::Gpu;
use crate::error::{DriverContext, Error, Result};
use crate::tuning::Tuning;

/// How the binary holds the kernels' PTX (a build holds one of the two).
#[allow(dead_code)]
enum EmbeddedPtx {
    /// The prebuilt PTX of `host/prebuilt/` as packed there (LZMA, 1.6 MB for 26 MB of
    /// text): it is only needed on GPUs that no embedded cubin fits.
    Lzma(&'static [u8]),
    /// PTX built from `kernels/` (a kernel experiment feature, or sources changed since
    /// `host/prebuilt/` was generated).
    Text(&'static str),
}

/// The PTX, put in OUT_DIR by `build.rs` (which checked the packed form's fingerprint).
const EMBEDDED_PTX: EmbeddedPtx = include!(concat!(env!("OUT_DIR"), "/ptx.rs"));

/// The kernels' PTX, embedded in the binary (unpacked on first use, about 0.1-0.3 s).
pub fn ptx() -> &'static str {
    static UNPACKED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    match EMBEDDED_PTX {
        EmbeddedPtx::Text(text) => text,
        EmbeddedPtx::Lzma(packed) => UNPACKED.get_or_init(|| {
            use std::io::Read;
            let mut text = String::new();
            lzma_rust2::LzmaReader::new_mem_limit(packed, u32::MAX, None)
                .and_then(|mut r| r.read_to_string(&mut text))
                .expect("the embedded PTX unpacks (build.rs checked its fingerprint)");
            text
        }),
    }
}

mod embedded {
    // `CUBINS`: the same kernels as machine code, `(major, minor, cubin)` per
    // architecture: the prebuilt ones, or those ptxas compiled in a from-source build
    // (none without ptxas, or with SORT_CUBINS=0).
    include!(concat!(env!("OUT_DIR"), "/cubins.rs"));
}
pub use embedded::{CUBINS, PDL_KERNELS};

/// The embedded cubin that runs on a GPU of compute capability `cc`: the newest one of
/// the same major version whose minor version is not above the GPU's (machine code is
/// compatible only within a major version). `None`: the PTX must be JIT-compiled.
pub fn pick_cubin<'a>(cc: (i32, i32), cubins: &[(u32, u32, &'a [u8])]) -> Option<(u32, u32, &'a [u8])> {
    cubins
        .iter()
        .filter(|&&(major, minor, _)| major as i32 == cc.0 && minor as i32 <= cc.1)
        .max_by_key(|&&(_, minor, _)| minor)
        .copied()
}

/// Which code [`Gpu::open`] loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleSource {
    /// Embedded machine code for `sm_<major><minor>`: no JIT compilation.
    Cubin(u32, u32),
    /// The embedded PTX, JIT-compiled by the driver (cached by it for later runs).
    Ptx,
    /// PTX from the file [`Tuning::ptx_file`] names (`SORT_PTX_FILE`).
    PtxFile(String),
}

impl std::fmt::Display for ModuleSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleSource::Cubin(major, minor) => write!(f, "embedded sm_{major}{minor} cubin"),
            ModuleSource::Ptx => f.write_str("embedded PTX (JIT-compiled by the driver)"),
            ModuleSource::PtxFile(path) => write!(f, "PTX from the file {path}"),
        }
    }
}

/// Loads the kernel module: PTX from [`Tuning::ptx_file`] (experiments comparing
/// kernel builds with one binary), else the embedded cubin for this GPU (no JIT wait),
/// else the embedded PTX. [`Tuning::force_ptx`] skips the cubins (to compare the
/// driver's JIT with the build-time ptxas).
pub(super) fn load_kernels(
    ctx: &Arc<CudaContext>,
    cc: (i32, i32),
    tuning: &Tuning,
) -> Result<(Arc<CudaModule>, ModuleSource)> {
    use cudarc::nvrtc::Ptx;
    let (code, source) = if let Some(path) = &tuning.ptx_file {
        let code = std::fs::read(path)
            .map_err(|e| Error::Io { context: format!("reading the PTX file {}", path.display()), source: e })?;
        // A cubin (an ELF file, as `ptxas` writes it) loads as it is: no JIT wait.
        let code = if code.starts_with(b"\x7fELF") {
            Ptx::from_binary(code)
        } else {
            Ptx::from_src(String::from_utf8_lossy(&code).into_owned())
        };
        (code, ModuleSource::PtxFile(path.display().to_string()))
    } else {
        match pick_cubin(cc, CUBINS).filter(|_| !tuning.force_ptx) {
            Some((major, minor, cubin)) => (Ptx::from_binary(cubin.to_vec()), ModuleSource::Cubin(major, minor)),
            None => (Ptx::from_src(ptx()), ModuleSource::Ptx),
        }
    };
    crate::trace::mark("gpu: module chosen");
    let module = ctx.load_module(code).call(match source {
        ModuleSource::Cubin(..) => "cuModuleLoadData (loading the kernels' cubin)",
        _ => "cuModuleLoadData (loading the kernels' PTX)",
    })?;
    crate::trace::mark("gpu: module loaded");
    Ok((module, source))
}

/// Whether a module loaded from `source` may launch kernels as programmatic
/// dependents: only the sm_90 cubin (built from `xtask::ptx::for_sm90`) has the
/// dependency waits; [`Tuning::pdl`] off turns dependent launches off (to measure them).
pub(super) fn dependent_launches(source: &ModuleSource, tuning: &Tuning) -> bool {
    matches!(source, ModuleSource::Cubin(major, _) if *major >= 9) && tuning.pdl
}

impl Gpu {
    /// Whether the kernels came from an embedded cubin or were JIT-compiled from PTX.
    pub fn module_source(&self) -> &ModuleSource {
        &self.source
    }

    /// Where the kernels came from and how they are launched, for the CLI's
    /// "kernels:" line.
    pub fn kernels_summary(&self) -> String {
        if self.dependent_launches {
            format!("{}; {} kernels launched as programmatic dependents", self.source, PDL_KERNELS.len())
        } else {
            self.source.to_string()
        }
    }

    /// The kernel entry point `name`, looked up once and cached.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        let mut map = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        Self::function_in(&self.module, &mut map, name).map(|(f, _)| f.clone())
    }

    pub(super) fn function_in<'m>(
        module: &Arc<CudaModule>,
        map: &'m mut HashMap<String, (CudaFunction, u32)>,
        name: &str,
    ) -> Result<&'m mut (CudaFunction, u32)> {
        if !map.contains_key(name) {
            let f = module.load_function(name).map_err(|source| Error::Launch { kernel: name.to_string(), source })?;
            map.insert(name.to_string(), (f, 0));
        }
        Ok(map.get_mut(name).expect("inserted above"))
    }
}

#[cfg(test)]
mod tests {
    use super::{PDL_KERNELS, pick_cubin, ptx};

    /// The dependent-launch list comes from the sm_90 cubin's PTX: sorted (the host
    /// binary-searches it), every name an entry of the embedded PTX, and the sorts
    /// whose launch gaps matter (radix, mergepath) in it whenever that cubin is
    /// embedded (the prebuilt kernels have it).
    #[test]
    fn dependent_launch_list_is_sorted_and_names_the_hot_kernels() {
        assert!(PDL_KERNELS.windows(2).all(|w| w[0] < w[1]));
        let entries = xtask::ptx::entry_points(ptx());
        for k in PDL_KERNELS {
            assert!(entries.iter().any(|e| e == k), "{k} is not an entry of the PTX");
        }
        if super::CUBINS.iter().any(|c| c.0 >= 9) {
            for k in ["radix_hist_k32", "radix_onesweep_packed_k32_v32", "radix_copy_back", "mergepath_merge_u32"] {
                assert!(PDL_KERNELS.binary_search(&k).is_ok(), "{k} missing from PDL_KERNELS");
            }
            // Kernels without the wait must never be launched early.
            assert!(PDL_KERNELS.binary_search(&"naive_merge_pass_u32").is_err());
            // The fused radix sorts are cooperative launches, never dependents.
            assert!(PDL_KERNELS.iter().all(|k| !k.starts_with("radix_fused")));
        }
    }

    #[test]
    fn cubins_match_by_major_version_and_not_newer_minor() {
        let (a, b, c): (&[u8], &[u8], &[u8]) = (b"80", b"86", b"90");
        let all = [(8, 0, a), (8, 6, b), (9, 0, c)];
        assert_eq!(pick_cubin((9, 0), &all).map(|x| x.2), Some(c));
        assert_eq!(pick_cubin((8, 9), &all).map(|x| x.2), Some(b));
        assert_eq!(pick_cubin((8, 0), &all).map(|x| x.2), Some(a));
        assert_eq!(pick_cubin((8, 0), &all[1..]), None);
        assert_eq!(pick_cubin((10, 0), &all), None);
        assert_eq!(pick_cubin((7, 5), &all), None);
        assert_eq!(pick_cubin((9, 0), &[]), None);
    }
}
