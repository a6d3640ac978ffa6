package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

const raftModule = "go.etcd.io/raft/v3"

type manifest struct {
	Command   string      `json:"command"`
	Seed      uint64      `json:"seed"`
	Runs      int         `json:"runs_per_scenario"`
	Module    string      `json:"module"`
	Version   string      `json:"version"`
	Sum       string      `json:"sum"`
	Toolchain string      `json:"toolchain"`
	BuildTags string      `json:"build_tags"`
	Traces    []runReport `json:"traces"`
}

// writeProvenance records where the traces come from: the module as the Go module proxy served
// it (version and go.sum hash, read from the binary's own build information), the toolchain, the
// command with its seed and what every run's seeded network did.
func writeProvenance(out string, seed uint64, runs int, reports []runReport) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("no build information in the binary")
	}
	m := manifest{
		Command:   fmt.Sprintf("bin/make-traces etcd --seed %d --runs %d", seed, runs),
		Seed:      seed,
		Runs:      runs,
		Module:    raftModule,
		Toolchain: info.GoVersion,
		Traces:    reports,
	}
	for _, dep := range info.Deps {
		if dep.Path == raftModule {
			m.Version, m.Sum = dep.Version, dep.Sum
		}
	}
	for _, s := range info.Settings {
		if s.Key == "-tags" {
			m.BuildTags = s.Value
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "PROVENANCE.md"), []byte(provenanceText(m)), 0o644)
}

func provenanceText(m manifest) string {
	var b strings.Builder
	events := 0
	for _, r := range m.Traces {
		events += r.Events
	}
	fmt.Fprintf(&b, "# Provenance of these etcd traces\n\n")
	fmt.Fprintf(&b, "- system: etcd's Raft library, Go module `%s` %s (go.sum `%s`), from the Go module proxy, unmodified\n", m.Module, m.Version, m.Sum)
	fmt.Fprintf(&b, "- licence of the traced code: Apache-2.0 (etcd-io/raft)\n")
	fmt.Fprintf(&b, "- trace events: the module's own TLA+ instrumentation (`state_trace.go`), built with `-tags %s`\n", m.BuildTags)
	fmt.Fprintf(&b, "- driver: `harnesses/etcd/driver` (ours), toolchain %s\n", m.Toolchain)
	fmt.Fprintf(&b, "- command: `%s`\n", m.Command)
	fmt.Fprintf(&b, "- made: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- %d traces, %d events; per run (seeded network, attempts drawn again): `manifest.json`\n\n", len(m.Traces), events)
	fmt.Fprintf(&b, "| trace | events | rounds | sent | dropped | delayed | lost (cut link / node down) | attempt |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range m.Traces {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", r.File, r.Events, r.Rounds,
			r.Net.Sent, r.Net.Dropped, r.Net.Delayed, r.Net.Lost, r.Attempt)
	}
	return b.String()
}
