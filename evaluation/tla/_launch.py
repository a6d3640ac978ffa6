"""Last step before the JVM: mount the scratch tmpfs, set rlimits, exec the tool.

Run as a script (`python -I -S _launch.py ...`) inside `unshare --mount --net` so the mount and
the limits apply to the tool only, with no shell and no `preexec_fn` (unsafe with threads).
argv: CPU_SECONDS SCRATCH_DIR SCRATCH_MB MOUNT(0|1) -- COMMAND...
Exit 120 means the sandbox itself could not be set up.
"""

import ctypes
import os
import resource
import sys

MS_NOSUID, MS_NODEV = 2, 4
SETUP_FAILED = 120


def _mount_tmpfs(path, size_mb):
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={size_mb}m,mode=0700".encode()
    if libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        raise OSError(ctypes.get_errno(), "mount tmpfs on scratch failed")


def main(argv):
    cpu_seconds, scratch, scratch_mb, mount = argv[:4]
    command = argv[argv.index("--") + 1 :]
    try:
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
