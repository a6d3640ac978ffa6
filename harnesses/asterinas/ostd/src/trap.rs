//! Local IRQs cannot be disabled in user space; the guard only marks the thread as in atomic mode
//! (shared counter with the preemption guard) so that sleeping under it is caught.

pub mod irq {
    use crate::task::{atomic_mode, enter_atomic, leave_atomic};

    pub struct DisabledLocalIrqGuard {
        _private: (),
    }

    impl !Send for DisabledLocalIrqGuard {}

    pub fn disable_local() -> DisabledLocalIrqGuard {
        enter_atomic();
        DisabledLocalIrqGuard { _private: () }
    }

    impl Drop for DisabledLocalIrqGuard {
        fn drop(&mut self) {
            leave_atomic();
        }
    }

    impl atomic_mode::InAtomicMode for DisabledLocalIrqGuard {}

    impl atomic_mode::AsAtomicModeGuard for DisabledLocalIrqGuard {
        fn as_atomic_mode_guard(&self) -> &dyn atomic_mode::InAtomicMode {
            self
        }
    }

    impl crate::sync::GuardTransfer for DisabledLocalIrqGuard {
        fn transfer_to(&mut self) -> Self {
            disable_local()
        }
    }
}
