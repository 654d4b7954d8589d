//! The remote cache tier's settings as plain data ([`RemoteSettings`]), which any source
//! can fill (the client's flags and environment, a `[remote]` table of `kiln.toml`) and
//! [`RemoteSettings::over`] layers; [`RemoteSettings::options`] checks them into the tier's
//! [`Options`].
//!
//! Header values are credentials: [`RemoteSettings`]'s `Debug` shows header names only, and
//! no error quotes a value.

use kiln_cache::remote::sign::SigningKey;
use kiln_cache::remote::{Options, headers, tls};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Default deadline of one remote operation, in seconds.
pub(crate) const DEFAULT_TIMEOUT_SECS: f64 = 5.0;
/// Largest `--remote-ca` file read.
const MAX_CA_BYTES: u64 = 1 << 20;

/// The remote tier's settings, from any source; `None` (or no headers) says nothing.
#[derive(Clone, Default, PartialEq)]
pub struct RemoteSettings {
    /// `http[s]://…` or `grpc[s]://…`.
    pub url: Option<String>,
    /// Deadline of one operation, in seconds.
    pub timeout: Option<f64>,
    /// Upload computed entries.
    pub upload: Option<bool>,
    /// File holding the signing key.
    pub hmac_key_file: Option<PathBuf>,
    /// PEM file of the trusted certificate authorities (instead of the system's).
    pub ca: Option<PathBuf>,
    /// `NAME=VALUE` each, in order.
    pub headers: Vec<String>,
}

impl std::fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|h| header_name(h)).collect();
        f.debug_struct("RemoteSettings")
            .field("url", &self.url)
            .field("timeout", &self.timeout)
            .field("upload", &self.upload)
            .field("hmac_key_file", &self.hmac_key_file)
            .field("ca", &self.ca)
            .field("headers (names)", &names)
            .finish()
    }
}

fn header_name(spec: &str) -> &str {
    spec.split_once('=').map_or("", |(n, _)| n).trim()
}

impl RemoteSettings {
    /// These settings over `base` (e.g. the command line over `kiln.toml`): each field this
    /// one sets wins; headers are `base`'s, less the names this one sets, then this one's.
    pub fn over(self, base: RemoteSettings) -> RemoteSettings {
        let mut headers: Vec<String> = base
            .headers
            .into_iter()
            .filter(|b| {
                !self
                    .headers
                    .iter()
                    .any(|h| header_name(h).eq_ignore_ascii_case(header_name(b)))
            })
            .collect();
        headers.extend(self.headers);
        RemoteSettings {
            url: self.url.or(base.url),
            timeout: self.timeout.or(base.timeout),
            upload: self.upload.or(base.upload),
            hmac_key_file: self.hmac_key_file.or(base.hmac_key_file),
            ca: self.ca.or(base.ca),
            headers,
        }
    }

    /// The tier's URL, if one is given.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref().filter(|u| !u.is_empty())
    }

    /// The tier's options, checked: files read (bounded), headers parsed, the CA's
    /// certificates loaded (the action-result cap is the process's `max_remote_body` limit).
    pub fn options(&self) -> Result<Options, String> {
        let defaults = Options::default();
        let secs = self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
        if !(secs.is_finite() && secs > 0.0) {
            return Err(format!(
                "--remote-timeout must be a positive number of seconds, not {secs}"
            ));
        }
        let deadline = Duration::from_secs_f64(secs.min(86_400.0));
        let key = match &self.hmac_key_file {
            Some(path) => {
                let bytes = crate::input::read_bounded_file(path, 64 * 1024)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                Some(bytes.trim_ascii().to_vec())
            }
            None => std::env::var_os("KILN_REMOTE_HMAC_KEY")
                .filter(|k| !k.is_empty())
                .map(|k| k.as_encoded_bytes().to_vec()),
        };
        if key.as_ref().is_some_and(|k| k.len() < 16) {
            return Err("the remote cache signing key must be at least 16 bytes".into());
        }
        let ca_pem = match &self.ca {
            Some(path) => {
                let at = |e: String| format!("{}: {e}", path.display());
                let pem = crate::input::read_bounded_file(path, MAX_CA_BYTES)
                    .map_err(|e| at(e.to_string()))?;
                tls::roots(Some(&pem)).map_err(at)?;
                Some(Arc::<[u8]>::from(pem))
            }
            None => None,
        };
        let headers = headers::parse_all(self.headers.iter().map(String::as_str))?;
        Ok(Options {
            connect_timeout: defaults.connect_timeout.min(deadline),
            first_byte_timeout: defaults.first_byte_timeout.min(deadline),
            deadline,
            upload: self.upload.unwrap_or(true),
            signing: key.map(|k| SigningKey::new(&k)),
            max_action_result: crate::input::limits().max_remote_body,
            ca_pem,
            headers,
            ..defaults
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(headers: &[&str]) -> RemoteSettings {
        RemoteSettings {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            ..RemoteSettings::default()
        }
    }

    #[test]
    fn flags_override_the_config_field_by_field_and_header_by_name() {
        let config = RemoteSettings {
            url: Some("https://cache.example".into()),
            timeout: Some(9.0),
            upload: Some(false),
            ..settings(&["Authorization=Bearer old", "x-team=hw"])
        };
        let flags = RemoteSettings {
            timeout: Some(2.0),
            ..settings(&["authorization=Bearer new"])
        };
        let s = flags.over(config);
        assert_eq!(s.url(), Some("https://cache.example"));
        assert_eq!((s.timeout, s.upload), (Some(2.0), Some(false)));
        assert_eq!(s.headers, ["x-team=hw", "authorization=Bearer new"]);
        let o = s.options().unwrap();
        assert_eq!(o.headers["authorization"], "Bearer new");
        assert!(!o.upload);
    }

    #[test]
    fn debug_shows_header_names_only() {
        let s = settings(&["Authorization=Bearer s3cr3t"]);
        let shown = format!("{s:?} {:?}", s.options().unwrap());
        assert!(shown.contains("Authorization"), "{shown}");
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }

    #[test]
    fn a_ca_file_without_certificates_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let s = RemoteSettings {
            ca: Some(path.clone()),
            ..RemoteSettings::default()
        };
        let e = s.options().unwrap_err();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
    }
}
