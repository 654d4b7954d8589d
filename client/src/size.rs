//! Sizes in bytes as people write them: `1048576`, `512K`, `1M`, `1.5G`, `2GiB`, `64 KB`.
//!
//! Units are binary (K = 1024 bytes, as `du`, `sort -S` and the kernel count), with or
//! without `B`/`iB`, in either case. Sizes are printed the same way ([`show`]: `1.5 GiB`).

/// The number of bytes `text` means.
pub fn parse(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (number, unit) = (t[..split].replace('_', ""), t[split..].trim());
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit `{unit}` (use K, M, G or T)"
            ));
        }
    };
    let bad = || format!("`{text}` is not a size (e.g. 1048576, 512K, 1M, 1.5G)");
    if let Ok(n) = number.parse::<u64>() {
        return n
            .checked_mul(1 << shift)
            .ok_or_else(|| format!("`{text}` is too large"));
    }
    let x: f64 = number.parse().map_err(|_| bad())?;
    let bytes = x * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large"));
    }
    Ok(bytes.round() as u64)
}

/// `bytes` for people: `512 B`, `12.3 KiB`, `1.5 GiB`.
pub fn show(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ if value >= 100.0 => format!("{value:.0} {}", UNITS[unit]),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_people_write() {
        for (t, v) in [
            ("1048576", 1 << 20),
            ("1M", 1 << 20),
            ("512K", 512 << 10),
            ("512k", 512 << 10),
            ("2GiB", 2 << 30),
            ("64 KB", 64 << 10),
            ("1.5G", 3 << 29),
            ("1_000", 1000),
            ("0", 0),
            ("7b", 7),
        ] {
            assert_eq!(parse(t), Ok(v), "{t}");
        }
        for t in ["", "M", "12Q", "1.2.3K", "-1K", "99999999999T", "inf"] {
            assert!(parse(t).is_err(), "{t}");
        }
    }

    #[test]
    fn shows_and_reads_back() {
        assert_eq!(show(512), "512 B");
        assert_eq!(show(1 << 20), "1.0 MiB");
        assert_eq!(show(3 << 29), "1.5 GiB");
        assert_eq!(show(200 << 20), "200 MiB");
        for b in [1u64 << 20, 3 << 29, 512 << 10] {
            assert_eq!(parse(&show(b)), Ok(b));
        }
    }
}
