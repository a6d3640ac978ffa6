package main

import (
	"errors"
	"slices"

	"go.etcd.io/raft/v3/raftpb"
)

// A scenario drives one run; an error means the seeded schedule missed the scenario's point
// (e.g. every vote request of a campaign dropped), and the run is drawn again.
type scenario struct {
	name string
	run  func(c *cluster) error
}

var scenarios = []scenario{
	{"election", election},
	{"leader-crash", leaderCrash},
	{"lagging-follower", laggingFollower},
	{"partition-heals", partitionHeals},
	{"conflicting-entries", conflictingEntries},
	{"conf-change", confChange},
}

var all = []uint64{1, 2, 3}

func (c *cluster) pick(ids []uint64) uint64 { return ids[c.rng.IntN(len(ids))] }

func others(ids []uint64, id uint64) []uint64 {
	return slices.DeleteFunc(slices.Clone(ids), func(x uint64) bool { return x == id })
}

func (c *cluster) startAll(voters []uint64) {
	for _, id := range all {
		conf := voters
		if !slices.Contains(voters, id) {
			conf = nil
		}
		c.addNode(id, conf)
	}
}

// elect has node id campaign (its election timer fires) and waits for it to lead.
func (c *cluster) elect(id uint64) error {
	c.campaign(id)
	if !c.runUntil(func() bool { return c.leader() == id }, 12) {
		return errors.New("campaign did not win")
	}
	return nil
}

// proposals has the leader (0: whichever node leads at the time) take k client proposals, a
// seeded 0-2 rounds apart.
func (c *cluster) proposals(leader uint64, k int) {
	for range k {
		id := leader
		if id == 0 {
			id = c.leader()
		}
		if id == 0 {
			c.fail(errors.New("no leader to propose to"))
			return
		}
		c.propose(id)
		c.rounds(c.rng.IntN(3))
	}
}

func (c *cluster) settle(members []uint64) error {
	if !c.runUntil(func() bool { return c.converged(members...) }, 60) {
		return errors.New("logs did not converge")
	}
	return nil
}

// mostUpToDate: among ids, one whose log the others would vote for (etcd's isUpToDate).
func (c *cluster) mostUpToDate(ids []uint64) uint64 {
	best := []uint64{}
	for _, id := range ids {
		if len(best) == 0 {
			best = []uint64{id}
			continue
		}
		a, b := c.lastTerm(id), c.lastTerm(best[0])
		ai, bi := c.lastIndex(id), c.lastIndex(best[0])
		switch {
		case a > b || (a == b && ai > bi):
			best = []uint64{id}
		case a == b && ai == bi:
			best = append(best, id)
		}
	}
	return c.pick(best)
}

// election: three nodes from a cold start; sometimes a second node's timer fires in the same
// round (competing candidates, possibly a split vote that a second campaign in term 2 ends).
func election(c *cluster) error {
	c.startAll(all)
	c.rounds(c.rng.IntN(3))
	first := c.pick(all)
	c.campaign(first)
	if c.rng.Float64() < 0.4 {
		c.rounds(c.rng.IntN(2))
		c.campaign(c.pick(others(all, first)))
	}
	if !c.runUntil(func() bool { return c.leader() != 0 }, 12) {
		if err := c.elect(c.pick(all)); err != nil {
			return err
		}
	}
	c.proposals(0, 1+c.rng.IntN(4))
	return c.settle(all)
}

// leaderCrash: the leader crashes (sometimes right after a proposal it may not have sent), a
// follower with an up-to-date log wins term 2, and the old leader restarts from its storage.
func leaderCrash(c *cluster) error {
	c.startAll(all)
	old := c.pick(all)
	if err := c.elect(old); err != nil {
		return err
	}
	c.proposals(old, 1+c.rng.IntN(3))
	if err := c.settle(all); err != nil {
		return err
	}
	if c.rng.IntN(2) == 0 {
		c.propose(old)
		c.rounds(c.rng.IntN(2))
	}
	c.crash(old)
	rest := others(all, old)
	c.rounds(1 + c.rng.IntN(3))
	next := c.mostUpToDate(rest)
	if err := c.elect(next); err != nil {
		return err
	}
	c.proposals(next, 1+c.rng.IntN(3))
	if err := c.settle(rest); err != nil {
		return err
	}
	c.restart(old)
	return c.settle(all)
}

