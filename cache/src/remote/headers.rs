//! Request headers for the remote tier (`--remote-header NAME=VALUE`, like Bazel's
//! `--remote_header`): sent on every HTTP request and as gRPC metadata. Values are
//! credentials (API keys, bearer tokens): they are marked sensitive, so `Debug` prints
//! `Sensitive` and HTTP/2 never indexes them, and no error message quotes one.

use hyper::HeaderMap;
use hyper::header::{HeaderName, HeaderValue};

/// Headers the HTTP and gRPC clients set themselves.
const RESERVED: [&str; 9] = [
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "user-agent",
];

/// One `NAME=VALUE` header. Errors name the header, never its value.
pub fn parse(spec: &str) -> Result<(HeaderName, HeaderValue), String> {
    let Some((name, value)) = spec.split_once('=') else {
        return Err("a remote header must be NAME=VALUE".into());
    };
    let name = name.trim();
    let key = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("remote header `{name}`: not a valid header name"))?;
    if RESERVED.contains(&key.as_str()) || key.as_str().starts_with("grpc-") {
        return Err(format!(
            "remote header `{name}`: set by kiln's HTTP/gRPC client, not settable"
        ));
    }
    // Printable ASCII only: valid both as an HTTP header and as gRPC ASCII metadata.
    let value = value.trim();
    let bad = || format!("remote header `{name}`: the value must be printable ASCII on one line");
    if !value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
    {
        return Err(bad());
    }
    let mut value = HeaderValue::from_str(value).map_err(|_| bad())?;
    value.set_sensitive(true);
    Ok((key, value))
}

/// Headers from `NAME=VALUE` specs, in order; a repeated name carries every value.
pub fn parse_all<'a>(specs: impl IntoIterator<Item = &'a str>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for spec in specs {
        let (k, v) = parse(spec)?;
        map.append(k, v);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_and_hide_their_values() {
        let map = parse_all(["Authorization=Bearer s3cr3t", "x-api-key = k=v"]).unwrap();
        assert_eq!(map["authorization"], "Bearer s3cr3t");
        assert_eq!(map["x-api-key"], "k=v");
        assert!(!format!("{map:?}").contains("s3cr3t"));
    }

    #[test]
    fn bad_headers_are_refused_without_quoting_the_value() {
        for (spec, names) in [
            ("Authorization: Bearer s3cr3t", "NAME=VALUE"),
            ("bad name=s3cr3t", "`bad name`"),
            ("x-key=s3cr3t\u{7f}", "`x-key`"),
            ("x-key=s3cr3t\u{e9}", "`x-key`"),
            ("Host=s3cr3t", "`Host`"),
            ("grpc-timeout=s3cr3t", "`grpc-timeout`"),
        ] {
            let e = parse(spec).unwrap_err();
            assert!(e.contains(names), "{e}");
            assert!(!e.contains("s3cr3t"), "{e}");
        }
    }
}
