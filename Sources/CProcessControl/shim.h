// prctl(2) is variadic, which Swift cannot call: the one use the daemon has, made plain.
#ifndef C_PROCESS_CONTROL_SHIM_H
#define C_PROCESS_CONTROL_SHIM_H

#include <sys/prctl.h>

/// Makes the calling process the subreaper of its descendants: an orphan among them is
/// reparented to it rather than to init. Returns 0, or -1 with errno set.
static inline int cprocesscontrol_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

#endif
