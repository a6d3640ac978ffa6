package main

import (
	"bufio"
	"encoding/json"

	"go.etcd.io/raft/v3"
)

// traceLine is the envelope of etcd's tla/ traces (a zap debug line), without the wall-clock
// "ts" and the "caller": both would make a rerun under the same seed differ byte for byte.
type traceLine struct {
	Level string             `json:"level"`
	Msg   string             `json:"msg"`
	Tag   string             `json:"tag"`
	Event *raft.TracingEvent `json:"event"`
}

// traceWriter is the raft.TraceLogger every node of a run shares: one file in the order the
// events happened, which a single-threaded driver makes the causal order.
type traceWriter struct {
	out     *bufio.Writer
	events  int
	maxTerm uint64
	maxLog  uint64
	err     error
}

func (t *traceWriter) TraceEvent(ev *raft.TracingEvent) {
	if t.err != nil {
		return
	}
	line, err := json.Marshal(traceLine{Level: "debug", Msg: "trace", Tag: "trace", Event: ev})
	if err == nil {
		_, err = t.out.Write(append(line, '\n'))
	}
	t.err = err
	t.events++
	t.maxTerm = max(t.maxTerm, ev.State.Term)
	t.maxLog = max(t.maxLog, ev.LogSize)
}
