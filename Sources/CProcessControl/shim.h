// What Swift's Glibc module does not offer: prctl(2) and syscall(2), which are variadic,
// malloc_trim(3), which glibc declares in <malloc.h>, and SCHED_IDLE, which it declares for
// _GNU_SOURCE only; each use the daemon has, made plain.
#ifndef C_PROCESS_CONTROL_SHIM_H
#define C_PROCESS_CONTROL_SHIM_H

#include <malloc.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

/// Makes the calling process the subreaper of its descendants: an orphan among them is
/// reparented to it rather than to init. Returns 0, or -1 with errno set.
static inline int cprocesscontrol_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/// Gives the heap's free memory back to the system (every arena, down to what is in use).
/// Returns 1 when some was released.
static inline int cprocesscontrol_release_free_memory(void) {
    return malloc_trim(0);
}

/// Puts the calling thread at SCHED_IDLE, where it runs only on a core nothing else wants;
/// where that is refused, at nice 19. Returns 0 for SCHED_IDLE, 1 for nice 19, -1 for neither.
static inline int cprocesscontrol_run_thread_at_idle_priority(void) {
    struct sched_param parameters = {.sched_priority = 0};
    if (sched_setscheduler(0, SCHED_IDLE, &parameters) == 0) return 0;
    return setpriority(PRIO_PROCESS, 0, 19) == 0 ? 1 : -1;
}

/// The calling thread's id (gettid(2)).
static inline int cprocesscontrol_thread_id(void) {
    return (int)syscall(SYS_gettid);
}

/// Whether thread `tid` runs at SCHED_IDLE.
static inline int cprocesscontrol_thread_is_idle_priority(int tid) {
    return sched_getscheduler(tid) == SCHED_IDLE;
}

#endif