// laggingFollower: messages to one follower are mostly lost while the leader takes proposals;
// the link then recovers and the leader's probing brings the follower up to date.
func laggingFollower(c *cluster) error {
	c.startAll(all)
	l := c.pick(all)
	if err := c.elect(l); err != nil {
		return err
	}
	lag := c.pick(others(all, l))
	c.lossy[lag] = []float64{0.6, 0.8, 1}[c.rng.IntN(3)]
	c.proposals(l, 3+c.rng.IntN(5))
	c.rounds(2 + c.rng.IntN(4))
	if c.lastIndex(lag) >= c.lastIndex(l) {
		return errors.New("the follower did not lag")
	}
	delete(c.lossy, lag)
	return c.settle(all)
}

// partitionHeals: the leader is cut off with its proposals (never committed); the majority
// elects a leader in term 2 that takes its own; the partition heals and the old leader's
// uncommitted entries are overwritten.
func partitionHeals(c *cluster) error {
	c.startAll(all)
	old := c.pick(all)
	if err := c.elect(old); err != nil {
		return err
	}
	c.proposals(old, 1+c.rng.IntN(2))
	if err := c.settle(all); err != nil {
		return err
	}
	c.partition([]uint64{old})
	c.proposals(old, 1+c.rng.IntN(3))
	rest := others(all, old)
	c.rounds(1 + c.rng.IntN(2))
	next := c.mostUpToDate(rest)
	if err := c.elect(next); err != nil {
		return err
	}
	c.proposals(next, 1+c.rng.IntN(3))
	c.rounds(c.rng.IntN(3))
	c.heal()
	if err := c.settle(all); err != nil {
		return err
	}
	return nil
}

// conflictingEntries: the leader's outgoing messages are lost while it appends entries, then
// it crashes; a follower wins term 2 and appends its own; the old leader restarts with its
// stale entries, which the new leader's MsgApp overwrites.
func conflictingEntries(c *cluster) error {
	c.startAll(all)
	old := c.pick(all)
	if err := c.elect(old); err != nil {
		return err
	}
	c.proposals(old, c.rng.IntN(3))
	if err := c.settle(all); err != nil {
		return err
	}
	rest := others(all, old)
	for _, id := range rest {
		c.cut[link{old, id}] = true
	}
	c.proposals(old, 2+c.rng.IntN(2))
	stale := c.lastIndex(old)
	c.crash(old)
	c.heal()
	c.rounds(1 + c.rng.IntN(2))
	next := c.mostUpToDate(rest)
	if err := c.elect(next); err != nil {
		return err
	}
	c.proposals(next, 1+c.rng.IntN(3))
	if err := c.settle(rest); err != nil {
		return err
	}
	c.restart(old)
	if err := c.settle(all); err != nil {
		return err
	}
	if t, _ := c.nodes[old].store.Term(stale); t != 2 {
		return errors.New("no stale entry was overwritten")
	}
	return nil
}

// confChange: nodes 1 and 2 form the cluster, node 3 runs with no membership; the leader adds
// node 3, which catches up from an empty log, then removes the other original member.
func confChange(c *cluster) error {
	pair := []uint64{1, 2}
	c.startAll(pair)
	l := c.pick(pair)
	if err := c.elect(l); err != nil {
		return err
	}
	c.proposals(l, 1+c.rng.IntN(2))
	if err := c.settle(pair); err != nil {
		return err
	}
	c.proposeConf(l, raftpb.ConfChange{Type: raftpb.ConfChangeAddNode, NodeID: 3})
	if err := c.settle(all); err != nil {
		return err
	}
	c.proposals(l, 1+c.rng.IntN(2))
	if err := c.settle(all); err != nil {
		return err
	}
	gone := others(pair, l)[0]
	c.proposeConf(l, raftpb.ConfChange{Type: raftpb.ConfChangeRemoveNode, NodeID: gone})
	members := []uint64{l, 3}
	if err := c.settle(members); err != nil {
		return err
	}
	c.proposals(l, 1+c.rng.IntN(2))
	return c.settle(members)
}
