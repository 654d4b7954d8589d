//! Buck2's local persistent-worker protocol: gRPC service `worker.Worker` on the Unix
//! socket named by `$WORKER_SOCKET`.
//!
//! `Execute` runs one command. `Exec` reads a stream whose first event is the command; a
//! later `cancel` event (or the stream breaking) stops it as a [`Flight`]: answered at once
//! with a cancelled response when its build has not started writing (it then writes
//! nothing), else once its writes are done, so that nothing is written after the answer.
//! Commands' argv are an action's arguments, relative to the worker's cwd (the project
//! root Buck2 runs it in).

use super::flight::{Flight, Stop, Stopped};
use super::pb::buck2::worker_server::{Worker, WorkerServer};
use super::pb::buck2::{ExecuteCommand, ExecuteEvent, ExecuteResponse, execute_event};
use super::{DaemonPolicy, Outcome};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status, Streaming};

/// Exit code reported for a cancelled command.
pub const CANCELLED_EXIT_CODE: i32 = 130;

struct Service {
    cwd: PathBuf,
    policy: DaemonPolicy,
}

impl Service {
    /// Run the command on a plain thread (the build may block on its own runtime); the
    /// receiver gets its outcome, or `None` when `flight` was stopped before any write.
    fn start(
        &self,
        cmd: ExecuteCommand,
        flight: Arc<Flight>,
    ) -> oneshot::Receiver<Option<Outcome>> {
        let (tx, rx) = oneshot::channel();
        let args: Vec<String> = cmd
            .argv
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let (cwd, policy) = (self.cwd.clone(), self.policy);
        std::thread::spawn(move || {
            let outcome = super::run_expanding(&args, &cwd, policy, &flight);
            if policy.log_requests {
                // Buck2 keeps the worker's stderr in `<tmp>/buck2_worker/<id>/stderr`.
                let exit = outcome
                    .as_ref()
                    .map_or("cancelled".into(), |o| o.exit_code.to_string());
                eprintln!(
                    "kiln worker: buck2 command: exit {exit}: {}",
                    args.join(" ")
                );
            }
            let _ = tx.send(outcome);
        });
        rx
    }
}

/// Stop `flight`; once nothing more will be written, the cancelled response.
async fn stop(
    flight: &Flight,
    done: oneshot::Receiver<Option<Outcome>>,
) -> Result<Response<ExecuteResponse>, Status> {
    if flight.stop(Stop::Cancelled) != Stopped::Now {
        // Writing (or done): the answer waits for the build to return.
        let _ = done.await;
    }
    Ok(cancelled())
}

fn response(o: Outcome) -> Response<ExecuteResponse> {
    Response::new(ExecuteResponse {
        exit_code: o.exit_code,
        stderr: o.output,
        timed_out_after_s: None,
    })
}

fn cancelled() -> Response<ExecuteResponse> {
    response(Outcome {
        exit_code: CANCELLED_EXIT_CODE,
        output: "kiln: request cancelled\n".into(),
    })
}

#[tonic::async_trait]
impl Worker for Service {
    async fn execute(
        &self,
        request: Request<ExecuteCommand>,
    ) -> Result<Response<ExecuteResponse>, Status> {
        let flight = Arc::new(Flight::default());
        let outcome = self
            .start(request.into_inner(), flight)
            .await
            .ok()
            .flatten()
            .ok_or_else(|| Status::internal("build thread died"))?;
        Ok(response(outcome))
    }

    async fn exec(
        &self,
        request: Request<Streaming<ExecuteEvent>>,
    ) -> Result<Response<ExecuteResponse>, Status> {
        let mut events = request.into_inner();
        let first = events
            .next()
            .await
            .ok_or_else(|| Status::invalid_argument("empty event stream"))??;
        let cmd = match first.data {
            Some(execute_event::Data::Command(c)) => c,
            Some(execute_event::Data::Cancel(_)) => return Ok(cancelled()),
            None => return Err(Status::invalid_argument("event without data")),
        };
        let flight = Arc::new(Flight::default());
        let mut done = self.start(cmd, flight.clone());
        let answer = |o: Result<Option<Outcome>, _>| {
            o.ok()
                .flatten()
                .map(response)
                .ok_or_else(|| Status::internal("build thread died"))
        };
        tokio::select! {
            outcome = &mut done => answer(outcome),
            event = events.next() => match event {
                Some(Ok(ExecuteEvent { data: Some(execute_event::Data::Command(_)) })) => {
                    let _ = stop(&flight, done).await;
                    Err(Status::invalid_argument("second command on one stream"))
                }
                Some(Ok(ExecuteEvent { data: Some(execute_event::Data::Cancel(_)) }))
                | Some(Err(_)) => stop(&flight, done).await,
                // The client half-closed its side: wait for the result.
                None | Some(Ok(ExecuteEvent { data: None })) => answer(done.await),
            },
        }
    }
}

/// Serve on `$WORKER_SOCKET` until killed.
pub fn serve(policy: DaemonPolicy) -> Result<(), String> {
    let socket = std::env::var_os("WORKER_SOCKET")
        .map(PathBuf::from)
        .ok_or("WORKER_SOCKET is not set")?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let _ = std::fs::remove_file(&socket);
        let listener = tokio::net::UnixListener::bind(&socket)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener);
        tonic::transport::Server::builder()
            .add_service(WorkerServer::new(Service { cwd, policy }))
            .serve_with_incoming(incoming)
            .await
            .map_err(|e| e.to_string())
    })
}
