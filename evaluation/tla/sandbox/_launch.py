"""Last step before the JVM: mount the scratch tmpfs, set rlimits, exec the tool.

Run as a script (`python -I -S _launch.py ...`) inside `unshare --mount --net` so the mount and
the limits apply to the tool only, with no shell and no `preexec_fn` (unsafe with threads).
argv: CPU_SECONDS SCRATCH_DIR SCRATCH_MB MOUNT(0|1) PARENT_PID -- COMMAND...
Exit 120 means the sandbox itself could not be set up.

The tool gets a parent-death signal (prctl PR_SET_PDEATHSIG, SIGKILL): it survives the exec, so
the JVM is killed by the kernel as soon as the scoring process dies, however it dies (SIGKILL of
an rq work-horse skips every `finally`). `unshare` (no --fork) and this script both exec, so the
JVM's parent is the scoring process itself. Linux ties the signal to the parent *thread*; the
sandbox waits for the tool in the thread that started it, so that thread outlives the tool.
PARENT_PID closes the race where the parent died before prctl: then the launcher exits at once.
"""

import ctypes
import os
import resource
import sys

MS_NOSUID, MS_NODEV = 2, 4
SETUP_FAILED = 120
PR_SET_PDEATHSIG = 1
SIGKILL = 9


def _die_with_parent(parent_pid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:
        raise OSError(0, "the scoring process died before the tool started")


def _mount_tmpfs(path: str, size_mb: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={size_mb}m,mode=0700".encode()
    if libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        raise OSError(ctypes.get_errno(), "mount tmpfs on scratch failed")


def main(argv: list[str]) -> None:
    cpu_seconds, scratch, scratch_mb, mount, parent_pid = argv[:5]
    command = argv[argv.index("--") + 1 :]
    try:
        _die_with_parent(int(parent_pid))
        if mount == "1":
            _mount_tmpfs(scratch, int(scratch_mb))
        for sub in ("tmp", "home", "meta"):
            os.makedirs(os.path.join(scratch, sub), exist_ok=True)
        cpu = int(cpu_seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"sandbox setup failed: {exc}\n")
        sys.exit(SETUP_FAILED)


if __name__ == "__main__":
    main(sys.argv[1:])
