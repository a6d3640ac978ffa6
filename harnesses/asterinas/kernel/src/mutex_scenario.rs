//! Three OS threads contend for one upstream `ostd::sync::Mutex`. Events follow the benchmark's
//! mutex schema (`Lock`, `TryLock`, `Unlock`); ours in addition: `LockCall` (a thread enters
//! lock()) and `waited` on `Lock` (the call left `wait_until`'s fast path and queued).
//!
//! Observation points: an acquisition is recorded right after lock()/try_lock() returned the guard,
//! a release right before the guard is dropped, so each event is recorded while its thread holds
//! the mutex and no other thread can change the mutex state between the event and the change it
//! reports. The recorder's model checks that the events form a valid history.

use std::sync::{Arc, Barrier};

use ostd::sync::Mutex;

use crate::{
    record::Recorder,
    rng::{thread_seed, Rng},
};

pub const THREADS: usize = 3;

#[derive(Default)]
pub struct Model {
    holder: Option<usize>,
}

pub fn run(seed: u64, ops: usize) -> Vec<String> {
    let rec = Arc::new(Recorder::new(Model::default()));
    let mutex = Arc::new(Mutex::new(0u64));
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (rec, mutex, start) = (rec.clone(), mutex.clone(), start.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(thread_seed(seed, t));
                start.wait();
                for _ in 0..ops {
                    rng.pause();
                    one_op(t, &mut rng, &mutex, &rec);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("mutex scenario thread panicked");
    }
    let count = *mutex.lock();
    assert!(count <= (THREADS * ops) as u64);
    Arc::try_unwrap(rec).ok().expect("recorder still shared").into_lines()
}

fn one_op(t: usize, rng: &mut Rng, mutex: &Mutex<u64>, rec: &Recorder<Model>) {
    match rng.below(3) {
        0 => blocking(t, rng, mutex, rec),
        1 => {
            if let Some(mut guard) = mutex.try_lock() {
                event(rec, t, "TryLock", None);
                *guard += 1;
                rng.pause();
                event(rec, t, "Unlock", None);
                drop(guard);
            }
        }
        _ => match mutex.try_lock() {
            Some(mut guard) => {
                event(rec, t, "TryLock", None);
                *guard += 1;
                rng.pause();
                event(rec, t, "Unlock", None);
                drop(guard);
            }
            None => blocking(t, rng, mutex, rec),
        },
    }
}

fn blocking(t: usize, rng: &mut Rng, mutex: &Mutex<u64>, rec: &Recorder<Model>) {
    event(rec, t, "LockCall", None);
    let mut guard = mutex.lock();
    event(rec, t, "Lock", Some(ostd::observe::waited()));
    *guard += 1;
    rng.pause();
    event(rec, t, "Unlock", None);
    drop(guard);
}

fn event(rec: &Recorder<Model>, t: usize, action: &str, waited: Option<bool>) {
    rec.emit(|seq, model| {
        match action {
            "Lock" | "TryLock" => {
                assert_eq!(model.holder, None, "{action} by {t} while held: history broken");
                model.holder = Some(t);
            }
            "Unlock" => {
                assert_eq!(model.holder, Some(t), "Unlock by {t} without holding");
                model.holder = None;
            }
            _ => {}
        }
        let state = if model.holder.is_some() { "locked" } else { "unlocked" };
        let waited = waited.map(|w| format!(r#","waited":{w}"#)).unwrap_or_default();
        format!(
            r#"{{"seq":{seq},"thread":{t},"mutex":0,"state":"{state}","action":"{action}","actor":{t}{waited}}}"#
        )
    });
}
