//! A producer thread and a consumer thread share an upstream `RingBuffer<u32>` of capacity 4.
//! Events follow the benchmark's ring-buffer schema (`Create`, `Split`, `Push`, `PushSlice`,
//! `Pop`, `PopSlice` with head, tail, capacity and success).
//!
//! Observation point of a successful push/pop: our segment stand-in runs a hook when the
//! operation's last item has been copied, i.e. after the free-space/len check and the copy and
//! just before upstream code publishes the new tail/head. Each side's success condition only gets
//! truer when the other side's index moves on, and no index moves between the hook and the
//! store that could be observed by the other side earlier than the hook, so recording the step
//! at the hook gives a valid history. A failed push/pop (success=false) is recorded after it
//! returned, with the history's head/tail at that moment; it changes nothing and gives no window.

use std::sync::{Arc, Barrier};

use ostd::observe;

use crate::{
    record::Recorder,
    rng::{thread_seed, Rng},
    util::ring_buffer::RingBuffer,
};

pub const CAPACITY: usize = 4;

pub struct Model {
    rb: usize,
    head: usize,
    tail: usize,
}

pub fn run(seed: u64, rb_id: usize, ops: usize) -> Vec<String> {
    let rec = Arc::new(Recorder::new(Model { rb: rb_id, head: 0, tail: 0 }));
    let rb = RingBuffer::<u32>::new(CAPACITY);
    event(&rec, "Create", "system", 0, true);
    let (mut producer, mut consumer) = rb.split();
    event(&rec, "Split", "system", 0, true);
    let start = Arc::new(Barrier::new(2));

    let (rec_p, start_p) = (rec.clone(), start.clone());
    let prod = std::thread::spawn(move || {
        let mut rng = Rng::new(thread_seed(seed, 0));
        let mut next = 0u32;
        start_p.wait();
        for _ in 0..ops {
            rng.pause();
            let n = batch(&mut rng);
            let items: Vec<u32> = (next..next + n as u32).collect();
            let (action, ok) = if n == 1 {
                arm(&rec_p, "Push", "producer", 1);
                ("Push", producer.push(items[0]).is_some())
            } else {
                arm(&rec_p, "PushSlice", "producer", n);
                ("PushSlice", producer.push_slice(&items).is_some())
            };
            settle(&rec_p, action, "producer", ok);
            if ok {
                next += n as u32;
            }
        }
    });

    let (rec_c, start_c) = (rec.clone(), start.clone());
    let cons = std::thread::spawn(move || {
        let mut rng = Rng::new(thread_seed(seed, 1));
        let mut expected = 0u32;
        start_c.wait();
        for _ in 0..ops {
            rng.pause();
            let n = batch(&mut rng);
            let (action, got) = if n == 1 {
                arm(&rec_c, "Pop", "consumer", 1);
                ("Pop", consumer.pop().map(|v| vec![v]))
            } else {
                let mut buf = vec![0u32; n];
                arm(&rec_c, "PopSlice", "consumer", n);
                ("PopSlice", consumer.pop_slice(&mut buf).map(|()| buf))
            };
            settle(&rec_c, action, "consumer", got.is_some());
            for v in got.unwrap_or_default() {
                assert_eq!(v, expected, "ring buffer returned items out of order");
                expected += 1;
            }
        }
    });
    prod.join().expect("producer panicked");
    cons.join().expect("consumer panicked");
    Arc::try_unwrap(rec).ok().expect("recorder still shared").into_lines()
}

/// 1 item (push/pop) half the time, else a slice of 2..=4 items (4 = the whole buffer).
fn batch(rng: &mut Rng) -> usize {
    if rng.below(2) == 0 {
        1
    } else {
        2 + rng.below(3) as usize
    }
}

fn arm(rec: &Arc<Recorder<Model>>, action: &'static str, actor: &'static str, n: usize) {
    let rec = rec.clone();
    observe::on_io(n * std::mem::size_of::<u32>(), move || event(&rec, action, actor, n, true));
}

/// After the call: a success must have fired the hook; a failure must not have touched memory.
fn settle(rec: &Recorder<Model>, action: &str, actor: &str, ok: bool) {
    let still_armed = observe::clear_io();
    if ok {
        assert!(!still_armed, "{action} succeeded without copying its items");
    } else {
        assert!(still_armed, "{action} failed after copying items");
        event(rec, action, actor, 0, false);
    }
}

fn event(rec: &Recorder<Model>, action: &str, actor: &str, n: usize, success: bool) {
    rec.emit(|seq, m| {
        if success {
            match actor {
                "producer" => m.tail = m.tail.wrapping_add(n),
                "consumer" => m.head = m.head.wrapping_add(n),
                _ => {}
            }
            assert!(m.tail.wrapping_sub(m.head) <= CAPACITY, "history overfills the buffer");
        }
        format!(
            r#"{{"seq":{seq},"action":"{action}","actor":"{actor}","rb":{},"head":{},"tail":{},"capacity":{CAPACITY},"success":{success}}}"#,
            m.rb, m.head, m.tail
        )
    });
}
