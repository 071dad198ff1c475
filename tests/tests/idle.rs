//! An idle process uses no CPU: once its work is done, no queue, executor
//! or pool thread of ferrocl spins. (One test in this process, so that the
//! process's CPU time is ferrocl's alone.)

use ferrocl_tests::*;
use std::time::Duration;

fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[test]
fn an_idle_process_uses_no_cpu() {
    let e = Env::new();
    let (_p, k) = e.kernel(
        "__kernel void add(__global int* p, int v) { p[get_global_id(0)] += v; }",
        "add",
    );
    let n = 1 << 16;
    let a = e.buffer_from(&vec![0i32; n]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    for _ in 0..20 {
        e.run(&k, &[n], None);
    }
    assert_eq!(e.read::<i32>(&a, 0, n), vec![20; n]);
    // Every queue, executor and pool thread now has nothing to do.
    let before = cpu_time();
    std::thread::sleep(Duration::from_millis(500));
    let used = cpu_time() - before;
    assert!(
        used < Duration::from_millis(50),
        "idle for 500 ms, used {used:?} of CPU"
    );
}
