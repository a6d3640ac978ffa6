//! SplitMix64: a small seeded generator, so a seed fixes every thread's script of operations.
//! (The interleaving of the threads is the operating system's and is not fixed by the seed.)

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A short busy wait (or none), for critical sections where the thread may not sleep or yield.
    pub fn busy(&mut self) {
        for _ in 0..self.below(2000) {
            std::hint::spin_loop();
        }
    }

    /// A short random delay: nothing, a yield, a busy spin or a sleep of a few microseconds.
    /// Used between and inside critical sections so that the threads really contend.
    pub fn pause(&mut self) {
        match self.below(4) {
            0 => {}
            1 => std::thread::yield_now(),
            2 => {
                for _ in 0..self.below(2000) {
                    std::hint::spin_loop();
                }
            }
            _ => std::thread::sleep(std::time::Duration::from_micros(self.below(200))),
        }
    }
}

pub fn thread_seed(scenario_seed: u64, thread: usize) -> u64 {
    scenario_seed.wrapping_mul(1_000_003).wrapping_add(thread as u64 + 1)
}
