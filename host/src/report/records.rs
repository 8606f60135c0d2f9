//! Results as records of named fields, written as CSV (one row per record) or JSON (an
//! object with metadata and an array of records). Numbers keep full precision here;
//! terminal tables round them.
use std::fmt::Write as _;

/// One field's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i128),
    /// Written as an empty CSV cell / JSON `null` when not finite.
    Num(f64),
    Bool(bool),
    /// Not applicable or not measured.
    Null,
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Num(x)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<usize> for Value {
    fn from(x: usize) -> Value {
        Value::Int(x as i128)
    }
}
impl From<u32> for Value {
    fn from(x: u32) -> Value {
        Value::Int(x as i128)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Null, Into::into)
    }
}

/// Named fields in a fixed order.
pub type Record = Vec<(&'static str, Value)>;

fn csv_cell(v: &Value) -> String {
    let s = match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Num(x) if x.is_finite() => x.to_string(),
        Value::Num(_) | Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
    };
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s }
}

/// CSV (RFC 4180 quoting) with a header taken from the first record's field names.
/// Every record must have the same fields.
pub fn to_csv(records: &[Record]) -> String {
    let mut out = String::new();
    if let Some(first) = records.first() {
        let header: Vec<&str> = first.iter().map(|(k, _)| *k).collect();
        out.push_str(&header.join(","));
        out.push('\n');
    }
    for r in records {
        let cells: Vec<String> = r.iter().map(|(_, v)| csv_cell(v)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_value(v: &Value, out: &mut String) {
    match v {
        Value::Str(s) => json_string(s, out),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // `{:?}` keeps a decimal point or exponent, so the number reads back as a float.
        Value::Num(x) if x.is_finite() => {
            let _ = write!(out, "{x:?}");
        }
        Value::Num(_) | Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
    }
}

fn json_object(fields: &[(&str, Value)], out: &mut String) {
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(k, out);
        out.push_str(": ");
        json_value(v, out);
    }
    out.push('}');
}

/// `{ <meta fields>, "<list_name>": [ <records> ] }`, one record per line.
pub fn to_json(meta: &[(&str, Value)], list_name: &str, records: &[Record]) -> String {
    let mut out = String::from("{\n");
    for (k, v) in meta {
        out.push_str("  ");
        json_string(k, &mut out);
        out.push_str(": ");
        json_value(v, &mut out);
        out.push_str(",\n");
    }
    out.push_str("  ");
    json_string(list_name, &mut out);
    out.push_str(": [\n");
    for (i, r) in records.iter().enumerate() {
        out.push_str("    ");
        json_object(r, &mut out);
        out.push_str(if i + 1 < records.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, ms: f64) -> Record {
        vec![("variant", name.into()), ("n", 1024usize.into()), ("ms", ms.into()), ("speedup", Value::Null)]
    }

    #[test]
    fn csv_quotes_and_blanks() {
        let csv = to_csv(&[rec("a,b", 1.5), rec("say \"hi\"", f64::NAN)]);
        assert_eq!(csv, "variant,n,ms,speedup\n\"a,b\",1024,1.5,\n\"say \"\"hi\"\"\",1024,,\n");
        assert_eq!(to_csv(&[]), "");
    }

    #[test]
    fn json_escapes_and_nulls() {
        let json =
            to_json(&[("device", "H100 \"SXM\"\n".into())], "results", &[rec("x\\y", 2.0), rec("z", f64::INFINITY)]);
        assert_eq!(
            json,
            "{\n  \"device\": \"H100 \\\"SXM\\\"\\n\",\n  \"results\": [\n    \
             {\"variant\": \"x\\\\y\", \"n\": 1024, \"ms\": 2.0, \"speedup\": null},\n    \
             {\"variant\": \"z\", \"n\": 1024, \"ms\": null, \"speedup\": null}\n  ]\n}\n"
        );
    }
}
