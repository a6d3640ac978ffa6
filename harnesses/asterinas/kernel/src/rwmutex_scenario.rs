//! Three OS threads share one upstream `ostd::sync::RwMutex`, each taking read, write or
//! upgradeable-read guards (blocking or try), upgrading and downgrading. Events follow the
//! benchmark's rwmutex schema; ours in addition: `ReadCall`/`WriteCall`/`UpreadCall` (a thread
//! enters a blocking call), `Downgrade`, and `waited` on blocking acquisitions (the call left
//! `wait_until`'s fast path, i.e. its first attempt failed and it queued).
//!
//! Observation points: a step that gains rights (acquire, upgrade) is recorded right after it
//! returned, a step that gives rights up (release, downgrade) right before it is made; either way
//! while the thread still holds what excludes the conflicting steps of others, so the recorded
//! order is a valid history of the lock. The recorder's model asserts it.
//! The recorded state is that history's lock word: it leaves out the transient reader/upreader
//! bits a failing try_read/try_upread sets and clears, and BEING_UPGRADED (an upgrade is recorded
//! as one step when it completes).

use std::{
    collections::BTreeSet,
    sync::{Arc, Barrier},
};

use ostd::{
    observe,
    sync::{RwMutex, RwMutexReadGuard, RwMutexUpgradeableGuard, RwMutexWriteGuard},
};

use crate::{
    record::Recorder,
    rng::{thread_seed, Rng},
};

pub const THREADS: usize = 3;

#[derive(Default)]
pub struct Model {
    readers: BTreeSet<usize>,
    writer: Option<usize>,
    upreader: Option<usize>,
}

impl Model {
    fn state(&self) -> &'static str {
        let readers = self.readers.len();
        if self.writer.is_some() {
            "write_locked"
        } else if self.upreader.is_some() {
            match readers {
                0 => "upread_locked",
                1 => "upread_and_1_reader",
                _ => "upread_and_multi_readers",
            }
        } else {
            match readers {
                0 => "unlocked",
                1 => "1_reader",
                _ => "multi_readers",
            }
        }
    }

    fn apply(&mut self, t: usize, action: &str) {
        match action {
            "ReadLock" | "TryReadLock" => {
                assert!(self.writer.is_none(), "{action} by {t} under a writer");
                assert!(self.readers.insert(t));
            }
            "WriteLock" | "TryWriteLock" => {
                assert!(
                    self.writer.is_none() && self.upreader.is_none() && self.readers.is_empty()
                );
                self.writer = Some(t);
            }
            "UpreadLock" | "TryUpreadLock" => {
                assert!(self.writer.is_none() && self.upreader.is_none(), "{action} by {t}");
                self.upreader = Some(t);
            }
            "UpgradeLock" | "TryUpgradeLock" => {
                assert!(
                    self.upreader == Some(t) && self.readers.is_empty() && self.writer.is_none()
                );
                self.upreader = None;
                self.writer = Some(t);
            }
            "Downgrade" => {
                assert_eq!(self.writer, Some(t));
                self.writer = None;
                self.upreader = Some(t);
            }
            "ReadUnlock" => assert!(self.readers.remove(&t)),
            "WriteUnlock" => {
                assert_eq!(self.writer, Some(t));
                self.writer = None;
            }
            "UpreadUnlock" => {
                assert_eq!(self.upreader, Some(t));
                self.upreader = None;
            }
            _ => {}
        }
    }
}

