//! One scenario's event log. `emit` assigns the sequence number, updates the harness's model of
//! the primitive and formats the line under one lock, so the file order is the order in which
//! the emitting threads passed their observation points.

use std::sync::Mutex as StdMutex;

pub struct Recorder<M> {
    inner: StdMutex<Log<M>>,
}

struct Log<M> {
    seq: u64,
    lines: Vec<String>,
    model: M,
}

impl<M> Recorder<M> {
    pub fn new(model: M) -> Self {
        Self { inner: StdMutex::new(Log { seq: 0, lines: Vec::new(), model }) }
    }

    /// `f(seq, model)` updates the model and returns the JSON line (without newline).
    pub fn emit(&self, f: impl FnOnce(u64, &mut M) -> String) {
        let mut log = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let seq = log.seq;
        log.seq += 1;
        let line = f(seq, &mut log.model);
        log.lines.push(line);
    }

    pub fn into_lines(self) -> Vec<String> {
        self.inner.into_inner().unwrap_or_else(|p| p.into_inner()).lines
    }
}
