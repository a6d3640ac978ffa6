package main

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"slices"
	"sort"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// bootStorage is etcd's MemoryStorage that reports the cluster's initial membership, the way
// etcd's own tests (newTestMemoryStorage(withPeers(...))) start a cluster: term 0, empty log.
// raft.StartNode would instead write one conf-change entry per peer at term 1, which puts the
// first election at term 2 and the contract's terms (0..2) out of reach of a re-election.
type bootStorage struct {
	*raft.MemoryStorage
	conf raftpb.ConfState
}

func (s *bootStorage) InitialState() (raftpb.HardState, raftpb.ConfState, error) {
	hs, _, err := s.MemoryStorage.InitialState()
	return hs, s.conf, err
}

type node struct {
	id      uint64
	store   *bootStorage
	rn      *raft.RawNode
	up      bool
	applied uint64
}

type envelope struct {
	msg raftpb.Message
	at  int
	seq int
}

type link [2]uint64

// netStats counts what the seeded network did to the messages of one run.
type netStats struct {
	Sent, Dropped, Delayed, Delivered, Lost int
}

// cluster runs in-memory etcd raft nodes on one goroutine. Time is the driver's round counter:
// every round delivers the messages due, then ticks every live node once. Nothing reads the wall
// clock, so a run is a function of its seed (etcd's own randomized election timeout is drawn
// from crypto/rand; the driver never lets it fire, see Config.ElectionTick below, and decides
// itself when a node's election timer expires).
type cluster struct {
	rng       *rand.Rand
	trace     *traceWriter
	nodes     map[uint64]*node
	ids       []uint64
	queue     []envelope
	now, seq  int
	cut       map[link]bool
	lossy     map[uint64]float64
	dropRate  float64
	delayRate float64
	maxMsg    uint64
	stats     netStats
	// The first refusal from the library (a proposal dropped by a node that stopped leading):
	// the run missed its scenario and is drawn again.
	err error
}

func (c *cluster) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

var quiet = &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)}

func newCluster(rng *rand.Rand, trace *traceWriter) *cluster {
	c := &cluster{
		rng:   rng,
		trace: trace,
		nodes: map[uint64]*node{},
		cut:   map[link]bool{},
		lossy: map[uint64]float64{},
	}
	c.dropRate = []float64{0, 0.05, 0.1}[rng.IntN(3)]
	c.delayRate = []float64{0, 0.2, 0.4}[rng.IntN(3)]
	// 0 = one entry per MsgApp; otherwise a batch of everything the follower lacks.
	c.maxMsg = []uint64{0, 1 << 20}[rng.IntN(2)]
	return c
}

func (c *cluster) config(n *node) *raft.Config {
	return &raft.Config{
		ID:      n.id,
		Storage: n.store,
		Applied: n.applied,
		// Far beyond any run's length: campaigns happen only when the driver says so.
		ElectionTick:  10000,
		HeartbeatTick: 2,
		MaxSizePerMsg: c.maxMsg,
		// Left at 0 it would default to MaxSizePerMsg, which 0 makes an empty budget.
		MaxCommittedSizePerReady: 1 << 30,
		MaxInflightMsgs:          256,
		Logger:                   quiet,
		TraceLogger:              c.trace,
	}
}

// addNode starts node id with the given voters as its initial membership (empty for a node
// that will be added by a configuration change).
func (c *cluster) addNode(id uint64, voters []uint64) {
	n := &node{id: id, store: &bootStorage{raft.NewMemoryStorage(), raftpb.ConfState{Voters: voters}}}
	c.nodes[id] = n
	c.ids = append(c.ids, id)
	c.start(n)
}

func (c *cluster) start(n *node) {
	rn, err := raft.NewRawNode(c.config(n))
	if err != nil {
		panic(err)
	}
	n.rn, n.up = rn, true
	c.flush(n)
}

// crash stops a node between two steps: what it had handed to storage survives, as on a disk.
func (c *cluster) crash(id uint64) {
	n := c.nodes[id]
	n.up, n.rn = false, nil
}

func (c *cluster) restart(id uint64) { c.start(c.nodes[id]) }

// flush is the application's Ready loop: persist, send, apply, advance.
func (c *cluster) flush(n *node) {
	for n.up && n.rn.HasReady() {
		rd := n.rn.Ready()
		if !raft.IsEmptyHardState(rd.HardState) {
			must(n.store.SetHardState(rd.HardState))
		}
		must(n.store.Append(rd.Entries))
		for _, m := range rd.Messages {
			if m.To != n.id {
				c.send(m)
			}
		}
		for _, e := range rd.CommittedEntries {
			if e.Type == raftpb.EntryConfChange {
				var cc raftpb.ConfChange
				must(cc.Unmarshal(e.Data))
				n.rn.ApplyConfChange(cc)
			}
			n.applied = e.Index
		}
		n.rn.Advance(rd)
	}
}

