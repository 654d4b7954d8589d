//! The remote cache tier's options on the command line (shared by `kiln daemon` and
//! `kiln build --remote-cache`), each also read from the environment so an auto-started
//! daemon inherits them.

use kiln_cache::remote::Options;
use kiln_cache::remote::sign::SigningKey;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct RemoteOptionArgs {
    /// Deadline of one remote cache operation (lookup + download, or upload), in seconds;
    /// the first time-out switches the tier off for the build.
    #[arg(
        long,
        env = "KILN_REMOTE_TIMEOUT",
        value_name = "SECS",
        default_value_t = 5.0
    )]
    pub remote_timeout: f64,
    /// Upload computed entries to the remote cache (`--remote-upload=false`: read-only).
    #[arg(
        long,
        env = "KILN_REMOTE_UPLOAD",
        value_name = "BOOL",
        default_value_t = true,
        num_args = 0..=1,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub remote_upload: bool,
    /// File holding the key for signed remote entries (HMAC-SHA-256; `$KILN_REMOTE_HMAC_KEY`
    /// gives the key itself): uploads are signed, and entries whose signature does not
    /// verify are rejected and recomputed.
    #[arg(long, env = "KILN_REMOTE_HMAC_KEY_FILE", value_name = "FILE")]
    pub remote_hmac_key_file: Option<PathBuf>,
}

impl RemoteOptionArgs {
    /// The tier's options (the action-result cap is the process's `max_remote_body` limit).
    pub fn options(&self) -> Result<Options, String> {
        let defaults = Options::default();
        if !(self.remote_timeout.is_finite() && self.remote_timeout > 0.0) {
            return Err(format!(
                "--remote-timeout must be a positive number of seconds, not {}",
                self.remote_timeout
            ));
        }
        let deadline = Duration::from_secs_f64(self.remote_timeout.min(86_400.0));
        let key = match &self.remote_hmac_key_file {
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
        Ok(Options {
            connect_timeout: defaults.connect_timeout.min(deadline),
            first_byte_timeout: defaults.first_byte_timeout.min(deadline),
            deadline,
            upload: self.remote_upload,
            signing: key.map(|k| SigningKey::new(&k)),
            max_action_result: crate::input::limits().max_remote_body,
            ..defaults
        })
    }
}

impl Default for RemoteOptionArgs {
    fn default() -> RemoteOptionArgs {
        RemoteOptionArgs {
            remote_timeout: 5.0,
            remote_upload: true,
            remote_hmac_key_file: None,
        }
    }
}
