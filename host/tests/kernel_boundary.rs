//! The host-kernel boundary: every entry the host can launch ([`kernels::KERNELS`])
//! is an entry of the embedded PTX whose parameters are its struct's fields (same
//! offsets and sizes), and every entry of the PTX can be launched that way. Needs no
//! GPU: it reads the PTX text.
use std::collections::BTreeMap;

use xtask::ptx::{Param, entry_params, param_offsets};

/// Entries compiled but never launched: the ABI probe of `kernels::params`.
const NOT_LAUNCHED: &[&str] = &["params_abi_probe"];

fn ptx_entries() -> BTreeMap<String, Vec<Param>> {
    entry_params(host::testing::device::ptx()).expect("the embedded PTX parses").into_iter().collect()
}

#[test]
fn every_launchable_kernel_matches_its_ptx_entry() {
    let ptx = ptx_entries();
    let mut seen = std::collections::BTreeSet::new();
    for layout in kernels::KERNELS.iter().flat_map(|family| family.iter()) {
        assert!(seen.insert(layout.name), "{} is listed twice", layout.name);
        let params = ptx.get(layout.name).unwrap_or_else(|| panic!("{} is not an entry of the PTX", layout.name));
        let (offsets, end) = param_offsets(params);
        let want: Vec<(usize, usize)> = layout.fields.iter().map(|f| (f.offset, f.size)).collect();
        let got: Vec<(usize, usize)> = offsets.iter().zip(params).map(|(&o, p)| (o, p.size)).collect();
        assert_eq!(got, want, "{}: PTX parameters (offset, size) against the fields {:?}", layout.name, layout.fields);
        let struct_end = layout.fields.last().map_or(0, |f| f.offset + f.size);
        assert_eq!(end, struct_end, "{}", layout.name);
    }
    assert!(seen.len() >= 7, "only {} kernels listed", seen.len());
}

#[test]
fn every_ptx_entry_can_be_launched_typed() {
    let listed: std::collections::BTreeSet<&str> =
        kernels::KERNELS.iter().flat_map(|family| family.iter()).map(|l| l.name).collect();
    let missing: Vec<String> = ptx_entries()
        .into_keys()
        .filter(|name| !listed.contains(name.as_str()))
        .filter(|name| !NOT_LAUNCHED.contains(&name.as_str()))
        .collect();
    assert!(missing.is_empty(), "PTX entries without a typed handle in kernels::KERNELS: {missing:?}");
}

/// rustc passes a struct by value to a `ptx-kernel` as one byte array, and loads
/// through its pointers are then generic, not global: why the entries take the
/// fields one by one (`kernels::params`). If this changes, entries could take their
/// structs directly.
#[test]
fn a_struct_by_value_is_one_byte_array_with_generic_loads() {
    let params = &ptx_entries()["params_abi_probe"];
    assert_eq!(params, &[Param { align: 8, size: size_of::<kernels::params::AbiProbe>() }]);
    let body: String = host::testing::device::ptx()
        .split(".visible .entry params_abi_probe(")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the probe's body")
        .to_string();
    assert!(body.contains("ld.b32"), "the probe's load is no longer generic:\n{body}");
    assert!(!body.contains("ld.global"), "the probe's load is now global:\n{body}");
}
