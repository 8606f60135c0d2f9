//! The subcommands beyond `run` and `list`, one module each; `main.rs` only dispatches.
pub mod args;
pub mod bench;
pub mod files;
pub mod multi;
pub mod pairs;
pub mod records;
pub mod segments;
pub mod topk;

use host::Variant;

/// Variant names, or `all`.
pub fn parse_variants(names: &[String]) -> host::Result<Vec<Variant>> {
    let mut out = Vec::new();
    for name in names {
        if name == "all" {
            out.extend_from_slice(Variant::ALL);
        } else {
            out.push(name.parse()?);
        }
    }
    let mut seen = Vec::new();
    out.retain(|v| {
        !seen.contains(v) && {
            seen.push(*v);
            true
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_lists() {
        let all = parse_variants(&["all".into()]).unwrap();
        assert_eq!(all, Variant::ALL);
        let naive = Variant::Naive.name().to_string();
        assert_eq!(parse_variants(&[naive.clone(), "all".into()]).unwrap()[0], Variant::Naive);
        assert_eq!(parse_variants(&[naive.clone(), naive]).unwrap(), [Variant::Naive]);
        assert!(parse_variants(&["nope".into()]).is_err());
    }
}
