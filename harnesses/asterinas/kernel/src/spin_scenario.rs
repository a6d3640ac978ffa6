//! Three OS threads contend for one upstream `ostd::sync::SpinLock`. Events follow the benchmark's
//! spin windows: `TryAcquireBlocking` (a thread enters lock() and spins until its compare-and-swap
//! succeeds), `AcquireSuccess` (with `call`: "lock" or "try_lock"), `Release`; ours in addition:
//! `TryAcquireFail` (try_lock() returned None, which changes nothing) and `irq` (the lock was taken
//! through `disable_irq()`, so upstream's `LocalIrqDisabled` guard ran instead of `PreemptDisabled`).
//!
//! Observation points: `TryAcquireBlocking` right before lock() is called; an acquisition right
//! after lock()/try_lock() returned the guard, a release right before the guard is dropped. Each
//! acquisition and release is so recorded while its thread holds the lock, and no other thread can
//! change the lock state between the event and the change it reports. The spinning itself is
//! invisible in upstream code (a bare compare-and-swap loop), so a lock() that wins its first
//! compare-and-swap is still recorded as entering the spin path first. A failed try_lock() is
//! recorded after it returned: its `state` is the recorder's, which may not yet show a holder
//! whose acquisition is still to be recorded; it gives no window.
//!
//! Spinlock holders never sleep or yield (that would be a bug in the kernel, where the guard
//! disables preemption): pauses inside critical sections are busy loops. The recorder's model
//! checks that the events form a valid history.

use std::sync::{Arc, Barrier};

use ostd::sync::{SpinGuardian, SpinLock, SpinLockGuard};

use crate::{
    record::Recorder,
    rng::{thread_seed, Rng},
};

pub const THREADS: usize = 3;

#[derive(Default)]
pub struct Model {
    holder: Option<usize>,
    spinning: [bool; THREADS],
}

pub fn run(seed: u64, ops: usize) -> Vec<String> {
    let rec = Arc::new(Recorder::new(Model::default()));
    let lock = Arc::new(SpinLock::new(0u64));
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (rec, lock, start) = (rec.clone(), lock.clone(), start.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(thread_seed(seed, t));
                start.wait();
                for _ in 0..ops {
                    rng.pause();
                    let irq = rng.below(4) == 0;
                    if irq {
                        one_op(t, &mut rng, lock.disable_irq(), &rec, irq);
                    } else {
                        one_op(t, &mut rng, &lock, &rec, irq);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("spin scenario thread panicked");
    }
    let count = *lock.lock();
    assert!(count <= (THREADS * ops) as u64);
    Arc::try_unwrap(rec).ok().expect("recorder still shared").into_lines()
}

fn one_op<G: SpinGuardian>(
    t: usize,
    rng: &mut Rng,
    lock: &SpinLock<u64, G>,
    rec: &Recorder<Model>,
    irq: bool,
) {
    let ev = |action: &str, call: Option<&str>| event(rec, t, action, call, irq);
    match rng.below(3) {
        0 => {
            ev("TryAcquireBlocking", None);
            let guard = lock.lock();
            ev("AcquireSuccess", Some("lock"));
            critical(t, rng, guard, rec, irq);
        }
        1 => match lock.try_lock() {
            Some(guard) => {
                ev("AcquireSuccess", Some("try_lock"));
                critical(t, rng, guard, rec, irq);
            }
            None => ev("TryAcquireFail", Some("try_lock")),
        },
        _ => match lock.try_lock() {
            Some(guard) => {
                ev("AcquireSuccess", Some("try_lock"));
                critical(t, rng, guard, rec, irq);
            }
            None => {
                ev("TryAcquireFail", Some("try_lock"));
                ev("TryAcquireBlocking", None);
                let guard = lock.lock();
                ev("AcquireSuccess", Some("lock"));
                critical(t, rng, guard, rec, irq);
            }
        },
    }
}

fn critical<G: SpinGuardian>(
    t: usize,
    rng: &mut Rng,
    mut guard: SpinLockGuard<u64, G>,
    rec: &Recorder<Model>,
    irq: bool,
) {
    assert!(ostd::observe::in_atomic_mode(), "a spinlock guard must keep the thread atomic");
    *guard += 1;
    rng.busy();
    event(rec, t, "Release", None, irq);
    drop(guard);
}

fn event(rec: &Recorder<Model>, t: usize, action: &str, call: Option<&str>, irq: bool) {
    rec.emit(|seq, model| {
        match action {
            "TryAcquireBlocking" => {
                assert!(model.holder != Some(t) && !model.spinning[t], "{t} re-enters lock()");
                model.spinning[t] = true;
            }
            "AcquireSuccess" => {
                assert_eq!(model.holder, None, "AcquireSuccess by {t} while held: history broken");
                assert_eq!(model.spinning[t], call == Some("lock"), "{t} acquires outside its call");
                model.spinning[t] = false;
                model.holder = Some(t);
            }
            "Release" => {
                assert_eq!(model.holder, Some(t), "Release by {t} without holding");
                model.holder = None;
            }
            _ => {}
        }
        let state = if model.holder.is_some() { "locked" } else { "unlocked" };
        let call = call.map(|c| format!(r#","call":"{c}""#)).unwrap_or_default();
        format!(
            r#"{{"seq":{seq},"thread":{t},"lock":0,"state":"{state}","action":"{action}","actor":{t}{call},"irq":{irq}}}"#
        )
    });
}