enum Held<'a> {
    Read(RwMutexReadGuard<'a, u64>),
    Write(RwMutexWriteGuard<'a, u64>),
    Upread(RwMutexUpgradeableGuard<'a, u64>),
}

pub fn run(seed: u64, ops: usize) -> Vec<String> {
    let rec = Arc::new(Recorder::new(Model::default()));
    let lock = Arc::new(RwMutex::new(0u64));
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (rec, lock, start) = (rec.clone(), lock.clone(), start.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(thread_seed(seed, t));
                start.wait();
                for _ in 0..ops {
                    rng.pause();
                    if let Some(held) = acquire(t, &mut rng, &lock, &rec) {
                        rng.pause();
                        let held = transform(t, &mut rng, held, &rec);
                        rng.pause();
                        release(t, held, &rec);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("rwmutex scenario thread panicked");
    }
    Arc::try_unwrap(rec).ok().expect("recorder still shared").into_lines()
}

fn acquire<'a>(
    t: usize,
    rng: &mut Rng,
    lock: &'a RwMutex<u64>,
    rec: &Recorder<Model>,
) -> Option<Held<'a>> {
    match rng.below(6) {
        0 => {
            event(rec, t, "ReadCall", None);
            let g = lock.read();
            event(rec, t, "ReadLock", Some(observe::waited()));
            Some(Held::Read(g))
        }
        1 => lock.try_read().map(|g| {
            event(rec, t, "TryReadLock", None);
            Held::Read(g)
        }),
        2 => {
            event(rec, t, "WriteCall", None);
            let g = lock.write();
            event(rec, t, "WriteLock", Some(observe::waited()));
            Some(Held::Write(g))
        }
        3 => lock.try_write().map(|g| {
            event(rec, t, "TryWriteLock", None);
            Held::Write(g)
        }),
        4 => {
            event(rec, t, "UpreadCall", None);
            let g = lock.upread();
            event(rec, t, "UpreadLock", Some(observe::waited()));
            Some(Held::Upread(g))
        }
        _ => lock.try_upread().map(|g| {
            event(rec, t, "TryUpreadLock", None);
            Held::Upread(g)
        }),
    }
}

/// Sometimes upgrade an upgradeable read guard or downgrade a write guard before releasing.
fn transform<'a>(t: usize, rng: &mut Rng, held: Held<'a>, rec: &Recorder<Model>) -> Held<'a> {
    match held {
        Held::Upread(g) => match rng.below(3) {
            0 => {
                let w = g.upgrade();
                event(rec, t, "UpgradeLock", None);
                Held::Write(w)
            }
            1 => match g.try_upgrade() {
                Ok(w) => {
                    event(rec, t, "TryUpgradeLock", None);
                    Held::Write(w)
                }
                Err(g) => Held::Upread(g),
            },
            _ => Held::Upread(g),
        },
        Held::Write(g) if rng.below(4) == 0 => {
            event(rec, t, "Downgrade", None);
            Held::Upread(g.downgrade())
        }
        other => other,
    }
}

fn release(t: usize, held: Held<'_>, rec: &Recorder<Model>) {
    match held {
        Held::Read(g) => {
            event(rec, t, "ReadUnlock", None);
            drop(g);
        }
        Held::Write(mut g) => {
            *g += 1;
            event(rec, t, "WriteUnlock", None);
            drop(g);
        }
        Held::Upread(g) => {
            event(rec, t, "UpreadUnlock", None);
            drop(g);
        }
    }
}

fn lock_type(action: &str) -> &'static str {
    match action {
        "ReadCall" | "ReadLock" | "TryReadLock" | "ReadUnlock" => "read",
        "UpreadCall" | "UpreadLock" | "TryUpreadLock" | "UpreadUnlock" | "Downgrade" => "upread",
        _ => "write",
    }
}

fn event(rec: &Recorder<Model>, t: usize, action: &str, waited: Option<bool>) {
    rec.emit(|seq, model| {
        model.apply(t, action);
        let state = model.state();
        let lt = lock_type(action);
        let waited = waited.map(|w| format!(r#","waited":{w}"#)).unwrap_or_default();
        format!(
            r#"{{"seq":{seq},"thread":{t},"rwmutex":0,"state":"{state}","lock_type":"{lt}","action":"{action}","actor":{t}{waited}}}"#
        )
    });
}
