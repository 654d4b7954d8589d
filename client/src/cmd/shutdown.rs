//! `kiln shutdown`: stop the workspace's daemon and wait until it has exited.

use crate::daemon_client::{self, fail};
use crate::io::Failure;
use std::time::Duration;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln shutdown                the next build starts a fresh daemon")]
pub struct Args {}

pub fn run(_args: Args) -> Result<(), Failure> {
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    rt.block_on(async {
        let Some(mut client) = c.connect_existing().await else {
            outln!("kiln daemon: not running");
            return Ok(());
        };
        let _ = client.shutdown().await;
        c.wait_until_gone(Duration::from_secs(30))
            .await
            .map_err(fail)?;
        outln!("kiln daemon: stopped");
        Ok(())
    })
}