// send draws the message's fate from the seeded PRNG: lost on a cut link, dropped at the
// run's drop rate (plus the destination's own loss rate), otherwise delivered next round or
// delayed by 1-3 rounds (which reorders it against later messages).
func (c *cluster) send(m raftpb.Message) {
	c.stats.Sent++
	if c.cut[link{m.From, m.To}] {
		c.stats.Lost++
		return
	}
	if c.rng.Float64() < c.dropRate+c.lossy[m.To] {
		c.stats.Dropped++
		return
	}
	at := c.now + 1
	if c.rng.Float64() < c.delayRate {
		at += 1 + c.rng.IntN(3)
		c.stats.Delayed++
	}
	c.seq++
	c.queue = append(c.queue, envelope{m, at, c.seq})
}

func (c *cluster) round() {
	c.now++
	sort.Slice(c.queue, func(i, j int) bool {
		a, b := c.queue[i], c.queue[j]
		return a.at < b.at || (a.at == b.at && a.seq < b.seq)
	})
	split := 0
	for split < len(c.queue) && c.queue[split].at <= c.now {
		split++
	}
	due := slices.Clone(c.queue[:split])
	c.queue = c.queue[split:]
	for _, e := range due {
		n := c.nodes[e.msg.To]
		if n == nil || !n.up || c.cut[link{e.msg.From, e.msg.To}] {
			c.stats.Lost++
			continue
		}
		c.stats.Delivered++
		// A removed peer's messages are refused by the library itself; that is its behaviour.
		_ = n.rn.Step(e.msg)
		c.flush(n)
	}
	for _, id := range c.ids {
		if n := c.nodes[id]; n.up {
			n.rn.Tick()
			c.flush(n)
		}
	}
}

func (c *cluster) rounds(k int) {
	for range k {
		c.round()
	}
}

func (c *cluster) runUntil(done func() bool, limit int) bool {
	for range limit {
		if done() {
			return true
		}
		c.round()
	}
	return done()
}

func (c *cluster) campaign(id uint64) {
	n := c.nodes[id]
	must(n.rn.Campaign())
	c.flush(n)
}

func (c *cluster) propose(id uint64) {
	n := c.nodes[id]
	if err := n.rn.Propose([]byte(fmt.Sprintf("v%d", c.now))); err != nil {
		c.fail(fmt.Errorf("proposal at node %d: %w", id, err))
		return
	}
	c.flush(n)
}

func (c *cluster) proposeConf(id uint64, cc raftpb.ConfChange) {
	n := c.nodes[id]
	must(n.rn.ProposeConfChange(cc))
	c.flush(n)
}

// leader is the live node that believes it leads in the highest term, 0 if none.
func (c *cluster) leader() uint64 {
	var best uint64
	var term uint64
	for _, id := range c.ids {
		n := c.nodes[id]
		if !n.up {
			continue
		}
		st := n.rn.BasicStatus()
		if st.RaftState == raft.StateLeader && st.Term >= term {
			best, term = id, st.Term
		}
	}
	return best
}

func (c *cluster) term(id uint64) uint64 { return c.nodes[id].rn.BasicStatus().Term }

func (c *cluster) lastIndex(id uint64) uint64 {
	last, err := c.nodes[id].store.LastIndex()
	must(err)
	return last
}

func (c *cluster) lastTerm(id uint64) uint64 {
	t, err := c.nodes[id].store.Term(c.lastIndex(id))
	must(err)
	return t
}

// entryTerms is a node's persisted log as its entries' terms.
func (c *cluster) entryTerms(id uint64) []uint64 {
	terms := []uint64{}
	for i := uint64(1); i <= c.lastIndex(id); i++ {
		t, err := c.nodes[id].store.Term(i)
		must(err)
		terms = append(terms, t)
	}
	return terms
}

// converged: the live members hold the leader's log and have committed all of it.
func (c *cluster) converged(members ...uint64) bool {
	l := c.leader()
	if l == 0 {
		return false
	}
	want := c.entryTerms(l)
	commit := c.nodes[l].rn.BasicStatus().Commit
	if commit != uint64(len(want)) {
		return false
	}
	for _, id := range members {
		n := c.nodes[id]
		if !n.up || n.rn.BasicStatus().Commit != commit || !slices.Equal(c.entryTerms(id), want) {
			return false
		}
	}
	return true
}

func (c *cluster) partition(group []uint64) {
	for _, a := range group {
		for _, b := range c.ids {
			if !slices.Contains(group, b) {
				c.cut[link{a, b}], c.cut[link{b, a}] = true, true
			}
		}
	}
}

func (c *cluster) heal() { c.cut = map[link]bool{} }

func must(err error) {
	if err != nil {
		panic(err)
	}
}
