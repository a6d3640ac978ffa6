"""A 3-node ZooKeeper ensemble of Debian's unmodified `zookeeper` package on loopback addresses.

Each node is its own JVM (`QuorumPeerMain`) with its own data dir and its own address
`127.0.<subnet>.<id>` (client 2181, quorum 2888, election 3888 on that address). Every node logs
through one log4j 1.2 config of ours into one shared file opened in append mode: every log
event is a single write(2), so the file's line order is the order the nodes wrote them, and a
send is always logged before its receipt (FastLeaderElection logs a notification before it
queues it, and the receiver logs it before handing it on).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from harnesses.zookeeper.logparse import KILLED

JARS = ("zookeeper.jar", "log4j-1.2.jar", "slf4j-log4j12.jar")
JAVA_DIR = Path("/usr/share/java")
MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
CLIENT_MAIN = "org.apache.zookeeper.ZooKeeperMain"
NODES = (1, 2, 3)

# FastLeaderElection at DEBUG logs every notification sent and every vote it adds; QuorumPeer
# logs every state change. Everything else stays at WARN.
LOG4J = """\
log4j.rootLogger=WARN, F
log4j.logger.org.apache.zookeeper.server.quorum.FastLeaderElection=DEBUG
log4j.logger.org.apache.zookeeper.server.quorum.QuorumPeer=DEBUG
log4j.appender.F=org.apache.log4j.FileAppender
log4j.appender.F.File=${zkh.log}
log4j.appender.F.Append=true
log4j.appender.F.ImmediateFlush=true
log4j.appender.F.layout=org.apache.log4j.PatternLayout
log4j.appender.F.layout.ConversionPattern=%d{ISO8601} ${zkh.node} [%t] %p %c{1} - %m%n
"""


class MissingZooKeeper(RuntimeError):
    pass


def classpath() -> str:
    paths = [JAVA_DIR / jar for jar in JARS]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise MissingZooKeeper(
            f"Debian's zookeeper package is not installed (missing {', '.join(missing)}); "
            "run: apt-get install zookeeper"
        )
    return ":".join(str(p) for p in paths)


class Ensemble:
    def __init__(self, workdir: Path, subnet: int = 77, tick_ms: int = 200):
        self.workdir = Path(workdir)
        self.subnet = subnet
        self.tick_ms = tick_ms
        self.log = self.workdir / "ensemble.log"
        self.procs: dict[int, subprocess.Popen] = {}
        self.cp = classpath()
        (self.workdir / "log4j.properties").write_text(LOG4J)
        for node in NODES:
            self._configure(node)

    def host(self, node: int) -> str:
        return f"127.0.{self.subnet}.{node}"

    def _configure(self, node: int) -> None:
        data = self.workdir / f"s{node}" / "data"
        data.mkdir(parents=True, exist_ok=True)
        (data / "myid").write_text(f"{node}\n")
        servers = "".join(f"server.{n}={self.host(n)}:2888:3888\n" for n in NODES)
        (self.workdir / f"s{node}" / "zoo.cfg").write_text(
            f"tickTime={self.tick_ms}\ninitLimit=10\nsyncLimit=5\n"
            f"dataDir={data}\nclientPort=2181\nclientPortAddress={self.host(node)}\n"
            "admin.enableServer=false\nautopurge.purgeInterval=0\n" + servers
        )

    def start(self, node: int) -> None:
        argv = [
            "java",
            "-Xmx96m",
            "-XX:+UseSerialGC",
            "-Duser.timezone=UTC",
            f"-Dzkh.log={self.log}",
            f"-Dzkh.node=s{node}",
            f"-Dlog4j.configuration=file:{self.workdir / 'log4j.properties'}",
            "-cp",
            self.cp,
            MAIN,
            str(self.workdir / f"s{node}" / "zoo.cfg"),
        ]
        out = open(self.workdir / f"s{node}" / "stdout.txt", "ab")  # noqa: SIM115
        self.procs[node] = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        out.close()

    def kill(self, node: int) -> None:
        """SIGKILL: the node dies without a goodbye, as a crash would."""
        proc = self.procs.pop(node, None)
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S,000", time.gmtime())
        with open(self.log, "a") as log:
            log.write(f"{stamp} s{node} [harness] INFO Harness - {KILLED}\n")

    def stop_all(self) -> None:
        for node in list(self.procs):
            self.kill(node)

    def running(self) -> set[int]:
        return set(self.procs)

    def write(self, node: int, path: str, timeout: float = 30) -> None:
        """One client session that creates `path` on `node` (session, create and close are
        three transactions, so every live node's zxid moves on)."""
        argv = [
            "java",
            "-Xmx64m",
            "-Dzookeeper.root.logger=WARN",
            f"-Dlog4j.configuration=file:{self.workdir / 'log4j.properties'}",
            f"-Dzkh.log={self.workdir / 'client.log'}",
            "-Dzkh.node=client",
            "-cp",
            self.cp,
            CLIENT_MAIN,
            "-server",
            f"{self.host(node)}:2181",
            "create",
            path,
            "x",
        ]
        subprocess.run(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=True,
            start_new_session=True,
        )

    def lines(self) -> list[str]:
        if not self.log.exists():
            return []
        return self.log.read_text(errors="replace").splitlines()

    def roles(self, since: int = 0) -> dict[int, str]:
        """Each node's latest peer state ("looking", "following", "leading") logged at or after
        line `since`."""
        roles: dict[int, str] = {}
        for line in self.lines()[since:]:
            if "Peer state changed: " in line:
                node = int(line.split(" ", 3)[2][1:])
                roles[node] = line.rsplit("Peer state changed: ", 1)[1].split()[0]
            elif "DEBUG QuorumPeer - Starting quorum peer" in line:
                roles[int(line.split(" ", 3)[2][1:])] = "looking"
        return roles

    def wait_stable(self, nodes: set[int], since: int = 0, timeout: float = 30) -> int:
        """Wait until `nodes` have, since log line `since`, settled on one leader with the rest
        following; return the leader."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            roles = self.roles(since)
            leaders = [n for n in nodes if roles.get(n) == "leading"]
            followers = [n for n in nodes if roles.get(n) == "following"]
            if len(leaders) == 1 and len(followers) == len(nodes) - 1:
                return leaders[0]
            time.sleep(0.1)
        raise TimeoutError(f"no stable leader among {sorted(nodes)}: {self.roles()}")

    def wait_role(self, node: int, role: str, since: int = 0, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.roles(since).get(node) == role:
                return
            time.sleep(0.1)
        raise TimeoutError(f"s{node} is not {role}: {self.roles(since)}")
