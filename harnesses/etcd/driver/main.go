// Command etcd-traces runs etcd's own Raft (go.etcd.io/raft/v3, built with -tags with_tla) in
// seeded scenarios and writes each run's TLA+ trace events as one NDJSON file.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/raft/v3"
)

// The contract's bounds (tasks_data/etcd/task.yaml): terms 0..2 and logs the conformance
// bound MaxLogLen = 12 covers. A run that leaves them is drawn again.
const (
	maxTerm     = 2
	maxLog      = 12
	maxAttempts = 50
)

type runReport struct {
	Scenario string   `json:"scenario"`
	Run      int      `json:"run"`
	Attempt  int      `json:"attempt"`
	File     string   `json:"file"`
	Events   int      `json:"events"`
	Rounds   int      `json:"rounds"`
	Net      netStats `json:"net"`
	Drop     float64  `json:"drop_rate"`
	Delay    float64  `json:"delay_rate"`
	MaxMsg   uint64   `json:"max_size_per_msg"`
	Rejected []string `json:"rejected_attempts,omitempty"`
	// Every node's log at the end (entry terms), read from its storage: what a replay of the
	// trace must arrive at.
	FinalLogs map[string][]uint64 `json:"final_logs"`
}

func main() {
	seed := flag.Uint64("seed", 5, "seed of every choice the driver makes")
	runs := flag.Int("runs", 4, "runs per scenario")
	out := flag.String("out", "traces", "output folder")
	only := flag.String("scenario", "", "run only this scenario")
	flag.Parse()
	if !raft.StateTraceDeployed {
		fail(errors.New("built without -tags with_tla: etcd emits no trace events"))
	}
	must(os.MkdirAll(*out, 0o755))
	reports := []runReport{}
	for _, sc := range scenarios {
		if *only != "" && sc.name != *only {
			continue
		}
		for run := 1; run <= *runs; run++ {
			rep, err := record(sc, *seed, run, *out)
			if err != nil {
				fail(err)
			}
			reports = append(reports, rep)
		}
	}
	if *only == "" {
		must(writeProvenance(*out, *seed, *runs, reports))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	must(enc.Encode(reports))
}

func record(sc scenario, seed uint64, run int, out string) (runReport, error) {
	name := fmt.Sprintf("%s-%d.ndjson", sc.name, run)
	path := filepath.Join(out, name)
	rejected := []string{}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s:%d:%d", sc.name, run, attempt)
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		rep, err := attemptRun(sc, rng, path)
		if err == nil {
			rep.Scenario, rep.Run, rep.Attempt, rep.File, rep.Rejected = sc.name, run, attempt, name, rejected
			return rep, nil
		}
		rejected = append(rejected, err.Error())
	}
	return runReport{}, fmt.Errorf("%s: no attempt of %d met the scenario: %s", name, maxAttempts,
		strings.Join(rejected, "; "))
}

func attemptRun(sc scenario, rng *rand.Rand, path string) (rep runReport, err error) {
	f, err := os.Create(path)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	tw := &traceWriter{out: bufio.NewWriter(f)}
	c := newCluster(rng, tw)
	if err := errors.Join(sc.run(c), c.err); err != nil {
		return rep, err
	}
	if err := tw.out.Flush(); err != nil || tw.err != nil {
		return rep, errors.Join(err, tw.err)
	}
	if tw.maxTerm > maxTerm || tw.maxLog > maxLog {
		return rep, fmt.Errorf("term %d / log %d beyond the contract's bounds", tw.maxTerm, tw.maxLog)
	}
	logs := map[string][]uint64{}
	for _, id := range c.ids {
		logs[fmt.Sprint(id)] = c.entryTerms(id)
	}
	return runReport{Events: tw.events, Rounds: c.now, Net: c.stats, Drop: c.dropRate,
		Delay: c.delayRate, MaxMsg: c.maxMsg, FinalLogs: logs}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "etcd-traces:", err)
	os.Exit(1)
}
