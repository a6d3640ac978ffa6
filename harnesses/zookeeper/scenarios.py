"""The election scenarios the corpus is made of. Each takes a fresh Ensemble and a seeded Random
(start order, start delays and which node to kill come from it) and leaves every node stopped."""

from __future__ import annotations

import random
import time

from harnesses.zookeeper.ensemble import NODES, Ensemble


def _start(ens: Ensemble, nodes, rng: random.Random) -> None:
    order = list(nodes)
    rng.shuffle(order)
    for node in order:
        ens.start(node)
        time.sleep(rng.uniform(0.0, 0.6))


def cold_start(ens: Ensemble, rng: random.Random) -> int:
    """All three start from empty data dirs, in a random order with random gaps."""
    _start(ens, NODES, rng)
    return ens.wait_stable(set(NODES))


def leader_killed(ens: Ensemble, rng: random.Random) -> None:
    """Cold start, some writes, the leader is killed (SIGKILL), the other two re-elect; then the
    old leader comes back and has to find the new one."""
    leader = cold_start(ens, rng)
    ens.write(leader, "/before")
    since = len(ens.lines())
    ens.kill(leader)
    survivors = set(NODES) - {leader}
    new_leader = ens.wait_stable(survivors, since)
    ens.write(new_leader, "/after")
    since = len(ens.lines())
    ens.start(leader)
    ens.wait_role(leader, "following", since)


def newer_zxid(ens: Ensemble, rng: random.Random) -> None:
    """A follower is killed and misses some writes; then the whole ensemble goes down. The stale
    node and one of the up-to-date ones start again: the one with the newer zxid must win, even
    when its id is the lower. Finally the third node joins."""
    leader = cold_start(ens, rng)
    stale = rng.choice([n for n in NODES if n != leader])
    ens.kill(stale)
    ens.write(leader, "/missed")
    ens.stop_all()
    fresh = rng.choice([n for n in NODES if n != stale])
    since = len(ens.lines())
    _start(ens, (stale, fresh), rng)
    winner = ens.wait_stable({stale, fresh}, since)
    if winner != fresh:
        raise RuntimeError(f"s{winner} won over s{fresh}, whose zxid is newer")
    last = (set(NODES) - {stale, fresh}).pop()
    since = len(ens.lines())
    ens.start(last)
    ens.wait_role(last, "following", since)


SCENARIOS = {
    "cold-start": cold_start,
    "leader-killed": leader_killed,
    "newer-zxid": newer_zxid,
}
