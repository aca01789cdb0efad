//! libtorch's intra-op thread count. The count is per calling thread (OpenMP), and libtorch
//! aborts the process on a count below 1, so every part of the workspace sets it through
//! [`set_intra_op_threads`], which keeps it within 1..=[`MAX_INTRA_OP_THREADS`]. Also the name
//! of the OpenMP variable that says how those threads wait ([`OMP_WAIT_POLICY`]), which the
//! binary sets and the benchmarks report.

/// Environment variable of the OpenMP runtime libtorch uses (GNU libgomp) for how idle worker
/// threads wait. Only the binary sets it (a restart, first thing in `main`); libraries read it.
pub const OMP_WAIT_POLICY: &str = "OMP_WAIT_POLICY";

/// The largest count accepted: more than any machine this runs on has cores. A larger number
/// from a file or a flag is a mistake (OpenMP would try to start that many threads), and
/// configurations refuse it with this bound in the message.
pub const MAX_INTRA_OP_THREADS: u32 = 1024;

/// The count [`set_intra_op_threads`] sets for `threads`: clamped to 1..=[`MAX_INTRA_OP_THREADS`].
pub fn intra_op_thread_count<T: TryInto<i64>>(threads: T) -> i32 {
    let wanted = threads.try_into().unwrap_or(i64::MAX);
    wanted.clamp(1, i64::from(MAX_INTRA_OP_THREADS)) as i32
}

/// Sets the calling thread's libtorch intra-op thread count (clamped, see
/// [`intra_op_thread_count`]) and returns the count set.
pub fn set_intra_op_threads<T: TryInto<i64>>(threads: T) -> i32 {
    let count = intra_op_thread_count(threads);
    tch::set_num_threads(count);
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_out_of_range_are_clamped_not_passed_on() {
        assert_eq!(intra_op_thread_count(0), 1);
        assert_eq!(intra_op_thread_count(-5i32), 1);
        assert_eq!(intra_op_thread_count(3u32), 3);
        assert_eq!(intra_op_thread_count(4_294_967_296u64), 1024);
        assert_eq!(intra_op_thread_count(usize::MAX), 1024);
        assert_eq!(intra_op_thread_count(u64::MAX), 1024);
        // libtorch itself aborts on 0; through the setter the thread keeps running.
        assert_eq!(set_intra_op_threads(0), 1);
        assert_eq!(tch::get_num_threads(), 1);
    }
}
