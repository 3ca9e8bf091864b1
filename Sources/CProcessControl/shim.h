// What Swift's Glibc module does not offer: prctl(2), which is variadic, and malloc_trim(3),
// which glibc declares in <malloc.h>; each use the daemon has, made plain.
#ifndef C_PROCESS_CONTROL_SHIM_H
#define C_PROCESS_CONTROL_SHIM_H

#include <malloc.h>
#include <sys/prctl.h>

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

#endif
