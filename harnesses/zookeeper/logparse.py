"""The ensemble's shared log -> election events in the benchmark's NDJSON envelope.

Every event is `{"event", "step", "node": "s<id>", "subnode", "data": {...}, "state": {...}}`:
the benchmark's schema (INSTRUMENTATION.md of its ZooKeeper harness) plus `state`, the node's
election state right after the event, which the benchmark's replayer did not record and an outside
observer can rebuild. `subnode` is 0 for the node's QuorumPeer thread, 1 for its WorkerReceiver.

How the log is read. FastLeaderElection at DEBUG logs, on the QuorumPeer thread, every vote it
sends ("Sending Notification"), every proposal change ("Updating proposal"), every comparison
("id: .., proposed id: ..") and every vote it adds ("Adding vote"); its WorkerReceiver logs every
notification it receives ("Notification: my state: ..") before queueing it (only while LOOKING).
We keep each node's receive queue and replay the election loop over it:

| log on the node's QuorumPeer thread | event |
|---|---|
| "New election" and its sends | `Notification` (round + 1, vote for itself) |
| sends outside any handling (the loop's poll timed out) | `Notification` (the same vote again) |
| a dequeue: comparison .. "Adding vote", or "epoch is smaller" | `HandleNotification` |
| a FOLLOWING/LEADING notification, handled without a log line | `HandleNotification` (replayed) |
| a dequeue in the final wait after a quorum, not better: dropped | `DiscardNotification` |
| "Peer state changed: leading" after the final wait | `BecomeLeader` |
| "Peer state changed: following" after the final wait | `BecomeFollower` |
| "Peer state changed: looking" (the leader is gone) | `BecomeLooking` |
| a node (re)started; zxid or epoch moved while it was not looking | `StartPeer`, `Synced` |

A FOLLOWING or LEADING node answers a LOOKING one from its WorkerReceiver ("Sending new
notification"): that is a `Notification` too, with the node's state unchanged. A LOOKING node's
answer to a sender in an older round is sent without a log line and is not observed.

Any line the replay cannot explain (a dequeue that does not match the head of our queue, a state
change the replayed vote counts do not lead to) raises LogMismatch: a run is kept whole or not
at all.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

VOTERS = (1, 2, 3)
LOOKING, FOLLOWING, LEADING = "LOOKING", "FOLLOWING", "LEADING"

LINE = re.compile(
    r"^\S+ \S+ (?P<node>s\d+|client) \[(?P<thread>[^\]]*(?:\][^\]]*)*?)\] \w+ \w+ - (?P<msg>.*)$"
)
RECEIVED = re.compile(
    r"Notification: my state:(?P<my>\w+); n\.sid:(?P<sid>\d+), n\.state:(?P<state>\w+), "
    r"n\.leader:(?P<leader>-?\d+), n\.round:0x(?P<round>[0-9a-f]+), "
    r"n\.peerEpoch:0x(?P<epoch>[0-9a-f]+), "
    r"n\.zxid:0x(?P<zxid>[0-9a-f]+), message format version:0x(?P<version>[0-9a-f]+)"
)
SENDING = re.compile(
    r"Sending Notification: (?P<leader>-?\d+) \(n\.leader\), 0x(?P<zxid>[0-9a-f]+) \(n\.zxid\), "
    r"0x(?P<round>[0-9a-f]+) \(n\.round\), (?P<to>\d+) \(recipient\), (?P<me>\d+) \(myid\), "
    r"0x(?P<epoch>[0-9a-f]+) \(n\.peerEpoch\)"
)
REPLY = re.compile(
    r"Sending new notification\. My id =(?P<me>\d+) recipient=(?P<to>\d+) "
    r"zxid=0x(?P<zxid>[0-9a-f]+) leader=(?P<leader>-?\d+)"
)
NEW_ELECTION = re.compile(
    r"New election\. My id = (?P<me>\d+), proposed zxid=0x(?P<zxid>[0-9a-f]+)"
)
UPDATING = re.compile(
    r"Updating proposal: (?P<leader>-?\d+) \(newleader\), 0x(?P<zxid>[0-9a-f]+) \(newzxid\)"
)
COMPARE = re.compile(
    r"id: (?P<new>-?\d+), proposed id: (?P<cur>-?\d+), zxid: 0x(?P<zxid>[0-9a-f]+), "
    r"proposed zxid: 0x(?P<curzxid>[0-9a-f]+)"
)
SMALLER = re.compile(
    r"Notification election epoch is smaller than logicalclock\. "
    r"n\.electionEpoch = 0x(?P<round>[0-9a-f]+)"
)
ADDING = re.compile(
    r"Adding vote: from=(?P<sid>\d+), proposed leader=(?P<leader>-?\d+), "
    r"proposed zxid=0x(?P<zxid>[0-9a-f]+), "
    r"proposed election epoch=0x(?P<round>[0-9a-f]+)"
)
STATE_CHANGED = re.compile(r"Peer state changed: (?P<state>looking|following|leading)$")
LEAVE = re.compile(
    r"About to leave FLE instance: leader=(?P<leader>-?\d+), zxid=0x(?P<zxid>[0-9a-f]+)"
)


# The line the harness appends to the shared log when it kills a node (ensemble.Ensemble.kill).
KILLED = "killed by the harness"


class LogMismatch(ValueError):
    pass


@dataclass(frozen=True)
class Vote:
    leader: int
    zxid: int
    round: int
    epoch: int
    state: str = LOOKING
    version: int = 0

    def same(self, other: Vote) -> bool:
        """Vote.equals of ZooKeeper 3.8.0."""
        if LOOKING in (self.state, other.state):
            return (self.leader, self.zxid, self.round, self.epoch) == (
                other.leader,
                other.zxid,
                other.round,
                other.epoch,
            )
        if (self.version > 0) != (other.version > 0):
            return self.leader == other.leader
        return (self.leader, self.epoch) == (other.leader, other.epoch)


@dataclass
class Msg:
    sid: int
    to: int
    state: str
    leader: int
    zxid: int
    round: int
    epoch: int
    version: int

    def vote(self) -> Vote:
        return Vote(self.leader, self.zxid, self.round, self.epoch)

    def data(self) -> dict:
        return {
            "from": self.sid,
            "to": self.to,
            "state": self.state,
            "leader": self.leader,
            "zxid": self.zxid,
            "electionEpoch": self.round,
            "peerEpoch": self.epoch,
        }


def better(new: tuple[int, int, int], cur: tuple[int, int, int]) -> bool:
    """totalOrderPredicate over (leader, zxid, epoch): epoch, then zxid, then server id."""
    (nid, nzxid, nepoch), (cid, czxid, cepoch) = new, cur
    return (nepoch, nzxid, nid) > (cepoch, czxid, cid)


@dataclass
class Node:
    me: int
    state: str = LOOKING
    round: int = 0
    leader: int = 0
    zxid: int = 0
    epoch: int = 0
    last_zxid: int = 0
    peer_epoch: int = 0
    recvset: dict[int, Vote] = field(default_factory=dict)
    outofelection: dict[int, Vote] = field(default_factory=dict)
    queue: deque = field(default_factory=deque)
    mode: str = "idle"  # idle | start | handling | finalize
    fresh: bool = True
    current: Msg | None = None
    sends: list = field(default_factory=list)
    pending_zxid: int | None = None

    def __post_init__(self):
        self.leader = self.me

    def own(self) -> Vote:
        return Vote(self.leader, self.zxid, self.round, self.epoch)

    def votes(self) -> list[int]:
        mine = self.own()
        return sorted(s for s, v in self.recvset.items() if mine.same(v))

    def snapshot(self) -> dict:
        return {
            "state": self.state,
            "round": self.round,
            "leader": self.leader,
            "voteZxid": self.zxid,
            "voteEpoch": self.epoch,
            "lastZxid": self.last_zxid,
            "peerEpoch": self.peer_epoch,
            "votes": self.votes(),
            "recvVotes": {str(s): v.leader for s, v in sorted(self.recvset.items())},
        }


def _quorum(ids) -> bool:
    return 2 * len(set(ids) & set(VOTERS)) > len(VOTERS)


class Replay:
    def __init__(self, run: str):
        self.run = run
        self.nodes = {n: Node(n) for n in VOTERS}
        self.events: list[dict] = []
        self.where = ""

    def fail(self, what: str):
        raise LogMismatch(f"{self.run}:{self.where}: {what}")

    def emit(self, event: str, node: Node, subnode: int, data: dict | None = None) -> None:
        self.events.append(
            {
                "event": event,
                "step": len(self.events),
                "node": f"s{node.me}",
                "subnode": subnode,
                "data": data or {},
                "state": node.snapshot(),
            }
        )

    # --- the QuorumPeer thread -----------------------------------------------------------------

    def peer_line(self, node: Node, msg: str) -> None:
        if m := STATE_CHANGED.match(msg):
            self.state_changed(node, m["state"].upper())
        elif m := NEW_ELECTION.match(msg):
            self.settle_silent(node)
            node.mode = "start"
            node.pending_zxid = int(m["zxid"], 16)
            node.sends = []
        elif m := SENDING.match(msg):
            self.sending(node, m)
        elif (m := UPDATING.match(msg)) and node.mode == "handling":
            # (The round start's own update is taken from its sends.)
            node.leader, node.zxid = int(m["leader"]), int(m["zxid"], 16)
            if node.current is not None:
                node.epoch = (
                    node.current.epoch if node.leader == node.current.leader else node.peer_epoch
                )
        elif m := COMPARE.match(msg):
            self.compare(node, m)
        elif m := SMALLER.match(msg):
            self.smaller(node, int(m["round"], 16))
        elif m := ADDING.match(msg):
            self.adding(node, m)
        elif m := LEAVE.match(msg):
            node.queue.clear()
            node.mode = "idle"
        elif msg.startswith("Notification time out"):
            self.settle_silent(node)

    def sending(self, node: Node, m) -> None:
        if int(m["me"]) != node.me:
            self.fail("a send logged under another node")
        node.sends.append(m)
        if len(node.sends) < len(VOTERS):
            return
        first, node.sends = node.sends[0], []
        leader, zxid, rnd, epoch = (
            int(first["leader"]),
            int(first["zxid"], 16),
            int(first["round"], 16),
            int(first["epoch"], 16),
        )
        data = {
            "from": node.me,
            "to": list(VOTERS),
            "state": LOOKING,
            "leader": leader,
            "zxid": zxid,
            "electionEpoch": rnd,
            "peerEpoch": epoch,
        }
        if node.mode == "start":
            self.round_start(node, leader, zxid, rnd, epoch, data)
        elif node.mode == "handling":
            node.epoch = epoch  # the proposal's epoch, as sent
            if (leader, zxid, rnd) != (node.leader, node.zxid, node.round):
                self.fail("the sends after a handled notification do not carry the new vote")
        elif node.mode == "idle":
            if (leader, zxid, rnd, epoch) != (node.leader, node.zxid, node.round, node.epoch):
                self.fail("a resent vote differs from the node's vote")
            self.emit("Notification", node, 0, data)
        else:
            self.fail(f"sends in mode {node.mode}")

    def round_start(self, node: Node, leader, zxid, rnd, epoch, data) -> None:
        if leader != node.me or zxid != node.pending_zxid:
            self.fail("a new round does not start with a vote for the node itself")
        if node.fresh:
            node.fresh = False
            node.state, node.round = LOOKING, rnd - 1
            node.leader, node.zxid, node.epoch = node.me, zxid, epoch
            node.last_zxid, node.peer_epoch = zxid, epoch
            node.recvset = {}
            self.emit("StartPeer", node, 0)
        elif (node.last_zxid, node.peer_epoch) != (zxid, epoch):
            node.last_zxid, node.peer_epoch = zxid, epoch
            self.emit("Synced", node, 0)
        if rnd != node.round + 1:
            self.fail(f"round {rnd} after round {node.round}")
        node.round = rnd
        node.leader, node.zxid, node.epoch = node.me, zxid, epoch
        node.recvset, node.outofelection = {}, {}
        node.mode = "idle"
        self.emit("Notification", node, 0, data)

    def head(self, node: Node, *, looking_only: bool) -> Msg:
        self.settle_silent(node)
        if not node.queue:
            self.fail("a dequeue with nothing received")
        msg = node.queue[0]
        if looking_only and msg.state != LOOKING:
            self.fail("a logged dequeue of a FOLLOWING/LEADING notification")
        return msg

    def compare(self, node: Node, m) -> None:
        new = (int(m["new"]), int(m["zxid"], 16))
        if node.mode == "finalize":
            msg = node.queue.popleft() if node.queue else None
            if msg is None or (msg.leader, msg.zxid) != new:
                self.fail("a final-wait dequeue that is not the queue's head")
            if better((msg.leader, msg.zxid, msg.epoch), (node.leader, node.zxid, node.epoch)):
                node.queue.append(msg)  # put back at the tail; the loop goes on
                node.mode = "idle"
            else:
                self.emit("DiscardNotification", node, 0, msg.data())
            return
        if node.mode != "idle":
            self.fail(f"a comparison in mode {node.mode}")
        msg = self.head(node, looking_only=True)
        if (msg.leader, msg.zxid) != new:
            self.fail(f"dequeued vote {new} is not the queue's head {(msg.leader, msg.zxid)}")
        node.queue.popleft()
        node.current = msg
        node.mode = "handling"
        if msg.round > node.round:
            node.round = msg.round
            node.recvset = {}
            init = (node.me, node.last_zxid, node.peer_epoch)
            if better((msg.leader, msg.zxid, msg.epoch), init):
                node.leader, node.zxid, node.epoch = msg.leader, msg.zxid, msg.epoch
            else:
                node.leader, node.zxid, node.epoch = init
        elif better((msg.leader, msg.zxid, msg.epoch), (node.leader, node.zxid, node.epoch)):
            node.leader, node.zxid, node.epoch = msg.leader, msg.zxid, msg.epoch

    def smaller(self, node: Node, rnd: int) -> None:
        if node.mode != "idle":
            self.fail(f"an old-round dequeue in mode {node.mode}")
        msg = self.head(node, looking_only=True)
        if msg.round != rnd or rnd >= node.round:
            self.fail("the old-round notification is not the queue's head")
        node.queue.popleft()
        self.emit("HandleNotification", node, 0, msg.data())

    def adding(self, node: Node, m) -> None:
        msg = node.current
        if node.mode != "handling" or msg is None or msg.sid != int(m["sid"]):
            self.fail("a vote added for a notification that was not dequeued")
        if (int(m["leader"]), int(m["round"], 16)) != (msg.leader, msg.round):
            self.fail("the added vote differs from the dequeued notification")
        node.recvset[msg.sid] = msg.vote()
        node.current = None
        node.mode = "finalize" if _quorum(node.votes()) else "idle"
        self.emit("HandleNotification", node, 0, msg.data())

    def state_changed(self, node: Node, state: str) -> None:
        if state == LOOKING:
            if node.state != LOOKING:
                node.state = LOOKING
                node.mode = "idle"
                self.emit("BecomeLooking", node, 0)
            return
        if node.mode == "finalize":
            expect = LEADING if node.leader == node.me else FOLLOWING
            if state != expect:
                self.fail(f"{state} after a quorum for s{node.leader}")
            node.state = state
            node.mode = "idle"
            self.emit("BecomeLeader" if state == LEADING else "BecomeFollower", node, 0)
            return
        # Concluded on a FOLLOWING/LEADING notification: one of the silently handled ones.
        while node.queue:
            msg = node.queue[0]
            if msg.state == LOOKING:
                self.fail("a state change with a LOOKING notification still queued first")
            node.queue.popleft()
            if self.follow(node, msg):
                if node.state != state:
                    self.fail(f"replay concludes {node.state}, the log says {state}")
                return
        self.fail(f"{state} without a quorum in the replayed votes")

    # --- FOLLOWING/LEADING notifications: handled without a log line ---------------------------

    def settle_silent(self, node: Node) -> None:
        """Handle the FOLLOWING/LEADING notifications at the head of the queue (none of them
        concludes, or the node would have logged a state change first)."""
        while node.queue and node.queue[0].state != LOOKING and node.mode == "idle":
            msg = node.queue.popleft()
            if self.follow(node, msg):
                self.fail("a replayed FOLLOWING/LEADING notification concludes, the log goes on")

    def follow(self, node: Node, msg: Msg) -> bool:
        """receivedFollowingNotification / receivedLeadingNotification; True when concluded."""
        full = Vote(msg.leader, msg.zxid, msg.round, msg.epoch, msg.state, msg.version)
        concluded = False
        if msg.round == node.round:
            # recvset keeps this vote without the message's format version (5-argument Vote),
            # so against the versioned `full` only the leader ids are compared.
            node.recvset[msg.sid] = Vote(msg.leader, msg.zxid, msg.round, msg.epoch, msg.state)
            acks = [s for s, v in node.recvset.items() if full.same(v)]
            if _quorum(acks) and self.check_leader(node, node.recvset, msg.leader, msg.round):
                concluded = True
        if not concluded:
            node.outofelection[msg.sid] = full
            acks = [s for s, v in node.outofelection.items() if full.same(v)]
            if _quorum(acks) and self.check_leader(node, node.outofelection, msg.leader, msg.round):
                node.round = msg.round
                concluded = True
        if concluded:
            node.state = LEADING if msg.leader == node.me else FOLLOWING
            node.leader, node.zxid, node.epoch = msg.leader, msg.zxid, msg.epoch
        self.emit("HandleNotification", node, 0, msg.data())
        return concluded

    def check_leader(self, node: Node, votes: dict, leader: int, rnd: int) -> bool:
        if leader != node.me:
            return leader in votes and votes[leader].state == LEADING
        return node.round == rnd

    # --- the WorkerReceiver thread -------------------------------------------------------------

    def receiver_line(self, node: Node, msg: str) -> None:
        if m := RECEIVED.match(msg):
            if m["my"] != LOOKING:
                return
            node.queue.append(
                Msg(
                    sid=int(m["sid"]),
                    to=node.me,
                    state=m["state"],
                    leader=int(m["leader"]),
                    zxid=int(m["zxid"], 16),
                    round=int(m["round"], 16),
                    epoch=int(m["epoch"], 16),
                    version=int(m["version"], 16),
                )
            )
        elif m := REPLY.match(msg):
            data = {
                "from": node.me,
                "to": int(m["to"]),
                "state": node.state,
                "leader": int(m["leader"]),
                "zxid": int(m["zxid"], 16),
                "electionEpoch": node.round,
            }
            self.emit("Notification", node, 1, data)

    def killed(self, node: Node) -> None:
        """The harness killed the node: what it had received is gone; the others keep seeing
        the state it last published until it votes again."""
        node.queue.clear()
        node.mode, node.current, node.sends = "idle", None, []
        node.outofelection = {}
        node.fresh = True

    def line(self, number: int, text: str) -> None:
        self.where = str(number)
        m = LINE.match(text)
        if m is None or m["node"] == "client":
            return
        node = self.nodes[int(m["node"][1:])]
        thread = m["thread"]
        if thread == "harness" and m["msg"] == KILLED:
            self.killed(node)
        elif thread.startswith("QuorumPeer[myid="):
            self.peer_line(node, m["msg"])
        elif thread.startswith("WorkerReceiver[myid="):
            self.receiver_line(node, m["msg"])


def parse(lines: list[str], run: str) -> list[dict]:
    replay = Replay(run)
    for number, text in enumerate(lines, start=1):
        replay.line(number, text)
    return replay.events
